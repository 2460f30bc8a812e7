//! The [`LockStore`] over a SQLite database file (feature `sqlite`): one row per lock, in a
//! table the store creates on first use, through rusqlite.
//!
//! - [`SqliteTable`]: the file and the table, given to [`LockTable::sqlite`].
//! - [`Lease::check_held_sqlite`]: the fencing check in a caller's own transaction.
//!
//! SQLite is a library, not a server, so every statement blocks the thread that runs it: the
//! store runs each on tokio's blocking pool (`spawn_blocking`), over one connection of its own
//! per [`LockTable`]. Several processes on one host share the file; SQLite's file locks order
//! their writes, and a writer waits up to the [busy timeout](SqliteTable::busy_timeout) for
//! another one before its statement fails as transient (`SQLITE_BUSY`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, params};

use super::sql::{self, ColumnInfo, ColumnType, Row, Statements};
use super::{AcquireOutcome, Cursor, Expect, Grant, LockStore, LockView, Page, RenewOutcome, StoreFuture};
use crate::clock::Clock;
use crate::error::Error;
use crate::item_mismatch::ItemMismatch;
use crate::lease::Lease;
use crate::lock_table::LockTable;
use crate::options::LockTableOptions;
use crate::table::{Location, StoreKind};
use crate::table_check::TableMismatch;

/// A table of locks in a SQLite database file, for [`LockTable::sqlite`].
///
/// The file is opened, and the table created with `CREATE TABLE IF NOT EXISTS`, on the first
/// call that needs them, so building one touches nothing. Every process that contends for a
/// lock must name the same file and table. `:memory:` gives a database of one connection:
/// one `LockTable`, for trying things out.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LockTable, LockTableOptions, SqliteTable};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let locks = LockTable::sqlite(SqliteTable::new(":memory:"), LockTableOptions::default())?;
/// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
/// assert_eq!(lease.fencing_token(), 1);
/// lease.release().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct SqliteTable {
    path: PathBuf,
    table: String,
    busy_timeout: Duration,
}

impl SqliteTable {
    /// The table a `SqliteTable` uses unless [`table`](Self::table) names another:
    /// `dynalease_locks`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::SqliteTable::DEFAULT_TABLE, "dynalease_locks");
    /// ```
    pub const DEFAULT_TABLE: &'static str = sql::DEFAULT_TABLE;

    /// How long a statement waits for another process's write by default: 5 s.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::SqliteTable::DEFAULT_BUSY_TIMEOUT, std::time::Duration::from_secs(5));
    /// ```
    pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

    /// The locks in the database file at `path` (created if missing), in the table
    /// [`DEFAULT_TABLE`](Self::DEFAULT_TABLE).
    ///
    /// # Examples
    ///
    /// ```
    /// let table = dynalease::SqliteTable::new("/var/lib/myapp/locks.db");
    /// assert_eq!(table.table_name(), "dynalease_locks");
    /// ```
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into(), table: sql::DEFAULT_TABLE.to_owned(), busy_timeout: Self::DEFAULT_BUSY_TIMEOUT }
    }

    /// The locks in the table `table` instead: a plain identifier of ASCII letters, digits and
    /// underscores, checked by [`LockTable::sqlite`].
    ///
    /// # Examples
    ///
    /// ```
    /// let table = dynalease::SqliteTable::new("locks.db").table("process_lock");
    /// assert_eq!(table.table_name(), "process_lock");
    /// ```
    pub fn table(mut self, table: impl Into<String>) -> Self {
        self.table = table.into();
        self
    }

    /// How long a statement waits while another connection writes the file before it fails
    /// with `SQLITE_BUSY`, a transient error. The default is
    /// [`DEFAULT_BUSY_TIMEOUT`](Self::DEFAULT_BUSY_TIMEOUT).
    ///
    /// SQLite waits on the thread of the blocking pool, in real time.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let table = dynalease::SqliteTable::new("locks.db").busy_timeout(Duration::from_millis(500));
    /// ```
    pub fn busy_timeout(mut self, timeout: Duration) -> Self {
        self.busy_timeout = timeout;
        self
    }

    /// The path of the database file.
    ///
    /// # Examples
    ///
    /// ```
    /// let table = dynalease::SqliteTable::new("locks.db");
    /// assert_eq!(table.path(), std::path::Path::new("locks.db"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The name of the table.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::SqliteTable::new("locks.db").table_name(), "dynalease_locks");
    /// ```
    pub fn table_name(&self) -> &str {
        &self.table
    }
}

