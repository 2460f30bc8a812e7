//! One connection while a worker holds it: its requests read in turn with blocking reads, each
//! answered before the next is read, until it is idle for a moment, closes, or the server stops.
//!
//! Blocking reads cost the fewest system calls and wake-ups per request (one `read` that sleeps,
//! one `write`), which is most of the server's CPU time per operation; the engine itself takes a
//! lock per request anyway.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use super::Shared;
use super::exchange;
use super::http::{DateHeader, Headers, MAX_BODY_BYTES, Method, ReadError, Refusal, RequestReader, Response};
use crate::control;
use crate::fake::Reply;

/// What DynamoDB answers a `GET /`.
const HEALTHY: &[u8] = b"healthy: dynamodb.us-east-1.amazonaws.com ";

/// What DynamoDB answers a request that is not an API call: another method than `POST`, or a
/// body that is not JSON by its content type.
const NOT_FOUND: &[u8] = b"<UnknownOperationException/>\n";

/// The JSON content types of API calls. DynamoDB answers in the one the request named, as
/// `application/json` unless it named `application/x-amz-json-1.0`.
const JSON_TYPES: [&str; 2] = ["application/x-amz-json-1.0", "application/json"];

/// How long a refused request's connection waits for more of its body before it closes.
const DRAIN_PAUSE: Duration = Duration::from_millis(500);

/// The most bytes a refused request's connection reads and drops before it closes.
const DRAIN_BYTES: usize = 2 * MAX_BODY_BYTES;

/// How a worker's time with a connection ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// No next request came within the socket's read timeout: the connection waits for one
    /// without a worker.
    Idle,
    /// The connection is done: the client closed it, a request asked to close it, a fault lost
    /// an answer, or it failed.
    Closed,
}

/// Serves the requests of `stream`, whose read timeout is `linger`, until it is idle for that
/// long between two requests, the client closes it, a request asks to close it, or a fault loses
/// an answer. In the middle of a request it waits for the rest up to the server's idle timeout.
pub(super) fn run(shared: &Shared, stream: &mut TcpStream, linger: Duration) -> Ending {
    let fake = &shared.fake;
    let patience = (shared.idle_timeout.as_millis() / linger.as_millis().max(1)).min(u128::from(u32::MAX)) as u32;
    let mut reader = RequestReader::new(patience);
    let mut headers = Headers::default();
    let mut out = Vec::with_capacity(1024);
    let mut date = DateHeader::default();
    let mut cors = String::new();
    loop {
        out.clear();
        let keep_alive = match reader.read(stream, &mut headers) {
            Ok(None) | Err(ReadError::Io) => return Ending::Closed,
            Err(ReadError::Idle) => return Ending::Idle,
            Err(ReadError::Refused(refusal)) => {
                refused(refusal, &mut out, date.at(fake.now()));
                let _ = stream.write_all(&out);
                let _ = stream.shutdown(Shutdown::Write);
                drain(stream);
                return Ending::Closed;
            }
            Ok(Some(request)) => {
                let keep_alive = request.keep_alive;
                let close = !keep_alive;
                cors_headers(&headers, request.method, &mut cors);
                let date = date.at(fake.now());
                let media_type = headers.content_type.split(';').next().unwrap_or("").trim();
                let json_type = JSON_TYPES.iter().find(|t| t.eq_ignore_ascii_case(media_type));
                if control::is_under_prefix(&headers.path) {
                    let query = Some(headers.query.as_str()).filter(|query| !query.is_empty());
                    let (status, body) =
                        shared.control.answer(fake, &headers.method, &headers.path, query, request.body);
                    let response = Response {
                        status,
                        content_type: "application/json",
                        request_id: None,
                        extra_headers: "",
                        body: &body,
                        close,
                    };
                    response.encode(&mut out, date, false);
                    if stream.write_all(&out).is_err() || !keep_alive {
                        return Ending::Closed;
                    }
                    continue;
                }
                match request.method {
                    Method::Post if request.body.is_empty() || json_type.is_some() => {
                        let content_type = json_type.map_or(JSON_TYPES[1], |t| t);
                        match exchange::answer(fake, &shared.runtime, &headers, request.body) {
                            Reply::Http { status, body, request_id } => {
                                let request_id = request_id.to_string();
                                let response = Response {
                                    status,
                                    content_type,
                                    request_id: Some(&request_id),
                                    extra_headers: &cors,
                                    body: &body,
                                    close,
                                };
                                response.encode(&mut out, date, false);
                            }
                            Reply::Lost => {
                                let _ = stream.shutdown(Shutdown::Both);
                                return Ending::Closed;
                            }
                        }
                    }
                    // DynamoDB's health check is `GET /` alone; any other path is not found
                    // (ScyllaDB's Alternator suite, against DynamoDB).
                    Method::Get | Method::Head if headers.at_root => {
                        let request_id = fake.request_id().to_string();
                        let response = Response {
                            status: 200,
                            content_type: "text/plain",
                            request_id: Some(&request_id),
                            extra_headers: &cors,
                            body: HEALTHY,
                            close,
                        };
                        response.encode(&mut out, date, request.method == Method::Head);
                    }
                    Method::Options if headers.origin => {
                        let request_id = fake.request_id().to_string();
                        let response = Response {
                            status: 200,
                            content_type: "",
                            request_id: Some(&request_id),
                            extra_headers: &cors,
                            body: b"",
                            close,
                        };
                        response.encode(&mut out, date, false);
                    }
                    _ => {
                        let request_id = fake.request_id().to_string();
                        let response = Response {
                            status: 404,
                            content_type: "",
                            request_id: Some(&request_id),
                            extra_headers: &cors,
                            body: NOT_FOUND,
                            close,
                        };
                        response.encode(&mut out, date, false);
                    }
                }
                keep_alive
            }
        };
        if stream.write_all(&out).is_err() || !keep_alive {
            return Ending::Closed;
        }
    }
}

