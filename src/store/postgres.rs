//! The [`LockStore`] over a PostgreSQL table (feature `postgres`): one row per lock, in a table
//! the store creates on first use, through tokio-postgres and a deadpool connection pool.
//!
//! - [`PostgresTable`]: the pool and the table, given to [`LockTable::postgres`].
//! - [`Lease::check_held_postgres`]: the fencing check in a caller's own transaction.
//!
//! A statement whose connection failed or dropped before its answer came is sent again on
//! another connection of the pool, up to three times in all, with the same owner and record
//! version: an acquire whose answer was lost finds its own owner in the row, as a retried
//! DynamoDB request does, and keeps the lease it took.

use std::future::Future;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, PoolError, RecyclingMethod};
use tokio_postgres::types::ToSql;
use tokio_postgres::{NoTls, Row as PgRow};

use super::sql::{self, ColumnInfo, ColumnType, Row, Statements};
use super::{AcquireOutcome, Cursor, Expect, Grant, LockStore, LockView, Page, RenewOutcome, StoreFuture};
use crate::clock::Clock;
use crate::error::Error;
use crate::invalid::InvalidOption;
use crate::item_mismatch::ItemMismatch;
use crate::lease::Lease;
use crate::lock_table::LockTable;
use crate::options::LockTableOptions;
use crate::table::{Location, StoreKind};
use crate::table_check::TableMismatch;

/// How many times a statement is sent at most when its connection fails or drops.
const ATTEMPTS: u32 = 3;

/// The connections a pool from [`PostgresTable::connect`] keeps at most.
const POOL_SIZE: usize = 8;

/// A table of locks in a PostgreSQL database, reached through a connection pool, for
/// [`LockTable::postgres`].
///
/// The table is created with `CREATE TABLE IF NOT EXISTS` by the first call that needs it, so
/// building one sends nothing. Every process that contends for a lock must name the same
/// database and table.
///
/// # Examples
///
/// ```no_run
/// use std::time::Duration;
/// use dynalease::{LockTable, LockTableOptions, PostgresTable};
///
/// # async fn f() -> Result<(), dynalease::Error> {
/// let table = PostgresTable::connect("postgresql://app@localhost/shop")?;
/// let locks = LockTable::postgres(table, LockTableOptions::default().holder_label("pod-7"))?;
/// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
/// lease.release().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct PostgresTable {
    pool: Pool,
    table: String,
}

impl PostgresTable {
    /// The table a `PostgresTable` uses unless [`table`](Self::table) names another:
    /// `dynalease_locks`, in the connection's current schema.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::PostgresTable::DEFAULT_TABLE, "dynalease_locks");
    /// ```
    pub const DEFAULT_TABLE: &'static str = sql::DEFAULT_TABLE;

    /// The locks in the table [`DEFAULT_TABLE`](Self::DEFAULT_TABLE), through `pool`: a
    /// deadpool pool of tokio-postgres connections, with the TLS and settings of your choice.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::deadpool_postgres::{Manager, Pool};
    /// use dynalease::tokio_postgres::{Config, NoTls};
    ///
    /// let mut config = Config::new();
    /// config.host("/run/postgresql").user("app").dbname("shop");
    /// let pool = Pool::builder(Manager::new(config, NoTls)).max_size(4).build().unwrap();
    /// let table = dynalease::PostgresTable::new(pool);
    /// ```
    pub fn new(pool: Pool) -> Self {
        Self { pool, table: sql::DEFAULT_TABLE.to_owned() }
    }

