//! The scope of the process-lock shape: it tells whether it got the lock, renews it for as long
//! as it lives, and releases it when dropped.

mod support;

use std::time::Duration;

use dynalease::ProcessLocks;
use support::{fake, locks};

const DURATION: Duration = Duration::from_secs(15);

#[tokio::test(start_paused = true)]
async fn a_scope_tells_whether_it_got_the_lock() {
    let fake = fake();
    let (one, two) = (ProcessLocks::new(locks(&fake)), ProcessLocks::new(locks(&fake)));

    let first = one.scope("import", DURATION).await.unwrap();
    let second = two.scope("import", DURATION).await.unwrap();

    assert!(first.is_locked());
    assert_eq!(first.lease().map(|l| l.fencing_token()), Some(1));
    assert!(!second.is_locked());
    assert!(second.lease().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_scope_holds_the_lock_past_its_duration_and_releases_it_when_dropped() {
    let fake = fake();
    let (one, two) = (ProcessLocks::new(locks(&fake)), ProcessLocks::new(locks(&fake)));

    let scope = one.scope("import", DURATION).await.unwrap();
    for _ in 0..4 {
        support::advance(DURATION).await;
        assert!(two.create("import", DURATION).await.unwrap().is_none(), "renewed in the background");
    }
    assert!(scope.is_locked());
    drop(scope);
    support::settle().await;

    assert!(!two.exists("import").await.unwrap());
    assert!(two.create("import", DURATION).await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn a_scope_released_explicitly_frees_the_lock_before_it_returns() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));

    let scope = locks.scope("import", DURATION).await.unwrap();
    scope.release().await.unwrap();

    assert!(!locks.exists("import").await.unwrap());
}

#[tokio::test(start_paused = true)]
async fn a_scope_whose_lock_was_taken_is_no_longer_locked() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));
    let scope = locks.scope("import", DURATION).await.unwrap();

    locks.lock_table().simulate_holder("import", DURATION, "another-pod").await.unwrap();
    support::advance(DURATION / 3 + Duration::from_secs(1)).await;

    assert!(!scope.is_locked());
}
