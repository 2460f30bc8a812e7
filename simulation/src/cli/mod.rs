//! The command line of a simulation, for any service: `run` one seed or scenario file, `sweep`
//! many seeds (or one part of them, `--partition K/N`), `shrink` a failing run, `merge` the
//! JSON of the parts of a sweep.
//!
//! ```text
//! PROGRAM                                # the default sweep, with a summary
//! PROGRAM run --seed 42                  # one seed; the last line is `digest: <hex>`
//! PROGRAM sweep --seeds 300 --from 1000 --jobs 2
//! PROGRAM sweep --seeds 200 --until safety   # stops at the first run that breaks safety
//! PROGRAM sweep --seeds 1000000 --partition 3/8 --format json > part-3.json
//! PROGRAM merge part-*.json              # one summary of the parts
//! PROGRAM run --seed 42 --timeline
//! PROGRAM run --seed 42 --emit-scenario seed-42.toml   # the scenario of a seed, as a file
//! PROGRAM run --scenario FILE.toml
//! PROGRAM run --seed 42 --picture run.svg               # the run as an SVG timeline
//! PROGRAM shrink --seed 0                 # the smallest scenario that still fails
//! ```
//!
//! A program gets it with [`main`] for a service with command-line options of its own
//! ([`ServiceArgs`]: the lock library's `--lock naive`), or [`main_with`] for one without.
//! Exit status: 0 when every run passes, 1 when one does not (a violation, a check that could
//! not finish, an error of the service), 2 for bad usage.

mod progress;

use std::fmt::Debug;
use std::io::Write as _;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::scenario::Scenario;
use crate::service::Service;
use crate::shrink::{self, NotShrunk, ShrinkOptions};
use crate::spec::Config;
use crate::sweep::{self, Partition, SweepOptions, SweepReport, Until};
use crate::world::{RunReport, World};
use progress::Progress;

/// The seeds of the default sweep.
const DEFAULT_SEEDS: u64 = 1_000;

/// A service's own command-line options, flattened into the simulation's.
pub trait ServiceArgs: clap::Args + Debug {
    /// The service.
    type Service: Service;

    /// The service these options make.
    fn service(&self) -> Self::Service;

    /// The options as a command line writes them, for the commands that replay a run:
    /// ` --lock naive`, or nothing for the defaults.
    fn command_line(&self) -> String;

    /// Changes what the options change in a scenario read from a file.
    fn apply(&self, scenario: &mut Scenario<Self::Service>) {
        let _ = scenario;
    }
}

/// The options of a service that has none: it runs as it is.
#[derive(Debug)]
pub struct Plain<S>(PhantomData<S>);

impl<S> clap::FromArgMatches for Plain<S> {
    fn from_arg_matches(_: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(Plain(PhantomData))
    }

    fn update_from_arg_matches(&mut self, _: &clap::ArgMatches) -> Result<(), clap::Error> {
        Ok(())
    }
}

impl<S> clap::Args for Plain<S> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd
    }
}

thread_local! {
    /// The service a [`Plain`] program runs, set by [`main_with`].
    static PLAIN: std::cell::RefCell<Option<Box<dyn std::any::Any>>> = const { std::cell::RefCell::new(None) };
}

impl<S: Service + Debug> ServiceArgs for Plain<S> {
    type Service = S;

    fn service(&self) -> S {
        PLAIN.with(|plain| {
            plain
                .borrow()
                .as_ref()
                .and_then(|service| service.downcast_ref::<S>())
                .cloned()
                .expect("main_with sets the service before it parses the command line")
        })
    }

    fn command_line(&self) -> String {
        String::new()
    }
}