impl LockTable {
    /// The locks in a SQLite table, with `options`: the same leases, fencing tokens, takeover
    /// rule, heartbeat and testing helpers as over DynamoDB.
    ///
    /// Opens nothing yet. Fails with [`Error::InvalidOptions`] for a table name that is not a
    /// plain identifier and for options that cannot work. With
    /// [`time_to_live`](LockTableOptions::time_to_live), every write sets the column
    /// `expires_at` to the wall clock plus the retention (the attribute name is not used);
    /// deleting the rows that are due is for a job of your own, such as
    /// `DELETE FROM dynalease_locks WHERE owner IS NULL AND expires_at < unixepoch()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::{Error, LockTable, LockTableOptions, SqliteTable};
    ///
    /// let locks = LockTable::sqlite(SqliteTable::new("locks.db"), LockTableOptions::default().holder_label("pod-7"));
    /// assert!(locks.is_ok());
    /// let bad = LockTable::sqlite(SqliteTable::new("locks.db").table("locks; --"), LockTableOptions::default());
    /// assert!(matches!(bad, Err(Error::InvalidOptions { .. })));
    /// ```
    pub fn sqlite(table: SqliteTable, options: LockTableOptions) -> Result<LockTable, Error> {
        sql::check_table_name(&table.table)?;
        let options = options.resolve("name", None)?;
        // SQLite keeps any type in any column: a fence of text would count as 0.
        let fence_is_valid = "(typeof({t}.fence) IN ('integer', 'null') AND COALESCE({t}.fence, 0) >= 0)";
        // A listing pages by name, and SQLite orders numbers before text and blobs after it.
        let sql = Statements::new(&table.table, "INTEGER", '?', fence_is_valid, "typeof(name) = 'text'");
        let location =
            Location { table: table.table.clone(), kind: StoreKind::Sqlite { check_held: sql.check_held.clone() } };
        let store = SqliteStore {
            inner: Arc::new(Inner {
                path: table.path,
                table: table.table,
                busy_timeout: table.busy_timeout,
                sql,
                retention: options.time_to_live.as_ref().map(|(_, retention)| *retention),
                clock: options.clock.clone(),
                connection: Mutex::new(None),
            }),
        };
        Ok(LockTable::over(Box::new(store), location, options))
    }
}

impl Lease {
    /// Checks, inside the caller's own SQLite transaction on the same database file, that this
    /// lease still holds its lock, with its owner and its fencing token: the SQL counterpart of
    /// [`fenced_by`](crate::TransactWriteExt::fenced_by).
    ///
    /// Begin the transaction with `BEGIN IMMEDIATE` (rusqlite's
    /// `TransactionBehavior::Immediate`), check first, then write: SQLite then lets no other
    /// connection write the file until the transaction ends, so the transaction commits only
    /// while the lease holds the lock. [`ended`](Lease::ended) is only what this process knows;
    /// the check reads the row.
    ///
    /// # Errors
    ///
    /// [`Error::NotHeld`] when another owner or another fencing token holds the lock, or its
    /// row is gone: roll back. [`Error::NotInTransaction`] for a connection outside a
    /// transaction, [`Error::WrongStore`] for a lease whose locks are not in SQLite, and
    /// [`Error::Sql`] for a statement that failed.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, SqliteTable};
    /// use rusqlite::{Connection, TransactionBehavior};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = std::env::temp_dir().join(format!("dynalease-doc-check-held-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("shop.db");
    /// let locks = LockTable::sqlite(SqliteTable::new(&path), LockTableOptions::default())?;
    /// let lease = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
    ///
    /// let mut db = Connection::open(&path)?;
    /// db.execute("CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, status TEXT)", [])?;
    /// let tx = db.transaction_with_behavior(TransactionBehavior::Immediate)?;
    /// lease.check_held_sqlite(&tx)?;
    /// tx.execute("INSERT OR REPLACE INTO orders VALUES ('1', 'shipped')", [])?;
    /// tx.commit()?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn check_held_sqlite(&self, transaction: &Connection) -> Result<(), Error> {
        let location = &self.table().table;
        let StoreKind::Sqlite { check_held } = &location.kind else {
            return Err(Error::WrongStore { table: location.table.clone(), expected: "SQLite" });
        };
        if transaction.is_autocommit() {
            return Err(Error::NotInTransaction);
        }
        let fence = i64::try_from(self.fencing_token()).unwrap_or(i64::MAX);
        let held = transaction
            .prepare_cached(check_held)
            .and_then(|mut statement| statement.exists(params![self.name(), self.owner(), fence]))
            .map_err(|err| failure("check_held", &location.table, err))?;
        if held {
            Ok(())
        } else {
            Err(Error::NotHeld {
                lock: self.name().to_owned(),
                table: location.table.clone(),
                fencing_token: self.fencing_token(),
            })
        }
    }
}

