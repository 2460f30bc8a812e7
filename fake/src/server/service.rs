//! One request: the control API under `/_dynalease/`, an API call, DynamoDB's health check, a
//! CORS preflight, or DynamoDB's 404.

use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::{self, HeaderName};
use hyper::{Method, Request, Response};

use super::exchange;
use super::http::{Answer, BodyError, Headers, Reply, read_body, too_large, wants_close};
use super::options::{ControlAccess, ServeOptions};
use crate::control;
use crate::fake::{self, FakeDynamoDb};

/// What DynamoDB answers a `GET /`.
const HEALTHY: &[u8] = b"healthy: dynamodb.us-east-1.amazonaws.com ";

/// What DynamoDB answers a request that is not an API call: another method than `POST`, or a
/// body that is not JSON by its content type.
const NOT_FOUND: &[u8] = b"<UnknownOperationException/>\n";

/// The JSON content types of API calls. DynamoDB answers in the one the request named, as
/// `application/json` unless it named `application/x-amz-json-1.0`.
const JSON_TYPES: [&str; 2] = ["application/x-amz-json-1.0", "application/json"];

/// What every request of a server shares.
#[derive(Debug)]
pub(super) struct Context {
    fake: FakeDynamoDb,
    control: control::Control,
}

impl Context {
    pub(super) fn new(fake: FakeDynamoDb, options: &ServeOptions, on_loopback: bool) -> Context {
        let enabled = match options.control {
            ControlAccess::On => true,
            ControlAccess::Off => false,
            ControlAccess::Loopback => on_loopback,
        };
        Context { fake, control: control::Control::new(enabled, options.data.clone()) }
    }
}

/// A lost answer: the connection closes without one.
#[derive(Debug)]
pub(super) struct Lost;

impl std::fmt::Display for Lost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the answer is lost")
    }
}

impl std::error::Error for Lost {}

/// Answers one request.
pub(super) async fn answer(context: Arc<Context>, request: Request<Incoming>) -> Result<Response<Answer>, Lost> {
    let fake = &context.fake;
    let (parts, body) = request.into_parts();
    let close = wants_close(parts.version, &parts.headers);
    if parts.uri.path().starts_with(control::PREFIX) {
        let body = match read_body(&parts.headers, body).await {
            Ok(body) => body,
            Err(BodyError::TooLarge) => return Ok(too_large(fake.now())),
            Err(BodyError::Broken) => return Err(Lost),
        };
        let (status, json) = context.control.answer(fake, &parts.method, &parts.uri, &body);
        let reply = Reply { status, content_type: "application/json", request_id: None, body: json, close };
        return Ok(reply.into_response(fake.now(), &[], false));
    }
    let headers = Headers::of(&parts.uri, &parts.headers);
    let cors = cors_headers(&headers, &parts.method);
    let not_found = || Reply { status: 404, content_type: "", request_id: None, body: NOT_FOUND.to_vec(), close };
    let (reply, head_only) = match parts.method {
        Method::POST => {
            let body = match read_body(&parts.headers, body).await {
                Ok(body) => body,
                Err(BodyError::TooLarge) => return Ok(too_large(fake.now())),
                Err(BodyError::Broken) => return Err(Lost),
            };
            let media_type = headers.content_type.split(';').next().unwrap_or("").trim();
            let json_type = JSON_TYPES.iter().find(|t| t.eq_ignore_ascii_case(media_type));
            if body.is_empty() || json_type.is_some() {
                let content_type = json_type.map_or(JSON_TYPES[1], |t| t);
                match exchange::answer(fake, &headers, &body).await {
                    fake::Reply::Http { status, body, request_id } => {
                        let request_id = request_id.to_string();
                        let reply = Reply { status, content_type, request_id: Some(&request_id), body, close };
                        return Ok(reply.into_response(fake.now(), &cors, false));
                    }
                    fake::Reply::Lost => return Err(Lost),
                }
            }
            (not_found(), false)
        }
        // DynamoDB's health check is `GET /` alone; any other path is not found (ScyllaDB's
        // Alternator suite, against DynamoDB).
        Method::GET | Method::HEAD if headers.at_root => {
            let reply =
                Reply { status: 200, content_type: "text/plain", request_id: None, body: HEALTHY.to_vec(), close };
            (reply, parts.method == Method::HEAD)
        }
        Method::OPTIONS if headers.origin => {
            (Reply { status: 200, content_type: "", request_id: None, body: Vec::new(), close }, false)
        }
        _ => (not_found(), false),
    };
    let request_id = fake.request_id().to_string();
    Ok(Reply { request_id: Some(&request_id), ..reply }.into_response(fake.now(), &cors, head_only))
}

/// The CORS headers of an answer to a request from a browser (one with an `Origin`): any origin
/// is allowed, and a preflight gets back the headers and method it asked for.
fn cors_headers(headers: &Headers, method: &Method) -> Vec<(HeaderName, String)> {
    let mut out = Vec::new();
    if !headers.origin {
        return out;
    }
    out.push((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".to_owned()));
    if method != Method::OPTIONS {
        return out;
    }
    if let Some(requested) = &headers.cors_headers {
        out.push((header::ACCESS_CONTROL_ALLOW_HEADERS, requested.clone()));
    }
    if let Some(requested) = &headers.cors_method {
        out.push((header::ACCESS_CONTROL_ALLOW_METHODS, requested.clone()));
    }
    out.push((header::ACCESS_CONTROL_MAX_AGE, "172800".to_owned()));
    out
}
