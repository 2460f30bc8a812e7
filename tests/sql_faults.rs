//! Faults of a SQL database, with the typed errors and loss reasons of their DynamoDB
//! counterparts: an answer lost after the write was applied (the retry finds its own owner and
//! keeps the lease), a connection dropped in the middle of a renewal, a database that is down
//! or locked for a while (transient errors; the lease survives an outage shorter than its
//! renewals leave it, and ends as `Expired` after a longer one), and an election that contends
//! again through an outage.
#![cfg(any(feature = "sqlite", feature = "postgres"))]

mod support;

use std::time::Duration;

use dynalease::{Error, LossReason};
use support::stores::Store;
use support::{LEASE, advance};
use tokio_util::sync::CancellationToken;

/// A store whose database can be made unavailable for a while, and available again.
#[allow(async_fn_in_trait)]
trait Outages: Store {
    /// A lock table that gives up on an unavailable database quickly.
    fn impatient_locks(&self) -> dynalease::LockTable;
    async fn go_down(&mut self);
    async fn come_back(&mut self);
    /// The code of the transient error an unavailable database answers with, if it answers.
    const DOWN_CODE: Option<&'static str>;
}

#[cfg(feature = "postgres")]
impl Outages for support::stores::Postgres {
    fn impatient_locks(&self) -> dynalease::LockTable {
        self.locks()
    }

    async fn go_down(&mut self) {
        self.faults.set_down(true);
    }

    async fn come_back(&mut self) {
        self.faults.set_down(false);
    }

    const DOWN_CODE: Option<&'static str> = None;
}

