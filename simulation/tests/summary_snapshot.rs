//! The summary of one fixed seed of the default scenario. It holds the digest of the history,
//! so running the tests in debug and in release checks that both builds replay alike.

use dynalease_sim::locks::LockService;
use dynalease_sim::{Config, Scenario, World};

#[test]
fn the_summary_of_seed_42() {
    let report = World::new(Scenario::from_seed(42, &Config::default(), &LockService::default())).run();
    insta::assert_snapshot!(report.summary());
}
