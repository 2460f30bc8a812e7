//! `dynalease-fake serve`: the in-memory DynamoDB over HTTP/1.1, for boto3, the AWS CLI and any SDK.
//!
//! ```text
//! $ dynalease-fake serve --port 0 --seed 7 --throttle-rate 0.1
//! listening on http://127.0.0.1:40123
//! ```
//!
//! The first line on stdout names the address; nothing else is written there. SIGINT and SIGTERM
//! stop the server cleanly (exit code 0) once the requests in flight are answered, after writing
//! the data file if there is one; so does the end of stdin with `--stop-on-stdin-close`.
#![warn(missing_docs, unreachable_pub, missing_debug_implementations, rust_2018_idioms)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use clap::{Args, Parser, Subcommand, ValueEnum};
use dynalease_fake::{ControlAccess, ControlledClock, FakeDynamoDb, Fault, FaultRule, ServeOptions, Snapshot};
use tokio::signal::unix::{SignalKind, signal};

/// An in-memory DynamoDB.
#[derive(Debug, Parser)]
#[command(name = "dynalease-fake", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve DynamoDB's JSON protocol over HTTP/1.1 until SIGINT or SIGTERM.
    Serve(ServeArgs),
}

/// How the fake's clock starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ClockMode {
    /// Running with the real time, from --start-time or the time of day.
    Real,
    /// Frozen at --start-time (or the time of day) until the control API moves it.
    Manual,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on; 0 picks a free one (the first line on stdout names it).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// Turn the control API (/_dynalease/...) on whatever the address; without this flag it is on
    /// for a loopback address only.
    #[arg(long)]
    control: bool,
    /// Load the tables from FILE at start (if it exists) and write them there, atomically, on
    /// SIGINT, SIGTERM and the control API's POST /_dynalease/save. A FILE that does not read
    /// stops the server at start, untouched.
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// How the fake's clock starts: real (running) or manual (frozen until the control API moves it).
    #[arg(long, value_enum, default_value_t = ClockMode::Real)]
    clock: ClockMode,
    /// The time the fake's clock starts at, in RFC 3339 (for example 2026-01-01T00:00:00Z);
    /// default: the time of day.
    #[arg(long, value_name = "TIME", value_parser = start_time)]
    start_time: Option<SystemTime>,
    /// How many requests the request log keeps, the latest (0: none); the control API's
    /// GET /_dynalease/requests reads them.
    #[arg(long, value_name = "COUNT", default_value_t = 1000)]
    request_log: usize,
    /// How long an idle keep-alive connection stays open, in seconds of real time.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    idle_timeout_secs: u64,
    /// The seed of every random choice: which requests meet a fault, request ids.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The share of requests answered ProvisionedThroughputExceededException (0.0 to 1.0).
    #[arg(long, value_parser = rate, default_value_t = 0.0)]
    throttle_rate: f64,
    /// The share of requests answered InternalServerError, status 500 (0.0 to 1.0).
    #[arg(long, value_parser = rate, default_value_t = 0.0)]
    error_rate: f64,
    /// The share of requests applied whose answer is lost: the connection closes (0.0 to 1.0).
    #[arg(long, value_parser = rate, default_value_t = 0.0)]
    lost_response_rate: f64,
    /// Latency added to every answer, in milliseconds.
    #[arg(long, default_value_t = 0)]
    latency_ms: u64,
    /// Apply the faults above only to this operation (for example PutItem).
    #[arg(long, value_name = "OPERATION")]
    fault_operation: Option<String>,
    /// Apply the faults above only to requests that name this table.
    #[arg(long, value_name = "TABLE")]
    fault_table: Option<String>,
    /// Apply each of the faults above at most this many times, then stop.
    #[arg(long, value_name = "COUNT")]
    fault_times: Option<u64>,
    /// How often time-to-live sweeps delete expired items, in seconds of the fake's clock (0: never).
    #[arg(long, default_value_t = 600)]
    ttl_sweep_interval_secs: u64,
    /// How long DescribeTable shows a new table CREATING, in milliseconds of the fake's clock
    /// (CreateTable's own answer always says CREATING, as DynamoDB's does). Until then it cannot
    /// be read, written or changed. 0, the default, makes it ACTIVE at once.
    #[arg(long, default_value_t = 0)]
    table_creation_ms: u64,
    /// How long a stream stays ENABLING after it is enabled and DISABLING after it is disabled,
    /// in milliseconds of the fake's clock (0, the default: ENABLED and DISABLED at once).
    #[arg(long, default_value_t = 0)]
    stream_status_change_ms: u64,
    /// How long a write to a replica of a global table takes to reach the other replicas, in
    /// milliseconds of the fake's clock.
    #[arg(long, default_value_t = 1000)]
    replication_lag_ms: u64,
    /// Stop as SIGTERM does when stdin reaches its end: a program that starts the server with a
    /// pipe on its stdin and keeps the pipe open can be sure that the server stops when it exits,
    /// even when it is killed.
    #[arg(long)]
    stop_on_stdin_close: bool,
}