/// The connection of a store, opened on first use.
struct Open {
    connection: Connection,
    /// Whether the table was created and its columns checked.
    ensured: bool,
}

/// What the blocking calls of a store share.
struct Inner {
    path: PathBuf,
    table: String,
    busy_timeout: Duration,
    sql: Statements,
    retention: Option<Duration>,
    clock: Arc<dyn Clock>,
    connection: Mutex<Option<Open>>,
}

impl fmt::Debug for Inner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).field("table", &self.table).finish_non_exhaustive()
    }
}

/// Lock rows in a SQLite table.
#[derive(Debug)]
struct SqliteStore {
    inner: Arc<Inner>,
}

impl Inner {
    fn connection(&self) -> MutexGuard<'_, Option<Open>> {
        self.connection.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fail(&self, operation: &'static str, err: rusqlite::Error) -> Error {
        failure(operation, &self.table, err)
    }

    /// Runs `f` on the connection, opening it and creating the table first if needed. A table
    /// found missing is created again by the next call.
    fn with_connection<T>(&self, f: impl FnOnce(&Self, &Connection) -> Result<T, Error>) -> Result<T, Error> {
        let mut guard = self.connection();
        if guard.is_none() {
            let connection = Connection::open(&self.path).map_err(|err| self.fail("open", err))?;
            connection.busy_timeout(self.busy_timeout).map_err(|err| self.fail("open", err))?;
            *guard = Some(Open { connection, ensured: false });
        }
        let Some(open) = guard.as_mut() else { unreachable!("opened above") };
        if !open.ensured {
            self.ensure(&open.connection)?;
            open.ensured = true;
        }
        let result = f(self, &open.connection);
        if matches!(result, Err(Error::TableNotFound { .. } | Error::TableMismatch { .. })) {
            open.ensured = false;
        }
        result
    }

    /// Creates the table if it does not exist, and checks the columns of the one that does.
    fn ensure(&self, connection: &Connection) -> Result<(), Error> {
        connection.execute(&self.sql.create, []).map_err(|err| self.fail("create table", err))?;
        let columns = (|| {
            let mut statement = connection.prepare(&format!("PRAGMA table_info(\"{}\")", self.table))?;
            let rows = statement.query_map([], |row| {
                let declared: String = row.get(2)?;
                let not_null: bool = row.get(3)?;
                let default: Value = row.get(4)?;
                let primary_key: i64 = row.get(5)?;
                Ok(ColumnInfo {
                    name: row.get(1)?,
                    kind: affinity(&declared),
                    declared,
                    primary_key: primary_key > 0,
                    required: not_null && default == Value::Null && primary_key == 0,
                })
            })?;
            rows.collect::<Result<Vec<_>, _>>()
        })()
        .map_err(|err| self.fail("create table", err))?;
        match sql::schema_mismatch(&columns) {
            Some(mismatch) => Err(Error::TableMismatch { table: self.table.clone(), mismatch }),
            None => Ok(()),
        }
    }

    fn read_row(&self, connection: &Connection, name: &str) -> Result<LockView, Error> {
        let values = connection
            .prepare_cached(&self.sql.read)
            .and_then(|mut statement| {
                statement
                    .query_row([name], |row| Ok([row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?]))
                    .optional()
            })
            .map_err(|err| self.fail("read", err))?;
        let Some(values) = values else {
            return Ok(LockView::Absent);
        };
        self.decode_row(name, values)
    }

