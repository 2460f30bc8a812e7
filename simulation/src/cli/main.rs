//! `dynalease-sim`: run the simulation from the command line.
//!
//! ```text
//! dynalease-sim                          # the default sweep, with a summary
//! dynalease-sim run --seed 42            # one seed; the last line is `digest: <hex>`
//! dynalease-sim sweep --seeds 300 --from 1000 --jobs 2
//! dynalease-sim sweep --seeds 200 --until safety   # stops at the first run that breaks safety
//! dynalease-sim --lock naive sweep --seeds 200
//! dynalease-sim run --seed 42 --timeline
//! dynalease-sim run --seed 42 --emit-scenario seed-42.toml   # the scenario of a seed, as a file
//! dynalease-sim run --scenario simulation/incidents/holder-paused-past-its-lease.toml --lock naive
//! dynalease-sim run --seed 42 --picture run.svg               # the run as an SVG timeline
//! dynalease-sim --lock naive shrink --seed 0                 # the smallest scenario that still fails
//! dynalease-sim sweep --seeds 100 --format json              # one JSON document, for CI
//! ```
//!
//! Exit status: 0 without violations, 1 with, 2 for bad usage. `RUST_LOG` turns on logs (to
//! stderr); they change nothing in a run.

mod progress;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Every request of a simulated run allocates in the SDK and the fake; glibc's allocator was a
/// third of all instructions of a sweep.
#[global_allocator]
static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;

use clap::{Parser, Subcommand, ValueEnum};
use dynalease_sim::check::ViolationKind;
use dynalease_sim::shrink::{self, NotShrunk, ShrinkOptions};
use dynalease_sim::sweep::{self, SweepOptions, Until};
use dynalease_sim::{Config, LockKind, RunReport, Scenario, World};

use progress::Progress;

/// The seeds of the default sweep.
const DEFAULT_SEEDS: u64 = 1_000;

/// A deterministic world of dynalease lock contenders, faults and invariant checks.
///
/// Without a command, sweeps the default seeds and prints a summary.
#[derive(Debug, Parser)]
#[command(name = "dynalease-sim", version, about, long_about = None)]
struct Cli {
    /// The lock the processes use: the library, or the deliberately naive one. Default: the
    /// library, or the lock a scenario file names.
    #[arg(long, global = true, value_enum)]
    lock: Option<Lock>,
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
    /// Runs one seed (or a scenario file) and prints its summary; the last line is
    /// `digest: <hex>`.
    Run {
        #[command(flatten)]
        source: Source,
        /// Also write the scenario that ran to this file (TOML): running that file gives the
        /// same digest.
        #[arg(long, value_name = "FILE")]
        emit_scenario: Option<PathBuf>,
        /// Also draw the run as an SVG timeline into this file.
        #[arg(long, value_name = "FILE.svg")]
        picture: Option<PathBuf>,
        /// `text` for people, `json` for one JSON document (summary, violations, commands).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Shrinks a failing run to the smallest scenario that still breaks the same invariant,
    /// writes it as a file, and prints its timeline and the command that replays it.
    Shrink {
        #[command(flatten)]
        source: Source,
        /// The invariant that must keep failing, by its short name (`overlapping-beliefs`);
        /// default: the first one the run breaks, of safety if it breaks one.
        #[arg(long, value_parser = parse_kind)]
        kind: Option<ViolationKind>,
        /// The most runs the shrink makes before it gives up.
        #[arg(long, default_value_t = shrink::DEFAULT_MAX_RUNS)]
        max_runs: usize,
        /// Where to write the smallest scenario. Default: `shrunk-seed-N.toml`, or
        /// `NAME-shrunk.toml` for a file `NAME.toml`, in the current directory.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
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
        /// `text` for people, `json` for one JSON document (the summary, and each failing run
        /// with its violations and commands).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// Where a run comes from: a seed, or a scenario file.
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
struct Source {
    /// The seed.
    #[arg(long)]
    seed: Option<u64>,
    /// A scenario file (TOML; see simulation/docs/scenario-format.toml). `--processes` and
    /// `--duration-s` shape the scenarios of seeds only; `--lock` replaces the file's lock.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn parse_kind(name: &str) -> Result<ViolationKind, String> {
    ViolationKind::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = ViolationKind::ALL.iter().map(|k| k.name()).collect();
        format!("not an invariant; one of: {}", names.join(", "))
    })
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
    let lock = cli.lock.map(|lock| match lock {
        Lock::Library => LockKind::Library,
        Lock::Naive => LockKind::Naive,
    });
    let config = Config {
        processes: cli.processes,
        duration_ms: cli.duration_s * 1000,
        lock: lock.unwrap_or_default(),
        ..Config::default()
    };
    let outcome = match cli.command {
        Some(Command::Run { source, emit_scenario, picture, format }) => {
            load(&source, &config, lock).map(|loaded| run(loaded, emit_scenario, picture, format, cli.timeline))
        }
        Some(Command::Shrink { source, kind, max_runs, out }) => {
            load(&source, &config, lock).map(|loaded| run_shrink(loaded, ShrinkOptions { max_runs, kind }, out))
        }
        Some(Command::Sweep { seeds, from, parallel, until, format }) => {
            let until = until.map(|until| match until {
                UntilArg::Any => Until::Any,
                UntilArg::Safety => Until::Safety,
            });
            Ok(run_sweep(&config, from, seeds, SweepOptions { jobs: parallel.jobs(), until }, cli.timeline, format))
        }
        None => {
            let jobs = Parallel { jobs: None }.jobs();
            Ok(run_sweep(&config, 0, DEFAULT_SEEDS, SweepOptions { jobs, until: None }, cli.timeline, Format::Text))
        }
    };
    match outcome {
        Ok(true) => ExitCode::from(1),
        Ok(false) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("dynalease-sim: {message}");
            ExitCode::from(2)
        }
    }
}

