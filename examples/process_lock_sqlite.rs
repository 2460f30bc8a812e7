//! The process lock over a SQLite file, in the seed's terms: two instances of one process
//! share a database file; `create` gives the first a token and the second nothing, `renew`
//! with a minimum window writes only near the end of the lock, `release` takes the token,
//! `exists` tells whether an instance holds it, and a scope holds the lock, renewed in the
//! background, while its work writes under the lease in a transaction of its own.
//!
//! Runs as is, on the real clock, in a temporary directory (about three seconds):
//! `cargo run --example process_lock_sqlite --features sqlite`.

use std::time::Duration;

use dynalease::rusqlite::{Connection, TransactionBehavior};
use dynalease::{Clock, LockTable, LockTableOptions, ProcessLocks, RenewOptions, SqliteTable, TokioClock};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("dynalease-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("locks.db");

    // Two instances, each with a connection of its own, as two processes on the host have.
    let instance = |label: &str| -> Result<ProcessLocks, dynalease::Error> {
        let options = LockTableOptions::default().holder_label(label);
        Ok(ProcessLocks::new(LockTable::sqlite(SqliteTable::new(&path), options)?))
    };
    let (first, second) = (instance("instance-1")?, instance("instance-2")?);

    // Create: the table is made on first use; one instance gets a token.
    let token = first.create("nightly-import", Duration::from_secs(15)).await?.ok_or("the lock is free")?;
    println!("instance 1 created the lock, fencing token {}", token.fencing_token());
    assert!(second.create("nightly-import", Duration::from_secs(15)).await?.is_none());
    println!("instance 2 finds it held: exists = {}", second.exists("nightly-import").await?);

    // Renew with a minimum window: more than 7 s of 15 are left, so nothing is written.
    assert!(
        first
            .renew(&token, RenewOptions::new().duration(Duration::from_secs(15)).only_within(Duration::from_secs(7)))
            .await?
    );
    println!("instance 1 renewed (nothing to write yet)");

    // Release by token, never by name: only the holder can.
    assert!(first.release(&token).await?);
    println!("instance 1 released it: exists = {}", second.exists("nightly-import").await?);

    // A scope: the lock is held and renewed every third of its duration until released.
    let scope = second.scope("nightly-import", Duration::from_secs(3)).await?;
    let lease = scope.lease().filter(|_| scope.is_locked()).ok_or("instance 2 got the lock")?.clone();
    println!("instance 2 runs the import in a scope, fencing token {}", lease.fencing_token());
    TokioClock::new().sleep(Duration::from_secs(2)).await; // the work outlasts a renewal
    let written = tokio::task::spawn_blocking({
        let path = path.clone();
        move || -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
            let mut db = Connection::open(path)?;
            db.execute("CREATE TABLE IF NOT EXISTS imports (day TEXT PRIMARY KEY, fence INTEGER)", [])?;
            let tx = db.transaction_with_behavior(TransactionBehavior::Immediate)?;
            lease.check_held_sqlite(&tx)?; // commits only while the lease holds the lock
            tx.execute("INSERT OR REPLACE INTO imports VALUES ('2024-06-01', ?1)", [lease.fencing_token()])?;
            tx.commit()?;
            Ok(())
        }
    })
    .await?;
    written.map_err(|err| err.to_string())?;
    println!("instance 2 wrote its import under the lease: locked = {}", scope.is_locked());
    scope.release().await?;
    println!("the scope released it: exists = {}", first.exists("nightly-import").await?);

    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
