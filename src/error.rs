//! The errors of the library: [`Error`].

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

/// A boxed error from the layer below, kept as the [`source`](StdError::source) of an [`Error`].
pub(crate) type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// What went wrong in a call of the library.
///
/// Losing a lease is not an error: it ends the lease, see [`Lease::ended`](crate::Lease::ended)
/// and [`Lease::loss_reason`](crate::Lease::loss_reason).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{Error, LockTable, LockTableOptions, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = LockTable::new(table, LockTableOptions::default())?;
///
/// let err = locks.try_acquire("job", Duration::from_millis(10)).await.unwrap_err();
/// assert!(matches!(err, Error::InvalidLeaseDuration { .. }));
/// assert!(!err.is_transient());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A lease duration outside [`LockTable::MIN_LEASE`](crate::LockTable::MIN_LEASE) to
    /// [`LockTable::MAX_LEASE`](crate::LockTable::MAX_LEASE).
    #[non_exhaustive]
    InvalidLeaseDuration {
        /// The duration asked for.
        lease: Duration,
    },
    /// A margin of [`Lease::warning`](crate::Lease::warning) of zero, or longer than half the
    /// lease.
    #[non_exhaustive]
    InvalidMargin {
        /// The margin asked for.
        margin: Duration,
        /// The lease duration.
        lease: Duration,
    },
    /// A lock name that cannot be a key: empty, or too long for DynamoDB.
    #[non_exhaustive]
    InvalidLockName {
        /// The name given.
        name: String,
        /// Why it was refused.
        reason: crate::InvalidName,
    },
    /// A [`TableRef`](crate::TableRef), a SQL table or
    /// [`LockTableOptions`](crate::LockTableOptions) that cannot work, such as a holder label
    /// of 300 characters.
    #[non_exhaustive]
    InvalidOptions {
        /// What is wrong with them.
        reason: crate::InvalidOption,
    },
    /// A fencing check in a caller's SQL transaction for a lease whose locks are not in that
    /// database (`Lease::check_held_sqlite` for a lease of DynamoDB or PostgreSQL, say).
    #[non_exhaustive]
    WrongStore {
        /// The table of the lease's locks.
        table: String,
        /// The store the check is for: `SQLite` or `PostgreSQL`.
        expected: &'static str,
    },
    /// `Lease::check_held_sqlite` with a connection outside a transaction: the check would
    /// hold for nothing. Begin the transaction first.
    NotInTransaction,
    /// The item at the key of the lock is not a lock item, for instance an entity whose key
    /// happens to be `LOCK#` and the name, or in a SQL table a row at the lock's name whose
    /// columns no lock would write (an owner without a lease, a lease out of range, a value
    /// of the wrong type). Give the lock another name.
    #[non_exhaustive]
    NotALock {
        /// The name of the lock.
        lock: String,
        /// The table that holds the item.
        table: String,
        /// Which attribute is missing or malformed.
        reason: crate::ItemMismatch,
    },
    /// DynamoDB answered that the table does not exist (ResourceNotFoundException), or a SQL
    /// table that the store had created was dropped since (the next call creates it again).
    #[non_exhaustive]
    TableNotFound {
        /// The table.
        table: String,
    },
    /// The table does not fit its locks ([`TableMismatch`](crate::TableMismatch) says how):
    /// for DynamoDB, other key names than its [`TableRef`](crate::TableRef)'s, a sort key more
    /// or less, keys that are not strings, or time to live not enabled on the attribute of the
    /// options; for a SQL table, columns that are not those of a lock table.
    #[non_exhaustive]
    TableMismatch {
        /// The table.
        table: String,
        /// What does not fit.
        mismatch: crate::TableMismatch,
    },
    /// The [`LockTable`](crate::LockTable) was shut down
    /// ([`LockTable::shutdown`](crate::LockTable::shutdown)): it acquires no more locks.
    #[non_exhaustive]
    ShutDown {
        /// The table.
        table: String,
    },
    /// [`TransactWriteExt::fenced_by_current`](crate::TransactWriteExt::fenced_by_current) found no
    /// current lease: the code does not run inside the work of
    /// [`LockTable::run_as_leader`](crate::LockTable::run_as_leader), or runs in a task that
    /// the work spawned. Pass the lease to [`fenced_by`](crate::TransactWriteExt::fenced_by).
    NoCurrentLease,
    /// A fencing check in a caller's SQL transaction found that the lease no longer holds its
    /// lock: another owner, another fencing token, or no row. Roll the transaction back.
    #[non_exhaustive]
    NotHeld {
        /// The name of the lock.
        lock: String,
        /// The table that holds the lock.
        table: String,
        /// The fencing token of the lease.
        fencing_token: u64,
    },
    /// A statement to a SQL database failed (features `sqlite` and `postgres`).
    #[non_exhaustive]
    Sql {
        /// What the store was doing, such as `acquire` or `renew`.
        operation: &'static str,
        /// The table.
        table: String,
        /// The code the database answered with (a SQLSTATE of PostgreSQL, such as `40001`, or
        /// a result code of SQLite, such as `SQLITE_BUSY`); `None` when no answer came, as
        /// with a connection that failed or dropped.
        code: Option<String>,
        /// Whether trying again later may succeed: a connection that failed or dropped, a
        /// busy or locked database, a serialization failure.
        transient: bool,
        /// The error of the driver.
        source: BoxError,
    },
    /// Any other failure of a request to DynamoDB, after the retries of the client.
    #[non_exhaustive]
    DynamoDb {
        /// The operation, such as `UpdateItem`.
        operation: &'static str,
        /// The table.
        table: String,
        /// The error code DynamoDB answered with, if it answered.
        code: Option<String>,
        /// Whether trying again later may succeed.
        transient: bool,
        /// The error of the SDK.
        source: BoxError,
    },
}

