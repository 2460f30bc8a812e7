//! The lock library against a DynamoDB at an endpoint, on the real clock: DynamoDB itself,
//! `dynalease-fake serve`, or another emulator (DynamoDB Local, moto, dynalite).
//!
//! ```sh
//! cargo run --example endpoint_smoke -- http://127.0.0.1:8000
//! ```
//!
//! It creates a table of its own (string `pk` and `sk`), checks one behaviour at a time and prints
//! `ok` or `FAIL` for each: acquire and refuse, a fenced write, renewal, release and a higher token
//! for the next holder, a takeover after a silent holder's lease, a fenced write refused once the
//! lease is lost, and the process-lock shape. It deletes the table at the end and exits 1 if
//! anything failed. Any credentials do for an emulator; for DynamoDB, set `AWS_ACCESS_KEY_ID` and
//! `AWS_SECRET_ACCESS_KEY` (and mind the cost of a table).
#![allow(clippy::disallowed_methods)] // Real time: the endpoint runs on the wall clock.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, Put, ScalarAttributeType, TableStatus,
    TransactWriteItem,
};
use dynalease::{HeldCheck, LockTable, LockTableOptions, ProcessLocks, RenewOptions, TableRef, TransactWriteExt};

type Failure = Box<dyn std::error::Error>;

const LEASE: Duration = Duration::from_secs(2);

fn client(endpoint: &str) -> Client {
    let key = |name: &str| std::env::var(name).unwrap_or_else(|_| "fake".to_owned());
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(std::env::var("AWS_REGION").unwrap_or_else(|_| "us-east-1".to_owned())))
        .endpoint_url(endpoint)
        .credentials_provider(Credentials::new(
            key("AWS_ACCESS_KEY_ID"),
            key("AWS_SECRET_ACCESS_KEY"),
            None,
            None,
            "env",
        ))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    Client::from_conf(config)
}

async fn create_table(client: &Client, table: &str) -> Result<(), Failure> {
    let attribute =
        |name: &str| AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build();
    let key = |name: &str, kind| KeySchemaElement::builder().attribute_name(name).key_type(kind).build();
    client
        .create_table()
        .table_name(table)
        .attribute_definitions(attribute("pk")?)
        .attribute_definitions(attribute("sk")?)
        .key_schema(key("pk", KeyType::Hash)?)
        .key_schema(key("sk", KeyType::Range)?)
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await?;
    for _ in 0..200 {
        let described = client.describe_table().table_name(table).send().await?;
        if described.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("table {table} did not become ACTIVE").into())
}

fn check(failed: &mut bool, what: &str, result: Result<String, Failure>) {
    match result {
        Ok(detail) if detail.is_empty() => println!("ok    {what}"),
        Ok(detail) => println!("ok    {what}: {detail}"),
        Err(error) => {
            *failed = true;
            println!("FAIL  {what}: {}", aws_sdk_dynamodb::error::DisplayErrorContext(&*error));
        }
    }
}

fn ensure(condition: bool, message: impl Into<String>) -> Result<(), Failure> {
    if condition { Ok(()) } else { Err(message.into().into()) }
}

/// A data item stamped with the lease's fencing token.
fn data_item(table: &str, lease: &dynalease::Lease) -> Result<TransactWriteItem, Failure> {
    let put = Put::builder()
        .table_name(table)
        .item("pk", AttributeValue::S(format!("DATA#{}", lease.name())))
        .item("sk", AttributeValue::S("DATA".into()))
        .item("fence", AttributeValue::N(lease.fencing_token().to_string()))
        .build()?;
    Ok(TransactWriteItem::builder().put(put).build())
}

