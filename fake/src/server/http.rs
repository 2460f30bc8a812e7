//! The HTTP that SDKs speak to DynamoDB, on top of hyper: what the server reads of a request's
//! head, its body read whole up to DynamoDB's limit, and the headers every answer carries.
//!
//! - [`Headers`]: the request headers the server reads.
//! - [`read_body`]: a request body, up to [`MAX_BODY_BYTES`].
//! - [`Answer`]: an answer's body, of a known length, or empty and chunked.
//! - [`respond`]: an answer with its `x-amz-crc32`, request id and `Date`.

use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::header::{self, HeaderMap, HeaderName, HeaderValue};
use hyper::{Response, StatusCode};

use crate::clock::{epoch_secs, tokio_sleep};

/// DynamoDB's limit on the size of a request body: 16 MB.
pub(super) const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The largest request head (request line and headers) read before refusing with 431.
pub(super) const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The most headers a request may carry.
pub(super) const MAX_HEADERS: usize = 64;

/// How long a refused request's connection waits for more of its body before it gives up on it.
const DRAIN_PAUSE: Duration = Duration::from_millis(500);

/// The most bytes of a refused request's body read and dropped.
const DRAIN_BYTES: usize = 2 * MAX_BODY_BYTES;

/// `x-amz-target`.
pub(super) static X_AMZ_TARGET: HeaderName = HeaderName::from_static("x-amz-target");
static X_AMZ_DATE: HeaderName = HeaderName::from_static("x-amz-date");
static X_AMZ_CRC32: HeaderName = HeaderName::from_static("x-amz-crc32");
static X_AMZN_REQUEST_ID: HeaderName = HeaderName::from_static("x-amzn-requestid");

/// The headers of a request that the server reads.
#[derive(Debug, Default)]
pub(super) struct Headers {
    /// `X-Amz-Target`.
    pub(super) target: String,
    /// The query string of the request's path, without the `?`.
    pub(super) query: String,
    /// Whether the path is the root, `/` (with or without a query string).
    pub(super) at_root: bool,
    /// `Content-Type`; empty if absent.
    pub(super) content_type: String,
    /// `Authorization`.
    pub(super) authorization: Option<String>,
    /// Whether an `X-Amz-Date` or a `Date` header came with the request.
    pub(super) dated: bool,
    /// Whether an `Origin` header came with the request.
    pub(super) origin: bool,
    /// `Access-Control-Request-Headers`, of a CORS preflight.
    pub(super) cors_headers: Option<String>,
    /// `Access-Control-Request-Method`, of a CORS preflight.
    pub(super) cors_method: Option<String>,
}

impl Headers {
    /// What the server reads of a request's URI and headers.
    pub(super) fn of(uri: &hyper::Uri, headers: &HeaderMap) -> Headers {
        let text =
            |name: &HeaderName| headers.get(name).map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        let dated = [&X_AMZ_DATE, &header::DATE]
            .into_iter()
            .any(|name| headers.get_all(name).iter().any(|value| !value.is_empty()));
        Headers {
            target: headers.get(&X_AMZ_TARGET).and_then(|value| value.to_str().ok()).unwrap_or("").to_owned(),
            query: uri.query().unwrap_or("").to_owned(),
            at_root: uri.path() == "/",
            content_type: headers
                .get(header::CONTENT_TYPE)
                .and_then(|value| value.to_str().ok())
                .unwrap_or("")
                .to_owned(),
            authorization: text(&header::AUTHORIZATION),
            dated,
            origin: headers.contains_key(header::ORIGIN),
            cors_headers: text(&header::ACCESS_CONTROL_REQUEST_HEADERS),
            cors_method: text(&header::ACCESS_CONTROL_REQUEST_METHOD),
        }
    }
}

/// Whether the connection closes after the answer to a request with these headers: HTTP/1.0
/// without `Connection: keep-alive`, or any request with `Connection: close`.
pub(super) fn wants_close(version: hyper::Version, headers: &HeaderMap) -> bool {
    let tokens = || {
        headers
            .get_all(header::CONNECTION)
            .iter()
            .flat_map(|value| value.as_bytes().split(|&b| b == b','))
            .map(<[u8]>::trim_ascii)
            .collect::<Vec<_>>()
    };
    let has = |token: &[u8]| tokens().iter().any(|t| t.eq_ignore_ascii_case(token));
    has(b"close") || (version == hyper::Version::HTTP_10 && !has(b"keep-alive"))
}

/// Why a body was not read whole.
#[derive(Debug)]
pub(super) enum BodyError {
    /// Over [`MAX_BODY_BYTES`]: the answer is 413, and the rest of the body is read and dropped.
    TooLarge,
    /// The connection failed in the middle of the body: nothing can be answered.
    Broken,
}

/// A request's body, whole, or why not. A body declared or found over DynamoDB's limit is
/// refused without being kept: what the client still sends is read and dropped in the
/// background, so that the connection does not reset before the client reads the 413.
pub(super) async fn read_body(headers: &HeaderMap, mut body: Incoming) -> Result<Vec<u8>, BodyError> {
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|value| value.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        drain(body, 0);
        return Err(BodyError::TooLarge);
    }
    let mut bytes = Vec::with_capacity(declared.map_or(0, |length| length as usize));
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyError::Broken)?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > MAX_BODY_BYTES {
                drain(body, bytes.len() + data.len());
                return Err(BodyError::TooLarge);
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes)
}

