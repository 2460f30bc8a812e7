//! The simulation in `cargo test`: a service, its invariants, how many seeds, in a few lines.
//!
//! ```no_run
//! # use dynalease_sim::locks::LockService as MyService;
//! #[test]
//! fn my_service_holds_under_faults() {
//!     dynalease_sim::harness::check(MyService::default()).seeds(200).run();
//! }
//! ```
//!
//! [`Check::run`] sweeps the seeds on every core. A run that does not pass makes it panic with
//! what broke, the seed, the path of the smallest scenario that still breaks it (shrunk and
//! written under `target/dynalease-sim/`), and the one command that replays that file. A run
//! is replayed once more before it is reported: a service whose two runs of the same scenario
//! disagree is reported as not deterministic, not as a violation.
//!
//! Environment variables, for CI as `PROPTEST_CASES` is for proptest:
//!
//! | variable | what it does |
//! | --- | --- |
//! | `DYNALEASE_SIM_SEEDS` | how many seeds, instead of the test's own number |
//! | `DYNALEASE_SIM_FROM` | the first seed (default 0) |
//! | `DYNALEASE_SIM_JOBS` | how many threads (default: the machine's cores) |
//! | `DYNALEASE_SIM_SCENARIO` | runs this scenario file only, and prints its timeline |
//! | `DYNALEASE_SIM_SHRINK_RUNS` | the most runs a shrink makes (default 200; 0: no shrink) |

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::scenario::Scenario;
use crate::service::Service;
use crate::shrink::{self, ShrinkOptions};
use crate::spec::Config;
use crate::sweep::{self, SweepOptions, SweepReport, Until};
use crate::world::{RunReport, World};

/// A check of a service over many seeds, made with [`check`].
#[derive(Debug)]
pub struct Check<S: Service> {
    service: S,
    config: Config,
    seeds: u64,
    from: u64,
    jobs: Option<usize>,
    shrink_runs: usize,
    out_dir: PathBuf,
}

/// A check of `service` in the shape of the default [`Config`], over 100 seeds.
pub fn check<S: Service>(service: S) -> Check<S> {
    Check {
        service,
        config: Config::default(),
        seeds: 100,
        from: 0,
        jobs: None,
        shrink_runs: 200,
        out_dir: PathBuf::from("target").join("dynalease-sim"),
    }
}

/// Why a check did not pass: the failing run, shrunk, and how to replay it.
#[derive(Debug)]
pub struct Failure<S: Service> {
    /// The first run that did not pass, in the order of the seeds.
    pub first: RunReport<S>,
    /// The smallest scenario that still fails the same way, if the shrink found one.
    pub shrunk: Option<RunReport<S>>,
    /// The file the scenario to replay was written to.
    pub file: Option<PathBuf>,
    /// The one command that replays it.
    pub replay: String,
    /// What the sweep found, up to the failing run.
    pub sweep: SweepReport,
}

impl<S: Service> Check<S> {
    /// Runs `seeds` seeds (unless `DYNALEASE_SIM_SEEDS` says otherwise).
    pub fn seeds(mut self, seeds: u64) -> Self {
        self.seeds = seeds;
        self
    }

    /// Starts at seed `from` (unless `DYNALEASE_SIM_FROM` says otherwise).
    pub fn from(mut self, from: u64) -> Self {
        self.from = from;
        self
    }

    /// Runs scenarios of the shape `config`.
    pub fn config(mut self, config: Config) -> Self {
        self.config = config;
        self
    }

