//! Bad input and foreign data in a SQL lock table, each a clear, typed error that names the
//! lock and the table, as in DynamoDB: a row at the lock's name that is not a lock is
//! `NotALock` and is left as it was, a table with other columns is `TableMismatch`, a
//! table name that is not a plain identifier is refused before anything is opened.
#![cfg(any(feature = "sqlite", feature = "postgres"))]

mod support;

use dynalease::{Error, LeaderError, LockTable, LockTableOptions, TableMismatch};
use support::LEASE;
use tokio_util::sync::CancellationToken;

/// Creates the store's table (through the library) and writes a row into it.
async fn insert<S: support::stores::SqlStore>(store: &S, columns: &str, values: &str) {
    store.locks().state("warm-up").await.unwrap();
    store.execute(&format!("INSERT INTO \"{}\" ({columns}) VALUES ({values})", store.table())).await;
}

/// The lock, the table and the reason (as its text) of a `NotALock`.
fn not_a_lock(err: &Error) -> (&str, &str, String) {
    match err {
        Error::NotALock { lock, table, reason, .. } => (lock, table, reason.to_string()),
        other => panic!("expected NotALock, got {other:?}"),
    }
}

sql_store_contract! {
    async fn a_row_with_an_owner_but_no_lease_is_not_a_lock_and_is_left_as_it_was(store) {
        insert(store, "name, owner, fence", "'widget', 'alice', 1").await;
        let locks = store.locks();

        let err = locks.try_acquire("widget", LEASE).await.unwrap_err();

        let (lock, table, reason) = not_a_lock(&err);
        assert_eq!((lock, table), ("widget", store.table()));
        assert_eq!(reason, "it has an owner but no rvn and no lease_ms");
        let message = err.to_string();
        assert!(message.contains("\"widget\"") && message.contains(&format!("\"{}\"", store.table())), "{message}");
        assert!(!err.is_transient());
        assert!(matches!(locks.acquire("widget", LEASE).await, Err(Error::NotALock { .. })));
        assert!(matches!(locks.state("widget").await, Err(Error::NotALock { .. })));
        assert_eq!(store.column("widget", "owner").await, Some(Some(String::from("alice"))));
        assert_eq!(store.column("widget", "lease_ms").await, Some(None), "the row is left as it was");
        assert_eq!(store.column("widget", "fence").await, Some(Some(String::from("1"))));
    }

    async fn a_row_whose_lease_is_out_of_range_ends_an_election_with_an_error_of_the_election(store) {
        insert(store, "name, owner, rvn, fence, lease_ms", "'widget', 'alice', 'r1', 4, 5").await;

        let ended = store
            .locks()
            .run_as_leader("widget", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), std::io::Error>(()) })
            .await;

        let Err(LeaderError::Election(err)) = ended else { panic!("expected an error of the election, got {ended:?}") };
        assert!(not_a_lock(&err).2.contains("lease_ms 5"), "{err}");
    }

    async fn a_row_with_a_negative_fence_is_not_a_lock(store) {
        insert(store, "name, fence", "'widget', -3").await;

        let err = store.locks().try_acquire("widget", LEASE).await.unwrap_err();

        assert_eq!(not_a_lock(&err).2, "its fence -3 is negative");
        assert_eq!(store.column("widget", "fence").await, Some(Some(String::from("-3"))));
    }

    async fn a_table_without_the_lock_columns_is_a_table_mismatch_naming_the_table(store) {
        store.execute(&format!("CREATE TABLE \"{}\" (name TEXT PRIMARY KEY, owner TEXT)", store.table())).await;

        let err = store.locks().try_acquire("job", LEASE).await.unwrap_err();

        assert!(matches!(&err, Error::TableMismatch { table, mismatch: TableMismatch::MissingColumn { column: "rvn", .. }, .. } if table == store.table()), "{err:?}");
        assert!(err.to_string().contains(&format!("\"{}\"", store.table())), "{err}");
        assert!(!err.is_transient());
    }

    async fn a_table_whose_columns_have_other_types_is_a_table_mismatch(store) {
        store.execute(&format!(
            "CREATE TABLE \"{}\" (name TEXT PRIMARY KEY, owner TEXT, rvn TEXT, fence TEXT, lease_ms BIGINT, holder TEXT, expires_at BIGINT)",
            store.table()
        )).await;

        let err = store.locks().acquire("job", LEASE).await.unwrap_err();

        assert!(matches!(&err, Error::TableMismatch { mismatch: TableMismatch::ColumnType { column: "fence", expected: "a 64-bit integer", .. }, .. }), "{err:?}");
        assert!(err.to_string().contains("its column fence is of type"), "{err}");
    }

    async fn a_table_with_another_primary_key_is_a_table_mismatch(store) {
        store.execute(&format!(
            "CREATE TABLE \"{}\" (id BIGINT PRIMARY KEY, name TEXT, owner TEXT, rvn TEXT, fence BIGINT, lease_ms BIGINT, holder TEXT, expires_at BIGINT)",
            store.table()
        )).await;

        let err = store.locks().try_acquire("job", LEASE).await.unwrap_err();

        assert!(matches!(&err, Error::TableMismatch { mismatch: TableMismatch::PrimaryKey { found }, .. } if found == &["id"]), "{err:?}");
        assert!(err.to_string().contains("its primary key is (id), not (name)"), "{err}");
    }

    async fn a_table_with_a_required_column_the_locks_do_not_write_is_a_table_mismatch(store) {
        store.execute(&format!(
            "CREATE TABLE \"{}\" (name TEXT PRIMARY KEY, owner TEXT, rvn TEXT, fence BIGINT, lease_ms BIGINT, holder TEXT, expires_at BIGINT, tenant TEXT NOT NULL)",
            store.table()
        )).await;

        let err = store.locks().try_acquire("job", LEASE).await.unwrap_err();

        assert!(matches!(&err, Error::TableMismatch { mismatch: TableMismatch::RequiredColumn { column }, .. } if column == "tenant"), "{err:?}");
    }

    async fn a_table_with_more_columns_than_a_lock_needs_works(store) {
        store.execute(&format!(
            "CREATE TABLE \"{}\" (name TEXT PRIMARY KEY, owner TEXT, rvn TEXT, fence BIGINT, lease_ms BIGINT, holder TEXT, expires_at BIGINT, note TEXT DEFAULT 'x')",
            store.table()
        )).await;

        let lease = store.locks().try_acquire("job", LEASE).await.unwrap().expect("free");

        assert_eq!(lease.fencing_token(), 1);
    }
}

