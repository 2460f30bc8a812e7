//! [`sweep`]: many seeds of one [`Config`], and what they add up to.
//!
//! [`sweep_with`] runs them on several threads, each world on a runtime of its own; the runs
//! are handed back in the order of their seeds, so whatever the number of threads a sweep
//! reports the same runs, the same failures and the same summary.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
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
    /// Writes to lock items checked against the item as it was.
    pub writes: u64,
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
    /// The seed the sweep stopped at, if it stopped early ([`SweepOptions::until`]).
    pub stopped_at: Option<u64>,
    /// The invariants the run it stopped at broke.
    pub stopped_for: Vec<ViolationKind>,
}

/// Which failing run stops a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Until {
    /// The first run that breaks any invariant.
    Any,
    /// The first run that breaks an invariant of safety.
    Safety,
}

impl Until {
    /// Whether `run` stops the sweep.
    pub fn stops(self, run: &RunReport) -> bool {
        run.violations().iter().any(|v| self == Until::Any || v.kind.is_safety())
    }
}

/// How a sweep runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SweepOptions {
    /// How many threads run seeds at once.
    pub jobs: usize,
    /// Stop at the first run of this kind, instead of running every seed.
    pub until: Option<Until>,
}

impl Default for SweepOptions {
    /// One thread, every seed.
    fn default() -> Self {
        SweepOptions { jobs: 1, until: None }
    }
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
            "  checked: {} grants, {} lock writes, {} beliefs, {} fenced commits, {} store writes, {} takeovers (slowest {})",
            self.grants,
            self.writes,
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

/// Runs `seeds` seeds of `config` from `from`, one after the other, and calls `each` with every
/// run.
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
pub fn sweep(config: &Config, from: u64, seeds: u64, each: impl FnMut(&RunReport)) -> SweepReport {
    sweep_with(config, from, seeds, SweepOptions::default(), each)
}

/// Runs `seeds` seeds of `config` from `from` on `options.jobs` threads, and calls `each` with
/// every run in the order of the seeds, on the calling thread. With `options.until`, stops after
/// the first run that breaks an invariant of that kind; the runs of later seeds that other
/// threads finished meanwhile are not reported.
///
/// # Examples
///
/// ```
/// use dynalease_sim::{Config, sweep::{self, SweepOptions}};
///
/// let config = Config { duration_ms: 60_000, ..Config::default() };
/// let mut seeds = Vec::new();
/// let options = SweepOptions { jobs: 2, ..SweepOptions::default() };
/// let report = sweep::sweep_with(&config, 10, 4, options, |run| seeds.push(run.scenario().seed));
/// assert_eq!(seeds, [10, 11, 12, 13]);
/// assert_eq!(report, sweep::sweep(&config, 10, 4, |_| {}));
/// ```
pub fn sweep_with(
    config: &Config,
    from: u64,
    seeds: u64,
    options: SweepOptions,
    mut each: impl FnMut(&RunReport),
) -> SweepReport {
    let mut report = SweepReport { from, ..SweepReport::default() };
    let end = from.saturating_add(seeds);
    let mut accept = |run: RunReport, report: &mut SweepReport| -> bool {
        report.add(&run);
        each(&run);
        let stop = options.until.is_some_and(|until| until.stops(&run));
        if stop {
            report.stopped_at = Some(run.scenario().seed);
            report.stopped_for = run.violations().iter().map(|v| v.kind).collect();
            report.stopped_for.sort_unstable();
            report.stopped_for.dedup();
        }
        stop
    };
    if options.jobs <= 1 {
        for seed in from..end {
            if accept(World::new(Scenario::from_seed(seed, config)).run(), &mut report) {
                break;
            }
        }
        return report;
    }
    let next = AtomicU64::new(from);
    // The workers stop claiming seeds past this one once a run has stopped the sweep.
    let limit = AtomicU64::new(end);
    std::thread::scope(|scope| {
        let (sender, runs) = mpsc::channel::<RunReport>();
        for _ in 0..options.jobs {
            let sender = sender.clone();
            let (next, limit) = (&next, &limit);
            scope.spawn(move || {
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= limit.load(Ordering::Relaxed) {
                        return;
                    }
                    let run = World::new(Scenario::from_seed(seed, config)).run();
                    if sender.send(run).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting: BTreeMap<u64, RunReport> = BTreeMap::new();
        let mut expected = from;
        for run in runs {
            waiting.insert(run.scenario().seed, run);
            while let Some(run) = waiting.remove(&expected) {
                expected += 1;
                if accept(run, &mut report) {
                    limit.store(expected, Ordering::Relaxed);
                    return;
                }
            }
        }
    });
    report
}

impl SweepReport {
    fn add(&mut self, run: &RunReport) {
        self.seeds += 1;
        self.requests += run.requests() as u64;
        let stats = &run.check().stats;
        self.grants += stats.grants as u64;
        self.writes += stats.writes as u64;
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
