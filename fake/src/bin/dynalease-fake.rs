//! `dynalease-fake serve`: the in-memory DynamoDB over HTTP/1.1, for boto3, the AWS CLI and any SDK.
//!
//! ```text
//! $ dynalease-fake serve --port 0 --seed 7 --throttle-rate 0.1
//! listening on http://127.0.0.1:40123
//! ```
//!
//! The first line on stdout names the address; nothing else is written there. SIGINT and SIGTERM
//! stop the server cleanly (exit code 0) once the requests in flight are answered.
#![warn(missing_docs, unreachable_pub, missing_debug_implementations, rust_2018_idioms)]

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
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

#[derive(Debug, Args)]
struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port to listen on; 0 picks a free one (the first line on stdout names it).
    #[arg(long, default_value_t = 8000)]
    port: u16,
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
    /// How often time-to-live sweeps delete expired items, in seconds (0: never).
    #[arg(long, default_value_t = 600)]
    ttl_sweep_interval_secs: u64,
    /// How long a new table stays CREATING, in milliseconds, as in DynamoDB (0: active at
    /// once). Until then it cannot be read, written or changed.
    #[arg(long, default_value_t = 10)]
    table_creation_ms: u64,
}

/// A probability: a number from 0.0 to 1.0.
fn rate(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(rate) if (0.0..=1.0).contains(&rate) => Ok(rate),
        _ => Err(format!("`{text}` is not a number from 0.0 to 1.0")),
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => serve(args),
    }
}

fn serve(args: ServeArgs) -> ExitCode {
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
        let address = match listener.local_addr() {
            Ok(address) => address,
            Err(error) => return fail(format_args!("cannot read the listening address: {error}")),
        };
        let mut stdout = std::io::stdout().lock();
        if writeln!(stdout, "listening on http://{address}").and_then(|()| stdout.flush()).is_err() {
            return fail(format_args!("cannot write to stdout"));
        }
        drop(stdout);
        let shutdown = async move {
            tokio::select! {
                biased;
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        };
        dynalease_fake::serve(fake(&args), listener, shutdown).await;
        ExitCode::SUCCESS
    })
}

/// The fake the options describe: the real clock, the seed, the fault rules.
fn fake(args: &ServeArgs) -> FakeDynamoDb {
    let fake = FakeDynamoDb::builder()
        .seed(args.seed)
        .ttl_sweep_interval(Duration::from_secs(args.ttl_sweep_interval_secs))
        .table_creation_time(Duration::from_millis(args.table_creation_ms))
        // Nobody reads the request log of a server; keeping it would grow without bound.
        .request_log_limit(0)
        .build();
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
