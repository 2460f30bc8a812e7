//! The incidents of `simulation/incidents/`: each file tells what happened, the library comes
//! through it without a violation, and the naive lock breaks what the file says it breaks.

use std::collections::BTreeSet;
use std::path::PathBuf;

use dynalease_sim::locks::ViolationKind::{self, *};
use dynalease_sim::locks::{LockKind, LockService};
use dynalease_sim::{RunReport, Scenario, World};

/// Each incident: its file, what the library's run must show happened, and the invariants the
/// naive lock breaks in it.
const INCIDENTS: [(&str, &[&str], &[ViolationKind]); 6] = [
    (
        "holder-paused-past-its-lease.toml",
        &[
            "heard its write applied to Sim[LOCK#leader/LOCK] (renewal): Pause",
            "fenced-write leader token 1: lease lost",
            "granted leader token 2 to p1.0",
        ],
        &[StaleFencedWrite],
    ),
    (
        "suspended-machine.toml",
        &[
            "suspend p0.0 (its monotonic clock stops)",
            "wall clock of p0 steps -90000 ms",
            "granted leader token 2 to p1.0",
        ],
        &[StaleFencedWrite],
    ),
    (
        "wall-clock-stepped-back-during-a-wait.toml",
        &["wall clock of p0 steps -90000 ms", "--- liveness: crash p0.0, the holder of leader ---"],
        &[TakeoverBeforeExpiry, OverlappingBeliefs, StaleFencedWrite],
    ),
    (
        "throttling-storm-during-a-takeover.toml",
        &["throttle p0 (100%)", "lets go of leader token 1: lost (expired)", "granted leader token 2 to p1.0"],
        &[TakeoverBeforeExpiry, OverlappingBeliefs, SlowTakeover],
    ),
    (
        "lost-acquire-answer-retried.toml",
        &[
            "had its write applied to Sim[LOCK#job/LOCK] (grant): LoseAnswer",
            "granted job token 3 to p0.0",
            "ok     #3 acquire job -> token 3",
        ],
        &[RetryRefusedByItself],
    ),
    (
        "lock-item-deleted-under-its-holder.toml",
        &["heard its write applied to Sim[LOCK#leader/LOCK] (renewal): DeleteItem", "granted leader token 1 to p1.0"],
        &[StaleFencedWrite],
    ),
];

fn incidents_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("incidents")
}

fn run(file: &str, lock: Option<LockKind>) -> RunReport<LockService> {
    let path = incidents_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut scenario = Scenario::<LockService>::from_toml(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    if let Some(lock) = lock {
        LockService::switch_lock(&mut scenario, lock);
    }
    World::new(scenario).run()
}

#[test]
fn every_incident_file_is_checked_here() {
    let mut files: Vec<String> = std::fs::read_dir(incidents_dir())
        .expect("simulation/incidents")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".toml"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = INCIDENTS.iter().map(|(file, ..)| (*file).to_owned()).collect();
    listed.sort();
    assert_eq!(files, listed);
}

#[test]
fn every_incident_says_what_happened_in_a_comment() {
    for (file, ..) in INCIDENTS {
        let text = std::fs::read_to_string(incidents_dir().join(file)).expect("the incident");
        let comment = text.lines().take_while(|line| line.starts_with('#')).count();
        assert!(comment >= 8, "{file} opens with {comment} lines of comment");
        assert!(text.contains("# The library") && text.contains("naive lock"), "{file}");
    }
}

#[test]
fn the_library_comes_through_every_incident() {
    for (file, happened, _) in INCIDENTS {
        let report = run(file, None);
        assert_eq!(report.scenario().service.lock, LockKind::Library, "{file} names the library");
        assert!(report.violations().is_empty(), "{file}:\n{}", report.failure_report());
        let timeline = report.timeline();
        for line in happened {
            assert!(timeline.contains(line), "{file}: no `{line}` in\n{timeline}");
        }
    }
}

#[test]
fn the_naive_lock_breaks_what_each_incident_says() {
    for (file, _, expected) in INCIDENTS {
        let report = run(file, Some(LockKind::Naive));
        let found: BTreeSet<String> = report.violations().iter().map(|v| v.invariant.name().to_owned()).collect();
        let expected: BTreeSet<String> = expected.iter().map(|k| k.name().to_owned()).collect();
        assert_eq!(found, expected, "{file}:\n{}", report.failure_report());
    }
}
