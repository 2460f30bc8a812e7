//! HTTP/1.1 on a blocking socket, as much of it as an SDK speaks to DynamoDB: one request at a
//! time per connection (pipelined ones are read in turn), a body framed by `Content-Length` or
//! chunked, `Expect: 100-continue`, keep-alive; and responses written in one `write`.
//!
//! - [`RequestReader`]: reads the next request of a connection into buffers it reuses.
//! - [`Response`]: encodes an answer, with its `x-amz-crc32` and `Date`.

use std::io::{self, Read, Write};
use std::time::SystemTime;

use crate::clock::epoch_secs;

/// DynamoDB's limit on the size of a request body: 16 MB.
pub(super) const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The largest request head (request line and headers) read before refusing with 431.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The most headers a request may carry.
const MAX_HEADERS: usize = 64;

/// What the read buffer starts at, and shrinks back to after a large request.
const BUFFER_BYTES: usize = 8 * 1024;

/// A request the reader refuses; the connection closes after the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// 400: not HTTP/1.x, or a framing that cannot be trusted.
    BadRequest,
    /// 413: a body over [`MAX_BODY_BYTES`].
    PayloadTooLarge,
    /// 431: a head over [`MAX_HEAD_BYTES`] or with too many headers.
    HeadersTooLarge,
}

/// Why no request could be read.
#[derive(Debug)]
pub(super) enum ReadError {
    /// The request is refused with an answer.
    Refused(Refusal),
    /// The connection failed or closed in the middle of a request: nothing can be answered.
    Io,
    /// No byte of a next request came within the socket's read timeout: the connection is idle.
    Idle,
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> Self {
        ReadError::Io
    }
}

/// Whether a read failed only because the socket's read timeout passed.
fn timed_out(error: &io::Error) -> bool {
    matches!(error.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}

/// The method of a request, as far as the server cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// An API call.
    Post,
    /// A health check.
    Get,
    /// A health check without a body in the answer.
    Head,
    /// A CORS preflight, if it names an origin.
    Options,
    /// Anything else: not found.
    Other,
}

/// The request line and headers of a request that the server reads, reused from one request to
/// the next.
#[derive(Debug, Default)]
pub(super) struct Headers {
    /// The method, as the request spelled it.
    pub(super) method: String,
    /// The path, without its query string.
    pub(super) path: String,
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
    fn clear(&mut self) {
        self.method.clear();
        self.path.clear();
        self.target.clear();
        self.query.clear();
        self.at_root = false;
        self.content_type.clear();
        self.authorization = None;
        self.dated = false;
        self.origin = false;
        self.cors_headers = None;
        self.cors_method = None;
    }
}

/// One request: the parts the server reads. The body borrows the reader's buffers.
#[derive(Debug)]
pub(super) struct Request<'a> {
    pub(super) method: Method,
    /// Whether the connection stays open after the answer.
    pub(super) keep_alive: bool,
    pub(super) body: &'a [u8],
}

/// How the body of a request is framed.
#[derive(Debug, Clone, Copy)]
enum Framing {
    Length(usize),
    Chunked,
}

/// Reads the requests of one connection, reusing its buffers from one request to the next.
#[derive(Debug)]
pub(super) struct RequestReader {
    /// How many read timeouts in a row the middle of a request may take before the connection
    /// is given up as stalled.
    patience: u32,
    /// Bytes read from the socket; `buf[start..end]` are not consumed yet.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The decoded body of a chunked request.
    chunked: Vec<u8>,
    /// Bytes of `buf` that the last request took, consumed when the next one is read.
    taken: usize,
}

impl RequestReader {
    /// A reader whose socket's read timeout, if it has one, may pass `patience` times in a row in
    /// the middle of a request (between requests, once is idle).
    pub(super) fn new(patience: u32) -> Self {
        RequestReader { patience, buf: vec![0; BUFFER_BYTES], start: 0, end: 0, chunked: Vec::new(), taken: 0 }
    }

