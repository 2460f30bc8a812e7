//! Fenced writes in the caller's own SQL transaction: `Lease::check_held_sqlite` and
//! `Lease::check_held_postgres` let a transaction commit only while the lease holds its lock,
//! so a holder that was paused past its lease cannot write, whatever it still believes.
#![cfg(any(feature = "sqlite", feature = "postgres"))]

mod support;

use std::sync::Arc;
use std::time::Duration;

use dynalease::{Error, Lease, LockTableOptions};
use support::stores::{SqlStore, Store};
use support::{LEASE, PausableClock, advance};

/// Writes order `id` with `status` in a transaction of its own that first checks `lease`.
#[allow(async_fn_in_trait)]
trait FencedWrites: SqlStore {
    async fn fenced_write(&self, lease: &Lease, id: &str, status: &str) -> Result<(), Error>;
    async fn status(&self, id: &str) -> Option<String>;
}

#[cfg(feature = "sqlite")]
impl FencedWrites for support::stores::Sqlite {
    async fn fenced_write(&self, lease: &Lease, id: &str, status: &str) -> Result<(), Error> {
        let (path, lease, id, status) = (self.path.clone(), lease.clone(), id.to_owned(), status.to_owned());
        tokio::task::spawn_blocking(move || {
            use dynalease::rusqlite::{Connection, TransactionBehavior};
            let mut db = Connection::open(path).unwrap();
            db.execute("CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, status TEXT)", []).unwrap();
            let tx = db.transaction_with_behavior(TransactionBehavior::Immediate).unwrap();
            lease.check_held_sqlite(&tx)?;
            tx.execute("INSERT OR REPLACE INTO orders VALUES (?1, ?2)", [id, status]).unwrap();
            tx.commit().unwrap();
            Ok(())
        })
        .await
        .unwrap()
    }

    async fn status(&self, id: &str) -> Option<String> {
        let (path, id) = (self.path.clone(), id.to_owned());
        tokio::task::spawn_blocking(move || {
            use dynalease::rusqlite::{Connection, OptionalExtension};
            let db = Connection::open(path).unwrap();
            db.execute("CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, status TEXT)", []).unwrap();
            db.query_row("SELECT status FROM orders WHERE id = ?1", [id], |row| row.get(0)).optional().unwrap()
        })
        .await
        .unwrap()
    }
}

#[cfg(feature = "postgres")]
impl FencedWrites for support::stores::Postgres {
    async fn fenced_write(&self, lease: &Lease, id: &str, status: &str) -> Result<(), Error> {
        let orders = format!("orders_{}", self.table);
        let mut client = self.pool().get().await.unwrap();
        client
            .batch_execute(&format!("CREATE TABLE IF NOT EXISTS {orders} (id TEXT PRIMARY KEY, status TEXT)"))
            .await
            .unwrap();
        let tx = client.transaction().await.unwrap();
        lease.check_held_postgres(&tx).await?;
        let upsert =
            format!("INSERT INTO {orders} VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET status = excluded.status");
        tx.execute(upsert.as_str(), &[&id, &status]).await.unwrap();
        tx.commit().await.unwrap();
        Ok(())
    }

    async fn status(&self, id: &str) -> Option<String> {
        let orders = format!("orders_{}", self.table);
        let client = self.pool().get().await.unwrap();
        client
            .batch_execute(&format!("CREATE TABLE IF NOT EXISTS {orders} (id TEXT PRIMARY KEY, status TEXT)"))
            .await
            .unwrap();
        let query = format!("SELECT status FROM {orders} WHERE id = $1");
        client.query_opt(query.as_str(), &[&id]).await.unwrap().map(|row| row.get(0))
    }
}

