//! The checker is able to fail: the naive lock (wall-clock expiry compared across machines)
//! breaks the invariants, and the checker finds it within a few hundred seeds.

use dynalease_sim::locks::{LockKind, LockService};
use dynalease_sim::{Config, Scenario, World};

#[test]
fn the_checker_catches_the_naive_lock_within_a_few_hundred_seeds() {
    let naive = LockService::with_lock(LockKind::Naive);
    let safety = ["overlapping-beliefs", "stale-fenced-write"];
    let caught = (0..300).find_map(|seed| {
        let report = World::new(Scenario::from_seed(seed, &Config::default(), &naive))
            .run()
            .with_program("dynalease-sim --lock naive");
        report.violations().iter().any(|v| safety.contains(&v.invariant.name())).then_some(report)
    });
    let report = caught.expect("a safety violation of the naive lock within 300 seeds");

    let text = report.failure_report();
    let seed = report.scenario().seed;
    assert!(text.contains(&format!("seed {seed}")), "{text}");
    assert!(text.contains(&format!("dynalease-sim --lock naive run --seed {seed}")), "{text}");
    for section in ["first:", "second:", "last good:", "timeline ("] {
        assert!(text.contains(section), "{section} missing in:\n{text}");
    }
}

#[test]
fn the_library_passes_where_the_naive_lock_fails() {
    let naive = World::new(Scenario::from_seed(0, &Config::default(), &LockService::with_lock(LockKind::Naive))).run();
    assert!(!naive.violations().is_empty(), "seed 0 catches the naive lock:\n{}", naive.summary());
    let library = World::new(Scenario::from_seed(0, &Config::default(), &LockService::default())).run();
    assert!(library.violations().is_empty(), "{}", library.failure_report());
}
