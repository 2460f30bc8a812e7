//! Leases on named locks in DynamoDB (or SQLite, or PostgreSQL), with fencing tokens.
//!
//! A lock is one item in a table you already have. A process acquires a [`Lease`] on it, the
//! lease renews itself in the background, and every acquire raises the lock's fencing token,
//! so a write can refuse a holder whose lease ended while it was paused.
//!
//! - [`TableRef`] and [`LockTable`]: the table and its locks; [`LockTableOptions`] for the
//!   holder label, item expiry, clock and ids.
//! - [`Lease`]: a held lock, with its [`fencing_token`](Lease::fencing_token), its
//!   [`ended`](Lease::ended) token and its [`LossReason`].
//! - [`TransactWriteExt`] and [`HeldCheck`]: a transaction that commits only while a lease
//!   holds its lock.
//! - [`LockTable::run_as_leader`], [`LeaderError`] and [`Lease::current`]: leader election,
//!   one term per lease.
//! - [`ProcessLocks`] and [`ProcessLockScope`]: the shape of a simple process lock, held
//!   through a token string, over the same leases.
//! - With the features `sqlite` and `postgres`: `SqliteTable` and `PostgresTable`, the same
//!   locks as rows of a SQL table (`LockTable::sqlite`, `LockTable::postgres`), and
//!   `Lease::check_held_sqlite` / `Lease::check_held_postgres`, the fencing check in a caller's
//!   own transaction.
//! - [`Clock`] and [`IdSource`]: where time and ids come from, injected for tests and
//!   simulations.
//! - With the feature `testing`: `LockTable::simulate_holder` and the other helpers that act
//!   as another process, and `LockState`.
//!
//! The library reports through the ecosystem's facades: `tracing` spans (`Lock.TryAcquire`,
//! `Lock.Acquire`, `Lock.Renew`, `Lock.Release`) and log events with an `event_id` field from
//! 40 to 49, and counters of the `metrics` crate (`dynalease.lock.acquisitions`,
//! `dynalease.lock.renewals`, `dynalease.lock.losses`, `dynalease.lock.contention_retries`).
//!
//! A process that waits for a lock measures the wait on its own monotonic clock, and the
//! holder counts its lease from when it sent its write, so no two machines' clocks are ever
//! compared. A holder that was paused can still wake up believing in a lease that ended;
//! fencing is what makes that harmless.
//!
//! # Examples
//!
//! Acquire, write under the lease, release:
//!
//! ```
//! use std::time::Duration;
//! use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
//! use dynalease::{LockTable, LockTableOptions, TableRef, TransactWriteExt};
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let fake = dynalease_fake::FakeDynamoDb::new();
//! fake.create_table("Shop", "pk", Some("sk"));
//! let client = fake.client();
//! let locks = LockTable::new(
//!     TableRef::new(client.clone(), "Shop", "pk", Some("sk")),
//!     LockTableOptions::default().holder_label("pod-7"),
//! )?;
//!
//! let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
//! let put = TransactWriteItem::builder()
//!     .put(
//!         Put::builder()
//!             .table_name("Shop")
//!             .item("pk", AttributeValue::S("REPORT#2024-06-01".into()))
//!             .item("sk", AttributeValue::S("REPORT".into()))
//!             .item("fence", AttributeValue::N(lease.fencing_token().to_string()))
//!             .build()?,
//!     )
//!     .build();
//! client.transact_write_items().is_held(&lease).transact_items(put).send().await?;
//! lease.release().await?;
//! # Ok(())
//! # }
//! ```
#![warn(missing_docs, unreachable_pub, missing_debug_implementations, rust_2018_idioms)]

mod clock;
mod error;
mod fencing;
mod ids;
mod leader;
mod lease;
mod lock_table;
mod options;
mod process;
mod store;
mod table;
mod telemetry;
#[cfg(feature = "testing")]
mod testing;

pub use clock::{Clock, Sleep, TokioClock};
pub use error::Error;
pub use fencing::{HeldCheck, TransactWriteExt};
pub use ids::{IdSource, RandomIds, SeededIds};
pub use leader::LeaderError;
pub use lease::{Lease, LossReason};
pub use lock_table::LockTable;
pub use options::LockTableOptions;
pub use process::{ProcessLockScope, ProcessLocks};
/// The SQLite driver the `sqlite` feature builds on, at the version
/// [`Lease::check_held_sqlite`] takes.
#[cfg(feature = "sqlite")]
pub use rusqlite;
#[cfg(feature = "postgres")]
pub use store::postgres::PostgresTable;
#[cfg(feature = "sqlite")]
pub use store::sqlite::SqliteTable;
pub use table::TableRef;
#[cfg(feature = "testing")]
pub use testing::LockState;
/// The PostgreSQL client and pool the `postgres` feature builds on, at the versions
/// [`PostgresTable`] takes.
#[cfg(feature = "postgres")]
pub use {deadpool_postgres, tokio_postgres};

#[cfg(test)]
mod tests {
    fn shareable<T: Send + Sync + 'static>() {}

    #[test]
    fn handles_can_move_between_tasks() {
        shareable::<crate::LockTable>();
        shareable::<crate::Lease>();
        shareable::<crate::Error>();
        shareable::<crate::LockTableOptions>();
        shareable::<crate::ProcessLocks>();
        shareable::<crate::ProcessLockScope>();
        shareable::<crate::LeaderError<std::io::Error>>();
    }
}