    /// The lock of the columns `owner, rvn, fence, lease_ms, holder` of the row of `name`.
    fn decode_row(&self, name: &str, [owner, rvn, fence, lease_ms, holder]: [Value; 5]) -> Result<LockView, Error> {
        let row = (|| {
            Ok::<_, ItemMismatch>(Row {
                owner: text("owner", owner)?,
                rvn: text("rvn", rvn)?,
                fence: integer("fence", fence)?,
                lease_ms: integer("lease_ms", lease_ms)?,
                holder: text("holder", holder)?,
            })
        })();
        row.and_then(Row::decode).map_err(|reason| sql::not_a_lock(name, &self.table, reason))
    }

    /// One page of the rows whose names come after `after`.
    fn list_page(&self, connection: &Connection, after: &str) -> Result<Page, Error> {
        let rows = connection
            .prepare_cached(&self.sql.list)
            .and_then(|mut statement| {
                let rows = statement.query_map([after], |row| {
                    Ok((row.get::<_, String>(0)?, [row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?, row.get(5)?]))
                })?;
                rows.collect::<Result<Vec<_>, _>>()
            })
            .map_err(|err| self.fail("list", err))?;
        let next = (rows.len() == sql::LIST_PAGE_ROWS).then(|| rows.last().map(|(name, _)| name.clone())).flatten();
        let locks = rows.into_iter().map(|(name, values)| {
            let view = self.decode_row(&name, values);
            (name, view)
        });
        Ok(Page { locks: locks.collect(), next: next.map(Cursor::Sql) })
    }

    fn expiry(&self) -> Option<i64> {
        sql::expiry(self.clock.wall(), self.retention)
    }

    /// Runs a write that returns the new fencing token, if its condition held.
    fn write_fence(
        &self,
        connection: &Connection,
        name: &str,
        statement: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<Option<u64>, Error> {
        let fence = connection
            .prepare_cached(statement)
            .and_then(|mut statement| statement.query_row(params, |row| row.get::<_, Value>(0)).optional())
            .map_err(|err| self.fail("acquire", err))?;
        match fence {
            None => Ok(None),
            Some(fence) => match integer("fence", fence).map(|fence| fence.and_then(|f| u64::try_from(f).ok())) {
                Ok(Some(fence)) => Ok(Some(fence)),
                Ok(None) => {
                    let reason =
                        ItemMismatch::WrongType { attribute: String::from("fence"), expected: "a whole number" };
                    Err(sql::not_a_lock(name, &self.table, reason))
                }
                Err(reason) => Err(sql::not_a_lock(name, &self.table, reason)),
            },
        }
    }
}

impl SqliteStore {
    /// Runs `f` on the blocking pool, with the connection.
    async fn call<T: Send + 'static>(
        &self,
        operation: &'static str,
        f: impl FnOnce(&Inner, &Connection) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        let inner = self.inner.clone();
        match tokio::task::spawn_blocking(move || inner.with_connection(f)).await {
            Ok(result) => result,
            Err(err) => Err(Error::Sql {
                operation,
                table: self.inner.table.clone(),
                code: None,
                transient: false,
                source: Box::new(err),
            }),
        }
    }
}

/// One grant, owned, for a blocking call.
struct Owned {
    name: String,
    owner: String,
    rvn: String,
    lease_ms: i64,
    label: Option<String>,
}

impl Owned {
    fn of(name: &str, grant: &Grant<'_>) -> Self {
        Self {
            name: name.to_owned(),
            owner: grant.owner.to_owned(),
            rvn: grant.rvn.to_owned(),
            lease_ms: sql::lease_ms(grant.lease),
            label: grant.label.map(str::to_owned),
        }
    }
}

impl LockStore for SqliteStore {
    fn table_name(&self) -> &str {
        &self.inner.table
    }

    fn read<'a>(&'a self, name: &'a str) -> StoreFuture<'a, LockView> {
        let name = name.to_owned();
        Box::pin(self.call("read", move |inner, connection| inner.read_row(connection, &name)))
    }