impl Error {
    /// Whether trying again later may succeed: throttling, a server error of DynamoDB, a
    /// timeout or a network failure; for a SQL store, a connection that failed or dropped or
    /// a database that is busy.
    ///
    /// # Examples
    ///
    /// ```
    /// fn contend_again(err: &dynalease::Error) -> bool {
    ///     // A throttled acquire is worth another try; a missing table is not.
    ///     err.is_transient()
    /// }
    /// ```
    pub fn is_transient(&self) -> bool {
        matches!(self, Error::DynamoDb { transient: true, .. } | Error::Sql { transient: true, .. })
    }

    /// The class of the error as metrics label it (`error.type`): the error code DynamoDB
    /// answered with, the kind of failure when it did not answer (`timeout`,
    /// `dispatch_failure`, ...), or a name of this library's own.
    pub(crate) fn error_type(&self) -> &str {
        match self {
            Error::DynamoDb { code: Some(code), .. } => code,
            Error::DynamoDb { code: None, source, .. } => crate::store::dynamodb::failure_kind(source.as_ref()),
            Error::Sql { code: Some(code), .. } => code,
            Error::Sql { code: None, .. } => "connection",
            Error::TableNotFound { .. } => "ResourceNotFoundException",
            Error::TableMismatch { .. } => "ValidationException",
            Error::NotALock { .. } => "not_a_lock",
            Error::NotHeld { .. } => "not_held",
            Error::ShutDown { .. } => "shut_down",
            Error::InvalidLeaseDuration { .. }
            | Error::InvalidMargin { .. }
            | Error::InvalidLockName { .. }
            | Error::InvalidOptions { .. }
            | Error::WrongStore { .. }
            | Error::NotInTransaction
            | Error::NoCurrentLease => "invalid_argument",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidLeaseDuration { lease } => {
                write!(f, "lease duration {lease:?} is outside the allowed range of 1 s to 1 day")
            }
            Error::InvalidMargin { margin, lease } => write!(
                f,
                "the warning margin {margin:?} must be more than zero and at most half the lease of {lease:?}"
            ),
            Error::InvalidLockName { name, reason } => {
                write!(f, "invalid lock name {name:?}: {reason}")
            }
            Error::InvalidOptions { reason } => write!(f, "invalid lock table options: {reason}"),
            Error::WrongStore { table, expected } => write!(f, "the locks of table {table:?} are not in {expected}"),
            Error::NotInTransaction => {
                f.write_str("the fencing check needs a connection inside a transaction: begin it first")
            }
            Error::NotALock { lock, table, reason } => write!(
                f,
                "the item at the key of lock {lock:?} in table {table:?} is not a lock ({reason}); give the lock another name"
            ),
            Error::TableNotFound { table } => write!(f, "table {table:?} was not found"),
            Error::TableMismatch { table, mismatch } => {
                write!(f, "table {table:?} does not fit the locks: {mismatch}")
            }
            Error::ShutDown { table } => {
                write!(f, "the lock table of {table:?} was shut down: it acquires no more locks")
            }
            Error::NoCurrentLease => f.write_str(
                "no lease is current: pass the lease to fenced_by, or run this code inside the work of LockTable::run_as_leader",
            ),
            Error::NotHeld { lock, table, fencing_token } => write!(
                f,
                "the lease on lock {lock:?} in table {table:?} with fencing token {fencing_token} no longer holds it"
            ),
            Error::Sql { operation, table, code, .. } => match code {
                Some(code) => write!(f, "{operation} on table {table:?} failed with {code}"),
                None => write!(f, "{operation} on table {table:?} failed: no answer from the database"),
            },
            Error::DynamoDb { operation, table, code, .. } => match code {
                Some(code) => write!(f, "{operation} on table {table:?} failed with {code}"),
                None => write!(f, "{operation} on table {table:?} failed"),
            },
        }
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Error::DynamoDb { source, .. } | Error::Sql { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}
