//! The process lock over PostgreSQL, in the seed's terms: two instances of one process share a
//! database; `create` gives the first a token and the second nothing, `renew` with a minimum
//! window writes only near the end of the lock, `release` takes the token, `exists` tells
//! whether an instance holds it, and a scope holds the lock, renewed in the background, while
//! its work writes under the lease in a transaction of its own.
//!
//! Takes a connection URL (a `postgresql://` URL or a `key=value` string); the locks go to the
//! table `dynalease_locks`, created on first use, and the example's writes to
//! `example_imports`. About three seconds on the real clock:
//!
//! ```sh
//! cargo run --example process_lock_postgres --features postgres -- "host=/run/postgresql user=postgres dbname=postgres"
//! ```

use std::time::Duration;

use dynalease::{Clock, LockTable, LockTableOptions, PostgresTable, ProcessLocks, RenewOptions, TokioClock};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).ok_or("usage: process_lock_postgres URL")?;

    // Two instances, each with a connection pool of its own, as two processes have.
    let instance = |label: &str| -> Result<(ProcessLocks, PostgresTable), dynalease::Error> {
        let table = PostgresTable::connect(&url)?;
        let options = LockTableOptions::default().holder_label(label);
        Ok((ProcessLocks::new(LockTable::postgres(table.clone(), options)?), table))
    };
    let ((first, _), (second, second_table)) = (instance("instance-1")?, instance("instance-2")?);
    let name = format!("nightly-import-{}", std::process::id());

    // Create: the table is made on first use; one instance gets a token.
    let token = first.create(&name, Duration::from_secs(15)).await?.ok_or("the lock is free")?;
    println!("instance 1 created the lock, fencing token {}", token.fencing_token());
    assert!(second.create(&name, Duration::from_secs(15)).await?.is_none());
    println!("instance 2 finds it held: exists = {}", second.exists(&name).await?);

    // Renew with a minimum window: more than 7 s of 15 are left, so nothing is written.
    assert!(
        first
            .renew(&token, RenewOptions::new().duration(Duration::from_secs(15)).only_within(Duration::from_secs(7)))
            .await?
    );
    println!("instance 1 renewed (nothing to write yet)");

    // Release by token, never by name: only the holder can.
    assert!(first.release(&token).await?);
    println!("instance 1 released it: exists = {}", second.exists(&name).await?);

    // A scope: the lock is held and renewed every third of its duration until released.
    let scope = second.scope(&name, Duration::from_secs(3)).await?;
    let lease = scope.lease().filter(|_| scope.is_locked()).ok_or("instance 2 got the lock")?;
    println!("instance 2 runs the import in a scope, fencing token {}", lease.fencing_token());
    TokioClock::new().sleep(Duration::from_secs(2)).await; // the work outlasts a renewal
    let mut client = second_table.pool().get().await?;
    client.batch_execute("CREATE TABLE IF NOT EXISTS example_imports (day TEXT PRIMARY KEY, fence BIGINT)").await?;
    let tx = client.transaction().await?;
    lease.check_held_postgres(&tx).await?; // FOR SHARE: commits only while the lease holds the lock
    let fence = i64::try_from(lease.fencing_token())?;
    tx.execute(
        "INSERT INTO example_imports VALUES ('2024-06-01', $1) ON CONFLICT (day) DO UPDATE SET fence = excluded.fence",
        &[&fence],
    )
    .await?;
    tx.commit().await?;
    println!("instance 2 wrote its import under the lease: locked = {}", scope.is_locked());
    scope.release().await?;
    println!("the scope released it: exists = {}", first.exists(&name).await?);
    Ok(())
}