    fn check_table(&self) -> StoreFuture<'_, ()> {
        // The first call of a connection creates and checks the table; this checks it again.
        Box::pin(self.call("check table", |inner, connection| inner.ensure(connection)))
    }

    fn list<'a>(&'a self, cursor: Option<&'a Cursor>) -> StoreFuture<'a, Page> {
        let after = match cursor {
            Some(Cursor::Sql(name)) => name.clone(),
            _ => String::new(),
        };
        Box::pin(self.call("list", move |inner, connection| inner.list_page(connection, &after)))
    }

    fn acquire<'a>(
        &'a self,
        name: &'a str,
        expect: &'a Expect,
        grant: &'a Grant<'a>,
    ) -> StoreFuture<'a, AcquireOutcome> {
        let g = Owned::of(name, grant);
        let expect = expect.clone();
        Box::pin(self.call("acquire", move |inner, connection| {
            let expires = inner.expiry();
            let fence = match &expect {
                Expect::Free => inner.write_fence(
                    connection,
                    &g.name,
                    &inner.sql.acquire_free,
                    params![g.name, g.owner, g.rvn, g.lease_ms, g.label, expires],
                )?,
                Expect::Version(rvn) => inner.write_fence(
                    connection,
                    &g.name,
                    &inner.sql.acquire_version,
                    params![g.name, g.owner, g.rvn, g.lease_ms, g.label, expires, rvn],
                )?,
            };
            match fence {
                Some(fence) => Ok(AcquireOutcome::Won { fence }),
                None => Ok(AcquireOutcome::Refused(inner.read_row(connection, &g.name)?)),
            }
        }))
    }

    fn renew<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>, keep_lease: bool) -> StoreFuture<'a, RenewOutcome> {
        let g = Owned::of(name, grant);
        Box::pin(self.call("renew", move |inner, connection| {
            let lease_ms = (!keep_lease).then_some(g.lease_ms);
            let renewed = connection
                .prepare_cached(&inner.sql.renew)
                .and_then(|mut statement| {
                    let params = params![g.name, g.owner, g.rvn, lease_ms, g.label, inner.expiry()];
                    statement.query_row(params, |row| row.get::<_, Value>(0)).optional()
                })
                .map_err(|err| inner.fail("renew", err))?;
            if let Some(lease_ms) = renewed {
                let lease_ms =
                    integer("lease_ms", lease_ms).map_err(|reason| sql::not_a_lock(&g.name, &inner.table, reason))?;
                return sql::renewed(&g.name, &inner.table, lease_ms);
            }
            match inner.read_row(connection, &g.name) {
                Ok(LockView::Absent) => Ok(RenewOutcome::Deleted),
                // A row that is no lock is not this lease's either.
                Ok(_) | Err(Error::NotALock { .. }) => Ok(RenewOutcome::TakenOver),
                Err(err) => Err(err),
            }
        }))
    }

    fn release<'a>(&'a self, name: &'a str, owner: &'a str) -> StoreFuture<'a, bool> {
        let (name, owner) = (name.to_owned(), owner.to_owned());
        Box::pin(self.call("release", move |inner, connection| {
            connection
                .prepare_cached(&inner.sql.release)
                .and_then(|mut statement| statement.execute(params![name, owner, inner.expiry()]))
                .map(|changed| changed > 0)
                .map_err(|err| inner.fail("release", err))
        }))
    }

    #[cfg(feature = "testing")]
    fn force_hold<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>) -> StoreFuture<'a, u64> {
        let g = Owned::of(name, grant);
        Box::pin(self.call("acquire", move |inner, connection| {
            let params = params![g.name, g.owner, g.rvn, g.lease_ms, g.label, inner.expiry()];
            match inner.write_fence(connection, &g.name, &inner.sql.force_hold, params)? {
                Some(fence) => Ok(fence),
                None => {
                    Err(sql::not_a_lock(&g.name, &inner.table, ItemMismatch::NotReadBack { write: "simulated holder" }))
                }
            }
        }))
    }

    #[cfg(feature = "testing")]
    fn force_release<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()> {
        let name = name.to_owned();
        Box::pin(self.call("release", move |inner, connection| {
            connection.execute(&inner.sql.force_release, [&name]).map(drop).map_err(|err| inner.fail("release", err))
        }))
    }

    #[cfg(feature = "testing")]
    fn force_delete<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()> {
        let name = name.to_owned();
        Box::pin(self.call("delete", move |inner, connection| {
            connection.execute(&inner.sql.force_delete, [&name]).map(drop).map_err(|err| inner.fail("delete", err))
        }))
    }
}