    /// A pool of up to 8 connections, without TLS, to the database that `url` names: a
    /// `postgresql://` URL or a `key=value` connection string, as tokio-postgres reads them
    /// (`host=/run/postgresql` for a unix socket). Connects to nothing yet.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptions`] for a URL that tokio-postgres cannot read.
    ///
    /// # Examples
    ///
    /// ```
    /// let table = dynalease::PostgresTable::connect("host=/run/postgresql user=app dbname=shop");
    /// assert!(table.is_ok());
    /// assert!(dynalease::PostgresTable::connect("postgresql://[").is_err());
    /// ```
    pub fn connect(url: &str) -> Result<Self, Error> {
        let invalid = |message: String| Error::InvalidOptions { reason: InvalidOption::Connection { message } };
        let config =
            tokio_postgres::Config::from_str(url).map_err(|err| invalid(format!("the URL cannot be read: {err}")))?;
        let manager = Manager::from_config(config, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .build()
            .map_err(|err| invalid(format!("the pool cannot be built: {err}")))?;
        Ok(Self::new(pool))
    }

    /// The locks in the table `table` instead: a plain identifier of ASCII letters, digits and
    /// underscores (case is kept), checked by [`LockTable::postgres`].
    ///
    /// # Examples
    ///
    /// ```
    /// # let pool = dynalease::PostgresTable::connect("host=/run/postgresql").unwrap().pool().clone();
    /// let table = dynalease::PostgresTable::new(pool).table("process_lock");
    /// assert_eq!(table.table_name(), "process_lock");
    /// ```
    pub fn table(mut self, table: impl Into<String>) -> Self {
        self.table = table.into();
        self
    }

    /// The connection pool.
    ///
    /// # Examples
    ///
    /// ```
    /// let table = dynalease::PostgresTable::connect("host=/run/postgresql").unwrap();
    /// assert_eq!(table.pool().status().size, 0, "nothing connected yet");
    /// ```
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// The name of the table.
    ///
    /// # Examples
    ///
    /// ```
    /// let table = dynalease::PostgresTable::connect("host=/run/postgresql").unwrap();
    /// assert_eq!(table.table_name(), "dynalease_locks");
    /// ```
    pub fn table_name(&self) -> &str {
        &self.table
    }
}

impl LockTable {
    /// The locks in a PostgreSQL table, with `options`: the same leases, fencing tokens,
    /// takeover rule, heartbeat and testing helpers as over DynamoDB. No clock of the database
    /// is read: a contender measures a holder's lease on its own clock, as everywhere.
    ///
    /// Sends nothing yet. Fails with [`Error::InvalidOptions`] for a table name that is not a
    /// plain identifier and for options that cannot work. With
    /// [`time_to_live`](LockTableOptions::time_to_live), every write sets the column
    /// `expires_at` to the wall clock plus the retention (the attribute name is not used);
    /// deleting the rows that are due is for a job of your own, such as
    /// `DELETE FROM dynalease_locks WHERE owner IS NULL AND expires_at < extract(epoch FROM now())`.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::{LockTable, LockTableOptions, PostgresTable};
    ///
    /// let table = PostgresTable::connect("host=/run/postgresql dbname=shop").unwrap().table("process_lock");
    /// let locks = LockTable::postgres(table, LockTableOptions::default()).unwrap();
    /// assert_eq!(locks.table_name(), "process_lock");
    /// ```
    pub fn postgres(table: PostgresTable, options: LockTableOptions) -> Result<LockTable, Error> {
        sql::check_table_name(&table.table)?;
        let options = options.resolve("name", None)?;
        let sql = Statements::new(&table.table, "BIGINT", '$', "COALESCE({t}.fence, 0) >= 0", "TRUE");
        let check_held = format!("{} FOR SHARE", sql.check_held);
        let location = Location { table: table.table.clone(), kind: StoreKind::Postgres { check_held } };
        let store = PostgresStore {
            inner: Arc::new(Inner {
                pool: table.pool,
                table: table.table,
                sql,
                retention: options.time_to_live.as_ref().map(|(_, retention)| *retention),
                clock: options.clock.clone(),
                ensured: AtomicBool::new(false),
            }),
        };
        Ok(LockTable::over(Box::new(store), location, options))
    }
}

impl Lease {
    /// Checks, inside the caller's own PostgreSQL transaction on the same database, that this
    /// lease still holds its lock, with its owner and its fencing token: the SQL counterpart of
    /// [`fenced_by`](crate::TransactWriteExt::fenced_by).
    ///
    /// It reads the lock's row with `SELECT ... FOR SHARE`, which keeps any other transaction
    /// from changing the row until this one ends: a takeover, or a renewal, waits for the
    /// commit. So a transaction that checks first and then writes commits only while the lease
    /// holds the lock. [`ended`](Lease::ended) is only what this process knows; the check
    /// reads the row. Keep such transactions short, since the lease's own renewal waits too.
    ///
    /// # Errors
    ///
    /// [`Error::NotHeld`] when another owner or another fencing token holds the lock, or its
    /// row is gone: roll back. [`Error::WrongStore`] for a lease whose locks are not in
    /// PostgreSQL, and [`Error::Sql`] for a statement that failed.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, PostgresTable};
    ///
    /// # async fn f() -> Result<(), Box<dyn std::error::Error>> {
    /// let table = PostgresTable::connect("host=/run/postgresql dbname=shop")?;
    /// let pool = table.pool().clone();
    /// let locks = LockTable::postgres(table, LockTableOptions::default())?;
    /// let lease = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
    ///
    /// let mut client = pool.get().await?;
    /// let tx = client.transaction().await?;
    /// lease.check_held_postgres(&tx).await?;
    /// tx.execute("UPDATE orders SET status = 'shipped' WHERE id = $1", &[&1_i64]).await?;
    /// tx.commit().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn check_held_postgres(&self, transaction: &tokio_postgres::Transaction<'_>) -> Result<(), Error> {
        let location = &self.table().table;
        let StoreKind::Postgres { check_held } = &location.kind else {
            return Err(Error::WrongStore { table: location.table.clone(), expected: "PostgreSQL" });
        };
        let fence = i64::try_from(self.fencing_token()).unwrap_or(i64::MAX);
        let params: [&(dyn ToSql + Sync); 3] = [&self.name(), &self.owner(), &fence];
        let row = transaction
            .query_opt(check_held.as_str(), &params)
            .await
            .map_err(|err| failure("check_held", &location.table, err).0)?;
        match row {
            Some(_) => Ok(()),
            None => Err(Error::NotHeld {
                lock: self.name().to_owned(),
                table: location.table.clone(),
                fencing_token: self.fencing_token(),
            }),
        }
    }
}

