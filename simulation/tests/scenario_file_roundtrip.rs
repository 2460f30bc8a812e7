//! A scenario written to a file runs to the digest of the seed it was written from: every field
//! that shapes a run goes into the file and comes back, triggers, per-process leases and the
//! parameters of the roles included.

use dynalease_sim::locks::{LockKind, LockService};
use dynalease_sim::{Config, Scenario, World};

fn digest(scenario: Scenario<LockService>) -> String {
    World::new(scenario).run().digest()
}

fn file_digest(scenario: &Scenario<LockService>) -> String {
    let text = scenario.to_toml("round trip");
    digest(Scenario::from_toml(&text).unwrap_or_else(|e| panic!("seed {}: {e}\n{text}", scenario.seed)))
}

#[test]
fn the_file_of_a_seed_gives_the_seed_s_digest() {
    let config = Config { duration_ms: 300_000, ..Config::default() };
    let (mut mixed, mut triggered, mut checked) = (0, 0, 0);
    for seed in 0..40 {
        let scenario = Scenario::from_seed(seed, &config, &LockService::default());
        let has_mixed = scenario.processes.iter().any(|p| p.kinds.iter().any(|k| k.lease_ms.is_some()));
        let has_triggers = !scenario.triggers.is_empty();
        // Every seed with mixed leases or triggers, and the first few others.
        if !(has_mixed || has_triggers || seed < 3) {
            continue;
        }
        mixed += usize::from(has_mixed);
        triggered += usize::from(has_triggers);
        checked += 1;
        assert_eq!(file_digest(&scenario), digest(scenario), "seed {seed}");
    }
    assert!(mixed >= 3 && triggered >= 5, "{checked} seeds: {mixed} with mixed leases, {triggered} with triggers");
}

#[test]
fn the_file_of_a_naive_seed_and_of_a_large_seed_replay_too() {
    let config = Config { duration_ms: 200_000, ..Config::default() };
    let naive = Scenario::from_seed(11, &config, &LockService::with_lock(LockKind::Naive));
    assert_eq!(file_digest(&naive), digest(naive));
    let large = Scenario::from_seed(u64::MAX - 5, &config, &LockService::default());
    assert!(large.to_toml("").contains("seed = \"18446744073709551610\""));
    assert_eq!(file_digest(&large), digest(large));
}

#[test]
fn the_documented_example_file_reads_and_runs() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenario-format.toml");
    let text = std::fs::read_to_string(path).expect("the format's example");
    let scenario = Scenario::<LockService>::from_toml(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!((scenario.processes.len(), scenario.faults.len(), scenario.triggers.len()), (3, 2, 1));
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());
}