/// A deterministic world of processes of one service, faults and invariant checks.
///
/// Without a command, sweeps the default seeds and prints a summary.
#[derive(Debug, Parser)]
#[command(version, about, long_about = None)]
struct Cli<A: clap::Args> {
    #[command(flatten)]
    service: A,
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
        /// The invariant that must keep failing, by its short name; default: the first one the
        /// run breaks, of safety if it breaks one.
        #[arg(long)]
        kind: Option<String>,
        /// The most runs the shrink makes before it gives up.
        #[arg(long, default_value_t = shrink::DEFAULT_MAX_RUNS)]
        max_runs: usize,
        /// Where to write the smallest scenario. Default: `shrunk-seed-N.toml`, or
        /// `NAME-shrunk.toml` for a file `NAME.toml`, in the current directory.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Runs many seeds; the last line is `seeds: N, violations: V, seeds/s: R`, where V counts
    /// the seeds that did not pass.
    Sweep {
        /// How many seeds.
        #[arg(long)]
        seeds: u64,
        /// The first seed.
        #[arg(long, default_value_t = 0)]
        from: u64,
        /// Run only part K of N of the seeds (seed number i goes to part i % N + 1), to split a
        /// sweep across machines; `merge` adds up the JSON of the parts.
        #[arg(long, value_name = "K/N")]
        partition: Option<Partition>,
        #[command(flatten)]
        parallel: Parallel,
        /// Stop at the first run that does not pass (`any`) or that breaks safety (`safety`),
        /// and end with the line `caught: seed S (N seeds, T s): kinds`, or `caught: none (..)`.
        #[arg(long, value_enum)]
        until: Option<UntilArg>,
        /// `text` for people, `json` for one JSON document (the summary, and each failing run
        /// with its violations and commands).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Adds up the JSON documents of the parts of a sweep (`sweep --partition K/N --format
    /// json`) into one summary, as if one machine had run them all.
    Merge {
        /// The JSON files of the parts.
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// `text` for people, `json` for one JSON document.
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
    /// A scenario file (TOML). `--processes` and `--duration-s` shape the scenarios of seeds
    /// only.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
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

/// The command line of a simulation of `service`, whose commands replay runs as `program`
/// (`cargo run --release --example transfers --`, say).
pub fn main_with<S: Service>(service: S, program: &str) -> ExitCode {
    PLAIN.with(|plain| *plain.borrow_mut() = Some(Box::new(service)));
    main::<Plain<S>>(program)
}

/// The command line of a simulation of the service that the options `A` make, whose commands
/// replay runs as `program` followed by the options.
pub fn main<A: ServiceArgs>(program: &str) -> ExitCode {
    let cli = Cli::<A>::parse();
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .try_init();
    }
    let context = Context {
        service: cli.service.service(),
        program: format!("{program}{}", cli.service.command_line()),
        config: Config { processes: cli.processes, duration_ms: cli.duration_s * 1000, ..Config::default() },
        timeline: cli.timeline,
    };
    let args = &cli.service;
    let outcome = match cli.command {
        Some(Command::Run { source, emit_scenario, picture, format }) => {
            context.load(&source, args).map(|loaded| context.run(loaded, emit_scenario, picture, format))
        }
        Some(Command::Shrink { source, kind, max_runs, out }) => context.invariant(kind).and_then(|kind| {
            context.load(&source, args).map(|loaded| context.shrink(loaded, ShrinkOptions { max_runs, kind }, out))
        }),
        Some(Command::Sweep { seeds, from, partition, parallel, until, format }) => {
            let until = until.map(|until| match until {
                UntilArg::Any => Until::Any,
                UntilArg::Safety => Until::Safety,
            });
            let options =
                SweepOptions { jobs: parallel.jobs(), until, partition, program: Some(context.program.clone()) };
            Ok(context.sweep(from, seeds, options, format))
        }
        Some(Command::Merge { parts, format }) => merge(&parts, &context.config, format),
        None => {
            let options = SweepOptions {
                jobs: Parallel { jobs: None }.jobs(),
                until: None,
                partition: None,
                program: Some(context.program.clone()),
            };
            Ok(context.sweep(0, DEFAULT_SEEDS, options, Format::Text))
        }
    };
    match outcome {
        Ok(true) => ExitCode::from(1),
        Ok(false) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{program}: {message}");
            ExitCode::from(2)
        }
    }
}

/// What every command of one invocation shares.
struct Context<S: Service> {
    service: S,
    program: String,
    config: Config,
    timeline: bool,
}

/// A scenario to run, and the file it came from.
struct Loaded<S: Service> {
    scenario: Scenario<S>,
    file: Option<String>,
}

impl<S: Service> Context<S> {
    /// The invariant of the name `kind`, if the service has one of that name.
    fn invariant(&self, kind: Option<String>) -> Result<Option<String>, String> {
        let Some(kind) = kind else { return Ok(None) };
        let names: Vec<String> = self.service.invariants().iter().map(|i| i.name().to_owned()).collect();
        if names.contains(&kind) {
            Ok(Some(kind))
        } else {
            Err(format!("`{kind}` is not an invariant of {}; one of: {}", S::NAME, names.join(", ")))
        }
    }