    /// The next request, with the headers the server reads in `headers`; `None` once the client
    /// has closed the connection between requests.
    pub(super) fn read<S: Read + Write>(
        &mut self,
        stream: &mut S,
        headers: &mut Headers,
    ) -> Result<Option<Request<'_>>, ReadError> {
        self.consume();
        let Some(head) = self.read_head(stream, headers)? else { return Ok(None) };
        self.start += head.len;
        let body = match head.framing {
            Framing::Length(length) => {
                if head.expect_continue && self.end - self.start < length {
                    stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
                }
                self.fill_to(stream, length)?;
                self.taken = length;
                &self.buf[self.start..self.start + length]
            }
            Framing::Chunked => {
                if head.expect_continue && self.end == self.start {
                    stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
                }
                self.read_chunked(stream)?;
                &self.chunked[..]
            }
        };
        Ok(Some(Request { method: head.method, keep_alive: head.keep_alive, body }))
    }

    /// Forgets the request read last, and gives back memory a large one took.
    fn consume(&mut self) {
        self.start += std::mem::take(&mut self.taken);
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
            if self.buf.len() > 8 * BUFFER_BYTES {
                self.buf = vec![0; BUFFER_BYTES];
            }
        }
        if self.chunked.capacity() > 8 * BUFFER_BYTES {
            self.chunked = Vec::new();
        }
        self.chunked.clear();
    }

    /// Reads and parses the request line and headers.
    fn read_head<S: Read>(&mut self, stream: &mut S, read: &mut Headers) -> Result<Option<Head>, ReadError> {
        loop {
            if self.end > self.start {
                let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
                let mut request = httparse::Request::new(&mut headers);
                match request.parse(&self.buf[self.start..self.end]) {
                    Ok(httparse::Status::Complete(len)) => return Head::of(&request, len, read).map(Some),
                    Ok(httparse::Status::Partial) => {}
                    Err(httparse::Error::TooManyHeaders) => return Err(ReadError::Refused(Refusal::HeadersTooLarge)),
                    Err(_) => return Err(ReadError::Refused(Refusal::BadRequest)),
                }
                if self.end - self.start >= MAX_HEAD_BYTES {
                    return Err(ReadError::Refused(Refusal::HeadersTooLarge));
                }
            }
            let idle = self.end == self.start;
            let read = match self.read_once(stream, MAX_HEAD_BYTES) {
                Err(error) if idle && timed_out(&error) => return Err(ReadError::Idle),
                Err(error) if timed_out(&error) => self.read_more(stream, MAX_HEAD_BYTES)?,
                read => read?,
            };
            if read == 0 {
                return if idle { Ok(None) } else { Err(ReadError::Io) };
            }
        }
    }

    /// Reads until `buf[start..]` holds at least `wanted` bytes.
    fn fill_to<S: Read>(&mut self, stream: &mut S, wanted: usize) -> Result<(), ReadError> {
        while self.end - self.start < wanted {
            if self.read_more(stream, wanted)? == 0 {
                return Err(ReadError::Io);
            }
        }
        Ok(())
    }

    /// One read from the socket into the free end of the buffer, waiting through the socket's
    /// read timeouts as far as the reader's patience goes. Returns the number of bytes read; 0 at
    /// the end of the stream.
    fn read_more<S: Read>(&mut self, stream: &mut S, wanted: usize) -> io::Result<usize> {
        let mut waited = 0;
        loop {
            match self.read_once(stream, wanted) {
                Err(error) if timed_out(&error) && waited < self.patience => waited += 1,
                read => return read,
            }
        }
    }

    /// One read from the socket into the free end of the buffer, making room for up to `wanted`
    /// unconsumed bytes. Returns the number of bytes read; 0 at the end of the stream.
    fn read_once<S: Read>(&mut self, stream: &mut S, wanted: usize) -> io::Result<usize> {
        if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.end == self.buf.len() {
                let grown = (self.buf.len() * 2).max(wanted.min(MAX_BODY_BYTES + MAX_HEAD_BYTES));
                self.buf.resize(grown, 0);
            }
        }
        loop {
            match stream.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
    }

    /// Decodes a chunked body into `chunked`, refusing it once it passes [`MAX_BODY_BYTES`].
    fn read_chunked<S: Read>(&mut self, stream: &mut S) -> Result<(), ReadError> {
        loop {
            let (size_len, size) = loop {
                match httparse::parse_chunk_size(&self.buf[self.start..self.end]) {
                    Ok(httparse::Status::Complete(parsed)) => break parsed,
                    Ok(httparse::Status::Partial) if self.end - self.start < MAX_HEAD_BYTES => {
                        if self.read_more(stream, MAX_HEAD_BYTES)? == 0 {
                            return Err(ReadError::Io);
                        }
                    }
                    _ => return Err(ReadError::Refused(Refusal::BadRequest)),
                }
            };
            self.start += size_len;
            if size == 0 {
                return self.skip_trailers(stream);
            }
            if size > (MAX_BODY_BYTES - self.chunked.len()) as u64 {
                return Err(ReadError::Refused(Refusal::PayloadTooLarge));
            }
            let mut remaining = size as usize;
            while remaining > 0 {
                if self.end == self.start && self.read_more(stream, BUFFER_BYTES)? == 0 {
                    return Err(ReadError::Io);
                }
                let n = remaining.min(self.end - self.start);
                self.chunked.extend_from_slice(&self.buf[self.start..self.start + n]);
                self.start += n;
                remaining -= n;
            }
            self.fill_to(stream, 2)?;
            if &self.buf[self.start..self.start + 2] != b"\r\n" {
                return Err(ReadError::Refused(Refusal::BadRequest));
            }
            self.start += 2;
        }
    }

    /// Skips the trailer fields after the last chunk, up to the empty line that ends them.
    fn skip_trailers<S: Read>(&mut self, stream: &mut S) -> Result<(), ReadError> {
        loop {
            let pending = &self.buf[self.start..self.end];
            if let Some(at) = pending.windows(2).position(|w| w == b"\r\n") {
                self.start += at + 2;
                if at == 0 {
                    return Ok(());
                }
                continue;
            }
            if pending.len() >= MAX_HEAD_BYTES {
                return Err(ReadError::Refused(Refusal::HeadersTooLarge));
            }
            if self.read_more(stream, MAX_HEAD_BYTES)? == 0 {
                return Err(ReadError::Io);
            }
        }
    }
}

