//! A job that runs once: it waits a little longer than one lease for the lock, writes its
//! results under the lease, and releases the lock.
//!
//! Runs against dynalease-fake, in memory: `cargo run --example nightly_report`.

use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use dynalease::{HeldCheck, LockTable, LockTableOptions, TableRef, TransactWriteExt};

const LEASE: Duration = Duration::from_secs(30);

#[tokio::main(flavor = "current_thread", start_paused = true)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fake = dynalease_fake::FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let client = fake.client();
    let locks = LockTable::new(
        TableRef::builder(client.clone(), "Shop").partition_key("pk").sort_key("sk").build()?,
        LockTableOptions::default().holder_label("report-runner"),
    )?;

    // A little longer than one lease: gives up on a live holder, takes over a crashed one.
    let Some(lease) = locks.try_acquire_for("nightly-report", LEASE, LEASE + Duration::from_secs(10)).await? else {
        println!("another process runs the report");
        return Ok(());
    };
    println!("running the report with fencing token {}", lease.fencing_token());

    let stop = lease.ended();
    for day in 1..=3 {
        if stop.is_cancelled() {
            println!("the lease was lost: {:?}", lease.loss_reason());
            return Ok(());
        }
        let put = Put::builder()
            .table_name("Shop")
            .item("pk", AttributeValue::S(format!("REPORT#2024-06-0{day}")))
            .item("sk", AttributeValue::S("REPORT".into()))
            .item("fence", AttributeValue::N(lease.fencing_token().to_string()))
            .build()?;
        let mut held = HeldCheck::default();
        let written = client
            .transact_write_items()
            .fenced_by_marked(&lease, &mut held)
            .transact_items(TransactWriteItem::builder().put(put).build())
            .send()
            .await;
        match written {
            Ok(_) => println!("wrote the report of day {day}"),
            Err(err) if held.lost_lease(&err) => {
                println!("another process holds the lock now; stopping");
                return Ok(());
            }
            Err(err) => return Err(err.into()),
        }
    }

    lease.release().await?;
    println!("released");
    Ok(())
}
