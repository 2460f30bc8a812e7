//! The floor under any DynamoDB server on this machine: an HTTP/1.1 server that reads each request
//! and answers `{}` at once, doing no other work. `fake/e2e/bench_boto3.py --floor` drives it with
//! the same boto3 loop as `dynalease-fake serve`, so the CPU it spends per operation is what the
//! kernel's loopback TCP and the HTTP framing cost before a server has done anything.
//!
//! Run: `cargo run --release -p dynalease-fake --example http_floor -- PORT`; it prints
//! `listening on http://127.0.0.1:PORT` when it accepts connections.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

const ANSWER: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 2\r\n\r\n{}";

/// Reads one request (headers, then `Content-Length` bytes of body); false at the end of the stream.
fn read_request(reader: &mut BufReader<TcpStream>) -> io::Result<bool> {
    let mut length = 0usize;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(false);
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    Ok(true)
}

fn serve(stream: TcpStream) -> io::Result<()> {
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    while read_request(&mut reader)? {
        writer.write_all(ANSWER)?;
    }
    Ok(())
}

fn main() -> io::Result<()> {
    let port = std::env::args().nth(1).unwrap_or_else(|| "0".to_owned());
    let listener = TcpListener::bind(format!("127.0.0.1:{port}"))?;
    println!("listening on http://{}", listener.local_addr()?);
    for stream in listener.incoming() {
        let stream = stream?;
        std::thread::spawn(move || serve(stream));
    }
    Ok(())
}
