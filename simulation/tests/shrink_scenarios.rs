//! Shrinking keeps the cause of a failure and drops the noise around it, within its bound of
//! runs.

use dynalease_sim::locks::{LockKind, LockService};
use dynalease_sim::shrink::{NotShrunk, ShrinkOptions, Size, shrink};
use dynalease_sim::{Fault, Scenario, ScheduledFault};

/// The incident of the paused holder against the naive lock, with faults that have nothing to
/// do with its failure.
fn paused_holder_with_noise() -> Scenario<LockService> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/incidents/holder-paused-past-its-lease.toml");
    let mut scenario = Scenario::from_toml(&std::fs::read_to_string(path).unwrap()).unwrap();
    LockService::switch_lock(&mut scenario, LockKind::Naive);
    let noise = [
        (100_000, Fault::Latency { process: 1, extra_ms: 300, for_ms: 10_000 }),
        (120_000, Fault::ClockStep { process: 1, delta_ms: 400 }),
        (150_000, Fault::Partition { process: 0, for_ms: 5_000 }),
        (170_000, Fault::TableOutage { table: String::from("Sim"), for_ms: 1_000 }),
    ];
    scenario.faults.extend(noise.into_iter().map(|(at_ms, fault)| ScheduledFault { at_ms, fault }));
    scenario
}

#[test]
fn shrinking_keeps_the_pause_and_drops_the_noise() {
    let scenario = paused_holder_with_noise();
    let from = Size::of(&scenario);
    let mut seen = Vec::new();
    let options = ShrinkOptions { max_runs: 200, kind: None };
    let shrunk = shrink(scenario, options, |step| seen.push(step.clone()), |_| {}).expect("the scenario fails");

    assert_eq!(shrunk.kind, "stale-fenced-write");
    assert!(shrunk.report.violations().iter().any(|v| v.invariant.name() == "stale-fenced-write"));
    assert!(shrunk.runs <= 200 && !shrunk.gave_up, "{} runs", shrunk.runs);
    assert_eq!(shrunk.from, from);
    let smallest = shrunk.report.scenario();
    assert!(smallest.faults.is_empty(), "{:?}", smallest.faults);
    assert_eq!(smallest.triggers.len(), 1, "the pause stays");
    assert!(smallest.duration_ms < from.duration_ms, "the run is cut after the violation");
    assert_eq!(seen, shrunk.steps);
    assert!(!seen.is_empty());
    for pair in seen.windows(2) {
        assert!(pair[0].run < pair[1].run);
    }
}

#[test]
fn shrinking_stops_at_its_bound_and_says_it_gave_up() {
    let mut runs = 0;
    let options = ShrinkOptions { max_runs: 4, kind: None };
    let shrunk = shrink(paused_holder_with_noise(), options, |_| {}, |n| runs = n).expect("the scenario fails");
    assert!(shrunk.gave_up);
    assert_eq!((shrunk.runs, runs), (4, 4));
    assert!(shrunk.report.violations().iter().any(|v| v.invariant.name() == shrunk.kind), "what it kept still fails");
}

#[test]
fn a_scenario_that_does_not_fail_is_not_shrunk() {
    let mut scenario = paused_holder_with_noise();
    LockService::switch_lock(&mut scenario, LockKind::Library);
    match shrink(scenario, ShrinkOptions::default(), |_| {}, |_| {}) {
        Err(NotShrunk::Passes(report)) => assert!(report.violations().is_empty()),
        Ok(shrunk) => panic!("the library fails:\n{}", shrunk.report.failure_report()),
    }
    let naive = paused_holder_with_noise();
    let options = ShrinkOptions { kind: Some(String::from("token-not-rising")), ..ShrinkOptions::default() };
    assert!(matches!(shrink(naive, options, |_| {}, |_| {}), Err(NotShrunk::Passes(_))));
}