    fn report(&self, loaded: &Loaded<S>) -> RunReport<S> {
        let report = World::new(loaded.scenario.clone()).run().with_program(self.program.clone());
        match &loaded.file {
            Some(file) => report.with_source(file.clone()),
            None => report,
        }
    }

    /// The scenario of a seed, or of a file (with what the options change in it).
    fn load<A: ServiceArgs<Service = S>>(&self, source: &Source, args: &A) -> Result<Loaded<S>, String> {
        if let Some(seed) = source.seed {
            return Ok(Loaded { scenario: Scenario::from_seed(seed, &self.config, &self.service), file: None });
        }
        let path = source.scenario.as_deref().ok_or("a seed or a scenario file")?;
        let text = std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?;
        let mut scenario = Scenario::from_toml(&text).map_err(|err| format!("{}: {err}", path.display()))?;
        args.apply(&mut scenario);
        Ok(Loaded { scenario, file: Some(path.display().to_string()) })
    }

    fn run(&self, loaded: Loaded<S>, emit: Option<PathBuf>, picture: Option<PathBuf>, format: Format) -> bool {
        if let Some(path) = &emit {
            let origin = match &loaded.file {
                Some(file) => format!("The scenario of the file {file}"),
                None => format!("The scenario of seed {}", loaded.scenario.seed),
            };
            let comment = format!(
                "{origin}, as `{} run --emit-scenario` wrote it.\n\
                 Run it with `{} run --scenario {}`; it gives the same digest.\n\n{}",
                self.program,
                self.program,
                path.display(),
                loaded.scenario.describe()
            );
            write_file(path, &loaded.scenario.to_toml(&comment));
        }
        let report = self.report(&loaded);
        if let Some(path) = &picture {
            write_file(path, &report.picture());
        }
        let mut out = std::io::stdout().lock();
        match format {
            Format::Json => {
                let _ = writeln!(out, "{:#}", report.to_json());
            }
            Format::Text => {
                if self.timeline {
                    let _ = writeln!(out, "{}", report.timeline());
                }
                let _ = write!(out, "{}", report.failure_report());
                let _ = write!(out, "{}", report.summary());
            }
        }
        !report.passed()
    }

