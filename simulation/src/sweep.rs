//! [`sweep_with`]: many seeds of one [`Config`] and service, and what they add up to.
//!
//! Runs go on several threads, each world on a runtime of its own; they are handed back in the
//! order of their seeds, so whatever the number of threads a sweep reports the same runs, the
//! same failures and the same summary. A sweep can be split across machines with a
//! [`Partition`] (as cargo-nextest splits tests: seed `i` of the range goes to part
//! `i % N + 1`), and the JSON of the parts merges into one summary ([`SweepReport::merge`]).

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use crate::scenario::Scenario;
use crate::service::Service;
use crate::spec::Config;
use crate::world::{RunReport, World};

/// What a sweep found.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SweepReport {
    /// The service.
    pub service: String,
    /// The first seed.
    pub from: u64,
    /// How many seeds the range has (a part runs only its share of them).
    pub range: u64,
    /// The part of the range this sweep ran, if it ran one.
    pub partition: Option<Partition>,
    /// How many seeds ran.
    pub seeds: u64,
    /// The seeds whose runs broke an invariant, left a check unfinished or failed to run.
    pub failed: Vec<u64>,
    /// How many runs broke each invariant, by its name.
    pub violations: BTreeMap<String, u64>,
    /// The seeds whose checks could not finish (a history too large for the search), which are
    /// no pass.
    pub inconclusive: Vec<u64>,
    /// The seeds whose runs failed to run or to be checked, with why.
    pub errors: Vec<(u64, String)>,
    /// What the checkers counted, summed over the runs.
    pub counts: BTreeMap<String, u64>,
    /// The largest values the checkers reported, over the runs.
    pub maxima: BTreeMap<String, u64>,
    /// DynamoDB requests, over all runs.
    pub requests: u64,
    /// The seed the sweep stopped at, if it stopped early ([`SweepOptions::until`]).
    pub stopped_at: Option<u64>,
    /// The invariants the run it stopped at broke.
    pub stopped_for: Vec<String>,
}

/// One of `count` parts of a range of seeds: seed `from + i` belongs to part `i % count + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Partition {
    /// The part, from 1.
    pub part: u64,
    /// How many parts.
    pub count: u64,
}

impl Partition {
    /// Whether seed number `index` of the range (from 0) is this part's.
    pub fn has(&self, index: u64) -> bool {
        index % self.count == self.part - 1
    }
}

impl std::str::FromStr for Partition {
    type Err = String;

    /// Reads `K/N`, as `--partition 2/4`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (part, count) = text.split_once('/').ok_or_else(|| format!("`{text}` is not K/N, such as 2/4"))?;
        let part: u64 = part.trim().parse().map_err(|_| format!("`{part}` in `{text}` is not a number"))?;
        let count: u64 = count.trim().parse().map_err(|_| format!("`{count}` in `{text}` is not a number"))?;
        if count == 0 || part == 0 || part > count {
            return Err(format!("`{text}`: the part must be from 1 to the number of parts"));
        }
        Ok(Partition { part, count })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.part, self.count)
    }
}

/// Which failing run stops a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Until {
    /// The first run that does not pass.
    Any,
    /// The first run that breaks an invariant of safety.
    Safety,
}

impl Until {
    /// Whether `run` stops the sweep.
    pub fn stops<S: Service>(self, run: &RunReport<S>) -> bool {
        match self {
            Until::Any => !run.passed(),
            Until::Safety => run.violations().iter().any(|v| v.invariant.is_safety()),
        }
    }
}

/// How a sweep runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SweepOptions {
    /// How many threads run seeds at once.
    pub jobs: usize,
    /// Stop at the first run of this kind, instead of running every seed.
    pub until: Option<Until>,
    /// Run only this part of the seeds.
    pub partition: Option<Partition>,
    /// The program whose commands replay the runs (see [`RunReport::with_program`]).
    pub program: Option<String>,
}

impl Default for SweepOptions {
    /// One thread, every seed.
    fn default() -> Self {
        SweepOptions { jobs: 1, until: None, partition: None, program: None }
    }
}

