//! An operator's look at the locks of a table: who holds each, with which fencing token and
//! lease, and for how long this look has seen the holder unchanged. It takes no lock.
//!
//! It runs against dynalease-fake, in memory, with a few locks that three simulated processes
//! hold, released or left behind when they crashed:
//!
//! ```sh
//! cargo run --example list_locks -- --fake                    # every lock of the table
//! cargo run --example list_locks -- --fake nightly-report     # one lock
//! cargo run --example list_locks -- --fake --watch 3          # three looks, a lease apart
//! ```
//!
//! Listing the locks of a DynamoDB table scans the whole table (see `LockTable::locks`); one
//! lock costs one read. Against DynamoDB, replace [`fake_client`] with the client of your
//! service (for instance from `aws_config`) and leave out [`pretend_processes`]; nothing else
//! changes.

use std::process::ExitCode;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use dynalease::{Clock, LockDescription, LockTable, LockTableOptions, TableRef, TokioClock};

const LEASE: Duration = Duration::from_secs(30);

#[derive(Debug, Default)]
struct Args {
    fake: bool,
    lock: Option<String>,
    looks: u32,
}

impl Args {
    fn parse() -> Result<Args, String> {
        let mut args = Args { looks: 1, ..Args::default() };
        let mut words = std::env::args().skip(1);
        while let Some(word) = words.next() {
            match word.as_str() {
                "--fake" => args.fake = true,
                "--watch" => {
                    let value = words.next().ok_or("--watch needs a number of looks")?;
                    args.looks = value.parse().map_err(|_| format!("--watch needs a number, not {value:?}"))?;
                }
                flag if flag.starts_with("--") => return Err(format!("unknown argument {flag:?}")),
                name => args.lock = Some(name.to_owned()),
            }
        }
        Ok(args)
    }
}

/// The client of the in-memory fake, with the table `Shop`. A service builds its own client.
fn fake_client(fake: &dynalease_fake::FakeDynamoDb) -> Client {
    fake.create_table("Shop", "pk", Some("sk"));
    fake.client()
}

/// Three processes of the fake's world: one holds `nightly-report` and renews it, one released
/// `cache-refresh`, and one crashed holding `order-sweeper`. Returns the leases to keep held.
async fn pretend_processes(client: &Client) -> Result<Vec<dynalease::Lease>, dynalease::Error> {
    let table = TableRef::builder(client.clone(), "Shop").partition_key("pk").sort_key("sk").build()?;
    let reporter = LockTable::new(table.clone(), LockTableOptions::default().holder_label("report-runner"))?;
    let report = reporter.acquire("nightly-report", LEASE).await?;
    let refresher = LockTable::new(table.clone(), LockTableOptions::default().holder_label("cache-pod-2"))?;
    refresher.acquire("cache-refresh", LEASE).await?.release().await?;
    // A holder that crashed: it wrote the lock once and never again (a helper of the `testing`
    // feature, which the examples have).
    let sweeper = LockTable::new(table, LockTableOptions::default())?;
    sweeper.simulate_holder("order-sweeper", LEASE, "sweeper-pod-1").await?;
    Ok(vec![report])
}

fn print(lock: &LockDescription) {
    let seconds = |d: Option<Duration>| d.map_or(String::from("-"), |d| format!("{}s", d.as_secs()));
    println!(
        "{:<16} {:<8} {:<14} {:>5} {:>6} {:>10}",
        lock.name,
        lock.status,
        lock.holder_label.as_deref().unwrap_or("-"),
        lock.fencing_token,
        seconds(lock.lease_duration),
        seconds(lock.unchanged_for),
    );
}

async fn look(locks: &LockTable, lock: Option<&str>) -> Result<(), dynalease::Error> {
    println!("{:<16} {:<8} {:<14} {:>5} {:>6} {:>10}", "LOCK", "STATUS", "HOLDER", "TOKEN", "LEASE", "UNCHANGED");
    match lock {
        Some(name) => match locks.describe(name).await? {
            Some(lock) => print(&lock),
            None => println!("{name:<16} (no item: never acquired, or deleted)"),
        },
        None => {
            let mut listing = locks.locks();
            while let Some(lock) = listing.next().await {
                match lock {
                    Ok(lock) => print(&lock),
                    // An item at a lock's key that is no lock: name it, and go on.
                    Err(err @ dynalease::Error::NotALock { .. }) => eprintln!("{err}"),
                    Err(err) => return Err(err),
                }
            }
        }
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread", start_paused = true)]
async fn main() -> ExitCode {
    let args = match Args::parse() {
        Ok(args) if args.fake => args,
        Ok(_) => {
            eprintln!("usage: list_locks --fake [--watch N] [LOCK]");
            eprintln!("this example runs against dynalease-fake; see its module docs to run it against DynamoDB");
            return ExitCode::from(2);
        }
        Err(problem) => {
            eprintln!("{problem}");
            return ExitCode::from(2);
        }
    };
    let fake = dynalease_fake::FakeDynamoDb::new();
    let client = fake_client(&fake);
    let _held = match pretend_processes(&client).await {
        Ok(held) => held,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };

    // The operator's own lock table: it remembers each holder it saw, and since when.
    let table = TableRef::builder(client, "Shop").partition_key("pk").sort_key("sk").build();
    let locks = match table.and_then(|table| LockTable::new(table, LockTableOptions::default())) {
        Ok(locks) => locks,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    for round in 0..args.looks.max(1) {
        if round > 0 {
            // The clock of this example is paused: a lease passes at once.
            TokioClock::new().sleep(LEASE).await;
            println!();
        }
        if let Err(err) = look(&locks, args.lock.as_deref()).await {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