/// SQLite is down, for a process, while another process holds the database file locked.
#[cfg(feature = "sqlite")]
struct LockedSqlite {
    store: support::stores::Sqlite,
    locker: Option<(std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

#[cfg(feature = "sqlite")]
impl Store for LockedSqlite {
    async fn start() -> Self {
        LockedSqlite { store: support::stores::Sqlite::start().await, locker: None }
    }

    fn locks_with(&self, options: dynalease::LockTableOptions) -> dynalease::LockTable {
        self.store.locks_with(options)
    }

    fn table(&self) -> &str {
        self.store.table()
    }

    async fn drop_table(&self) {
        self.store.drop_table().await;
    }
}

#[cfg(feature = "sqlite")]
impl Outages for LockedSqlite {
    fn impatient_locks(&self) -> dynalease::LockTable {
        let table = self.store.sqlite_table().busy_timeout(Duration::from_millis(20));
        dynalease::LockTable::sqlite(table, Default::default()).unwrap()
    }

    async fn go_down(&mut self) {
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (locked, is_locked) = std::sync::mpsc::channel::<()>();
        let path = self.store.path.clone();
        let thread = std::thread::spawn(move || {
            let db = dynalease::rusqlite::Connection::open(path).unwrap();
            db.execute_batch("BEGIN EXCLUSIVE").unwrap();
            locked.send(()).unwrap();
            let _ = released.recv();
            db.execute_batch("COMMIT").unwrap();
        });
        is_locked.recv().unwrap();
        self.locker = Some((release, thread));
    }

    async fn come_back(&mut self) {
        if let Some((release, thread)) = self.locker.take() {
            drop(release);
            thread.join().unwrap();
        }
    }

    const DOWN_CODE: Option<&'static str> = Some("SQLITE_BUSY");
}

macro_rules! outage_contract {
    ($(async fn $name:ident($store:ident) $body:block)*) => {
        $(#[allow(dead_code)] async fn $name<S: Outages>($store: &mut S) $body)*

        #[cfg(feature = "sqlite")]
        mod sqlite {
            $(
                #[tokio::test(start_paused = true)]
                async fn $name() {
                    let mut store = <super::LockedSqlite as crate::Store>::start().await;
                    super::$name(&mut store).await;
                    super::Outages::come_back(&mut store).await;
                }
            )*
        }

        #[cfg(feature = "postgres")]
        mod postgres {
            $(
                #[tokio::test(start_paused = true)]
                async fn $name() {
                    let mut store = <crate::support::stores::Postgres as crate::Store>::start().await;
                    super::$name(&mut store).await;
                }
            )*
        }
    };
}

outage_contract! {
    async fn an_unavailable_database_is_a_transient_error_naming_the_table(store) {
        let locks = store.impatient_locks();
        locks.state("warm-up").await.unwrap();
        store.go_down().await;

        let err = locks.try_acquire("job", LEASE).await.unwrap_err();

        assert!(err.is_transient(), "{err:?}");
        let Error::Sql { table, code, .. } = &err else { panic!("expected Error::Sql, got {err:?}") };
        assert_eq!((table.as_str(), code.as_deref()), (store.table(), S::DOWN_CODE));
        assert!(err.to_string().contains(&format!("\"{}\"", store.table())), "{err}");
    }

    async fn a_lease_outlives_an_outage_shorter_than_its_renewals_leave_it(store) {
        let locks = store.impatient_locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        store.go_down().await;

        // The renewal due at 10 s fails, and is tried again after 100 ms, 200 ms, ... 5 s.
        advance(Duration::from_secs(20)).await;
        assert_eq!(lease.loss_reason(), None);
        store.come_back().await;
        advance(Duration::from_secs(20)).await;

        assert_eq!(lease.loss_reason(), None, "renewed once the database answered again");
        assert!(store.locks().try_acquire("job", LEASE).await.unwrap().is_none());
    }

    async fn a_lease_ends_as_expired_after_an_outage_longer_than_the_lease(store) {
        let locks = store.impatient_locks();
        let lease = locks.acquire("job", LEASE).await.unwrap();
        store.go_down().await;

        advance(LEASE + Duration::from_secs(1)).await;

        assert_eq!(lease.loss_reason(), Some(LossReason::Expired));
        assert!(lease.ended().is_cancelled());
        store.come_back().await;
    }

    async fn an_election_contends_again_through_an_outage_and_leads_after_it(store) {
        let locks = store.impatient_locks();
        locks.state("warm-up").await.unwrap();
        store.go_down().await;
        let election = tokio::spawn(async move {
            locks
                .run_as_leader("sweeper", LEASE, CancellationToken::new(), |lease, _| async move {
                    Ok::<u64, std::io::Error>(lease.fencing_token())
                })
                .await
        });

        advance(LEASE * 2).await;
        assert!(!election.is_finished(), "transient errors: it contends again");
        store.come_back().await;
        advance(LEASE / 3 + Duration::from_secs(1)).await;

        assert!(election.is_finished());
        assert_eq!(election.await.unwrap().unwrap(), 1);
    }
}

#[cfg(feature = "postgres")]
mod postgres_connections {
    use std::sync::atomic::Ordering;

    use super::*;
    use support::stores::Postgres;

    /// A lock table whose table is made, so that the next statement is the one under test.
    async fn warm(store: &Postgres) -> dynalease::LockTable {
        let locks = store.locks();
        locks.state("warm-up").await.unwrap();
        locks
    }

    #[tokio::test(start_paused = true)]
    async fn an_acquire_whose_answer_was_lost_finds_its_own_owner_and_keeps_the_lease() {
        let store = Postgres::start().await;
        let locks = warm(&store).await;
        let connections = store.faults.connections.load(Ordering::SeqCst);
        store.faults.lose_answers(1);

        let lease = locks.try_acquire("job", LEASE).await.unwrap().expect("the retry succeeds");

        // Applied twice, as a retried DynamoDB request is: the token is two above the last.
        assert_eq!(lease.fencing_token(), 2);
        let state = locks.state("job").await.unwrap().unwrap();
        assert_eq!((state.is_held, state.fencing_token), (true, 2));
        assert!(
            store.faults.connections.load(Ordering::SeqCst) > connections,
            "the answer was lost, and the retry reconnected"
        );
        advance(LEASE * 2).await;
        assert_eq!(lease.loss_reason(), None, "the lease is the one in the row, and it renews");
    }

    #[tokio::test(start_paused = true)]
    async fn a_takeover_whose_answer_was_lost_keeps_the_lease() {
        let store = Postgres::start().await;
        let locks = warm(&store).await;
        locks.simulate_holder("job", LEASE, "crashed").await.unwrap();
        assert!(locks.try_acquire("job", LEASE).await.unwrap().is_none());
        advance(LEASE).await;
        let connections = store.faults.connections.load(Ordering::SeqCst);
        store.faults.lose_answers(1);

        let lease = locks.try_acquire("job", LEASE).await.unwrap().expect("taken over");

        assert!(
            store.faults.connections.load(Ordering::SeqCst) > connections,
            "the answer was lost, and the retry reconnected"
        );
        advance(LEASE * 2).await;
        assert_eq!(lease.loss_reason(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_renewal_whose_connection_drops_as_it_is_sent_is_sent_again_and_keeps_the_lease() {
        let store = Postgres::start().await;
        let locks = warm(&store).await;
        let lease = locks.acquire("job", LEASE).await.unwrap();
        let connections = store.faults.connections.load(Ordering::SeqCst);
        store.faults.cut_on_send(1);

        assert!(lease.renew().await.unwrap());

        assert!(store.faults.connections.load(Ordering::SeqCst) > connections, "on a new connection");
        advance(LEASE * 2).await;
        assert_eq!(lease.loss_reason(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_renewal_whose_answer_was_lost_keeps_the_lease() {
        let store = Postgres::start().await;
        let locks = warm(&store).await;
        let lease = locks.acquire("job", LEASE).await.unwrap();
        let connections = store.faults.connections.load(Ordering::SeqCst);
        store.faults.lose_answers(1);

        assert!(lease.renew().await.unwrap());

        assert!(
            store.faults.connections.load(Ordering::SeqCst) > connections,
            "the answer was lost, and the retry reconnected"
        );
        advance(LEASE * 2).await;
        assert_eq!(lease.loss_reason(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_renewal_whose_connections_keep_dropping_is_a_transient_error_and_the_heartbeat_tries_again() {
        let store = Postgres::start().await;
        let locks = warm(&store).await;
        let lease = locks.acquire("job", LEASE).await.unwrap();
        store.faults.cut_on_send(3);

        let err = lease.renew().await.unwrap_err();

        assert!(err.is_transient(), "{err:?}");
        assert!(matches!(&err, Error::Sql { operation: "renew", code: None, .. }), "{err:?}");
        advance(LEASE * 2).await;
        assert_eq!(lease.loss_reason(), None, "the heartbeat renewed it");
    }
}
