//! The process-lock contract (create / renew with its minimum window / release by token /
//! exists / scope), run against every store from one body each.

mod support;

use std::time::Duration;

use dynalease::{ProcessLocks, RenewOptions};
use support::advance;

const DURATION: Duration = Duration::from_secs(15);

store_contract! {
    async fn create_returns_a_token_or_nothing_while_another_process_holds_the_lock(store) {
        let (one, two) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        assert!(!one.exists("import").await.unwrap());

        let token = one.create("import", DURATION).await.unwrap().expect("free");

        assert_eq!(two.create("import", DURATION).await.unwrap(), None);
        assert!(one.exists("import").await.unwrap() && two.exists("import").await.unwrap());
        assert_eq!(token.fencing_token(), 1);
    }

    async fn another_process_renews_and_releases_the_lock_with_its_token(store) {
        let (creator, other) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = creator.create("import", DURATION).await.unwrap().expect("free");

        assert!(other.renew(&token, RenewOptions::new().duration(Duration::from_secs(60))).await.unwrap());
        let state = creator.lock_table().state("import").await.unwrap().unwrap();
        assert_eq!(state.lease_duration, Some(Duration::from_secs(60)));

        assert!(other.release(&token).await.unwrap());
        assert!(!creator.exists("import").await.unwrap());
        assert!(!other.release(&token).await.unwrap(), "released already");
        let next = creator.create("import", DURATION).await.unwrap().expect("free again");
        assert_eq!(next.fencing_token(), 2);
    }

    async fn renew_without_a_duration_keeps_the_one_another_instance_wrote_last(store) {
        let (creator, other) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = creator.create("import", DURATION).await.unwrap().expect("free");
        assert!(other.renew(&token, RenewOptions::new().duration(Duration::from_secs(40))).await.unwrap());

        // The creator wrote 15 s itself; the lock has 40 s now, and keeps them.
        assert!(creator.renew(&token, RenewOptions::new()).await.unwrap());
        let state = creator.lock_table().state("import").await.unwrap().unwrap();
        assert_eq!(state.lease_duration, Some(Duration::from_secs(40)));

        // And the creator measures its window from that renewal, with the 40 s it learned.
        let contender = ProcessLocks::new(store.locks());
        assert_eq!(contender.create("import", DURATION).await.unwrap(), None);
        advance(Duration::from_secs(25)).await;
        assert!(creator.renew(&token, RenewOptions::new().only_within(Duration::from_secs(10))).await.unwrap(), "15 s are left");
        advance(Duration::from_secs(15)).await;
        assert!(contender.create("import", DURATION).await.unwrap().is_some(), "nothing was written: 40 s passed");
    }

    async fn renew_with_a_minimum_window_writes_only_once_less_than_it_is_left(store) {
        let (creator, contender) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = creator.create("import", DURATION).await.unwrap().expect("free");
        assert_eq!(contender.create("import", DURATION).await.unwrap(), None, "the contender sees the lock now");

        // 10 s of 15 are left, more than the 7 s window: nothing is written, so the contender
        // sees the same record for the whole duration and takes the lock over.
        advance(Duration::from_secs(5)).await;
        assert!(creator.renew(&token, RenewOptions::new().only_within(Duration::from_secs(7))).await.unwrap());
        advance(Duration::from_secs(10)).await;
        let taken = contender.create("import", DURATION).await.unwrap();
        assert!(taken.is_some(), "nothing was renewed");
        assert!(!creator.renew(&token, RenewOptions::new()).await.unwrap(), "a lost lock is not renewed");
    }

    async fn renew_inside_its_minimum_window_keeps_the_lock_from_a_takeover(store) {
        let (creator, contender) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = creator.create("import", DURATION).await.unwrap().expect("free");
        assert_eq!(contender.create("import", DURATION).await.unwrap(), None);

        // 6 s of 15 are left, less than the 7 s window: the lock is renewed.
        advance(Duration::from_secs(9)).await;
        assert!(creator.renew(&token, RenewOptions::new().only_within(Duration::from_secs(7))).await.unwrap());
        advance(Duration::from_secs(6)).await;

        assert_eq!(contender.create("import", DURATION).await.unwrap(), None, "renewed 6 s ago");
        assert!(contender.exists("import").await.unwrap());
    }

    async fn a_lock_that_is_not_renewed_is_taken_over_after_its_duration_and_its_token_renews_no_more(store) {
        let (creator, contender) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        let token = creator.create("import", DURATION).await.unwrap().expect("free");
        assert_eq!(contender.create("import", DURATION).await.unwrap(), None);

        advance(DURATION).await;
        assert!(!contender.exists("import").await.unwrap(), "seen unchanged for its whole duration");
        let taken = contender.create("import", DURATION).await.unwrap().expect("taken over");

        assert_eq!(taken.fencing_token(), 2);
        assert!(!creator.renew(&token, RenewOptions::new()).await.unwrap());
        assert!(!creator.release(&token).await.unwrap(), "nor released");
        assert!(contender.exists("import").await.unwrap(), "the new holder keeps it");
    }

    async fn a_token_and_a_lease_on_the_same_lock_exclude_each_other(store) {
        let process = ProcessLocks::new(store.locks());
        let table = store.locks();
        let lease = table.acquire("import", DURATION).await.unwrap();
        assert_eq!(process.create("import", DURATION).await.unwrap(), None);

        lease.release().await.unwrap();
        let token = process.create("import", DURATION).await.unwrap().expect("released");

        assert!(table.try_acquire("import", DURATION).await.unwrap().is_none());
        assert_eq!(token.fencing_token(), 2);
    }

    async fn a_scope_holds_the_lock_past_its_duration_and_releases_it_when_dropped(store) {
        let (one, two) = (ProcessLocks::new(store.locks()), ProcessLocks::new(store.locks()));
        {
            let scope = one.scope("import", DURATION).await.unwrap();
            assert!(scope.is_locked());
            assert!(!two.scope("import", DURATION).await.unwrap().is_locked());

            advance(DURATION * 4).await;
            assert!(scope.is_locked(), "renewed in the background");
            assert!(two.exists("import").await.unwrap());
        }
        advance(Duration::from_millis(1)).await;

        assert!(!two.exists("import").await.unwrap(), "released when dropped");
        assert!(two.scope("import", DURATION).await.unwrap().is_locked());
    }

    async fn a_scope_whose_lock_was_taken_is_no_longer_locked(store) {
        let locks = ProcessLocks::new(store.locks());
        let scope = locks.scope("import", DURATION).await.unwrap();

        locks.lock_table().simulate_holder("import", DURATION, "another-pod").await.unwrap();
        advance(DURATION / 3).await;
        advance(Duration::from_millis(1)).await;

        assert!(!scope.is_locked());
    }
}