/// What the calls of a store share.
#[derive(Debug)]
struct Inner {
    pool: Pool,
    table: String,
    sql: Statements,
    retention: Option<Duration>,
    clock: Arc<dyn Clock>,
    /// Whether the table was created and its columns checked.
    ensured: AtomicBool,
}

/// Lock rows in a PostgreSQL table.
#[derive(Debug)]
struct PostgresStore {
    inner: Arc<Inner>,
}

/// A pooled connection.
type Connection = deadpool_postgres::Object;

/// The future of one attempt of a statement.
type Attempt<'c, T> = Pin<Box<dyn Future<Output = Result<T, Failed>> + Send + 'c>>;

/// A failed attempt, and whether sending it again on another connection may succeed: its
/// connection failed or dropped before an answer came.
#[derive(Debug)]
struct Failed(Error, bool);

impl From<Error> for Failed {
    fn from(err: Error) -> Self {
        Failed(err, false)
    }
}

impl Inner {
    fn fail(&self, operation: &'static str, err: tokio_postgres::Error) -> Failed {
        let failed = failure(operation, &self.table, err);
        if matches!(failed.0, Error::TableNotFound { .. } | Error::TableMismatch { .. }) {
            self.ensured.store(false, Ordering::Relaxed);
        }
        failed
    }

    fn pool_failure(&self, err: PoolError) -> Failed {
        match err {
            PoolError::Backend(err) => self.fail("connect", err),
            PoolError::Timeout(_) => Failed(self.sql_error("connect", None, true, Box::new(err)), true),
            err => Failed(self.sql_error("connect", None, false, Box::new(err)), false),
        }
    }

    fn sql_error(
        &self,
        operation: &'static str,
        code: Option<String>,
        transient: bool,
        source: crate::error::BoxError,
    ) -> Error {
        Error::Sql { operation, table: self.table.clone(), code, transient, source }
    }

