//! The lease contract, run against every store (the fake DynamoDB, SQLite, PostgreSQL) from one
//! body each: acquire and refuse, release and a higher token, takeover after a whole lease on
//! the contender's clock, the heartbeat, the reasons a lease is lost, holder labels, the testing
//! helpers and leader election.

mod support;

use std::time::Duration;

use dynalease::{LockState, LockTableOptions, LossReason};
use support::stores::Store;
use support::{LEASE, Stopwatch, advance, settle};

store_contract! {
    async fn a_free_lock_is_won_at_once_and_refused_to_another_process(store) {
        let (one, two) = (store.locks(), store.locks());

        let lease = one.try_acquire("job", LEASE).await.unwrap().expect("the lock is free");

        assert_eq!(lease.fencing_token(), 1);
        assert!(two.try_acquire("job", LEASE).await.unwrap().is_none());
        assert!(one.try_acquire("job", LEASE).await.unwrap().is_none(), "a second lease of the same table too");
        let state = two.state("job").await.unwrap();
        assert_eq!(state, Some(LockState { is_held: true, holder_label: None, lease_duration: Some(LEASE), fencing_token: 1 }));
    }
}