/// Reads and drops the rest of a refused body, in the background: until the client stops, pauses
/// for [`DRAIN_PAUSE`], or has sent [`DRAIN_BYTES`] in all (`read` of them already).
fn drain(mut body: Incoming, mut read: usize) {
    tokio::spawn(async move {
        while read < DRAIN_BYTES {
            let frame = tokio::select! {
                biased;
                frame = body.frame() => frame,
                () = tokio_sleep(DRAIN_PAUSE) => return,
            };
            match frame {
                Some(Ok(frame)) => read += frame.data_ref().map_or(0, Bytes::len),
                _ => return,
            }
        }
    });
}

/// The body of an answer: bytes of a known length, or empty and of no stated length (written
/// chunked: DynamoDB's 413).
#[derive(Debug)]
pub(super) enum Answer {
    Full(Option<Bytes>),
    Unsized,
}

impl Body for Answer {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            Answer::Full(bytes) => Poll::Ready(bytes.take().filter(|b| !b.is_empty()).map(|b| Ok(Frame::data(b)))),
            Answer::Unsized => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Answer::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Answer::Full(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64)),
            Answer::Unsized => SizeHint::default(),
        }
    }
}

/// One answer: its status, `Content-Type` (none if empty), request id, body and whether the
/// connection closes after it, with `x-amz-crc32` of the body and `date` (the fake's time).
pub(super) struct Reply<'a> {
    pub(super) status: u16,
    pub(super) content_type: &'static str,
    pub(super) request_id: Option<&'a str>,
    pub(super) body: Vec<u8>,
    pub(super) close: bool,
}

impl Reply<'_> {
    /// The answer, with `cors` headers added; `head_only` leaves out the body (a `HEAD`), keeping
    /// its length.
    pub(super) fn into_response(
        self,
        now: SystemTime,
        cors: &[(HeaderName, String)],
        head_only: bool,
    ) -> Response<Answer> {
        let crc32 = crc32fast::hash(&self.body);
        let length = self.body.len();
        let body = if head_only { Answer::Full(None) } else { Answer::Full(Some(Bytes::from(self.body))) };
        let mut response = Response::new(body);
        *response.status_mut() = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let headers = response.headers_mut();
        if head_only {
            headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
        }
        headers.insert(X_AMZ_CRC32.clone(), HeaderValue::from(crc32));
        if !self.content_type.is_empty() {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(self.content_type));
        }
        if let Some(id) = self.request_id.and_then(|id| HeaderValue::from_str(id).ok()) {
            headers.insert(X_AMZN_REQUEST_ID.clone(), id);
        }
        headers.insert(header::DATE, date_value(now));
        for (name, value) in cors {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.insert(name.clone(), value);
            }
        }
        if self.close {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

/// DynamoDB's answer to a body over its limit: 413 with an empty chunked body; the connection
/// closes after it.
pub(super) fn too_large(now: SystemTime) -> Response<Answer> {
    let mut response = Response::new(Answer::Unsized);
    *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
    response.headers_mut().insert(header::DATE, date_value(now));
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

thread_local! {
    /// The `Date` of the thread's latest answer, formatted once per second.
    static DATE: std::cell::RefCell<DateHeader> = std::cell::RefCell::new(DateHeader::default());
}

/// `now` as a `Date` header value.
fn date_value(now: SystemTime) -> HeaderValue {
    DATE.with_borrow_mut(|date| HeaderValue::from_bytes(date.at(now)).unwrap_or_else(|_| HeaderValue::from_static("")))
}

/// The `Date` header of a thread's answers, formatted once per second.
#[derive(Debug, Default)]
struct DateHeader {
    secs: Option<u64>,
    text: Vec<u8>,
}

impl DateHeader {
    /// `now` as an IMF-fixdate, for example `Sun, 06 Nov 1994 08:49:37 GMT`.
    fn at(&mut self, now: SystemTime) -> &[u8] {
        let secs = epoch_secs(now);
        if self.secs != Some(secs) {
            self.secs = Some(secs);
            self.text.clear();
            let (year, month, day) = crate::clock::civil_from_days((secs / 86_400) as i64);
            const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
            const MONTHS: [&str; 12] =
                ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
            let time_of_day = secs % 86_400;
            let _ = write!(
                self.text,
                "{}, {:02} {} {} {:02}:{:02}:{:02} GMT",
                WEEKDAYS[((secs / 86_400) % 7) as usize],
                day,
                MONTHS[(month - 1) as usize],
                year,
                time_of_day / 3600,
                time_of_day / 60 % 60,
                time_of_day % 60,
            );
        }
        &self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_imf_fixdates() {
        let mut date = DateHeader::default();
        let at = |secs| SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        assert_eq!(date.at(at(0)), b"Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(date.at(at(784_111_777)), b"Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(date.at(at(951_825_600)), b"Tue, 29 Feb 2000 12:00:00 GMT");
        assert_eq!(date.at(at(4_107_542_399)), b"Sun, 28 Feb 2100 23:59:59 GMT");
    }
}