/// A probability: a number from 0.0 to 1.0.
fn rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if (0.0..=1.0).contains(&rate) => Ok(rate),
        _ => Err(format!("`{text}` is not a number from 0.0 to 1.0")),
    }
}

/// A time in RFC 3339.
fn start_time(text: &str) -> Result<SystemTime, String> {
    humantime::parse_rfc3339_weak(text)
        .map_err(|error| format!("`{text}` is not an RFC 3339 time such as 2026-01-01T00:00:00Z: {error}"))
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => serve(args),
    }
}

fn serve(args: ServeArgs) -> ExitCode {
    // The data file is read before anything listens: one that does not read stops the server here.
    let snapshot = match args.data.as_deref().map(load).transpose() {
        Ok(snapshot) => snapshot.flatten(),
        Err(message) => return fail(format_args!("{message}")),
    };
    // Bind first: from here on the kernel queues connections, whatever else startup does.
    let listener = match std::net::TcpListener::bind((args.host.as_str(), args.port)) {
        Ok(listener) => listener,
        Err(error) => return fail(format_args!("cannot listen on {}:{}: {error}", args.host, args.port)),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(format_args!("cannot start the runtime: {error}")),
    };
    runtime.block_on(async move {
        let listener = match listener.set_nonblocking(true).and_then(|()| tokio::net::TcpListener::from_std(listener)) {
            Ok(listener) => listener,
            Err(error) => return fail(format_args!("cannot listen: {error}")),
        };
        // Handlers go in before the address is announced, so a signal sent right after it stops
        // the server cleanly instead of killing it.
        let (mut interrupt, mut terminate) = match (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) {
            (Ok(interrupt), Ok(terminate)) => (interrupt, terminate),
            (Err(error), _) | (_, Err(error)) => return fail(format_args!("cannot handle signals: {error}")),
        };
        let stdin_closed = match args.stop_on_stdin_close.then(watch_stdin).transpose() {
            Ok(closed) => closed,
            Err(error) => return fail(format_args!("cannot watch stdin: {error}")),
        };
        let address = match listener.local_addr() {
            Ok(address) => address,
            Err(error) => return fail(format_args!("cannot read the listening address: {error}")),
        };
        let fake = fake(&args, snapshot);
        let mut stdout = std::io::stdout().lock();
        if writeln!(stdout, "listening on http://{address}").and_then(|()| stdout.flush()).is_err() {
            return fail(format_args!("cannot write to stdout"));
        }
        drop(stdout);
        let shutdown = async move {
            let stdin_closed = async move {
                match stdin_closed {
                    Some(closed) => drop(closed.await),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
                () = stdin_closed => {}
            }
        };
        let mut options = ServeOptions::default()
            .control(if args.control { ControlAccess::On } else { ControlAccess::Loopback })
            .idle_timeout(Duration::from_secs(args.idle_timeout_secs));
        if let Some(path) = &args.data {
            options = options.data_file(path);
        }
        match dynalease_fake::serve_with(fake, listener, shutdown, options).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                let file = args.data.as_deref().map_or_else(String::new, |path| path.display().to_string());
                fail(format_args!("cannot write the data file {file}: {error}"))
            }
        }
    })
}

