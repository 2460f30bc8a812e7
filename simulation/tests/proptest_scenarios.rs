//! Scenarios as proptest strategies: the library holds in generated scenarios, and a failure
//! shrinks to the smallest schedule of faults.

use std::sync::Mutex;

use dynalease_sim::locks::{LockKind, LockService};
use dynalease_sim::scenario::strategy;
use dynalease_sim::{Config, World};
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};

/// Short runs, so that debug builds check a few dozen of them quickly.
fn short() -> Config {
    Config { duration_ms: 240_000, ..Config::default() }
}

proptest! {
    #![proptest_config(RunnerConfig { cases: 12, failure_persistence: None, ..RunnerConfig::default() })]

    #[test]
    fn the_library_holds_in_generated_scenarios(scenario in strategy(short(), LockService::default())) {
        let report = World::new(scenario).run();
        prop_assert!(report.violations().is_empty(), "{}", report.failure_report());
    }
}

#[test]
fn a_failure_of_the_naive_lock_shrinks_to_a_small_schedule() {
    let config =
        RunnerConfig { cases: 64, max_shrink_iters: 512, failure_persistence: None, ..RunnerConfig::default() };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let first_failure = Mutex::new(None::<usize>);
    let outcome = runner.run(&strategy(short(), LockService::with_lock(LockKind::Naive)), |scenario| {
        let faults = scenario.faults.len();
        let report = World::new(scenario).run();
        let unsafe_run = report
            .violations()
            .iter()
            .any(|v| matches!(v.invariant.name(), "overlapping-beliefs" | "stale-fenced-write"));
        if !unsafe_run {
            return Ok(());
        }
        first_failure.lock().unwrap().get_or_insert(faults);
        Err(TestCaseError::fail(report.failure_report()))
    });
    let first = first_failure.lock().unwrap().expect("a failing case");
    match outcome {
        Err(TestError::Fail(_, minimal)) => {
            // The naive lock needs no fault at all to fail (clocks that disagree are enough):
            // proptest's shrinking, which drops one fault at a time, ends at two or fewer.
            assert!(
                minimal.faults.len() <= 2 && minimal.faults.len() < first,
                "shrunk from {first} to {} faults:\n{}",
                minimal.faults.len(),
                minimal.describe()
            );
        }
        other => panic!("the naive lock should fail in 64 generated scenarios: {other:?}"),
    }
}