/// What the head of a request says.
#[derive(Debug)]
struct Head {
    len: usize,
    method: Method,
    keep_alive: bool,
    framing: Framing,
    expect_continue: bool,
}

impl Head {
    fn of(request: &httparse::Request<'_, '_>, len: usize, read: &mut Headers) -> Result<Head, ReadError> {
        let method = match request.method {
            Some("POST") => Method::Post,
            Some("GET") => Method::Get,
            Some("HEAD") => Method::Head,
            Some("OPTIONS") => Method::Options,
            _ => Method::Other,
        };
        let http_11 = request.version == Some(1);
        let mut keep_alive = http_11;
        let mut length: Option<usize> = None;
        let mut chunked = false;
        let mut expect_continue = false;
        read.clear();
        read.method.push_str(request.method.unwrap_or(""));
        read.path.push_str(request.path.unwrap_or("").split('?').next().unwrap_or(""));
        if let Some((_, query)) = request.path.and_then(|path| path.split_once('?')) {
            read.query.push_str(query);
        }
        read.at_root = request.path.is_some_and(|path| path.split('?').next() == Some("/"));
        let text = |value: &[u8]| String::from_utf8_lossy(value).into_owned();
        for header in request.headers.iter() {
            let name = header.name;
            let value = header.value;
            if name.eq_ignore_ascii_case("x-amz-target") {
                read.target.push_str(std::str::from_utf8(value).unwrap_or(""));
            } else if name.eq_ignore_ascii_case("content-type") {
                read.content_type.push_str(std::str::from_utf8(value).unwrap_or(""));
            } else if name.eq_ignore_ascii_case("authorization") {
                read.authorization = Some(text(value));
            } else if name.eq_ignore_ascii_case("x-amz-date") || name.eq_ignore_ascii_case("date") {
                read.dated |= !value.is_empty();
            } else if name.eq_ignore_ascii_case("origin") {
                read.origin = true;
            } else if name.eq_ignore_ascii_case("access-control-request-headers") {
                read.cors_headers = Some(text(value));
            } else if name.eq_ignore_ascii_case("access-control-request-method") {
                read.cors_method = Some(text(value));
            } else if name.eq_ignore_ascii_case("content-length") {
                let parsed = parse_length(value).ok_or(ReadError::Refused(Refusal::BadRequest))?;
                if length.is_some_and(|earlier| earlier != parsed) {
                    return Err(ReadError::Refused(Refusal::BadRequest));
                }
                length = Some(parsed);
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                // Only `chunked` as the last coding frames a request body (RFC 9112, 6.3).
                let last = value.rsplit(|&b| b == b',').next().unwrap_or(b"");
                if !last.trim_ascii().eq_ignore_ascii_case(b"chunked") {
                    return Err(ReadError::Refused(Refusal::BadRequest));
                }
                chunked = true;
            } else if name.eq_ignore_ascii_case("connection") {
                for token in value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                    if token.eq_ignore_ascii_case(b"close") {
                        keep_alive = false;
                    } else if token.eq_ignore_ascii_case(b"keep-alive") {
                        keep_alive = true;
                    }
                }
            } else if name.eq_ignore_ascii_case("expect") {
                expect_continue = http_11 && value.trim_ascii().eq_ignore_ascii_case(b"100-continue");
            }
        }
        let framing = match (chunked, length) {
            (true, _) => Framing::Chunked,
            (false, Some(length)) if length > MAX_BODY_BYTES => {
                return Err(ReadError::Refused(Refusal::PayloadTooLarge));
            }
            (false, Some(length)) => Framing::Length(length),
            (false, None) => Framing::Length(0),
        };
        Ok(Head { len, method, keep_alive, framing, expect_continue })
    }
}