impl SweepReport {
    /// Whether every run passed.
    pub fn passed(&self) -> bool {
        self.failed.is_empty()
    }

    /// The sweep that the reports of its parts add up to, as if one machine had run them all.
    /// Fails if the parts are of different services or ranges, or overlap.
    pub fn merge(parts: &[SweepReport]) -> Result<SweepReport, String> {
        let first = parts.first().ok_or("no part to merge")?;
        let mut merged = SweepReport {
            service: first.service.clone(),
            from: first.from,
            range: first.range,
            ..SweepReport::default()
        };
        let mut seen = std::collections::BTreeSet::new();
        for part in parts {
            if part.service != first.service || part.from != first.from || part.range != first.range {
                return Err(format!(
                    "the parts sweep different ranges: {} seeds {}..{} and {} seeds {}..{}",
                    first.service,
                    first.from,
                    first.from + first.range,
                    part.service,
                    part.from,
                    part.from + part.range
                ));
            }
            let key = part.partition.map(|p| (p.part, p.count));
            if !seen.insert(key) {
                return Err(format!(
                    "part {} is given twice",
                    part.partition.map_or("(whole)".into(), |p| p.to_string())
                ));
            }
            merged.seeds += part.seeds;
            merged.requests += part.requests;
            merged.failed.extend(&part.failed);
            merged.inconclusive.extend(&part.inconclusive);
            merged.errors.extend(part.errors.iter().cloned());
            for (name, n) in &part.violations {
                *merged.violations.entry(name.clone()).or_default() += n;
            }
            for (name, n) in &part.counts {
                *merged.counts.entry(name.clone()).or_default() += n;
            }
            for (name, n) in &part.maxima {
                let max = merged.maxima.entry(name.clone()).or_default();
                *max = (*max).max(*n);
            }
            if let Some(stopped) = part.stopped_at {
                merged.stopped_at = Some(merged.stopped_at.map_or(stopped, |s| s.min(stopped)));
            }
        }
        merged.failed.sort_unstable();
        merged.inconclusive.sort_unstable();
        merged.errors.sort();
        Ok(merged)
    }

    /// What the sweep checked and found, without the final line.
    pub fn summary(&self, config: &Config) -> String {
        let mut out = String::new();
        let part = self.partition.map(|p| format!(" (part {p})")).unwrap_or_default();
        let _ = writeln!(
            out,
            "sweep: service {}, seeds {}..{}{part}, {} processes, {} s simulated each",
            self.service,
            self.from,
            self.from + self.range,
            config.processes,
            config.duration_ms / 1000
        );
        let _ = writeln!(
            out,
            "  runs: {}; DynamoDB requests: {} ({} per run)",
            self.seeds,
            self.requests,
            self.requests / self.seeds.max(1)
        );
        if !self.counts.is_empty() {
            let counts: Vec<String> = self.counts.iter().map(|(name, n)| format!("{n} {name}")).collect();
            let _ = writeln!(out, "  checked: {}", counts.join(", "));
        }
        for (name, value) in &self.maxima {
            let _ = writeln!(out, "  {name}: {value}");
        }
        if self.violations.is_empty() {
            let _ = writeln!(out, "  violations: none");
        } else {
            for (kind, runs) in &self.violations {
                let _ = writeln!(out, "  violations: {kind}: {runs} runs");
            }
        }
        if !self.inconclusive.is_empty() {
            let _ = writeln!(out, "  INCONCLUSIVE (no pass): {} runs", self.inconclusive.len());
        }
        for (seed, error) in self.errors.iter().take(5) {
            let _ = writeln!(out, "  ERROR at seed {seed}: {error}");
        }
        if !self.failed.is_empty() {
            let shown: Vec<String> = self.failed.iter().take(20).map(u64::to_string).collect();
            let more =
                if self.failed.len() > 20 { format!(" and {} more", self.failed.len() - 20) } else { String::new() };
            let _ = writeln!(out, "  failing seeds: {}{more}", shown.join(", "));
        }
        out
    }

