//! A run is a pure function of its seed: the same seed gives the same digest, run after run and
//! whatever the log level. (The insta snapshot of `summary_snapshot.rs` holds the digest of one
//! seed, so `cargo test` and `cargo test --release` check that debug and release agree.)

use dynalease_sim::locks::{LockKind, LockService};
use dynalease_sim::{Config, Scenario, World};

fn digest(seed: u64, config: &Config) -> String {
    World::new(Scenario::from_seed(seed, config, &LockService::default())).run().digest()
}

#[test]
fn the_same_seed_gives_the_same_digest() {
    let config = Config::default();
    for seed in [0, 1, 2] {
        assert_eq!(digest(seed, &config), digest(seed, &config), "seed {seed}");
    }
}

#[test]
fn the_naive_lock_replays_too() {
    let naive = LockService::with_lock(LockKind::Naive);
    let run = || World::new(Scenario::from_seed(5, &Config::default(), &naive)).run().digest();
    assert_eq!(run(), run());
}

#[test]
fn the_log_level_changes_nothing() {
    let config = Config { duration_ms: 300_000, ..Config::default() };
    let quiet = digest(3, &config);
    let subscriber =
        tracing_subscriber::fmt().with_max_level(tracing::Level::TRACE).with_writer(std::io::sink).finish();
    let loud = tracing::subscriber::with_default(subscriber, || digest(3, &config));
    assert_eq!(quiet, loud);
}

#[test]
fn different_seeds_give_different_histories() {
    let config = Config { duration_ms: 120_000, ..Config::default() };
    assert_ne!(digest(10, &config), digest(11, &config));
}
