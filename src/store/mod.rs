//! The narrow interface between the lease algorithm and the storage of lock items.
//!
//! The algorithm in [`crate::lock_table`] and [`crate::lease`] reaches a lock only through
//! [`LockStore`]: read it, acquire it on a condition, renew it, release it. [`dynamodb`] is one
//! implementation; [`sqlite`] and [`postgres`] (features `sqlite`, `postgres`) keep one row per
//! lock in a SQL table, with what they share in [`sql`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::error::Error;

pub(crate) mod dynamodb;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) mod sql;
#[cfg(feature = "sqlite")]
pub(crate) mod sqlite;

/// The future of a [`LockStore`] call.
pub(crate) type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// What the store holds for one lock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LockView {
    /// No record at all: never acquired, or deleted. The next acquire gets token 1.
    Absent,
    /// A record without an owner: released. The next acquire raises `fence`.
    Free { fence: u64 },
    /// A record with an owner.
    Held(Holder),
}

/// The owner of a held lock, as read from the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Holder {
    /// The id of this lease of the lock, new on every acquire.
    pub(crate) owner: String,
    /// The record version, new on every acquire and renewal.
    pub(crate) rvn: String,
    /// The fencing token of the lease.
    pub(crate) fence: u64,
    /// How long the lease lasts after each write of its holder.
    pub(crate) lease: Duration,
    /// The holder label, if the holder has one.
    pub(crate) label: Option<String>,
}

/// The state an acquire expects to find, which is its condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// No owner (and the record, if any, is a lock).
    Free,
    /// The holder with this record version, seen unchanged for a whole lease.
    Version(String),
}

/// What an acquire or a renewal writes. A retry of the same write by the client finds `owner`
/// in the record and succeeds again, so an answer that was lost does not lose the lease.
#[derive(Clone, Debug)]
pub(crate) struct Grant<'a> {
    pub(crate) owner: &'a str,
    pub(crate) rvn: &'a str,
    pub(crate) lease: Duration,
    pub(crate) label: Option<&'a str>,
}

/// The answer to an acquire.
#[derive(Clone, Debug)]
pub(crate) enum AcquireOutcome {
    /// The lock is ours, with this fencing token.
    Won { fence: u64 },
    /// The condition failed; this is what the store holds instead.
    Refused(LockView),
}

/// The answer to a renewal.
#[derive(Clone, Debug)]
pub(crate) enum RenewOutcome {
    /// The record still has our owner, and now the new record version, with this lease.
    Renewed { lease: Duration },
    /// The record has another owner or none, or is no lock at all.
    TakenOver,
    /// There is no record.
    Deleted,
}

/// Where a listing of the locks of a table goes on: the key of the last record read.
#[derive(Clone, Debug)]
pub(crate) enum Cursor {
    /// The `LastEvaluatedKey` of a Scan.
    DynamoDb(std::collections::HashMap<String, aws_sdk_dynamodb::types::AttributeValue>),
    /// The name of the last row.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    Sql(String),
}

/// One page of the locks of a table, in the store's order.
#[derive(Debug)]
pub(crate) struct Page {
    /// Each lock by name, with its record, or the error of a record at a lock's key that is
    /// no lock.
    pub(crate) locks: Vec<(String, Result<LockView, Error>)>,
    /// Where the next page starts; `None` after the last.
    pub(crate) next: Option<Cursor>,
}

/// Reads and writes lock records. Implementations translate, nothing more: every decision is
/// the algorithm's.
pub(crate) trait LockStore: Send + Sync + fmt::Debug + 'static {
    /// The name of the table, for errors and logs.
    fn table_name(&self) -> &str;

    /// Reads the record of `name`, strongly consistent.
    fn read<'a>(&'a self, name: &'a str) -> StoreFuture<'a, LockView>;

    /// Checks the table, as [`LockTable::check_table`](crate::LockTable::check_table) says.
    fn check_table(&self) -> StoreFuture<'_, ()>;

    /// Reads one page of the records of every lock of the table, from `cursor` on (from the
    /// first without one).
    fn list<'a>(&'a self, cursor: Option<&'a Cursor>) -> StoreFuture<'a, Page>;

    /// Writes `grant` as the new holder if the record is as `expect`ed (or already has
    /// `grant.owner`), raising the fencing token by one.
    fn acquire<'a>(
        &'a self,
        name: &'a str,
        expect: &'a Expect,
        grant: &'a Grant<'a>,
    ) -> StoreFuture<'a, AcquireOutcome>;

    /// Writes the new record version of `grant` if the record still has `grant.owner`, with
    /// the lease of `grant`, or with the lease the record has if `keep_lease`.
    fn renew<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>, keep_lease: bool) -> StoreFuture<'a, RenewOutcome>;

    /// Removes the owner if it is `owner`, keeping the record and its fencing token. Returns
    /// whether the record had that owner.
    fn release<'a>(&'a self, name: &'a str, owner: &'a str) -> StoreFuture<'a, bool>;

    /// Writes `grant` as the holder whatever the record holds, raising the token; returns it.
    #[cfg(feature = "testing")]
    fn force_hold<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>) -> StoreFuture<'a, u64>;

    /// Removes the owner whoever it is, keeping the record.
    #[cfg(feature = "testing")]
    fn force_release<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()>;

    /// Deletes the record.
    #[cfg(feature = "testing")]
    fn force_delete<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()>;
}
