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

/// The output of a sweep without its last line, which times it.
fn untimed(output: &Output) -> String {
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.retain(|line| !line.starts_with("seeds: ") && !line.starts_with("caught: "));
    lines.join("\n")
}

#[test]
fn a_sweep_prints_the_same_whatever_the_number_of_jobs() {
    let sweep = |jobs: &str| sim(&["--lock", "naive", "sweep", "--seeds", "6", "--duration-s", "120", "--jobs", jobs]);
    let one = sweep("1");
    assert_eq!(one.status.code(), Some(1));
    assert!(untimed(&one).contains("VIOLATION"), "{}", untimed(&one));
    for jobs in ["2", "5"] {
        let many = sweep(jobs);
        assert_eq!(many.status.code(), Some(1));
        assert_eq!(untimed(&many), untimed(&one), "--jobs {jobs}");
    }
}

#[test]
fn a_sweep_until_a_violation_stops_at_the_first_and_names_it() {
    let output =
        sim(&["--lock", "naive", "sweep", "--seeds", "50", "--duration-s", "120", "--jobs", "2", "--until", "safety"]);
    assert_eq!(output.status.code(), Some(1));
    let line = last_line(&output);
    let caught = line.strip_prefix("caught: seed ").unwrap_or_else(|| panic!("{line}"));
    let text = String::from_utf8_lossy(&output.stdout);
    let ran: u64 =
        text.lines().find_map(|l| l.strip_prefix("seeds: ")?.split(',').next()?.parse().ok()).expect("a count");
    assert!(ran < 50, "it stopped early: {line}");
    assert!(caught.contains(&format!("({ran} seeds,")), "{line}");

    let calm = sim(&["sweep", "--seeds", "2", "--duration-s", "60", "--until", "any"]);
    assert_eq!(calm.status.code(), Some(0));
    assert!(last_line(&calm).starts_with("caught: none (2 seeds, "), "{}", last_line(&calm));
}
