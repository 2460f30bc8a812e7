//! [`sweep`]: many seeds of one [`Config`], one after the other, and what they add up to.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use crate::check::ViolationKind;
use crate::report::RunReport;
use crate::scenario::{Config, Scenario};
use crate::timeline::seconds;
use crate::world::World;

/// What a sweep found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// The first seed.
    pub from: u64,
    /// How many seeds ran.
    pub seeds: u64,
    /// The seeds whose runs broke an invariant.
    pub failed: Vec<u64>,
    /// How many runs broke each invariant.
    pub violations: BTreeMap<ViolationKind, u64>,
    /// Grants checked, over all runs.
    pub grants: u64,
    /// Beliefs checked.
    pub beliefs: u64,
    /// Fenced commits checked.
    pub commits: u64,
    /// External store writes checked.
    pub store_writes: u64,
    /// Liveness takeovers checked.
    pub takeovers: u64,
    /// The slowest of them.
    pub slowest_takeover: Duration,
    /// DynamoDB requests, over all runs.
    pub requests: u64,
}

impl SweepReport {
    /// What the sweep checked and found, without the final line.
    pub fn summary(&self, config: &Config) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "sweep: seeds {}..{}, lock {}, {} processes, {} s simulated each",
            self.from,
            self.from + self.seeds,
            config.lock,
            config.processes,
            config.duration_ms / 1000
        );
        let _ = writeln!(out, "  DynamoDB requests: {} ({} per run)", self.requests, self.requests / self.seeds.max(1));
        let _ = writeln!(
            out,
            "  checked: {} grants, {} beliefs, {} fenced commits, {} store writes, {} takeovers (slowest {})",
            self.grants,
            self.beliefs,
            self.commits,
            self.store_writes,
            self.takeovers,
            seconds(self.slowest_takeover)
        );
        if self.violations.is_empty() {
            let _ = writeln!(out, "  violations: none");
        } else {
            for (kind, runs) in &self.violations {
                let _ = writeln!(out, "  violations: {kind}: {runs} runs");
            }
            let shown: Vec<String> = self.failed.iter().take(20).map(u64::to_string).collect();
            let more =
                if self.failed.len() > 20 { format!(" and {} more", self.failed.len() - 20) } else { String::new() };
            let _ = writeln!(out, "  failing seeds: {}{more}", shown.join(", "));
        }
        out
    }
}

/// Runs `seeds` seeds of `config` from `from`, and calls `each` with every run.
///
/// # Examples
///
/// ```
/// use dynalease_sim::{Config, sweep};
///
/// let config = Config { duration_ms: 60_000, ..Config::default() };
/// let report = sweep::sweep(&config, 0, 2, |_run| {});
/// assert_eq!(report.seeds, 2);
/// assert!(report.failed.is_empty());
/// ```
pub fn sweep(config: &Config, from: u64, seeds: u64, mut each: impl FnMut(&RunReport)) -> SweepReport {
    let mut report = SweepReport { from, ..SweepReport::default() };
    for seed in from..from.saturating_add(seeds) {
        let run = World::new(Scenario::from_seed(seed, config)).run();
        report.add(&run);
        each(&run);
    }
    report
}

impl SweepReport {
    fn add(&mut self, run: &RunReport) {
        self.seeds += 1;
        self.requests += run.requests() as u64;
        let stats = &run.check().stats;
        self.grants += stats.grants as u64;
        self.beliefs += stats.beliefs as u64;
        self.commits += stats.commits as u64;
        self.store_writes += stats.store_writes as u64;
        if let Some(took) = stats.takeover {
            self.takeovers += 1;
            self.slowest_takeover = self.slowest_takeover.max(took);
        }
        if !run.violations().is_empty() {
            self.failed.push(run.scenario().seed);
            let mut kinds: Vec<ViolationKind> = run.violations().iter().map(|v| v.kind).collect();
            kinds.sort_unstable();
            kinds.dedup();
            for kind in kinds {
                *self.violations.entry(kind).or_default() += 1;
            }
        }
    }
}