    /// Runs `jobs` seeds at once.
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = Some(jobs.max(1));
        self
    }

    /// Shrinks a failure in at most `runs` runs (0: no shrink).
    pub fn shrink_runs(mut self, runs: usize) -> Self {
        self.shrink_runs = runs;
        self
    }

    /// Writes shrunk scenarios into `dir` (default `target/dynalease-sim`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = dir.into();
        self
    }

    /// Runs the check and panics if a run does not pass, with what broke, the seed, the shrunk
    /// scenario's file and the command that replays it. Returns what the sweep found.
    #[track_caller]
    pub fn run(self) -> SweepReport {
        match self.outcome() {
            Ok(report) => report,
            Err(failure) => panic!("{}", failure.message()),
        }
    }

    /// Runs the check: what the sweep found, or why it did not pass.
    pub fn outcome(self) -> Result<SweepReport, Box<Failure<S>>> {
        let env = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<u64>().ok());
        if let Ok(path) = std::env::var("DYNALEASE_SIM_SCENARIO") {
            return self.replay(Path::new(&path));
        }
        let seeds = env("DYNALEASE_SIM_SEEDS").unwrap_or(self.seeds);
        let from = env("DYNALEASE_SIM_FROM").unwrap_or(self.from);
        let jobs = env("DYNALEASE_SIM_JOBS")
            .map(|j| j.max(1) as usize)
            .or(self.jobs)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
        let shrink_runs = env("DYNALEASE_SIM_SHRINK_RUNS").map_or(self.shrink_runs, |r| r as usize);
        let options = SweepOptions { jobs, until: Some(Until::Any), ..SweepOptions::default() };
        let mut first = None;
        let report = sweep::sweep_with(&self.config, &self.service, from, seeds, options, |run| {
            if !run.passed() && first.is_none() {
                first = Some(run.scenario().clone());
            }
        });
        let Some(scenario) = first else { return Ok(report) };
        Err(Box::new(self.explain(scenario, report, shrink_runs)))
    }

    /// Runs the scenario of the file at `path` alone, printing its timeline.
    fn replay(&self, path: &Path) -> Result<SweepReport, Box<Failure<S>>> {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|err| panic!("DYNALEASE_SIM_SCENARIO={}: {err}", path.display()));
        let scenario = Scenario::<S>::from_toml(&text)
            .unwrap_or_else(|err| panic!("DYNALEASE_SIM_SCENARIO={}: {err}", path.display()));
        let report = World::new(scenario).run().with_source(path.display().to_string());
        println!("{}", report.timeline());
        print!("{}", report.summary());
        let mut sweep = SweepReport { service: S::NAME.to_owned(), seeds: 1, range: 1, ..SweepReport::default() };
        if report.passed() {
            return Ok(sweep);
        }
        sweep.failed.push(report.scenario().seed);
        let replay = replay_command(path);
        let report = report.with_replay(replay.clone());
        Err(Box::new(Failure { first: report, shrunk: None, file: Some(path.to_owned()), replay, sweep }))
    }

    /// The failure of `scenario`: replayed to check that it is deterministic, shrunk, written.
    fn explain(&self, scenario: Scenario<S>, sweep: SweepReport, shrink_runs: usize) -> Failure<S> {
        let first = World::new(scenario.clone()).run();
        let again = World::new(scenario.clone()).run();
        let mut first = first;
        if first.digest() != again.digest() && first.error.is_none() {
            first.error = Some(crate::world::RunError::Nondeterministic(format!(
                "two runs of seed {} gave the digests {} and {}: the service (or its checker) depends on \
                 something outside the seed, such as the order of a HashMap, the real clock or OS randomness",
                scenario.seed,
                first.digest(),
                again.digest()
            )));
        }
        let kind = first.violations().iter().find(|v| v.invariant.is_safety()).or(first.violations().first());
        let shrunk = match kind {
            Some(violation) if shrink_runs > 0 && first.error.is_none() => {
                let options =
                    ShrinkOptions { max_runs: shrink_runs, kind: Some(violation.invariant.name().to_owned()) };
                shrink::shrink(scenario.clone(), options, |_| {}, |_| {}).ok().map(|s| s.report)
            }
            _ => None,
        };
        let keep = shrunk.as_ref().map_or(first.scenario(), |s| s.scenario());
        let name = format!("{}-seed-{}{}.toml", S::NAME, scenario.seed, if shrunk.is_some() { "-shrunk" } else { "" });
        let path = self.out_dir.join(name);
        let comment = format!(
            "A scenario of {} that does not pass: seed {}{}.\nReplay it: {}",
            S::NAME,
            scenario.seed,
            if shrunk.is_some() { ", shrunk" } else { "" },
            replay_command(&path)
        );
        let written =
            std::fs::create_dir_all(&self.out_dir).and_then(|()| std::fs::write(&path, keep.to_toml(&comment))).is_ok();
        let file = written.then(|| path.clone());
        let replay = replay_command(&path);
        // The reports replay as the test does, on the file written: not as the command line.
        let first = first.with_replay(replay.clone());
        let shrunk = shrunk.map(|report| report.with_replay(replay.clone()));
        Failure { first, shrunk, file, replay, sweep }
    }
}

impl<S: Service> Failure<S> {
    /// The message a failing check panics with.
    pub fn message(&self) -> String {
        let mut out = String::new();
        let run = self.shrunk.as_ref().unwrap_or(&self.first);
        let seed = self.first.scenario().seed;
        match (self.first.error(), self.first.violations().first(), self.first.inconclusive().first()) {
            (Some(error), _, _) => {
                let _ = writeln!(out, "service {} at seed {seed}: {error}", S::NAME);
            }
            (None, Some(violation), _) => {
                let _ = writeln!(
                    out,
                    "service {} broke `{}` at seed {seed}: {}",
                    S::NAME,
                    violation.invariant.name(),
                    violation.message
                );
            }
            (None, None, Some(inconclusive)) => {
                let _ = writeln!(
                    out,
                    "service {} at seed {seed}: the check `{}` could not finish, which is no pass: {}",
                    S::NAME,
                    inconclusive.check,
                    inconclusive.why
                );
            }
            (None, None, None) => {
                let _ = writeln!(out, "service {} at seed {seed} did not pass", S::NAME);
            }
        }
        if let Some(shrunk) = &self.shrunk {
            let _ = writeln!(
                out,
                "shrunk from {} to {}",
                shrink::Size::of(self.first.scenario()),
                shrink::Size::of(shrunk.scenario())
            );
        }
        match &self.file {
            Some(file) => {
                let _ = writeln!(out, "scenario: {}", file.display());
            }
            None => {
                let _ = writeln!(out, "scenario: (could not be written)");
            }
        }
        let _ = writeln!(out, "replay: {}", self.replay);
        let _ = writeln!(out);
        out.push_str(&run.failure_report());
        out
    }
}

/// The command that runs the current test again on the scenario file at `path`.
fn replay_command(path: &Path) -> String {
    let exe = std::env::current_exe().map_or_else(|_| String::from("<test binary>"), |p| p.display().to_string());
    let thread = std::thread::current();
    let test = match thread.name() {
        Some(name) if name != "main" => format!(" {name} --exact"),
        _ => String::new(),
    };
    format!("DYNALEASE_SIM_SCENARIO={} {exe}{test} --nocapture", path.display())
}