    /// Creates the table if it does not exist, and checks the columns of the one that does.
    async fn ensure(&self, connection: &Connection) -> Result<(), Failed> {
        if self.ensured.load(Ordering::Relaxed) {
            return Ok(());
        }
        if let Err(err) = connection.batch_execute(&self.sql.create).await {
            // Two connections that create the table at once: one of them finds it made.
            let raced = err.as_db_error().is_some_and(|db| ["42P07", "42710", "23505"].contains(&db.code().code()));
            if !raced {
                return Err(self.fail("create table", err));
            }
        }
        let rows = connection
            .query(
                "SELECT c.column_name::text, c.data_type::text, \
                   (c.is_nullable = 'NO' AND c.column_default IS NULL), \
                   EXISTS (SELECT 1 FROM information_schema.table_constraints t \
                     JOIN information_schema.key_column_usage k ON k.constraint_schema = t.constraint_schema \
                       AND k.constraint_name = t.constraint_name \
                     WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = c.table_schema \
                       AND t.table_name = c.table_name AND k.column_name = c.column_name) \
                 FROM information_schema.columns c \
                 WHERE c.table_schema = current_schema() AND c.table_name = $1",
                &[&self.table],
            )
            .await
            .map_err(|err| self.fail("create table", err))?;
        let columns: Vec<ColumnInfo> = rows
            .iter()
            .map(|row| {
                let declared: String = row.get(1);
                let kind = match declared.as_str() {
                    "text" | "character varying" | "character" => Some(ColumnType::Text),
                    "bigint" => Some(ColumnType::Integer),
                    _ => None,
                };
                ColumnInfo { name: row.get(0), declared, kind, required: row.get(2), primary_key: row.get(3) }
            })
            .collect();
        if let Some(mismatch) = sql::schema_mismatch(&columns) {
            return Err(Error::TableMismatch { table: self.table.clone(), mismatch }.into());
        }
        self.ensured.store(true, Ordering::Relaxed);
        Ok(())
    }

    async fn read_row(&self, connection: &Connection, name: &str) -> Result<LockView, Failed> {
        let statement = connection.prepare_cached(&self.sql.read).await.map_err(|err| self.fail("read", err))?;
        let row = connection.query_opt(&statement, &[&name]).await.map_err(|err| self.fail("read", err))?;
        let Some(row) = row else {
            return Ok(LockView::Absent);
        };
        self.decode_row(name, &row, 0).map_err(Failed::from)
    }

    /// The lock of the columns `owner, rvn, fence, lease_ms, holder` of the row of `name`, from
    /// column `first` of `row` on.
    fn decode_row(&self, name: &str, row: &PgRow, first: usize) -> Result<LockView, Error> {
        let decoded = (|| {
            Ok::<_, tokio_postgres::Error>(Row {
                owner: row.try_get(first)?,
                rvn: row.try_get(first + 1)?,
                fence: row.try_get(first + 2)?,
                lease_ms: row.try_get(first + 3)?,
                holder: row.try_get(first + 4)?,
            })
        })()
        .map_err(|err| self.fail("read", err).0)?;
        decoded.decode().map_err(|reason| sql::not_a_lock(name, &self.table, reason))
    }

    /// One page of the rows whose names come after `after`.
    async fn list_page(&self, connection: &Connection, after: &str) -> Result<Page, Failed> {
        let statement = connection.prepare_cached(&self.sql.list).await.map_err(|err| self.fail("list", err))?;
        let rows = connection.query(&statement, &[&after]).await.map_err(|err| self.fail("list", err))?;
        let mut locks = Vec::with_capacity(rows.len());
        for row in &rows {
            let name: String = row.try_get(0).map_err(|err| self.fail("list", err))?;
            let view = self.decode_row(&name, row, 1);
            locks.push((name, view));
        }
        let next = (rows.len() == sql::LIST_PAGE_ROWS).then(|| locks.last().map(|(name, _)| name.clone())).flatten();
        Ok(Page { locks, next: next.map(Cursor::Sql) })
    }

