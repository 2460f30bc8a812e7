//! One connection: its requests read in turn on a thread of its own, each answered before the
//! next is read.
//!
//! A blocking thread per connection costs the fewest system calls and wake-ups per request (one
//! `read` that sleeps, one `write`), which is most of the server's CPU time per operation; the
//! engine itself takes a lock per request anyway.

use std::io::Write;
use std::net::{Shutdown, TcpStream};

use tokio::runtime::Handle;

use super::exchange;
use super::http::{DateHeader, Method, ReadError, Refusal, RequestReader, Response};
use crate::fake::{FakeDynamoDb, Reply};

/// What DynamoDB answers a `GET /`.
const HEALTHY: &[u8] = b"healthy: dynamodb.us-east-1.amazonaws.com ";

/// Serves the requests of `stream` until the client closes it, a request asks to close it, or a
/// fault loses an answer.
pub(super) fn run(fake: &FakeDynamoDb, mut stream: TcpStream, runtime: &Handle) {
    let mut reader = RequestReader::new();
    let mut target = String::new();
    let mut out = Vec::with_capacity(1024);
    let mut date = DateHeader::default();
    loop {
        out.clear();
        let keep_alive = match reader.read(&mut stream, &mut target) {
            Ok(None) | Err(ReadError::Io) => return,
            Err(ReadError::Refused(refusal)) => {
                refused(refusal).encode(&mut out, date.at(fake.now()), false);
                let _ = stream.write_all(&out);
                let _ = stream.shutdown(Shutdown::Write);
                return;
            }
            Ok(Some(request)) => {
                let keep_alive = request.keep_alive;
                match request.method {
                    Method::Post => match exchange::answer(fake, runtime, &target, request.body) {
                        Reply::Http { status, body, request_id } => {
                            let response = Response {
                                status,
                                content_type: Response::AMZ_JSON,
                                request_id: Some(&request_id),
                                extra_headers: "",
                                body: &body,
                                close: !keep_alive,
                            };
                            response.encode(&mut out, date.at(fake.now()), false);
                        }
                        Reply::Lost => {
                            let _ = stream.shutdown(Shutdown::Both);
                            return;
                        }
                    },
                    method => health(method, keep_alive).encode(&mut out, date.at(fake.now()), method == Method::Head),
                }
                keep_alive
            }
        };
        if stream.write_all(&out).is_err() || !keep_alive {
            return;
        }
    }
}

/// The answer to a `GET` or `HEAD` (DynamoDB's health check), or 405 for another method.
fn health(method: Method, keep_alive: bool) -> Response<'static> {
    let allowed = matches!(method, Method::Get | Method::Head);
    Response {
        status: if allowed { 200 } else { 405 },
        content_type: "text/plain",
        request_id: None,
        extra_headers: if allowed { "" } else { "allow: GET, HEAD, POST\r\n" },
        body: if allowed { HEALTHY } else { b"" },
        close: !keep_alive,
    }
}

/// The answer to a request the reader refused; the connection closes after it.
fn refused(refusal: Refusal) -> Response<'static> {
    let (status, body): (u16, &'static [u8]) = match refusal {
        Refusal::BadRequest => (400, b""),
        Refusal::HeadersTooLarge => (431, b""),
        Refusal::PayloadTooLarge => (
            413,
            br#"{"__type":"com.amazon.coral.service#RequestEntityTooLargeException","message":"Request body must be at most 16777216 bytes"}"#,
        ),
    };
    let content_type = if body.is_empty() { "text/plain" } else { Response::AMZ_JSON };
    Response { status, content_type, request_id: None, extra_headers: "", body, close: true }
}
