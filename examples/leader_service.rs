//! A long-running service that leads while it runs: an order sweeper.
//!
//! It contends for the lock `order-sweeper` for as long as it runs, and sweeps while it leads.
//! The two kinds of failure that reach its loop get different answers:
//! - a fault of the work (a bad order, a downstream service that was down) is logged, and the
//!   service pauses and contends again: the next leader, or this one later, may well succeed;
//! - an error of the election (a missing table, missing permissions, an item at the lock's key
//!   that is no lock) stops the service with a failure, since contending again changes
//!   nothing, and a service that runs without ever leading looks healthy while its work stays
//!   undone. Transient errors (throttling, a network failure) never reach the loop: the
//!   election retries them.
//!
//! Ctrl-C stops the work and releases the lease, so that another instance takes over at its
//! next poll.
//!
//! It runs against dynalease-fake, in memory, in real time:
//!
//! ```sh
//! cargo run --example leader_service -- --fake                     # until Ctrl-C
//! cargo run --example leader_service -- --fake --fail-every 3      # a fault every third round
//! cargo run --example leader_service -- --fake --drop-table-after 20 --seconds 60
//! ```
//!
//! `--seconds N` stops it after N seconds as Ctrl-C would; `--drop-table-after N` deletes the
//! table, which loses the lease and then fails the election. Against DynamoDB, replace
//! [`fake_client`] with the client of your service (for instance from `aws_config`); nothing
//! else changes.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use dynalease::{Clock, LeaderError, Lease, LockTable, LockTableOptions, TableRef, TokioClock, TransactWriteExt};
use tokio_util::sync::CancellationToken;

const LOCK: &str = "order-sweeper";
/// Short, for a demonstration: a crashed leader's work stays undone this long.
const LEASE: Duration = Duration::from_secs(6);
/// How long the service waits after a fault of its work before it contends again.
const PAUSE: Duration = Duration::from_secs(5);
/// One round of sweeping.
const ROUND: Duration = Duration::from_secs(2);

type Fault = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Default)]
struct Args {
    fake: bool,
    seconds: Option<u64>,
    fail_every: Option<u32>,
    drop_table_after: Option<u64>,
}