#[cfg(feature = "sqlite")]
#[tokio::test(start_paused = true)]
async fn a_sqlite_row_whose_fence_is_text_is_not_a_lock() {
    use support::stores::{SqlStore, Store};
    let store = support::stores::Sqlite::start().await;
    insert(&store, "name, owner, rvn, fence, lease_ms", "'widget', 'alice', 'r1', 'seven', 30000").await;

    let err = store.locks().try_acquire("widget", LEASE).await.unwrap_err();

    assert_eq!(not_a_lock(&err), ("widget", "locks", String::from("its fence is not a whole number")));
    assert_eq!(store.column("widget", "fence").await, Some(Some(String::from("seven"))));
}

#[cfg(feature = "sqlite")]
#[test]
fn a_table_name_that_is_not_a_plain_identifier_is_refused() {
    for bad in ["", "locks; DROP TABLE orders", "lock-table", "main.locks", "9locks"] {
        let table = dynalease::SqliteTable::new("locks.db").table(bad);
        let err = LockTable::sqlite(table, LockTableOptions::default()).unwrap_err();
        assert!(matches!(err, Error::InvalidOptions { .. }), "{bad:?}: {err:?}");
    }
}

#[cfg(feature = "postgres")]
#[test]
fn a_postgres_table_name_that_is_not_a_plain_identifier_is_refused() {
    let pool = dynalease::PostgresTable::connect("host=/nowhere").unwrap().pool().clone();
    for bad in ["", "locks; DROP TABLE orders", "public.locks", &"x".repeat(64)] {
        let table = dynalease::PostgresTable::new(pool.clone()).table(bad);
        let err = LockTable::postgres(table, LockTableOptions::default()).unwrap_err();
        assert!(matches!(err, Error::InvalidOptions { .. }), "{bad:?}: {err:?}");
    }
}

#[cfg(feature = "sqlite")]
#[tokio::test(start_paused = true)]
async fn a_sqlite_file_that_cannot_be_opened_is_an_error_naming_the_table() {
    let table = dynalease::SqliteTable::new("/nonexistent-directory/locks.db");
    let locks = LockTable::sqlite(table, LockTableOptions::default()).unwrap();

    let err = locks.try_acquire("job", LEASE).await.unwrap_err();

    assert!(
        matches!(&err, Error::Sql { operation: "open", table, code: Some(code), .. } if table == "dynalease_locks" && code == "SQLITE_CANTOPEN"),
        "{err:?}"
    );
}