/// The type affinity SQLite gives a declared column type, as far as the locks read it.
fn affinity(declared: &str) -> Option<ColumnType> {
    let upper = declared.to_ascii_uppercase();
    if upper.contains("INT") {
        Some(ColumnType::Integer)
    } else if ["CHAR", "CLOB", "TEXT"].iter().any(|t| upper.contains(t)) {
        Some(ColumnType::Text)
    } else {
        None
    }
}

/// A text column's value: SQLite keeps any type in any column.
fn text(column: &str, value: Value) -> Result<Option<String>, ItemMismatch> {
    match value {
        Value::Null => Ok(None),
        Value::Text(text) => Ok(Some(text)),
        _ => Err(ItemMismatch::WrongType { attribute: column.to_owned(), expected: "text" }),
    }
}

/// A whole-number column's value.
fn integer(column: &str, value: Value) -> Result<Option<i64>, ItemMismatch> {
    match value {
        Value::Null => Ok(None),
        Value::Integer(n) => Ok(Some(n)),
        _ => Err(ItemMismatch::WrongType { attribute: column.to_owned(), expected: "a whole number" }),
    }
}

/// The names of SQLite's primary result codes, by number.
const RESULT_CODES: [&str; 27] = [
    "OK",
    "ERROR",
    "INTERNAL",
    "PERM",
    "ABORT",
    "BUSY",
    "LOCKED",
    "NOMEM",
    "READONLY",
    "INTERRUPT",
    "IOERR",
    "CORRUPT",
    "NOTFOUND",
    "FULL",
    "CANTOPEN",
    "PROTOCOL",
    "EMPTY",
    "SCHEMA",
    "TOOBIG",
    "CONSTRAINT",
    "MISMATCH",
    "MISUSE",
    "NOLFS",
    "AUTH",
    "FORMAT",
    "RANGE",
    "NOTADB",
];

/// The [`Error`] of a failed statement: a missing table or column is the table's, a busy or
/// locked database is transient.
fn failure(operation: &'static str, table: &str, err: rusqlite::Error) -> Error {
    let (code, transient) = match &err {
        rusqlite::Error::SqliteFailure(failure, message) => {
            let message = message.as_deref().unwrap_or("");
            if message.starts_with("no such table") {
                return Error::TableNotFound { table: table.to_owned() };
            }
            if message.starts_with("no such column") || message.contains("has no column named") {
                let mismatch = TableMismatch::Refused { message: message.to_owned() };
                return Error::TableMismatch { table: table.to_owned(), mismatch };
            }
            let primary = usize::try_from(failure.extended_code & 0xff).unwrap_or(0);
            let code =
                RESULT_CODES.get(primary).map_or_else(|| failure.extended_code.to_string(), |n| format!("SQLITE_{n}"));
            let transient = matches!(primary, 5 | 6 | 9 | 10 | 15);
            (Some(code), transient)
        }
        _ => (None, false),
    };
    Error::Sql { operation, table: table.to_owned(), code, transient, source: Box::new(err) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_read_as_sqlite_gives_them_affinity() {
        assert_eq!(affinity("INTEGER"), Some(ColumnType::Integer));
        assert_eq!(affinity("bigint"), Some(ColumnType::Integer));
        assert_eq!(affinity("VARCHAR(255)"), Some(ColumnType::Text));
        assert_eq!(affinity("TEXT"), Some(ColumnType::Text));
        assert_eq!(affinity("REAL"), None);
        assert_eq!(affinity(""), None);
    }

    #[test]
    fn a_busy_database_is_transient_and_named_by_its_code() {
        let busy = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(5), Some("database is locked".into()));
        let err = failure("renew", "locks", busy);
        assert!(err.is_transient());
        assert!(matches!(&err, Error::Sql { code: Some(code), .. } if code == "SQLITE_BUSY"), "{err:?}");
        let gone = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(1), Some("no such table: locks".into()));
        assert!(matches!(failure("renew", "locks", gone), Error::TableNotFound { .. }));
    }
}
