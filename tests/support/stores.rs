//! The stores one contract runs against: the fake DynamoDB, a SQLite file and the PostgreSQL
//! test cluster, behind [`Store`], and [`store_contract!`](crate::store_contract) that runs a
//! test body against each.
//!
//! Every store keeps time virtual the same way: tests run with tokio's paused clock and the
//! library's default clock follows it. The fake answers in memory; SQLite runs on tokio's
//! blocking pool, which keeps a paused clock still; the PostgreSQL connections hold it still
//! while the server works (see `pg_wire`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use dynalease::{LockTable, LockTableOptions};

/// Names unique within this test binary.
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!("{prefix}{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A store of locks that a test can open lock tables on, each as another process would.
#[allow(async_fn_in_trait)]
pub trait Store: Sized {
    /// A fresh table, empty, that no other test uses.
    async fn start() -> Self;

    /// A lock table on the store's table with `options`, of a connection (or client) of its
    /// own, as another process has.
    fn locks_with(&self, options: LockTableOptions) -> LockTable;

    /// [`locks_with`](Self::locks_with) the default options.
    fn locks(&self) -> LockTable {
        self.locks_with(LockTableOptions::default())
    }

    /// The name of the table.
    fn table(&self) -> &str;

    /// Drops (deletes) the whole table, as an operator might.
    async fn drop_table(&self);
}

/// The fake DynamoDB, with the table `Shop` (keys `pk`, `sk`).
#[derive(Debug)]
pub struct Fake {
    pub fake: dynalease_fake::FakeDynamoDb,
}

impl Store for Fake {
    async fn start() -> Self {
        Fake { fake: super::fake() }
    }

    fn locks_with(&self, options: LockTableOptions) -> LockTable {
        super::locks_with(&self.fake, options)
    }

    fn table(&self) -> &str {
        super::TABLE
    }

    async fn drop_table(&self) {
        self.fake.delete_table(super::TABLE);
    }
}

/// A directory that is removed when dropped.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("dynalease-test-{}-{}", std::process::id(), unique("")));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A SQLite file in a temporary directory, with the table `locks`.
#[cfg(feature = "sqlite")]
#[derive(Debug)]
pub struct Sqlite {
    pub dir: TempDir,
    pub path: PathBuf,
    pub table: String,
}

#[cfg(feature = "sqlite")]
impl Sqlite {
    /// The [`SqliteTable`](dynalease::SqliteTable) of this store.
    pub fn sqlite_table(&self) -> dynalease::SqliteTable {
        dynalease::SqliteTable::new(&self.path).table(&self.table)
    }

    /// Runs `sql` on a connection of its own, on the blocking pool.
    pub async fn execute(&self, sql: &str) {
        let (path, sql) = (self.path.clone(), sql.to_owned());
        tokio::task::spawn_blocking(move || {
            let connection = dynalease::rusqlite::Connection::open(path).expect("open the database");
            connection.execute_batch(&sql).unwrap_or_else(|err| panic!("{sql}: {err}"));
        })
        .await
        .expect("the statement ran");
    }
}

#[cfg(feature = "sqlite")]
impl Store for Sqlite {
    async fn start() -> Self {
        let dir = TempDir::new();
        let path = dir.0.join("locks.db");
        Sqlite { dir, path, table: String::from("locks") }
    }

    fn locks_with(&self, options: LockTableOptions) -> LockTable {
        LockTable::sqlite(self.sqlite_table(), options).expect("valid options")
    }

    fn table(&self) -> &str {
        &self.table
    }

    async fn drop_table(&self) {
        self.execute(&format!("DROP TABLE \"{}\"", self.table)).await;
    }
}

/// A table of its own in the PostgreSQL test cluster; every lock table gets a pool of its own,
/// all with the same [`Faults`](super::pg_wire::Faults).
#[cfg(feature = "postgres")]
#[derive(Debug)]
pub struct Postgres {
    pub table: String,
    pub faults: std::sync::Arc<super::pg_wire::Faults>,
}

#[cfg(feature = "postgres")]
impl Postgres {
    /// The [`PostgresTable`](dynalease::PostgresTable) of this store, over a pool of its own.
    pub fn postgres_table(&self) -> dynalease::PostgresTable {
        dynalease::PostgresTable::new(super::pg_wire::pool(self.faults.clone(), 4)).table(&self.table)
    }

    /// A pool of its own, without faults, for statements of the test itself.
    pub fn pool(&self) -> dynalease::deadpool_postgres::Pool {
        super::pg_wire::pool(Default::default(), 2)
    }

    /// Runs `sql` on a connection of its own.
    pub async fn execute(&self, sql: &str) {
        let client = self.pool().get().await.expect("connect to the test cluster");
        client.batch_execute(sql).await.unwrap_or_else(|err| panic!("{sql}: {err}"));
    }
}

#[cfg(feature = "postgres")]
impl Store for Postgres {
    async fn start() -> Self {
        Postgres { table: unique("locks_"), faults: Default::default() }
    }

    fn locks_with(&self, options: LockTableOptions) -> LockTable {
        LockTable::postgres(self.postgres_table(), options).expect("valid options")
    }

    fn table(&self) -> &str {
        &self.table
    }

    async fn drop_table(&self) {
        self.execute(&format!("DROP TABLE \"{}\"", self.table)).await;
    }
}

/// A module `$module` of tests, one per body `$name`, each running `super::$name` against a new
/// store of type `$store` on paused time: what [`store_contract!`](crate::store_contract) and
/// [`sql_store_contract!`](crate::sql_store_contract) expand to for each store.
#[macro_export]
macro_rules! store_tests {
    ($module:ident, $store:ident, $($name:ident)*) => {
        mod $module {
            $(
                #[tokio::test(start_paused = true)]
                async fn $name() {
                    let store = <$crate::support::stores::$store as $crate::support::stores::Store>::start().await;
                    super::$name(&store).await;
                }
            )*
        }
    };
}

/// Runs each test body against every store: `fake_dynamodb::name`, `sqlite::name` and
/// `postgres::name`, each on paused time. A body is `async fn name(store: &S)` for any
/// `S: Store`.
#[macro_export]
macro_rules! store_contract {
    ($($(#[doc = $doc:literal])* async fn $name:ident($store:ident) $body:block)*) => {
        $( $(#[doc = $doc])* async fn $name<S: $crate::support::stores::Store>($store: &S) $body )*

        $crate::store_tests!(fake_dynamodb, Fake, $($name)*);

        #[cfg(feature = "sqlite")]
        $crate::store_tests!(sqlite, Sqlite, $($name)*);

        #[cfg(feature = "postgres")]
        $crate::store_tests!(postgres, Postgres, $($name)*);
    };
}

/// A store that keeps its locks in a SQL table, which a test can write and read directly.
#[allow(async_fn_in_trait)]
pub trait SqlStore: Store {
    /// Runs statements on a connection of the test's own.
    async fn execute(&self, sql: &str);

    /// A column of the row of lock `name`, as text: `None` for no row, `Some(None)` for NULL.
    async fn column(&self, name: &str, column: &str) -> Option<Option<String>>;
}

#[cfg(feature = "sqlite")]
impl SqlStore for Sqlite {
    async fn execute(&self, sql: &str) {
        Sqlite::execute(self, sql).await;
    }

    async fn column(&self, name: &str, column: &str) -> Option<Option<String>> {
        let sql = format!("SELECT CAST({column} AS TEXT) FROM \"{}\" WHERE name = ?1", self.table);
        let (path, name) = (self.path.clone(), name.to_owned());
        tokio::task::spawn_blocking(move || {
            use dynalease::rusqlite::OptionalExtension;
            let connection = dynalease::rusqlite::Connection::open(path).expect("open the database");
            connection.query_row(&sql, [name], |row| row.get(0)).optional().expect("read the row")
        })
        .await
        .expect("the statement ran")
    }
}

#[cfg(feature = "postgres")]
impl SqlStore for Postgres {
    async fn execute(&self, sql: &str) {
        Postgres::execute(self, sql).await;
    }

    async fn column(&self, name: &str, column: &str) -> Option<Option<String>> {
        let client = self.pool().get().await.expect("connect to the test cluster");
        let sql = format!("SELECT {column}::text FROM \"{}\" WHERE name = $1", self.table);
        client.query_opt(sql.as_str(), &[&name]).await.expect("read the row").map(|row| row.get(0))
    }
}

/// [`store_contract!`](crate::store_contract) for the SQL stores alone: each body is
/// `async fn name(store: &S)` for any `S: SqlStore`, run as `sqlite::name` and `postgres::name`.
#[macro_export]
macro_rules! sql_store_contract {
    ($($(#[doc = $doc:literal])* async fn $name:ident($store:ident) $body:block)*) => {
        $(
            $(#[doc = $doc])*
            #[allow(dead_code)]
            async fn $name<S: $crate::support::stores::SqlStore>($store: &S) $body
        )*

        #[cfg(feature = "sqlite")]
        $crate::store_tests!(sqlite, Sqlite, $($name)*);

        #[cfg(feature = "postgres")]
        $crate::store_tests!(postgres, Postgres, $($name)*);
    };
}
