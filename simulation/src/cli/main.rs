//! `dynalease-sim`: run the simulation from the command line.
//!
//! ```text
//! dynalease-sim                          # the default sweep, with a summary
//! dynalease-sim run --seed 42            # one seed; the last line is `digest: <hex>`
//! dynalease-sim sweep --seeds 300 --from 1000 --jobs 2
//! dynalease-sim sweep --seeds 200 --until safety   # stops at the first run that breaks safety
//! dynalease-sim --lock naive sweep --seeds 200
//! dynalease-sim run --seed 42 --timeline
//! ```
//!
//! Exit status: 0 without violations, 1 with, 2 for bad usage. `RUST_LOG` turns on logs (to
//! stderr); they change nothing in a run.

use std::io::Write as _;
use std::process::ExitCode;

/// Every request of a simulated run allocates in the SDK and the fake; glibc's allocator was a
/// third of all instructions of a sweep.
#[global_allocator]
static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;

use clap::{Parser, Subcommand, ValueEnum};
use dynalease_sim::sweep::{self, SweepOptions, Until};
use dynalease_sim::{Config, LockKind, Scenario, World};

/// The seeds of the default sweep.
const DEFAULT_SEEDS: u64 = 1_000;

/// A deterministic world of dynalease lock contenders, faults and invariant checks.
///
/// Without a command, sweeps the default seeds and prints a summary.
#[derive(Debug, Parser)]
#[command(name = "dynalease-sim", version, about, long_about = None)]
struct Cli {
    /// The lock the processes use: the library, or the deliberately naive one.
    #[arg(long, global = true, value_enum, default_value_t = Lock::Library)]
    lock: Lock,
    /// Print the timeline of the run (with `sweep`: of every failing run).
    #[arg(long, global = true)]
    timeline: bool,
    /// How many processes.
    #[arg(long, global = true, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=64))]
    processes: u16,
    /// How long each run lasts, in simulated seconds.
    #[arg(long, global = true, default_value_t = 600, value_parser = clap::value_parser!(u64).range(10..=86_400))]
    duration_s: u64,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs one seed and prints its summary; the last line is `digest: <hex>`.
    Run {
        /// The seed.
        #[arg(long)]
        seed: u64,
    },
    /// Runs many seeds; the last line is `seeds: N, violations: V, seeds/s: R`, where V counts
    /// the seeds that broke an invariant.
    Sweep {
        /// How many seeds.
        #[arg(long)]
        seeds: u64,
        /// The first seed.
        #[arg(long, default_value_t = 0)]
        from: u64,
        #[command(flatten)]
        parallel: Parallel,
        /// Stop at the first run that breaks an invariant (`any`) or one of safety (`safety`),
        /// and end with the line `caught: seed S (N seeds, T s): kinds`, or `caught: none (..)`.
        #[arg(long, value_enum)]
        until: Option<UntilArg>,
    },
}

/// How many threads run seeds.
#[derive(Debug, clap::Args)]
struct Parallel {
    /// How many seeds run at once, each on a thread of its own; the output is the same for any
    /// number. Default: the machine's cores.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    jobs: Option<u16>,
}

impl Parallel {
    fn jobs(&self) -> usize {
        match self.jobs {
            Some(jobs) => usize::from(jobs),
            None => std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum UntilArg {
    Any,
    Safety,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Lock {
    Library,
    Naive,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .init();
    }
    let config = Config {
        processes: cli.processes,
        duration_ms: cli.duration_s * 1000,
        lock: match cli.lock {
            Lock::Library => LockKind::Library,
            Lock::Naive => LockKind::Naive,
        },
        ..Config::default()
    };
    let failed = match cli.command {
        Some(Command::Run { seed }) => run(&config, seed, cli.timeline),
        Some(Command::Sweep { seeds, from, parallel, until }) => {
            let until = until.map(|until| match until {
                UntilArg::Any => Until::Any,
                UntilArg::Safety => Until::Safety,
            });
            run_sweep(&config, from, seeds, SweepOptions { jobs: parallel.jobs(), until }, cli.timeline)
        }
        None => {
            let jobs = Parallel { jobs: None }.jobs();
            run_sweep(&config, 0, DEFAULT_SEEDS, SweepOptions { jobs, until: None }, cli.timeline)
        }
    };
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

fn run(config: &Config, seed: u64, timeline: bool) -> bool {
    let report = World::new(Scenario::from_seed(seed, config)).run();
    let mut out = std::io::stdout().lock();
    if timeline {
        let _ = writeln!(out, "{}", report.timeline());
    }
    let _ = write!(out, "{}", report.failure_report());
    let _ = write!(out, "{}", report.summary());
    !report.violations().is_empty()
}

fn run_sweep(config: &Config, from: u64, seeds: u64, options: SweepOptions, timeline: bool) -> bool {
    #[allow(clippy::disallowed_methods)] // The speed of the sweep itself, never part of a run.
    let started = std::time::Instant::now();
    let report = sweep::sweep_with(config, from, seeds, options, |run| {
        if run.violations().is_empty() {
            return;
        }
        let mut out = std::io::stdout().lock();
        if timeline {
            let _ = writeln!(out, "{}", run.timeline());
        }
        let _ = write!(out, "{}", run.failure_report());
    });
    let elapsed = started.elapsed().as_secs_f64().max(1e-9);
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{}", report.summary(config));
    let _ = writeln!(
        out,
        "seeds: {}, violations: {}, seeds/s: {:.1}",
        report.seeds,
        report.failed.len(),
        report.seeds as f64 / elapsed
    );
    if options.until.is_some() {
        match report.stopped_at {
            Some(seed) => {
                let kinds: Vec<&str> = report.stopped_for.iter().map(|kind| kind.name()).collect();
                let _ =
                    writeln!(out, "caught: seed {seed} ({} seeds, {elapsed:.1} s): {}", report.seeds, kinds.join(", "));
            }
            None => {
                let _ = writeln!(out, "caught: none ({} seeds, {elapsed:.1} s)", report.seeds);
            }
        }
    }
    !report.failed.is_empty()
}