macro_rules! fencing_contract {
    ($(async fn $name:ident($store:ident) $body:block)*) => {
        $(#[allow(dead_code)] async fn $name<S: FencedWrites>($store: &S) $body)*

        #[cfg(feature = "sqlite")]
        mod sqlite {
            $(
                #[tokio::test(start_paused = true)]
                async fn $name() {
                    super::$name(&<crate::support::stores::Sqlite as crate::Store>::start().await).await;
                }
            )*
        }

        #[cfg(feature = "postgres")]
        mod postgres {
            $(
                #[tokio::test(start_paused = true)]
                async fn $name() {
                    super::$name(&<crate::support::stores::Postgres as crate::Store>::start().await).await;
                }
            )*
        }
    };
}

fencing_contract! {
    async fn a_write_commits_while_the_lease_holds_the_lock(store) {
        let lease = store.locks().acquire("order-sweeper", LEASE).await.unwrap();

        store.fenced_write(&lease, "1", "shipped").await.unwrap();

        assert_eq!(store.status("1").await.as_deref(), Some("shipped"));
    }

    async fn a_paused_holders_write_is_refused_after_a_takeover(store) {
        let clock = PausableClock::new();
        let holder = store.locks_with(LockTableOptions::default().clock(Arc::new(clock.clone())));
        let lease = holder.acquire("order-sweeper", LEASE).await.unwrap();
        store.fenced_write(&lease, "1", "picked").await.unwrap();

        // The holder's host is suspended: its clock stands still and it renews nothing, while
        // a contender waits a whole lease on its own clock and takes the lock over.
        clock.pause();
        let taken = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
        assert_eq!(taken.fencing_token(), 2);
        clock.resume();

        assert!(!lease.ended().is_cancelled(), "the holder still believes in its lease");
        let refused = store.fenced_write(&lease, "1", "shipped by the old holder").await.unwrap_err();
        let Error::NotHeld { lock, table, fencing_token, .. } = &refused else { panic!("expected NotHeld, got {refused:?}") };
        assert_eq!((lock.as_str(), table.as_str(), *fencing_token), ("order-sweeper", store.table(), 1));
        assert_eq!(store.status("1").await.as_deref(), Some("picked"), "nothing committed");

        store.fenced_write(&taken, "1", "shipped").await.unwrap();
        assert_eq!(store.status("1").await.as_deref(), Some("shipped"));
        advance(LEASE / 3 + Duration::from_millis(1)).await;
        assert!(lease.ended().is_cancelled(), "and its heartbeat finds out at its next renewal");
    }

    async fn a_write_under_a_released_lease_is_refused(store) {
        let lease = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
        let kept = lease.clone();
        lease.release().await.unwrap();

        assert!(matches!(store.fenced_write(&kept, "1", "shipped").await, Err(Error::NotHeld { .. })));
        assert_eq!(store.status("1").await, None);
    }

    async fn a_write_under_a_lease_whose_lock_was_deleted_and_won_again_is_refused(store) {
        let locks = store.locks();
        let first = locks.acquire("order-sweeper", LEASE).await.unwrap();
        let kept = first.clone();
        locks.simulate_delete("order-sweeper").await.unwrap();
        drop(first);
        let second = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
        assert_eq!(second.fencing_token(), 1, "the same token as the first lease, another owner");

        assert!(matches!(store.fenced_write(&kept, "1", "shipped").await, Err(Error::NotHeld { .. })));
        store.fenced_write(&second, "1", "shipped").await.unwrap();
    }
}

#[cfg(feature = "sqlite")]
#[tokio::test(start_paused = true)]
async fn a_sqlite_check_outside_a_transaction_is_refused() {
    let store = support::stores::Sqlite::start().await;
    let lease = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
    let path = store.path.clone();

    let err = tokio::task::spawn_blocking(move || {
        let db = dynalease::rusqlite::Connection::open(path).unwrap();
        lease.check_held_sqlite(&db).unwrap_err()
    })
    .await
    .unwrap();

    assert!(matches!(err, Error::NotInTransaction), "{err:?}");
}

#[cfg(feature = "sqlite")]
#[tokio::test(start_paused = true)]
async fn a_lease_of_another_store_is_refused_by_a_sqlite_check() {
    let fake = support::fake();
    let lease = support::locks(&fake).acquire("order-sweeper", LEASE).await.unwrap();
    let mut db = dynalease::rusqlite::Connection::open_in_memory().unwrap();
    let tx = db.transaction().unwrap();

    let err = lease.check_held_sqlite(&tx).unwrap_err();

    assert!(matches!(&err, Error::WrongStore { table, expected: "SQLite", .. } if table == "Shop"), "{err:?}");
    assert!(err.to_string().contains("not in SQLite"), "{err}");
}

#[cfg(feature = "sqlite")]
#[tokio::test(start_paused = true)]
async fn a_sql_lease_never_holds_a_dynamodb_transaction() {
    use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
    use dynalease::TransactWriteExt;

    let store = support::stores::Sqlite::start().await;
    let lease = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
    let fake = support::fake();
    let put = Put::builder()
        .table_name("Shop")
        .item("pk", AttributeValue::S("ORDER#1".into()))
        .item("sk", AttributeValue::S("ORDER".into()))
        .build()
        .unwrap();

    let sent = fake
        .client()
        .transact_write_items()
        .fenced_by(&lease)
        .transact_items(TransactWriteItem::builder().put(put).build())
        .send()
        .await;

    assert!(sent.is_err(), "refused: {sent:?}");
    let item = fake
        .client()
        .get_item()
        .table_name("Shop")
        .key("pk", AttributeValue::S("ORDER#1".into()))
        .key("sk", AttributeValue::S("ORDER".into()))
        .send()
        .await
        .unwrap();
    assert!(item.item.is_none(), "nothing committed");
}

#[cfg(feature = "postgres")]
#[tokio::test(start_paused = true)]
async fn a_postgres_check_keeps_a_takeover_waiting_until_the_transaction_ends() {
    let store = support::stores::Postgres::start().await;
    let lease = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
    let mut client = store.pool().get().await.unwrap();
    let tx = client.transaction().await.unwrap();
    lease.check_held_postgres(&tx).await.unwrap();

    // Another connection overwrites the row, as a takeover would: it waits for the row lock.
    let admin = store.locks();
    let overwrite = tokio::spawn(async move { admin.simulate_holder("order-sweeper", LEASE, "another-pod").await });
    // While it waits, its statement holds the paused clock: ask the server, not the clock.
    let observer = store.pool().get().await.unwrap();
    let waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
    let mut blocked = false;
    for _ in 0..10_000 {
        if observer.query_one(waiting, &[]).await.unwrap().get::<_, i64>(0) > 0 {
            blocked = true;
            break;
        }
    }
    assert!(blocked, "the overwrite waits for the row lock");
    assert!(!overwrite.is_finished(), "the row is locked while the checked transaction is open");

    tx.commit().await.unwrap();
    assert_eq!(overwrite.await.unwrap().unwrap(), 2);
}
