//! One HTTP request to one HTTP response: the operation from `X-Amz-Target`, the body within
//! DynamoDB's request limit, the faults the request meets, and the headers SDKs check.

use std::fmt;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::{Body, Incoming};
use hyper::header::{CONNECTION, CONTENT_TYPE, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

use crate::fake::{FakeDynamoDb, Reply};

/// DynamoDB's limit on the size of a request body: 16 MB.
pub(super) const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The prefix of every `X-Amz-Target` of DynamoDB.
const TARGET_PREFIX: &str = "DynamoDB_20120810.";

const AMZ_JSON: HeaderValue = HeaderValue::from_static("application/x-amz-json-1.0");
const X_AMZ_TARGET: HeaderName = HeaderName::from_static("x-amz-target");
const X_AMZN_REQUEST_ID: HeaderName = HeaderName::from_static("x-amzn-requestid");
const X_AMZ_CRC32: HeaderName = HeaderName::from_static("x-amz-crc32");

/// What DynamoDB answers a `GET /`.
const HEALTHY: &[u8] = b"healthy: dynamodb.us-east-1.amazonaws.com ";

/// The answer to a request must not be sent: the connection is dropped instead, either because
/// a fault lost it or because the client went away while sending the body.
#[derive(Debug)]
pub(super) struct Dropped;

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the connection is dropped without an answer")
    }
}

impl std::error::Error for Dropped {}

/// Answers one request, or drops the connection when the fake says the answer is lost.
pub(super) async fn answer(fake: FakeDynamoDb, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Dropped> {
    let (parts, body) = request.into_parts();
    if parts.method != Method::POST {
        return Ok(not_an_api_call(&parts.method));
    }
    if body.size_hint().lower() > MAX_BODY_BYTES as u64 {
        return Ok(too_large());
    }
    let body = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) if error.is::<LengthLimitError>() => return Ok(too_large()),
        Err(_) => return Err(Dropped),
    };
    let target = parts.headers.get(X_AMZ_TARGET).and_then(|value| value.to_str().ok()).unwrap_or("");
    let operation = target.strip_prefix(TARGET_PREFIX).unwrap_or(target);
    let drawn = fake.draw_faults(operation, &body, None);
    if let Some(latency) = drawn.latency {
        fake.clock().sleep(latency).await;
    }
    match fake.answer(operation, &body, None, &drawn) {
        Reply::Http { status, body, request_id } => Ok(json_response(status, body, request_id)),
        Reply::Lost => Err(Dropped),
    }
}

/// A JSON answer with the headers an SDK reads and checks.
fn json_response(status: u16, body: Vec<u8>, request_id: String) -> Response<Full<Bytes>> {
    let crc32 = crc32fast::hash(&body);
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, AMZ_JSON);
    if let Ok(request_id) = HeaderValue::try_from(request_id) {
        headers.insert(X_AMZN_REQUEST_ID, request_id);
    }
    headers.insert(X_AMZ_CRC32, HeaderValue::from(crc32));
    response
}

/// 413 for a body over DynamoDB's limit; the connection closes, so the rest of the body is
/// never read.
fn too_large() -> Response<Full<Bytes>> {
    let body = format!(
        r#"{{"__type":"com.amazon.coral.service#RequestEntityTooLargeException","message":"Request body must be at most {MAX_BODY_BYTES} bytes"}}"#
    );
    let crc32 = crc32fast::hash(body.as_bytes());
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, AMZ_JSON);
    headers.insert(X_AMZ_CRC32, HeaderValue::from(crc32));
    headers.insert(CONNECTION, HeaderValue::from_static("close"));
    response
}

/// `GET` (any path) answers as DynamoDB's health check does; any other method but `POST` is 405.
fn not_an_api_call(method: &Method) -> Response<Full<Bytes>> {
    if method == Method::GET || method == Method::HEAD {
        let mut response = Response::new(Full::new(Bytes::from_static(HEALTHY)));
        response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        return response;
    }
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
    response.headers_mut().insert(hyper::header::ALLOW, HeaderValue::from_static("GET, POST"));
    response
}
