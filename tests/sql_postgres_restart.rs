//! A real outage of PostgreSQL: the test cluster is stopped (its connections cut, its socket gone)
//! and started again while a lease is held. Its own test binary, since it stops the cluster
//! that the tests of a binary share.
#![cfg(feature = "postgres")]

mod support;

use std::time::Duration;

use support::stores::{Postgres, Store};
use support::{LEASE, advance};

#[tokio::test(start_paused = true)]
async fn a_lease_outlives_a_server_restart_shorter_than_its_renewals_leave_it() {
    let store = Postgres::start().await;
    let locks = store.locks();
    let lease = locks.acquire("job", LEASE).await.unwrap();
    let cluster = support::pg_cluster::cluster();

    cluster.stop();
    let err = locks.try_acquire("other", LEASE).await.unwrap_err();
    assert!(err.is_transient(), "{err:?}");
    advance(Duration::from_secs(15)).await;
    assert_eq!(lease.loss_reason(), None);
    cluster.start();
    advance(Duration::from_secs(20)).await;

    assert_eq!(lease.loss_reason(), None, "renewed once the server was back");
    assert!(store.locks().try_acquire("job", LEASE).await.unwrap().is_none());
    assert!(lease.renew().await.unwrap());
}