/// A `Content-Length` value: decimal digits only. Values too large for memory saturate, so
/// that they are refused as too large rather than as malformed.
fn parse_length(value: &[u8]) -> Option<usize> {
    let digits = value.trim_ascii();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(digits.iter().fold(0usize, |n, &d| n.saturating_mul(10).saturating_add(usize::from(d - b'0'))))
}

/// One answer, encoded by [`Response::encode`].
#[derive(Debug)]
pub(super) struct Response<'a> {
    pub(super) status: u16,
    /// The `Content-Type`; none if empty.
    pub(super) content_type: &'static str,
    pub(super) request_id: Option<&'a str>,
    /// Extra header lines, each ending in `\r\n`.
    pub(super) extra_headers: &'a str,
    pub(super) body: &'a [u8],
    /// Whether the connection closes after this answer.
    pub(super) close: bool,
}

impl Response<'_> {
    /// Appends the status line, headers and (unless `head_only`) body to `out`.
    pub(super) fn encode(&self, out: &mut Vec<u8>, date: &[u8], head_only: bool) {
        // Writing to a Vec cannot fail.
        let _ = write!(
            out,
            "HTTP/1.1 {} {}\r\ncontent-length: {}\r\nx-amz-crc32: {}\r\n",
            self.status,
            reason(self.status),
            self.body.len(),
            crc32fast::hash(self.body),
        );
        if !self.content_type.is_empty() {
            out.extend_from_slice(b"content-type: ");
            out.extend_from_slice(self.content_type.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        if let Some(request_id) = self.request_id {
            out.extend_from_slice(b"x-amzn-requestid: ");
            out.extend_from_slice(request_id.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"date: ");
        out.extend_from_slice(date);
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(self.extra_headers.as_bytes());
        if self.close {
            out.extend_from_slice(b"connection: close\r\n");
        }
        out.extend_from_slice(b"\r\n");
        if !head_only {
            out.extend_from_slice(self.body);
        }
    }
}

/// The reason phrase of the statuses the server sends.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// The `Date` header of a connection's answers, formatted once per second.
#[derive(Debug, Default)]
pub(super) struct DateHeader {
    secs: Option<u64>,
    text: Vec<u8>,
}

impl DateHeader {
    /// `now` as an IMF-fixdate, for example `Sun, 06 Nov 1994 08:49:37 GMT`.
    pub(super) fn at(&mut self, now: SystemTime) -> &[u8] {
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
    use std::time::Duration;

    /// A connection whose client side is a fixed byte string, read in pieces of `step` bytes.
    struct Scripted {
        input: Vec<u8>,
        at: usize,
        step: usize,
        written: Vec<u8>,
    }

    impl Scripted {
        fn new(input: &[u8], step: usize) -> Self {
            Scripted { input: input.to_vec(), at: 0, step, written: Vec::new() }
        }
    }

    impl Read for Scripted {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.input.len() - self.at);
            buf[..n].copy_from_slice(&self.input[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    impl Write for Scripted {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.written.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn bodies(input: &[u8], step: usize) -> Result<Vec<(String, Vec<u8>, bool)>, String> {
        let mut stream = Scripted::new(input, step);
        let mut reader = RequestReader::new(0);
        let mut headers = Headers::default();
        let mut out = Vec::new();
        loop {
            match reader.read(&mut stream, &mut headers) {
                Ok(Some(request)) => out.push((headers.target.clone(), request.body.to_vec(), request.keep_alive)),
                Ok(None) => return Ok(out),
                Err(error) => return Err(format!("{error:?}")),
            }
        }
    }

    #[test]
    fn pipelined_requests_are_read_in_turn_whatever_the_read_sizes() {
        let input = b"POST / HTTP/1.1\r\nX-Amz-Target: A\r\nContent-Length: 2\r\n\r\n{}\
                      POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nX-Amz-Target: B\r\n\r\n\
                      3\r\n{\"a\r\n4;ext=1\r\n\":1}\r\n0\r\nTrailer: x\r\n\r\n\
                      POST / HTTP/1.0\r\nContent-Length: 0\r\n\r\n";
        for step in [1, 2, 7, 64, 4096] {
            let read = bodies(input, step).unwrap();
            assert_eq!(
                read,
                vec![
                    ("A".to_owned(), b"{}".to_vec(), true),
                    ("B".to_owned(), b"{\"a\":1}".to_vec(), true),
                    (String::new(), Vec::new(), false),
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn expect_continue_is_answered_before_the_body_is_read() {
        let mut stream = Scripted::new(b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}", 60);
        let mut reader = RequestReader::new(0);
        let request = reader.read(&mut stream, &mut Headers::default()).unwrap().unwrap();
        assert_eq!(request.body, b"{}");
        assert_eq!(stream.written, b"HTTP/1.1 100 Continue\r\n\r\n");
    }

    #[test]
    fn bad_framing_and_oversized_bodies_are_refused() {
        let refused = |input: &[u8]| bodies(input, 4096).unwrap_err();
        assert_eq!(refused(b"POST / HTTP/1.1\r\nContent-Length: 12x\r\n\r\n"), "Refused(BadRequest)");
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            "Refused(BadRequest)"
        );
        assert_eq!(refused(b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"), "Refused(BadRequest)");
        assert_eq!(refused(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), "Refused(BadRequest)");
        assert_eq!(refused(b"\x16\x03\x01 garbage\r\n\r\n"), "Refused(BadRequest)");
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
            "Refused(PayloadTooLarge)"
        );
        assert_eq!(
            refused(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1000001\r\n"),
            "Refused(PayloadTooLarge)"
        );
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "A: b\r\n".repeat(MAX_HEADERS + 1));
        assert_eq!(refused(many.as_bytes()), "Refused(HeadersTooLarge)");
        let long = format!("GET / HTTP/1.1\r\nA: {}\r\n\r\n", "b".repeat(MAX_HEAD_BYTES));
        assert_eq!(refused(long.as_bytes()), "Refused(HeadersTooLarge)");
    }

    #[test]
    fn a_connection_closed_mid_request_is_an_io_error_and_between_requests_the_end() {
        assert_eq!(bodies(b"POST / HTTP/1.1\r\nContent-Le", 4096).unwrap_err(), "Io");
        assert_eq!(bodies(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n{}", 4096).unwrap_err(), "Io");
        assert_eq!(bodies(b"", 4096).unwrap(), vec![]);
    }

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
