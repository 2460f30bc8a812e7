//! The command line: final lines, exit status.

use std::process::{Command, Output};

fn sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dynalease-sim")).args(args).output().expect("the binary runs")
}

fn last_line(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).lines().last().unwrap_or_default().to_owned()
}

#[test]
fn run_prints_the_digest_last_and_exits_0() {
    let output = sim(&["run", "--seed", "3", "--duration-s", "120"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let line = last_line(&output);
    let digest = line.strip_prefix("digest: ").expect("a digest line");
    assert_eq!(digest.len(), 16);
    assert!(digest.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
    assert_eq!(last_line(&sim(&["run", "--seed", "3", "--duration-s", "120"])), line);
}

#[test]
fn sweep_prints_its_counts_last() {
    let output = sim(&["sweep", "--seeds", "2", "--from", "7", "--duration-s", "60"]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let line = last_line(&output);
    assert!(line.starts_with("seeds: 2, violations: 0, seeds/s: "), "{line}");
}

#[test]
fn a_naive_sweep_finds_violations_and_exits_1() {
    let output = sim(&["--lock", "naive", "sweep", "--seeds", "3"]);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(String::from_utf8_lossy(&output.stdout).contains("VIOLATION"));
}

#[test]
fn bad_usage_exits_with_2() {
    assert_eq!(sim(&["run"]).status.code(), Some(2));
    assert_eq!(sim(&["sweep", "--seeds", "many"]).status.code(), Some(2));
    assert_eq!(sim(&["--lock", "optimistic", "run", "--seed", "1"]).status.code(), Some(2));
    assert_eq!(sim(&["fly"]).status.code(), Some(2));
}

#[test]
fn the_timeline_shows_every_entry() {
    let output = sim(&["run", "--seed", "1", "--duration-s", "60", "--timeline"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("--- safety phase: faults ---"), "{text}");
    assert!(text.contains("granted leader token 1"), "{text}");
}