    fn add<S: Service>(&mut self, run: &RunReport<S>) {
        self.seeds += 1;
        self.requests += run.requests() as u64;
        let verdict = run.verdict();
        for (name, n) in &verdict.counts {
            *self.counts.entry(name.clone()).or_default() += n;
        }
        for (name, n) in &verdict.maxima {
            let max = self.maxima.entry(name.clone()).or_default();
            *max = (*max).max(*n);
        }
        let seed = run.scenario().seed;
        if !run.passed() {
            self.failed.push(seed);
        }
        if !run.inconclusive().is_empty() {
            self.inconclusive.push(seed);
        }
        if let Some(error) = run.error() {
            self.errors.push((seed, error.to_string()));
        }
        let mut kinds: Vec<&str> = run.violations().iter().map(|v| v.invariant.name()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        for kind in kinds {
            *self.violations.entry(kind.to_owned()).or_default() += 1;
        }
    }
}

/// Runs `seeds` seeds of `service` in the shape of `config` from `from`, one after the other,
/// and calls `each` with every run.
pub fn sweep<S: Service>(
    config: &Config,
    service: &S,
    from: u64,
    seeds: u64,
    each: impl FnMut(&RunReport<S>),
) -> SweepReport {
    sweep_with(config, service, from, seeds, SweepOptions::default(), each)
}

/// Runs `seeds` seeds of `service` in the shape of `config` from `from` (those of
/// `options.partition`, if it names a part) on `options.jobs` threads, and calls `each` with
/// every run in the order of the seeds, on the calling thread. With `options.until`, stops
/// after the first run of that kind; the runs of later seeds that other threads finished
/// meanwhile are not reported.
pub fn sweep_with<S: Service>(
    config: &Config,
    service: &S,
    from: u64,
    seeds: u64,
    options: SweepOptions,
    mut each: impl FnMut(&RunReport<S>),
) -> SweepReport {
    let mut report = SweepReport {
        service: S::NAME.to_owned(),
        from,
        range: seeds,
        partition: options.partition,
        ..SweepReport::default()
    };
    let end = from.saturating_add(seeds);
    let mine = |seed: u64| options.partition.is_none_or(|p| p.has(seed - from));
    let mut accept = |run: RunReport<S>, report: &mut SweepReport| -> bool {
        report.add(&run);
        each(&run);
        let stop = options.until.is_some_and(|until| until.stops(&run));
        if stop {
            report.stopped_at = Some(run.scenario().seed);
            report.stopped_for = run.violations().iter().map(|v| v.invariant.name().to_owned()).collect();
            report.stopped_for.sort_unstable();
            report.stopped_for.dedup();
        }
        stop
    };
    let run = |seed: u64| {
        let report = World::new(Scenario::from_seed(seed, config, service)).run();
        match &options.program {
            Some(program) => report.with_program(program.clone()),
            None => report,
        }
    };
    if options.jobs <= 1 {
        for seed in (from..end).filter(|s| mine(*s)) {
            if accept(run(seed), &mut report) {
                break;
            }
        }
        return report;
    }
    let next = AtomicU64::new(from);
    // The workers stop claiming seeds past this one once a run has stopped the sweep.
    let limit = AtomicU64::new(end);
    std::thread::scope(|scope| {
        let (sender, runs) = mpsc::channel::<RunReport<S>>();
        for _ in 0..options.jobs {
            let sender = sender.clone();
            let (next, limit, run, mine) = (&next, &limit, &run, &mine);
            scope.spawn(move || {
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= limit.load(Ordering::Relaxed) {
                        return;
                    }
                    if !mine(seed) {
                        continue;
                    }
                    if sender.send(run(seed)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        let mut waiting: BTreeMap<u64, RunReport<S>> = BTreeMap::new();
        let mut expected = from;
        for run in runs {
            waiting.insert(run.scenario().seed, run);
            loop {
                while expected < end && !mine(expected) {
                    expected += 1;
                }
                let Some(run) = waiting.remove(&expected) else { break };
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