/// The CORS headers of an answer to a request from a browser (one with an `Origin`): any origin
/// is allowed, and a preflight gets back the headers and method it asked for.
fn cors_headers(headers: &Headers, method: Method, out: &mut String) {
    out.clear();
    if !headers.origin {
        return;
    }
    out.push_str("access-control-allow-origin: *\r\n");
    if method != Method::Options {
        return;
    }
    if let Some(requested) = &headers.cors_headers {
        out.push_str(&format!("access-control-allow-headers: {requested}\r\n"));
    }
    if let Some(requested) = &headers.cors_method {
        out.push_str(&format!("access-control-allow-methods: {requested}\r\n"));
    }
    out.push_str("access-control-max-age: 172800\r\n");
}

/// The answer to a request the reader refused; the connection closes after it.
fn refused(refusal: Refusal, out: &mut Vec<u8>, date: &[u8]) {
    let status = match refusal {
        Refusal::BadRequest => 400,
        Refusal::HeadersTooLarge => 431,
        Refusal::PayloadTooLarge => {
            // DynamoDB answers a body over its limit with an empty chunked body.
            out.extend_from_slice(b"HTTP/1.1 413 Payload Too Large\r\ntransfer-encoding: chunked\r\ndate: ");
            out.extend_from_slice(date);
            out.extend_from_slice(b"\r\nconnection: close\r\n\r\n0\r\n\r\n");
            return;
        }
    };
    let response =
        Response { status, content_type: "text/plain", request_id: None, extra_headers: "", body: b"", close: true };
    response.encode(out, date, false);
}

/// Reads and drops what the client still sends after a refusal, so that closing the connection
/// does not reset it before the client has read the answer: until the client closes, pauses for
/// [`DRAIN_PAUSE`], or has sent [`DRAIN_BYTES`].
fn drain(stream: &mut TcpStream) {
    if stream.set_read_timeout(Some(DRAIN_PAUSE)).is_err() {
        return;
    }
    let mut sink = vec![0u8; 64 * 1024];
    let mut drained = 0;
    while drained < DRAIN_BYTES {
        match stream.read(&mut sink) {
            Ok(0) | Err(_) => return,
            Ok(n) => drained += n,
        }
    }
}