    fn shrink(&self, loaded: Loaded<S>, options: ShrinkOptions, out: Option<PathBuf>) -> bool {
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
        let command = format!("{} shrink {}", self.program, scenario.command_args(loaded.file.as_deref()));
        println!("shrink: {origin} (service {}): {}", S::NAME, shrink::Size::of(&scenario));
        let progress = Progress::new(options.max_runs as u64, "runs");
        let kept = std::cell::Cell::new(0usize);
        let shrunk = shrink::shrink(
            scenario,
            options.clone(),
            |step| {
                kept.set(kept.get() + 1);
                progress
                    .print(|| println!("  step {} (run {}): {} -> {}", kept.get(), step.run, step.change, step.size));
            },
            |runs| progress.step(runs as u64, format!("{} steps kept", kept.get())),
        );
        progress.finish();
        let shrunk = match shrunk {
            Ok(shrunk) => shrunk,
            Err(NotShrunk::Passes(report)) => {
                let what = options.kind.unwrap_or_else(|| String::from("any invariant"));
                println!("{origin} does not break {what}: nothing to shrink");
                print!("{}", report.summary());
                return false;
            }
        };
        let size = shrink::Size::of(shrunk.report.scenario());
        if shrunk.gave_up {
            println!(
                "gave up after {} runs (--max-runs {}), with simplifications left untried; the smallest scenario so far still breaks {}: {size}",
                shrunk.runs, options.max_runs, shrunk.kind
            );
        } else {
            println!(
                "shrunk in {} runs: no smaller scenario breaks {}; from {} to {size}",
                shrunk.runs, shrunk.kind, shrunk.from
            );
        }
        let mut comment = format!(
            "Shrunk by `{command}` in {} runs, from {} to {size}:\n\
             the smallest scenario it found that still breaks {}.\n",
            shrunk.runs, shrunk.from, shrunk.kind
        );
        for (i, step) in shrunk.steps.iter().enumerate() {
            comment.push_str(&format!("  {}. {}\n", i + 1, step.change));
        }
        let report = shrunk.report.with_program(self.program.clone()).with_source(path.display().to_string());
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

    fn sweep(&self, from: u64, seeds: u64, options: SweepOptions, format: Format) -> bool {
        let until = options.until;
        #[allow(clippy::disallowed_methods)] // The speed of the sweep itself, never part of a run.
        let started = std::time::Instant::now();
        let share = options.partition.map_or(seeds, |p| seeds / p.count + u64::from(seeds % p.count >= p.part));
        let progress = Progress::new(share, "seeds");
        let (mut done, mut failed) = (0u64, 0usize);
        let mut failures = Vec::new();
        let report = sweep::sweep_with(&self.config, &self.service, from, seeds, options.clone(), |run| {
            done += 1;
            let run_ref = run;
            if !run_ref.passed() {
                failed += 1;
                match format {
                    Format::Json => failures.push(run_ref.to_json()),
                    Format::Text => progress.print(|| {
                        let mut out = std::io::stdout().lock();
                        if self.timeline {
                            let _ = writeln!(out, "{}", run_ref.timeline());
                        }
                        let _ = write!(out, "{}", run_ref.failure_report());
                    }),
                }
            }
            progress.step(done, format!("{failed} failed"));
        });
        progress.finish();
        let elapsed = started.elapsed().as_secs_f64().max(1e-9);
        let mut out = std::io::stdout().lock();
        if format == Format::Json {
            let json = report.to_json(&self.config, failures, Some(report.seeds as f64 / elapsed));
            let _ = writeln!(out, "{json:#}");
            return !report.passed();
        }
        let _ = write!(out, "{}", report.summary(&self.config));
        let _ = writeln!(
            out,
            "seeds: {}, violations: {}, seeds/s: {:.1}",
            report.seeds,
            report.failed.len(),
            report.seeds as f64 / elapsed
        );
        if until.is_some() {
            match report.stopped_at {
                Some(seed) => {
                    let _ = writeln!(
                        out,
                        "caught: seed {seed} ({} seeds, {elapsed:.1} s): {}",
                        report.seeds,
                        report.stopped_for.join(", ")
                    );
                }
                None => {
                    let _ = writeln!(out, "caught: none ({} seeds, {elapsed:.1} s)", report.seeds);
                }
            }
        }
        !report.passed()
    }
}

/// Adds up the JSON documents of the parts of a sweep.
fn merge(parts: &[PathBuf], config: &Config, format: Format) -> Result<bool, String> {
    let mut reports = Vec::with_capacity(parts.len());
    for path in parts {
        let text = std::fs::read_to_string(path).map_err(|err| format!("{}: {err}", path.display()))?;
        let document: serde_json::Value =
            serde_json::from_str(&text).map_err(|err| format!("{}: not JSON: {err}", path.display()))?;
        reports.push(SweepReport::from_json(&document).map_err(|err| format!("{}: {err}", path.display()))?);
    }
    let merged = SweepReport::merge(&reports)?;
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            let _ = writeln!(out, "{:#}", merged.to_json(config, Vec::new(), None));
        }
        Format::Text => {
            let _ = write!(out, "{}", merged.summary(config));
            let _ = writeln!(out, "seeds: {}, violations: {}", merged.seeds, merged.failed.len());
        }
    }
    Ok(!merged.passed())
}

fn write_file(path: &Path, text: &str) -> bool {
    match std::fs::write(path, text) {
        Ok(()) => true,
        Err(err) => {
            eprintln!("{}: {err}", path.display());
            false
        }
    }
}