/// A scenario to run, and the file it came from.
struct Loaded {
    scenario: Scenario,
    file: Option<String>,
}

impl Loaded {
    fn run(&self) -> RunReport {
        let report = World::new(self.scenario.clone()).run();
        match &self.file {
            Some(file) => report.with_source(file.clone()),
            None => report,
        }
    }
}

/// The scenario of a seed, or of a file (with its lock replaced by `lock` if given).
fn load(source: &Source, config: &Config, lock: Option<LockKind>) -> Result<Loaded, String> {
    if let Some(seed) = source.seed {
        return Ok(Loaded { scenario: Scenario::from_seed(seed, config), file: None });
    }
    let path = source.scenario.as_deref().ok_or("a seed or a scenario file")?;
    let text = std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?;
    let mut scenario = Scenario::from_toml(&text).map_err(|err| format!("{}: {err}", path.display()))?;
    if let Some(lock) = lock {
        scenario.lock = lock;
    }
    Ok(Loaded { scenario, file: Some(path.display().to_string()) })
}

fn write_file(path: &Path, text: &str) -> bool {
    match std::fs::write(path, text) {
        Ok(()) => true,
        Err(err) => {
            eprintln!("dynalease-sim: {}: {err}", path.display());
            false
        }
    }
}

fn run(loaded: Loaded, emit: Option<PathBuf>, picture: Option<PathBuf>, format: Format, timeline: bool) -> bool {
    if let Some(path) = &emit {
        let origin = match &loaded.file {
            Some(file) => format!("The scenario of the file {file}"),
            None => format!("The scenario of seed {}", loaded.scenario.seed),
        };
        let comment = format!(
            "{origin}, as `dynalease-sim run --emit-scenario` wrote it.\n\
             Run it with `dynalease-sim run --scenario {}`; it gives the same digest.\n\
             The format: simulation/docs/scenario-format.toml.\n\n{}",
            path.display(),
            loaded.scenario.describe()
        );
        write_file(path, &loaded.scenario.to_toml(&comment));
    }
    let report = loaded.run();
    if let Some(path) = &picture {
        write_file(path, &report.picture());
    }
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            let _ = writeln!(out, "{:#}", report.to_json());
        }
        Format::Text => {
            if timeline {
                let _ = writeln!(out, "{}", report.timeline());
            }
            let _ = write!(out, "{}", report.failure_report());
            let _ = write!(out, "{}", report.summary());
        }
    }
    !report.violations().is_empty()
}