/// A receiver that completes when stdin reaches its end (or cannot be read any more). A thread
/// reads it, since tokio reads stdin on a blocking thread too and this needs no more of tokio.
fn watch_stdin() -> std::io::Result<tokio::sync::oneshot::Receiver<()>> {
    let (closed, receiver) = tokio::sync::oneshot::channel();
    std::thread::Builder::new().name("stdin-watch".into()).stack_size(64 * 1024).spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut discarded = [0u8; 512];
        loop {
            match stdin.read(&mut discarded) {
                Ok(0) => break,
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let _ = closed.send(());
    })?;
    Ok(receiver)
}

/// The snapshot in the data file at `path`, `None` if there is no file yet; a message naming the
/// file, the line and what is wrong if it does not read.
fn load(path: &Path) -> Result<Option<Snapshot>, String> {
    if !path.exists() {
        let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if !folder.is_dir() {
            return Err(format!(
                "the data file {} cannot be written: {} is not a folder",
                path.display(),
                folder.display()
            ));
        }
        return Ok(None);
    }
    Snapshot::read_file(path).map(Some).map_err(|error| format!("cannot load the data file {error}"))
}

/// The fake the options describe: its clock, the seed, the tables of the data file, the fault rules.
fn fake(args: &ServeArgs, snapshot: Option<Snapshot>) -> FakeDynamoDb {
    // A manual clock stands exactly at its start time: one made running and then frozen would
    // have run for as long as the process took in between.
    let clock = match (args.start_time, args.clock) {
        (Some(start), ClockMode::Manual) => ControlledClock::frozen_at(start),
        (Some(start), ClockMode::Real) => ControlledClock::running_from(start),
        (None, _) => ControlledClock::from_real_time(),
    };
    if args.clock == ClockMode::Manual {
        clock.freeze();
    }
    let mut builder = FakeDynamoDb::builder()
        .clock(Arc::new(clock))
        .seed(args.seed)
        .ttl_sweep_interval(Duration::from_secs(args.ttl_sweep_interval_secs))
        .table_creation_time(Duration::from_millis(args.table_creation_ms))
        .stream_status_change_time(Duration::from_millis(args.stream_status_change_ms))
        .replication_lag(Duration::from_millis(args.replication_lag_ms))
        .request_log_limit(args.request_log);
    if let Some(snapshot) = snapshot {
        builder = builder.snapshot(snapshot);
    }
    let fake = builder.build();
    let faults = [
        (args.throttle_rate, Fault::Throttle),
        (args.error_rate, Fault::InternalServerError),
        (args.lost_response_rate, Fault::LostResponse),
    ];
    let mut rules: Vec<FaultRule> = faults
        .into_iter()
        .filter(|(rate, _)| *rate > 0.0)
        .map(|(rate, fault)| FaultRule::new(fault).probability(rate))
        .collect();
    if args.latency_ms > 0 {
        rules.push(FaultRule::new(Fault::Latency(Duration::from_millis(args.latency_ms))));
    }
    for mut rule in rules {
        if let Some(operation) = &args.fault_operation {
            rule = rule.operation(operation.as_str());
        }
        if let Some(table) = &args.fault_table {
            rule = rule.table(table.as_str());
        }
        if let Some(count) = args.fault_times {
            rule = rule.times(count);
        }
        fake.inject(rule);
    }
    fake
}

fn fail(message: std::fmt::Arguments<'_>) -> ExitCode {
    eprintln!("dynalease-fake: {message}");
    ExitCode::FAILURE
}