    /// Runs a write that returns the new fencing token, if its condition held.
    async fn write_fence(
        &self,
        connection: &Connection,
        name: &str,
        statement: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<u64>, Failed> {
        let statement = connection.prepare_cached(statement).await.map_err(|err| self.fail("acquire", err))?;
        let row: Option<PgRow> =
            connection.query_opt(&statement, params).await.map_err(|err| self.fail("acquire", err))?;
        let Some(row) = row else {
            return Ok(None);
        };
        let fence: Option<i64> = row.try_get(0).map_err(|err| self.fail("acquire", err))?;
        match fence.and_then(|fence| u64::try_from(fence).ok()) {
            Some(fence) => Ok(Some(fence)),
            None => {
                let reason = ItemMismatch::WrongType { attribute: String::from("fence"), expected: "a whole number" };
                Err(sql::not_a_lock(name, &self.table, reason).into())
            }
        }
    }

    fn expiry(&self) -> Option<i64> {
        sql::expiry(self.clock.wall(), self.retention)
    }
}

impl PostgresStore {
    /// Runs `attempt` on a connection of the pool, after creating the table if needed, and
    /// again on another connection while the connection fails or drops.
    async fn call<'a, T>(&'a self, attempt: impl Fn(&'a Inner, Connection) -> Attempt<'a, T>) -> Result<T, Error> {
        let inner = &*self.inner;
        let mut attempts = 1;
        loop {
            let tried = async {
                let connection = inner.pool.get().await.map_err(|err| inner.pool_failure(err))?;
                inner.ensure(&connection).await?;
                attempt(inner, connection).await
            }
            .await;
            match tried {
                Ok(value) => return Ok(value),
                Err(Failed(_, true)) if attempts < ATTEMPTS => attempts += 1,
                Err(Failed(err, _)) => return Err(err),
            }
        }
    }
}

impl LockStore for PostgresStore {
    fn table_name(&self) -> &str {
        &self.inner.table
    }

    fn read<'a>(&'a self, name: &'a str) -> StoreFuture<'a, LockView> {
        Box::pin(self.call(move |inner, connection| Box::pin(async move { inner.read_row(&connection, name).await })))
    }

    fn check_table(&self) -> StoreFuture<'_, ()> {
        // The first call after this checks the table again, as on first use.
        self.inner.ensured.store(false, Ordering::Relaxed);
        Box::pin(self.call(|_, _| Box::pin(async { Ok(()) })))
    }

    fn list<'a>(&'a self, cursor: Option<&'a Cursor>) -> StoreFuture<'a, Page> {
        let after = match cursor {
            Some(Cursor::Sql(name)) => name.as_str(),
            _ => "",
        };
        Box::pin(self.call(move |inner, connection| Box::pin(async move { inner.list_page(&connection, after).await })))
    }

