//! `dynalease-fake serve --stop-on-stdin-close`: the server stops, cleanly, when the end of the
//! pipe on its stdin closes, as it does when the program that started it exits or is killed.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::Value as Json;

/// The binary with `--stop-on-stdin-close` and a pipe on its stdin; the first line read.
fn start(extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dynalease-fake"))
        .args(["serve", "--port", "0", "--stop-on-stdin-close"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout is piped")).read_line(&mut line).expect("a first line");
    let address = line.trim_end().strip_prefix("listening on http://").expect("the address").to_owned();
    (child, address)
}

#[test]
fn the_server_stops_with_exit_code_0_when_its_stdin_closes() {
    let (mut child, address) = start(&[]);
    assert!(std::net::TcpStream::connect(&address).is_ok(), "it serves while stdin is open");
    drop(child.stdin.take());
    assert_eq!(child.wait().expect("the server exits").code(), Some(0));
}

#[test]
fn a_server_stopped_by_its_stdin_writes_its_data_file() {
    let file: PathBuf = std::env::temp_dir().join(format!("dynalease-fake-stdin-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&file);
    let (mut child, _) = start(&["--data", file.to_str().expect("a UTF-8 path")]);
    drop(child.stdin.take());
    assert_eq!(child.wait().expect("the server exits").code(), Some(0));
    let written: Json = serde_json::from_slice(&std::fs::read(&file).expect("the file is written")).unwrap();
    assert_eq!(written["Tables"], Json::Array(vec![]));
    std::fs::remove_file(&file).unwrap();
}
