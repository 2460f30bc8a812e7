//! The row of a lock in a SQL table: what an acquire, a renewal and a release write, and the
//! expiry column with a time to live in the options; a table dropped while in use is created
//! again by the next call.
#![cfg(any(feature = "sqlite", feature = "postgres"))]

mod support;

use std::time::{Duration, UNIX_EPOCH};

use dynalease::LockTableOptions;
use support::stores::SqlStore;
use support::{LEASE, OffsetClock};

const WEEK: Duration = Duration::from_secs(7 * 24 * 3600);
const WALL_START_S: u64 = 1_700_000_000;

async fn columns<S: SqlStore>(store: &S, name: &str) -> Vec<Option<String>> {
    let mut values = Vec::new();
    for column in ["owner", "rvn", "fence", "lease_ms", "holder", "expires_at"] {
        values.push(store.column(name, column).await.expect("the lock has a row"));
    }
    values
}

sql_store_contract! {
    async fn an_acquire_writes_the_holder_and_a_release_keeps_the_row_and_its_fence(store) {
        let locks = store.locks_with(LockTableOptions::default().holder_label("pod-7"));

        let lease = locks.acquire("job", LEASE).await.unwrap();
        let held = columns(store, "job").await;
        assert!(held[0].is_some() && held[1].is_some(), "owner and rvn: {held:?}");
        assert_eq!(&held[2..], [Some("1".into()), Some("30000".into()), Some("pod-7".into()), None]);

        assert!(lease.renew().await.unwrap());
        let renewed = columns(store, "job").await;
        assert_eq!(renewed[0], held[0], "the same owner");
        assert_ne!(renewed[1], held[1], "a new record version");

        lease.release().await.unwrap();
        let released = columns(store, "job").await;
        assert_eq!(released[0], None);
        assert_eq!(released[1], renewed[1], "the record version stays");
        assert_eq!(&released[2..], [Some("1".into()), None, None, None]);
    }

    async fn with_a_time_to_live_every_write_sets_the_expiry_to_the_wall_clock_plus_the_retention(store) {
        let clock = OffsetClock::new(Duration::ZERO, UNIX_EPOCH + Duration::from_secs(WALL_START_S));
        let options = LockTableOptions::default().clock(clock).time_to_live("expiresAt", WEEK);
        let locks = store.locks_with(options);
        let expires = |after_s: u64| Some((WALL_START_S + WEEK.as_secs() + after_s).to_string());

        let lease = locks.acquire("job", LEASE).await.unwrap();
        assert_eq!(store.column("job", "expires_at").await, Some(expires(0)));

        support::advance(Duration::from_millis(10_001)).await;
        assert_eq!(store.column("job", "expires_at").await, Some(expires(10)), "renewed by the heartbeat");

        support::advance(Duration::from_secs(5)).await;
        lease.release().await.unwrap();
        assert_eq!(store.column("job", "expires_at").await, Some(expires(15)), "and released");
    }

    async fn a_table_dropped_while_in_use_is_created_again_by_the_next_call(store) {
        let locks = store.locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        store.drop_table().await;
        assert!(!lease.renew().await.unwrap(), "the renewal finds no table");

        let again = locks.acquire("job", LEASE).await.unwrap();

        assert_eq!(again.fencing_token(), 1, "a new table: the tokens start again");
        assert!(again.renew().await.unwrap());
    }
}