    fn acquire<'a>(
        &'a self,
        name: &'a str,
        expect: &'a Expect,
        grant: &'a Grant<'a>,
    ) -> StoreFuture<'a, AcquireOutcome> {
        Box::pin(self.call(move |inner, connection| {
            Box::pin(async move {
                let connection = &connection;
                let lease_ms = sql::lease_ms(grant.lease);
                let expires = inner.expiry();
                let fence = match expect {
                    Expect::Free => {
                        let params: [&(dyn ToSql + Sync); 6] =
                            [&name, &grant.owner, &grant.rvn, &lease_ms, &grant.label, &expires];
                        inner.write_fence(connection, name, &inner.sql.acquire_free, &params).await?
                    }
                    Expect::Version(rvn) => {
                        let params: [&(dyn ToSql + Sync); 7] =
                            [&name, &grant.owner, &grant.rvn, &lease_ms, &grant.label, &expires, rvn];
                        inner.write_fence(connection, name, &inner.sql.acquire_version, &params).await?
                    }
                };
                match fence {
                    Some(fence) => Ok(AcquireOutcome::Won { fence }),
                    None => Ok(AcquireOutcome::Refused(inner.read_row(connection, name).await?)),
                }
            })
        }))
    }

    fn renew<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>, keep_lease: bool) -> StoreFuture<'a, RenewOutcome> {
        Box::pin(self.call(move |inner, connection| {
            Box::pin(async move {
                let connection = &connection;
                let statement =
                    connection.prepare_cached(&inner.sql.renew).await.map_err(|err| inner.fail("renew", err))?;
                let lease_ms = (!keep_lease).then(|| sql::lease_ms(grant.lease));
                let params: [&(dyn ToSql + Sync); 6] =
                    [&name, &grant.owner, &grant.rvn, &lease_ms, &grant.label, &inner.expiry()];
                let row: Option<PgRow> =
                    connection.query_opt(&statement, &params).await.map_err(|err| inner.fail("renew", err))?;
                if let Some(row) = row {
                    let lease_ms: Option<i64> = row.try_get(0).map_err(|err| inner.fail("renew", err))?;
                    return Ok(sql::renewed(name, &inner.table, lease_ms)?);
                }
                match inner.read_row(connection, name).await {
                    Ok(LockView::Absent) => Ok(RenewOutcome::Deleted),
                    // A row that is no lock is not this lease's either.
                    Ok(_) | Err(Failed(Error::NotALock { .. }, _)) => Ok(RenewOutcome::TakenOver),
                    Err(err) => Err(err),
                }
            })
        }))
    }

    fn release<'a>(&'a self, name: &'a str, owner: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(self.call(move |inner, connection| {
            Box::pin(async move {
                let connection = &connection;
                let statement =
                    connection.prepare_cached(&inner.sql.release).await.map_err(|err| inner.fail("release", err))?;
                let params: [&(dyn ToSql + Sync); 3] = [&name, &owner, &inner.expiry()];
                let changed =
                    connection.execute(&statement, &params).await.map_err(|err| inner.fail("release", err))?;
                Ok(changed > 0)
            })
        }))
    }

    #[cfg(feature = "testing")]
    fn force_hold<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>) -> StoreFuture<'a, u64> {
        Box::pin(self.call(move |inner, connection| {
            Box::pin(async move {
                let connection = &connection;
                let lease_ms = sql::lease_ms(grant.lease);
                let params: [&(dyn ToSql + Sync); 6] =
                    [&name, &grant.owner, &grant.rvn, &lease_ms, &grant.label, &inner.expiry()];
                match inner.write_fence(connection, name, &inner.sql.force_hold, &params).await? {
                    Some(fence) => Ok(fence),
                    None => Err(sql::not_a_lock(
                        name,
                        &inner.table,
                        ItemMismatch::NotReadBack { write: "simulated holder" },
                    )
                    .into()),
                }
            })
        }))
    }

    #[cfg(feature = "testing")]
    fn force_release<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(self.call(move |inner, connection| {
            Box::pin(async move {
                let connection = &connection;
                connection
                    .execute(inner.sql.force_release.as_str(), &[&name])
                    .await
                    .map(drop)
                    .map_err(|err| inner.fail("release", err))
            })
        }))
    }

    #[cfg(feature = "testing")]
    fn force_delete<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(self.call(move |inner, connection| {
            Box::pin(async move {
                let connection = &connection;
                connection
                    .execute(inner.sql.force_delete.as_str(), &[&name])
                    .await
                    .map(drop)
                    .map_err(|err| inner.fail("delete", err))
            })
        }))
    }
}

/// The [`Error`] of a failed statement, and whether to send it again on another connection.
///
/// A missing table is [`Error::TableNotFound`], a column missing or of another type
/// [`Error::TableMismatch`]. A connection that failed or dropped, a server shutting down
/// or not accepting connections yet, a serialization failure or a deadlock is transient.
fn failure(operation: &'static str, table: &str, err: tokio_postgres::Error) -> Failed {
    let Some(db) = err.as_db_error() else {
        // No answer of the server: the connection failed or dropped, or a value could not be
        // read, which the check of the columns rules out.
        let io = err.is_closed() || std::error::Error::source(&err).is_some_and(|s| s.is::<std::io::Error>());
        let source = Box::new(err);
        return Failed(Error::Sql { operation, table: table.to_owned(), code: None, transient: io, source }, io);
    };
    let code = db.code().code().to_owned();
    match code.as_str() {
        "42P01" => return Failed(Error::TableNotFound { table: table.to_owned() }, false),
        "42703" | "42804" | "42P10" => {
            let mismatch = TableMismatch::Refused { message: db.message().to_owned() };
            return Failed(Error::TableMismatch { table: table.to_owned(), mismatch }, false);
        }
        _ => {}
    }
    let reconnect = code.starts_with("08") || ["57P01", "57P02", "57P03"].contains(&code.as_str());
    let transient = reconnect || code.starts_with("53") || ["40001", "40P01", "55P03"].contains(&code.as_str());
    let source = Box::new(err);
    Failed(Error::Sql { operation, table: table.to_owned(), code: Some(code), transient, source }, reconnect)
}
