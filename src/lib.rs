#![doc = include_str!("README.md")]
//!
//! # The map of the crate
//!
//! - [`TableRef`] (built with a [`TableRefBuilder`]) and [`LockTable`]: the table and its
//!   locks; [`LockTableOptions`] for the holder label, item expiry, clock and ids;
//!   [`LockTable::check_table`] and [`TableMismatch`]: the table checked before use.
//! - [`LockTable::describe`] and [`LockTable::locks`]: a lock, or every lock of the table, as a
//!   [`LockDescription`], read without taking it.
//! - [`Lease`]: a held lock, with its [`fencing_token`](Lease::fencing_token), its
//!   [`ended`](Lease::ended) token and its [`LossReason`].
//! - [`TransactWriteExt`] and [`HeldCheck`]: a transaction that commits only while a lease
//!   holds its lock.
//! - [`LockTable::run_as_leader`], [`LeaderError`] and [`Lease::current`]: leader election,
//!   one term per lease.
//! - [`LockTable::shutdown`] and [`ShutdownReport`]: the end of a table, with every lease it
//!   holds released.
//! - [`ProcessLocks`], [`ProcessLockToken`], [`RenewOptions`] and [`ProcessLockScope`]: the
//!   shape of a simple process lock, held through a token, over the same leases.
//! - With the features `sqlite` and `postgres`: `SqliteTable` and `PostgresTable`, the same
//!   locks as rows of a SQL table (`LockTable::sqlite`, `LockTable::postgres`), and
//!   `Lease::check_held_sqlite` / `Lease::check_held_postgres`, the fencing check in a caller's
//!   own transaction.
//! - [`Clock`] and [`IdSource`]: where time and ids come from, injected for tests and
//!   simulations.
//! - With the feature `testing`: `LockTable::simulate_holder` and the other helpers that act
//!   as another process, and `LockState`.
//! - [`Error`]: what a call can fail with; [`Error::is_transient`] tells what is worth another
//!   try; [`InvalidOption`], [`InvalidName`], [`TableMismatch`], [`ItemMismatch`]: why.
#![warn(missing_docs, unreachable_pub, missing_debug_implementations, rust_2018_idioms)]

mod clock;
mod describe;
mod error;
mod fencing;
mod ids;
mod invalid;
mod item_mismatch;
mod leader;
mod lease;
mod lock_table;
mod options;
mod process;
mod shutdown;
mod store;
mod table;
mod table_check;
mod telemetry;
#[cfg(feature = "testing")]
mod testing;
mod token;

pub use clock::{Clock, Sleep, TokioClock};
pub use describe::{LockDescription, LockStatus, LockStream};
pub use error::Error;
pub use fencing::{HeldCheck, TransactWriteExt};
pub use ids::{IdSource, RandomIds, SeededIds};
pub use invalid::{InvalidName, InvalidOption};
pub use item_mismatch::ItemMismatch;
pub use leader::LeaderError;
pub use lease::{Lease, LossReason};
pub use lock_table::LockTable;
pub use options::LockTableOptions;
pub use process::{ProcessLockScope, ProcessLocks, RenewOptions};
/// The SQLite driver the `sqlite` feature builds on, at the version
/// [`Lease::check_held_sqlite`] takes.
#[cfg(feature = "sqlite")]
pub use rusqlite;
pub use shutdown::ShutdownReport;
#[cfg(feature = "postgres")]
pub use store::postgres::PostgresTable;
#[cfg(feature = "sqlite")]
pub use store::sqlite::SqliteTable;
pub use table::{TableRef, TableRefBuilder};
pub use table_check::TableMismatch;
#[cfg(feature = "testing")]
pub use testing::LockState;
pub use token::{ParseTokenError, ProcessLockToken};
/// The PostgreSQL client and pool the `postgres` feature builds on, at the versions
/// [`PostgresTable`] takes.
#[cfg(feature = "postgres")]
pub use {deadpool_postgres, tokio_postgres};

/// The examples of the repository's README, compiled and run as documentation tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
#[derive(Debug)]
pub struct RepositoryReadme;

#[cfg(test)]
mod tests {
    fn shareable<T: Send + Sync + 'static>() {}
    fn movable<T: Send + 'static>() {}

    #[test]
    fn handles_can_move_between_tasks() {
        shareable::<crate::LockTable>();
        shareable::<crate::Lease>();
        shareable::<crate::Error>();
        shareable::<crate::LockTableOptions>();
        shareable::<crate::ProcessLocks>();
        shareable::<crate::ProcessLockScope>();
        shareable::<crate::ProcessLockToken>();
        shareable::<crate::ParseTokenError>();
        movable::<crate::LockStream>();
        shareable::<crate::LeaderError<std::io::Error>>();
    }
}
