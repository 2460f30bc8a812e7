//! The server binary, started with `--port 0`, and a minimal HTTP/1.1 client that writes requests
//! byte for byte, so that malformed ones can be sent too; shared by the `server_*` test files.
#![allow(dead_code)]

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::Duration;

use serde_json::{Value as Json, json};

/// A safety net so that a broken server fails a test instead of hanging it; never a timing claim.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// The headers every SDK sends with an API call: the JSON content type and a SigV4 signature
/// (which the server does not verify).
pub const SIGNED: &str = "Content-Type: application/x-amz-json-1.0\r\nX-Amz-Date: 20240101T000000Z\r\n\
    Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240101/us-east-1/dynamodb/aws4_request, \
    SignedHeaders=host;x-amz-date;x-amz-target, Signature=0123456789abcdef\r\n";

/// The server binary, running until the test stops it (or until it is dropped).
pub struct Server {
    pub child: Child,
    pub address: String,
    // Kept open so that the server never writes to a closed pipe.
    _stdout: BufReader<ChildStdout>,
}

impl Server {
    pub fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dynalease-fake"))
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the first line arrives");
        let address = line
            .trim_end()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_owned();
        Server { child, address, _stdout: stdout }
    }

    pub fn connect(&self) -> Connection {
        let stream = TcpStream::connect(&self.address).expect("the server accepts");
        stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        Connection { reader: BufReader::new(stream.try_clone().unwrap()), stream }
    }

    /// One request on a fresh connection.
    pub fn call(&self, operation: &str, body: &Json) -> Reply {
        self.connect().call(operation, body)
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill").arg(format!("-{name}")).arg(self.child.id().to_string()).status().unwrap();
        assert!(status.success(), "kill -{name} failed");
    }

    pub fn wait(mut self) -> ExitStatus {
        self.child.wait().expect("the server exits")
    }

    /// The server's peak resident memory, from /proc.
    pub fn peak_rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|line| line.starts_with("VmHWM:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

impl Server {
    /// A request to the control API, `path` under `/_dynalease/`, on a fresh connection.
    pub fn control(&self, method: &str, path: &str, body: Option<&Json>) -> Reply {
        self.control_raw(method, path, body.map(|json| json.to_string()).unwrap_or_default().as_bytes())
    }

    /// A request to the control API with a body of any bytes.
    pub fn control_raw(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        let mut connection = self.connect();
        connection.send_to(method, &format!("/_dynalease/{path}"), None, body, "Content-Type: application/json\r\n");
        connection.read_reply().expect("an answer")
    }

    /// A control request that must succeed; its JSON.
    pub fn control_ok(&self, method: &str, path: &str, body: Option<&Json>) -> Json {
        let reply = self.control(method, path, body);
        assert_eq!(reply.status, 200, "{method} {path}: {}", String::from_utf8_lossy(&reply.body));
        reply.json()
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

/// Runs the server binary with `args` (after `serve --port 0`) to its end: for a server that
/// refuses to start.
pub fn run_to_end(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dynalease-fake"))
        .args(["serve", "--port", "0"])
        .args(args)
        .output()
        .expect("the binary runs")
}

/// The path as text, for the command line.
pub fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// A table of string partition key `pk`, created over the wire.
pub fn create_table(server: &Server, name: &str) {
    let reply = server.call(
        "CreateTable",
        &json!({
            "TableName": name,
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
        }),
    );
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Connection {
    pub stream: TcpStream,
    reader: BufReader<TcpStream>,
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Json {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    /// The short error code, the text after `#` in `__type`.
    pub fn error_code(&self) -> String {
        let json = self.json();
        let full = json["__type"].as_str().unwrap_or_else(|| panic!("no __type in {json}"));
        full.rsplit('#').next().unwrap().to_owned()
    }
}

impl Connection {
    /// Writes raw bytes: a whole request, or part of one.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// A signed API call with `body`, and `extra_headers` (each line ending in `\r\n`).
    pub fn send(&mut self, target: Option<&str>, body: &[u8], extra_headers: &str) {
        self.send_with(target, body, &format!("{SIGNED}{extra_headers}"));
    }

    /// A `POST` with `body` and exactly the headers given, besides `Host` and `Content-Length`.
    pub fn send_with(&mut self, target: Option<&str>, body: &[u8], headers: &str) {
        self.send_method("POST", target, body, headers);
    }

    pub fn send_method(&mut self, method: &str, target: Option<&str>, body: &[u8], headers: &str) {
        self.send_to(method, "/", target, body, headers);
    }

    /// A request to `path`, with `body` and exactly the headers given, besides `Host`,
    /// `X-Amz-Target` (if any) and `Content-Length`.
    pub fn send_to(&mut self, method: &str, path: &str, target: Option<&str>, body: &[u8], headers: &str) {
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\n");
        if let Some(target) = target {
            head.push_str(&format!("X-Amz-Target: {target}\r\n"));
        }
        head.push_str(headers);
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        self.send_raw(&request);
    }

    pub fn call_raw(&mut self, operation: &str, body: &[u8]) -> Reply {
        self.send(Some(&format!("DynamoDB_20120810.{operation}")), body, "");
        self.read_reply().expect("an answer")
    }

    pub fn call(&mut self, operation: &str, body: &Json) -> Reply {
        self.call_raw(operation, &serde_json::to_vec(body).unwrap())
    }

    /// The next response; `None` if the server closed the connection before a byte of it.
    pub fn read_reply(&mut self) -> Option<Reply> {
        let mut status_line = String::new();
        match self.reader.read_line(&mut status_line) {
            Ok(0) => return None,
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => return None,
            other => other.unwrap(),
        };
        let status = status_line.split_whitespace().nth(1).expect("a status").parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header");
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
        let header = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
        let body = if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            self.read_chunks()
        } else {
            let mut body = vec![0; header("content-length").map_or(0, |v| v.parse::<usize>().unwrap())];
            self.reader.read_exact(&mut body).unwrap();
            body
        };
        Some(Reply { status, headers, body })
    }

    /// A chunked body, up to and including its last chunk (the reply carries no trailers).
    pub fn read_chunks(&mut self) -> Vec<u8> {
        let mut body = Vec::new();
        loop {
            let mut size = String::new();
            self.reader.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim_end(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            self.reader.read_exact(&mut chunk).unwrap();
            if size == 0 {
                return body;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }

    /// True once the server has closed the connection (end of stream or reset).
    pub fn is_closed_by_server(&mut self) -> bool {
        let mut byte = [0u8; 1];
        match self.reader.read(&mut byte) {
            Ok(0) => true,
            Err(e) => e.kind() == io::ErrorKind::ConnectionReset,
            Ok(_) => false,
        }
    }
}
