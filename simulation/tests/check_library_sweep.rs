//! The library holds every invariant over a sweep of the default scenario with every fault.

use dynalease_sim::{Config, sweep};

#[test]
fn the_library_holds_every_invariant_in_a_small_sweep() {
    let config = Config::default();
    let report = sweep::sweep(&config, 100, 12, |run| {
        assert!(run.violations().is_empty(), "{}", run.failure_report());
    });
    assert_eq!(report.seeds, 12);
    assert!(report.grants > 0 && report.commits > 0 && report.store_writes > 0, "{report:?}");
    assert_eq!(report.takeovers, 12, "every seed checks a takeover: {report:?}");
}
