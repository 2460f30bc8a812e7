//! The command line with scenario files: emit one, run it, refuse a malformed one, shrink a
//! failure to one; `--format json`; and no progress output where nobody watches.

use std::path::PathBuf;
use std::process::{Command, Output};

fn sim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dynalease-sim")).args(args).output().expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn last_line(output: &Output) -> String {
    stdout(output).lines().last().unwrap_or_default().to_owned()
}

/// A fresh path in a scratch directory of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dynalease-sim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir.join(name)
}

#[test]
fn an_emitted_scenario_runs_to_the_digest_of_its_seed() {
    for (seed, lock) in [("5", "library"), ("8", "naive")] {
        let file = scratch(&format!("seed-{seed}.toml"));
        let file = file.to_str().unwrap();
        let by_seed = sim(&["--lock", lock, "run", "--seed", seed, "--duration-s", "200", "--emit-scenario", file]);
        let by_file = sim(&["run", "--scenario", file]);
        assert_eq!(by_file.status.code(), by_seed.status.code());
        assert!(last_line(&by_seed).starts_with("digest: "), "{}", stdout(&by_seed));
        assert_eq!(last_line(&by_file), last_line(&by_seed), "seed {seed}");
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.starts_with(&format!("# The scenario of seed {seed}")), "{text}");
    }
}

#[test]
fn a_malformed_scenario_file_is_refused_with_its_line_and_field() {
    let file = scratch("malformed.toml");
    std::fs::write(&file, "service = \"locks\"\nduration_ms = 120_000\n\n[options]\nlease_ms = 30_000\n\n[[processes]]\n\n[[faults]]\nat_ms = 5_000\nkind = \"pause\"\nprocess = 0\nfor_ms = \"long\"\n").unwrap();
    let output = sim(&["run", "--scenario", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("malformed.toml: line 13, column 10, faults[0].for_ms: invalid type"), "{stderr}");
    assert!(stdout(&output).is_empty());

    let missing = sim(&["run", "--scenario", "/nonexistent/incident.toml"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(sim(&["run", "--seed", "1", "--scenario", file.to_str().unwrap()]).status.code() == Some(2));
}

#[test]
fn run_as_json_is_one_document_with_violations_and_commands() {
    let output = sim(&["--lock", "naive", "run", "--seed", "0", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(json["seed"], 0);
    assert_eq!(json["options"]["lock"], "naive");
    assert_eq!(json["replay"], "dynalease-sim --lock naive run --seed 0 --timeline");
    assert_eq!(json["shrink"], "dynalease-sim --lock naive shrink --seed 0");
    let violation = &json["violations"][0];
    assert_eq!(violation["seed"], 0);
    assert!(
        violation["invariant"].as_str().is_some_and(|k| dynalease_sim::locks::ViolationKind::from_name(k).is_some())
    );
    for ops in ["first", "second"] {
        let entries = violation[ops].as_array().expect(ops);
        assert!(!entries.is_empty(), "{ops}");
        assert!(entries[0]["at_ms"].is_number() && entries[0]["text"].is_string());
    }
    assert!(violation["last_good"].is_array());

    let calm = sim(&["run", "--seed", "3", "--duration-s", "120", "--format", "json"]);
    assert_eq!(calm.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&calm.stdout).unwrap();
    assert_eq!(json["violations"], serde_json::json!([]));
    assert_eq!(json["shrink"], serde_json::Value::Null);
    assert_eq!(json["digest"].as_str().map(str::len), Some(16));
}

#[test]
fn sweep_as_json_lists_each_failing_run() {
    let output = sim(&["--lock", "naive", "sweep", "--seeds", "3", "--duration-s", "120", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("one JSON document");
    assert_eq!(json["seeds"], 3);
    let failing = json["failing_seeds"].as_array().unwrap();
    let failures = json["failures"].as_array().unwrap();
    assert!(!failing.is_empty());
    assert_eq!(failing.len(), failures.len());
    for (seed, run) in failing.iter().zip(failures) {
        assert_eq!(&run["seed"], seed);
        assert!(run["shrink"].as_str().unwrap().starts_with("dynalease-sim --lock naive shrink --seed "), "{run}");
        assert!(run["replay"].as_str().unwrap().contains("--duration-s 120"), "{run}");
    }
}

#[test]
fn a_failure_of_a_sweep_prints_the_shrink_command_beside_the_replay() {
    let output = sim(&["--lock", "naive", "sweep", "--seeds", "1", "--from", "0", "--duration-s", "120"]);
    let text = stdout(&output);
    assert!(text.contains("  replay: dynalease-sim --lock naive run --seed 0 --duration-s 120 --timeline\n"), "{text}");
    assert!(text.contains("  shrink: dynalease-sim --lock naive shrink --seed 0 --duration-s 120\n"), "{text}");
    // Not a terminal: no progress bar, and nothing else on stderr.
    assert!(output.stderr.is_empty(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn shrink_writes_the_smallest_failing_scenario_and_its_replay() {
    let out = scratch("shrunk.toml");
    let out = out.to_str().unwrap();
    let output = sim(&["--lock", "naive", "shrink", "--seed", "0", "--max-runs", "60", "--out", out]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(text.starts_with("shrink: seed 0 (service locks): 5 processes"), "{text}");
    assert!(text.contains("  step 1 (run "), "{text}");
    assert!(text.contains(&format!("wrote {out}")), "{text}");
    assert!(text.contains("--- safety phase: faults ---"), "the timeline: {text}");
    assert!(text.contains(&format!("replay: dynalease-sim --lock naive run --scenario {out} --timeline")), "{text}");
    assert!(output.stderr.is_empty());

    // The file replays the failure, smaller than the seed's scenario.
    let replay = sim(&["run", "--scenario", out, "--format", "json"]);
    assert_eq!(replay.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&replay.stdout).unwrap();
    assert!(json["processes"].as_u64().unwrap() < 5 && json["duration_ms"].as_u64().unwrap() < 600_000, "{json}");
    let file = std::fs::read_to_string(out).unwrap();
    assert!(file.starts_with("# Shrunk by `dynalease-sim --lock naive shrink --seed 0` in "), "{file}");
}

#[test]
fn shrink_says_so_when_it_gives_up_or_has_nothing_to_shrink() {
    let out = scratch("gave-up.toml");
    let output = sim(&["--lock", "naive", "shrink", "--seed", "0", "--max-runs", "3", "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("gave up after 3 runs (--max-runs 3)"), "{}", stdout(&output));
    assert!(out.exists());

    let calm = sim(&["shrink", "--seed", "3", "--duration-s", "60"]);
    assert_eq!(calm.status.code(), Some(0));
    assert!(stdout(&calm).contains("seed 3 does not break any invariant: nothing to shrink"), "{}", stdout(&calm));
    assert_eq!(sim(&["shrink", "--seed", "3", "--kind", "no-such-thing"]).status.code(), Some(2));
}

#[test]
fn run_draws_its_picture() {
    let svg = scratch("run.svg");
    let output =
        sim(&["--lock", "naive", "run", "--seed", "0", "--duration-s", "120", "--picture", svg.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let text = std::fs::read_to_string(&svg).expect("the picture");
    assert!(text.starts_with("<svg") && text.contains(r#"<g class="violation first">"#));
}
