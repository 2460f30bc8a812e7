//! The library holds every invariant over a sweep of the default scenario with every fault.

use dynalease_sim::locks::LockService;
use dynalease_sim::{Config, sweep};

#[test]
fn the_library_holds_every_invariant_in_a_small_sweep() {
    let config = Config::default();
    let report = sweep::sweep(&config, &LockService::default(), 100, 12, |run| {
        assert!(run.violations().is_empty(), "{}", run.failure_report());
    });
    assert_eq!(report.seeds, 12);
    let count = |name: &str| report.counts.get(name).copied().unwrap_or(0);
    assert!(count("grants") > 0 && count("fenced commits") > 0 && count("store writes") > 0, "{report:?}");
    assert_eq!(count("takeovers"), 12, "every seed checks a takeover: {report:?}");
}