async fn run(client: &Client, table: &str) -> bool {
    let locks = |label: &str| {
        LockTable::new(
            TableRef::builder(client.clone(), table).partition_key("pk").sort_key("sk").build()?,
            LockTableOptions::default().holder_label(label),
        )
    };
    let (Ok(a), Ok(b)) = (locks("a"), locks("b")) else {
        println!("FAIL  lock tables could not be made");
        return false;
    };
    let mut failed = false;

    let first = a.acquire("job", LEASE).await;
    check(
        &mut failed,
        "acquire a free lock",
        first.as_ref().map(|l| format!("fencing token {}", l.fencing_token())).map_err(|e| e.to_string().into()),
    );
    let Ok(first) = first else { return false };

    let refused = b.try_acquire("job", LEASE).await;
    check(
        &mut failed,
        "a second process is refused while the lease is held",
        match refused {
            Ok(None) => Ok(String::new()),
            Ok(Some(_)) => Err("it got the lock".into()),
            Err(e) => Err(e.into()),
        },
    );

    let mut held = HeldCheck::default();
    let written = match data_item(table, &first) {
        Ok(item) => client
            .transact_write_items()
            .fenced_by_marked(&first, &mut held)
            .transact_items(item)
            .send()
            .await
            .map_err(Failure::from),
        Err(e) => Err(e),
    };
    check(&mut failed, "a fenced write under the lease commits", written.map(|_| String::new()));

    check(
        &mut failed,
        "renew",
        first
            .renew()
            .await
            .map_err(Failure::from)
            .and_then(|renewed| ensure(renewed, "renew answered false").map(|()| String::new())),
    );

    let token = first.fencing_token();
    check(&mut failed, "release", first.release().await.map(|()| String::new()).map_err(Failure::from));
    let next = b.try_acquire("job", LEASE).await;
    check(
        &mut failed,
        "the next holder gets the released lock with a higher token",
        match &next {
            Ok(Some(lease)) => {
                ensure(lease.fencing_token() > token, format!("token {} after {token}", lease.fencing_token()))
                    .map(|()| format!("token {} after {token}", lease.fencing_token()))
            }
            Ok(None) => Err("the lock was not free".into()),
            Err(e) => Err(e.to_string().into()),
        },
    );
    if let Ok(Some(lease)) = next {
        let _ = lease.release().await;
    }

    // A holder that stops renewing: its lock is taken over after one whole lease.
    let takeover = async {
        let ghost = a.simulate_holder("crashed", LEASE, Some("ghost")).await?;
        let started = Instant::now();
        let lease = b.try_acquire_for("crashed", LEASE, LEASE * 5).await?.ok_or("no takeover within five leases")?;
        let waited = started.elapsed();
        ensure(waited >= LEASE, format!("taken over after {waited:?}, before one lease"))?;
        let token = lease.fencing_token();
        ensure(token > ghost, format!("token {token} after {ghost}"))?;
        let _ = lease.release().await;
        Ok::<_, Failure>(format!("after {:.1} s, token {token} after {ghost}", waited.as_secs_f64()))
    };
    check(&mut failed, "a silent holder's lock is taken over after its lease", takeover.await);

    // A lease lost to another writer: the fenced write is refused and says why.
    let lost = async {
        let lease = a.acquire("fenced", LEASE).await?;
        b.simulate_holder("fenced", LEASE, Some("usurper")).await?;
        let mut held = HeldCheck::default();
        let item = data_item(table, &lease)?;
        match client.transact_write_items().fenced_by_marked(&lease, &mut held).transact_items(item).send().await {
            Ok(_) => Err("the write committed".into()),
            Err(err) => ensure(held.lost_lease(&err), format!("refused, but not for the lease: {err:?}"))
                .map(|()| String::new()),
        }
    };
    check(&mut failed, "a fenced write is refused once the lease is lost", lost.await);

    // The process-lock shape.
    let processes = ProcessLocks::new(a.clone());
    let shape = async {
        let token = processes.create("import", LEASE).await?.ok_or("create: the lock was not free")?;
        ensure(processes.create("import", LEASE).await?.is_none(), "a second create succeeded")?;
        ensure(processes.renew(&token, RenewOptions::new().duration(LEASE)).await?, "renew answered false")?;
        ensure(processes.exists("import").await?, "exists answered false while held")?;
        ensure(processes.release(&token).await?, "release answered false")?;
        ensure(!processes.exists("import").await?, "exists answered true after release")?;
        Ok::<_, Failure>(String::new())
    };
    check(&mut failed, "process locks: create, refuse, renew, exists, release", shape.await);
    !failed
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(endpoint) = std::env::args().nth(1) else {
        eprintln!("usage: endpoint_smoke URL   (for example http://127.0.0.1:8000)");
        return ExitCode::from(2);
    };
    let client = client(&endpoint);
    let table = format!("dynalease-smoke-{}", std::process::id());
    if let Err(error) = create_table(&client, &table).await {
        println!("FAIL  create table {table}: {error:?}");
        return ExitCode::FAILURE;
    }
    let passed = run(&client, &table).await;
    let _ = client.delete_table().table_name(&table).send().await;
    if passed { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
