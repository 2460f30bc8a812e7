//! Scenarios as proptest strategies: the library holds in generated scenarios, and a failure
//! shrinks to the smallest schedule of faults.

use dynalease_sim::check::ViolationKind;
use dynalease_sim::scenario::strategy;
use dynalease_sim::{Config, LockKind, World};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, TestCaseError, TestError, TestRunner};

/// Short runs, so that debug builds check a few dozen of them quickly.
fn short(lock: LockKind) -> Config {
    Config { duration_ms: 240_000, lock, ..Config::default() }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 12, failure_persistence: None, ..RunnerConfig::default() })]

    #[test]
    fn the_library_holds_in_generated_scenarios(scenario in strategy(short(LockKind::Library))) {
        let report = World::new(scenario).run();
        prop_assert!(report.violations().is_empty(), "{}", report.failure_report());
    }
}

#[test]
fn a_failure_of_the_naive_lock_shrinks_to_a_small_schedule() {
    let mut runner = TestRunner::new(RunnerConfig {
        cases: 64,
        max_shrink_iters: 256,
        failure_persistence: None,
        rng_algorithm: proptest::test_runner::RngAlgorithm::ChaCha,
        ..RunnerConfig::default()
    });
    let outcome = runner.run(&strategy(short(LockKind::Naive)), |scenario| {
        let report = World::new(scenario).run();
        let unsafe_run = report
            .violations()
            .iter()
            .any(|v| matches!(v.kind, ViolationKind::OverlappingBeliefs | ViolationKind::StaleFencedWrite));
        if unsafe_run { Err(TestCaseError::fail(report.failure_report())) } else { Ok(()) }
    });
    match outcome {
        Err(TestError::Fail(_, minimal)) => {
            // The naive lock needs no fault at all to fail: clocks that disagree are enough.
            assert!(minimal.faults.len() <= 1, "shrunk to {} faults:\n{}", minimal.faults.len(), minimal.describe());
        }
        other => panic!("the naive lock should fail in 64 generated scenarios: {other:?}"),
    }
}