fn run_shrink(loaded: Loaded, options: ShrinkOptions, out: Option<PathBuf>) -> bool {
    let scenario = loaded.scenario.clone();
    let origin = match &loaded.file {
        Some(file) => format!("the scenario of {file}"),
        None => format!("seed {}", scenario.seed),
    };
    let path = out.unwrap_or_else(|| match &loaded.file {
        Some(file) => {
            let stem =
                Path::new(file).file_stem().map_or(String::from("scenario"), |s| s.to_string_lossy().into_owned());
            PathBuf::from(format!("{stem}-shrunk.toml"))
        }
        None => PathBuf::from(format!("shrunk-seed-{}.toml", scenario.seed)),
    });
    let command = format!("dynalease-sim shrink {}", scenario.command_args(loaded.file.as_deref()));
    println!("shrink: {origin} (lock {}): {}", scenario.lock, shrink::Size::of(&scenario));
    let progress = Progress::new(options.max_runs as u64, "runs");
    let kept = std::cell::Cell::new(0usize);
    let shrunk = shrink::shrink(
        scenario,
        options,
        |step| {
            kept.set(kept.get() + 1);
            progress.print(|| println!("  step {} (run {}): {} -> {}", kept.get(), step.run, step.change, step.size));
        },
        |runs| progress.step(runs as u64, format!("{} steps kept", kept.get())),
    );
    progress.finish();
    let shrunk = match shrunk {
        Ok(shrunk) => shrunk,
        Err(NotShrunk::Passes(report)) => {
            let what = options.kind.map_or(String::from("any invariant"), |k| k.name().to_owned());
            println!("{origin} does not break {what}: nothing to shrink");
            print!("{}", report.summary());
            return false;
        }
    };
    let size = shrink::Size::of(shrunk.report.scenario());
    if shrunk.gave_up {
        println!(
            "gave up after {} runs (--max-runs {}), with simplifications left untried; the smallest scenario so far still breaks {}: {size}",
            shrunk.runs,
            options.max_runs,
            shrunk.kind.name()
        );
    } else {
        println!(
            "shrunk in {} runs: no smaller scenario breaks {}; from {} to {size}",
            shrunk.runs,
            shrunk.kind.name(),
            shrunk.from
        );
    }
    let mut comment = format!(
        "Shrunk by `{command}` in {} runs, from {} to {size}:\n\
         the smallest scenario it found that still breaks {} ({}).\n",
        shrunk.runs,
        shrunk.from,
        shrunk.kind.name(),
        shrunk.kind
    );
    for (i, step) in shrunk.steps.iter().enumerate() {
        comment.push_str(&format!("  {}. {}\n", i + 1, step.change));
    }
    let report = shrunk.report.with_source(path.display().to_string());
    comment.push_str(&format!("Replay it: {}\n", report.replay_command()));
    if write_file(&path, &report.scenario().to_toml(&comment)) {
        println!("wrote {}", path.display());
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", report.timeline());
    let _ = write!(out, "{}", report.failure_report());
    let _ = writeln!(out, "replay: {}", report.replay_command());
    true
}

fn run_sweep(config: &Config, from: u64, seeds: u64, options: SweepOptions, timeline: bool, format: Format) -> bool {
    #[allow(clippy::disallowed_methods)] // The speed of the sweep itself, never part of a run.
    let started = std::time::Instant::now();
    let progress = Progress::new(seeds, "seeds");
    let (mut done, mut failed) = (0u64, 0usize);
    let mut failures = Vec::new();
    let report = sweep::sweep_with(config, from, seeds, options, |run| {
        done += 1;
        if !run.violations().is_empty() {
            failed += 1;
            match format {
                Format::Json => failures.push(run.to_json()),
                Format::Text => progress.print(|| {
                    let mut out = std::io::stdout().lock();
                    if timeline {
                        let _ = writeln!(out, "{}", run.timeline());
                    }
                    let _ = write!(out, "{}", run.failure_report());
                }),
            }
        }
        progress.step(done, format!("{failed} with violations"));
    });
    progress.finish();
    let elapsed = started.elapsed().as_secs_f64().max(1e-9);
    let mut out = std::io::stdout().lock();
    if format == Format::Json {
        let json = report.to_json(config, failures, Some(report.seeds as f64 / elapsed));
        let _ = writeln!(out, "{json:#}");
        return !report.failed.is_empty();
    }
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