impl Args {
    fn parse() -> Result<Args, String> {
        let mut args = Args::default();
        let mut words = std::env::args().skip(1);
        while let Some(word) = words.next() {
            let mut number = |flag: &str| -> Result<u64, String> {
                let value = words.next().ok_or_else(|| format!("{flag} needs a number"))?;
                value.parse().map_err(|_| format!("{flag} needs a number, not {value:?}"))
            };
            match word.as_str() {
                "--fake" => args.fake = true,
                "--seconds" => args.seconds = Some(number("--seconds")?),
                "--fail-every" => {
                    let every = u32::try_from(number("--fail-every")?).map_err(|_| "--fail-every is too large")?;
                    args.fail_every = Some(every.max(1));
                }
                "--drop-table-after" => args.drop_table_after = Some(number("--drop-table-after")?),
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        Ok(args)
    }
}

/// The sweeper: the work of the leader. Each round marks an order shipped, under the lease of
/// the current term.
#[derive(Debug)]
struct Sweeper {
    client: Client,
    clock: TokioClock,
    rounds: AtomicU32,
    fail_every: Option<u32>,
}

impl Sweeper {
    /// Sweeps until `stop` is cancelled (shutdown or a lost lease), or a round fails.
    async fn sweep(&self, lease: Lease, stop: CancellationToken) -> Result<(), Fault> {
        tracing::info!(fencing_token = lease.fencing_token(), "sweeping orders");
        while !stop.is_cancelled() {
            let round = self.rounds.fetch_add(1, Ordering::SeqCst) + 1;
            if self.fail_every.is_some_and(|every| round % every == 0) {
                return Err(format!("order {round} is malformed").into());
            }
            let put = Put::builder()
                .table_name("Shop")
                .item("pk", AttributeValue::S(format!("ORDER#{round}")))
                .item("sk", AttributeValue::S("ORDER".into()))
                .item("status", AttributeValue::S("shipped".into()))
                .item("fence", AttributeValue::N(lease.fencing_token().to_string()))
                .build()?;
            // `fenced_by_current`: the write commits only while this term's lease holds the lock.
            self.client
                .transact_write_items()
                .fenced_by_current()?
                .transact_items(TransactWriteItem::builder().put(put).build())
                .send()
                .await?;
            tracing::info!(round, "shipped an order");
            tokio::select! {
                biased;
                () = stop.cancelled() => {}
                () = self.clock.sleep(ROUND) => {}
            }
        }
        Ok(())
    }
}

/// Leads for as long as `shutdown` is not cancelled. Returns an error of the election, which
/// should stop the process.
async fn lead_while_running(
    locks: &LockTable,
    sweeper: &Sweeper,
    shutdown: &CancellationToken,
) -> Result<(), dynalease::Error> {
    while !shutdown.is_cancelled() {
        let ended = locks.run_as_leader(LOCK, LEASE, shutdown.clone(), |lease, stop| sweeper.sweep(lease, stop)).await;
        match ended {
            Ok(()) => {}                                  // the work ended on its own: contend again
            Err(LeaderError::Cancelled) => return Ok(()), // shutdown: the lease was released
            Err(LeaderError::Election(err)) => return Err(err),
            Err(LeaderError::Work(fault)) => {
                tracing::error!(%fault, pause = ?PAUSE, "the order sweeper failed; it contends again after a pause");
                tokio::select! {
                    biased;
                    () = shutdown.cancelled() => return Ok(()),
                    () = sweeper.clock.sleep(PAUSE) => {}
                }
            }
        }
    }
    Ok(())
}

/// The client of the in-memory fake, with the table `Shop`. A service builds its own client.
fn fake_client(fake: &dynalease_fake::FakeDynamoDb) -> Client {
    fake.create_table("Shop", "pk", Some("sk"));
    fake.client()
}

#[tokio::main]
async fn main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt().with_env_filter(filter).init();
    let args = match Args::parse() {
        Ok(args) if args.fake => args,
        Ok(_) => {
            eprintln!("usage: leader_service --fake [--seconds N] [--fail-every N] [--drop-table-after N]");
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
    let label = format!("leader-service-{}", std::process::id());
    let table = TableRef::builder(client.clone(), "Shop").partition_key("pk").sort_key("sk").build();
    let locks = match table.and_then(|table| LockTable::new(table, LockTableOptions::default().holder_label(label))) {
        Ok(locks) => locks,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    };
    let clock = TokioClock::new();
    let shutdown = CancellationToken::new();

    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                tracing::info!("Ctrl-C: stopping");
            }
            shutdown.cancel();
        }
    });
    if let Some(seconds) = args.seconds {
        let (shutdown, sleep) = (shutdown.clone(), clock.sleep(Duration::from_secs(seconds)));
        tokio::spawn(async move {
            sleep.await;
            tracing::info!(seconds, "time is up: stopping");
            shutdown.cancel();
        });
    }
    if let Some(seconds) = args.drop_table_after {
        let (fake, sleep) = (fake.clone(), clock.sleep(Duration::from_secs(seconds)));
        tokio::spawn(async move {
            sleep.await;
            tracing::warn!("deleting the table Shop");
            fake.delete_table("Shop");
        });
    }

    let sweeper = Sweeper { client, clock, rounds: AtomicU32::new(0), fail_every: args.fail_every };
    match lead_while_running(&locks, &sweeper, &shutdown).await {
        Ok(()) => {
            tracing::info!("stopped; the lease was released");
            ExitCode::SUCCESS
        }
        Err(err) => {
            tracing::error!(error = %err, "the election failed; stopping so that the process is restarted or reported");
            ExitCode::FAILURE
        }
    }
}
