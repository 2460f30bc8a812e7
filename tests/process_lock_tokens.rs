//! The process-lock shape: create for a duration and get a token, renew and release by token
//! from any process on the same table, ask whether a lock exists; lost locks and malformed
//! tokens are answered cleanly.

mod support;

use std::time::Duration;

use dynalease::{Error, LockState, LockTableOptions, ProcessLockToken, ProcessLocks, RenewOptions};
use support::{fake, locks, locks_with};

const DURATION: Duration = Duration::from_secs(15);

fn updates(fake: &dynalease_fake::FakeDynamoDb) -> usize {
    fake.request_log().iter().filter(|r| r.operation == "UpdateItem").count()
}

#[tokio::test(start_paused = true)]
async fn create_returns_a_token_or_nothing_while_another_holds_the_lock() {
    let fake = fake();
    let (one, two) = (ProcessLocks::new(locks(&fake)), ProcessLocks::new(locks(&fake)));

    let token = one.create("import", DURATION).await.unwrap();
    let refused = two.create("import", DURATION).await.unwrap();

    assert!(token.is_some());
    assert_eq!(refused, None);
    assert!(one.exists("import").await.unwrap() && two.exists("import").await.unwrap());
}

#[tokio::test(start_paused = true)]
async fn another_process_renews_and_releases_with_the_token() {
    let fake = fake();
    let creator = ProcessLocks::new(locks(&fake));
    let other = ProcessLocks::new(locks_with(&fake, LockTableOptions::default().holder_label("worker-2")));
    let token = creator.create("import", DURATION).await.unwrap().unwrap();

    support::advance(Duration::from_secs(10)).await;
    assert!(other.renew(&token, RenewOptions::new()).await.unwrap(), "renewed from another process");
    let state = other.lock_table().state("import").await.unwrap();
    assert_eq!(
        state,
        Some(LockState {
            is_held: true,
            holder_label: Some("worker-2".into()),
            lease_duration: Some(DURATION), // its current duration, read from the item
            fencing_token: 1,
        })
    );

    assert!(other.release(&token).await.unwrap());
    assert!(!creator.exists("import").await.unwrap());
    assert!(creator.create("import", DURATION).await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn a_lock_that_is_not_renewed_is_taken_over_after_its_duration_and_its_token_renews_no_more() {
    let fake = fake();
    let creator = ProcessLocks::new(locks(&fake));
    let contender = ProcessLocks::new(locks(&fake));
    let token = creator.create("import", DURATION).await.unwrap().unwrap();

    assert_eq!(contender.create("import", DURATION).await.unwrap(), None);
    support::advance(DURATION).await;
    assert!(!contender.exists("import").await.unwrap(), "seen unchanged for its whole duration");
    let taken = contender.create("import", DURATION).await.unwrap().expect("taken over");

    assert_eq!(taken.fencing_token(), 2);
    assert!(!creator.renew(&token, RenewOptions::new()).await.unwrap(), "a lost lock is not renewed");
    assert!(!creator.release(&token).await.unwrap(), "nor released");
    assert!(contender.exists("import").await.unwrap(), "the new holder keeps it");
    assert!(contender.renew(&taken, RenewOptions::new()).await.unwrap());
}

#[tokio::test(start_paused = true)]
async fn a_lock_that_is_renewed_in_time_is_never_taken_over() {
    let fake = fake();
    let creator = ProcessLocks::new(locks(&fake));
    let contender = ProcessLocks::new(locks(&fake));
    let token = creator.create("import", DURATION).await.unwrap().unwrap();

    for _ in 0..6 {
        assert_eq!(contender.create("import", DURATION).await.unwrap(), None);
        support::advance(Duration::from_secs(10)).await;
        assert!(creator.renew(&token, RenewOptions::new()).await.unwrap());
    }
    assert!(contender.exists("import").await.unwrap());
}

#[tokio::test(start_paused = true)]
async fn renew_with_a_minimum_writes_only_when_less_than_it_is_left() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));
    let token = locks.create("import", DURATION).await.unwrap().unwrap();
    let only_within = RenewOptions::new().only_within(Duration::from_secs(7));

    let mut written = Vec::new();
    for _ in 0..4 {
        support::advance(Duration::from_secs(5)).await;
        let before = updates(&fake);
        assert!(locks.renew(&token, only_within).await.unwrap());
        written.push(updates(&fake) - before);
    }

    // 10 s left at 5 s: kept; 5 s left at 10 s: renewed to 25 s; 10 s left at 15 s; 5 s at 20 s.
    assert_eq!(written, [0, 1, 0, 1]);
}

#[tokio::test(start_paused = true)]
async fn a_foreign_instance_renews_at_once_since_it_cannot_know_what_is_left() {
    let fake = fake();
    let creator = ProcessLocks::new(locks(&fake));
    let other = ProcessLocks::new(locks(&fake));
    let token = creator.create("import", DURATION).await.unwrap().unwrap();
    fake.clear_request_log();

    assert!(
        other
            .renew(&token, RenewOptions::new().duration(Duration::from_secs(60)).only_within(Duration::from_secs(7)))
            .await
            .unwrap()
    );

    assert_eq!(support::requests(&fake), ["UpdateItem"]);
    let state = other.lock_table().state("import").await.unwrap().unwrap();
    assert_eq!(state.lease_duration, Some(Duration::from_secs(60)));
}

#[tokio::test(start_paused = true)]
async fn renewing_a_released_deleted_or_taken_lock_returns_false_and_leaves_it_alone() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));
    let admin = support::locks(&fake);

    let released = locks.create("a", DURATION).await.unwrap().unwrap();
    locks.release(&released).await.unwrap();
    assert!(!locks.renew(&released, RenewOptions::new()).await.unwrap());
    assert!(!locks.renew(&released, RenewOptions::new().duration(DURATION)).await.unwrap());

    let deleted = locks.create("b", DURATION).await.unwrap().unwrap();
    admin.simulate_delete("b").await.unwrap();
    assert!(!locks.renew(&deleted, RenewOptions::new().duration(DURATION)).await.unwrap());
    assert_eq!(admin.state("b").await.unwrap(), None, "a renewal creates no item");

    let taken = locks.create("c", DURATION).await.unwrap().unwrap();
    admin.simulate_holder("c", DURATION, "another-pod").await.unwrap();
    assert!(!locks.renew(&taken, RenewOptions::new().duration(DURATION)).await.unwrap());
    assert!(!locks.release(&taken).await.unwrap());
    let state = admin.state("c").await.unwrap().unwrap();
    assert_eq!((state.is_held, state.holder_label.as_deref()), (true, Some("another-pod")));
}

#[test]
fn a_lock_name_is_not_a_token() {
    for not_a_token in ["import", "", "dl1:1:3:abc", "dl1:one:3:abc:import", "dl2:1:3:abc:import", "dl1:0:4:abcd:job"] {
        let err = not_a_token.parse::<ProcessLockToken>().unwrap_err();
        assert!(err.to_string().starts_with("invalid lock token: "), "{not_a_token:?}: {err}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_token_handed_over_as_a_string_renews_and_releases_in_another_process() {
    let fake = fake();
    let (creator, other) = (ProcessLocks::new(locks(&fake)), ProcessLocks::new(locks(&fake)));
    let token = creator.create("import", DURATION).await.unwrap().unwrap();

    let received: ProcessLockToken = token.to_string().parse().expect("a token reads back");

    assert_eq!(received, token);
    assert_eq!((received.lock_name(), received.fencing_token()), ("import", 1));
    assert!(other.renew(&received, RenewOptions::new()).await.unwrap());
    assert!(other.release(&received).await.unwrap());
    assert!(!creator.exists("import").await.unwrap());
}

#[cfg(feature = "serde")]
#[tokio::test(start_paused = true)]
async fn with_serde_a_token_is_its_string_in_json() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));
    let token = locks.create("import", DURATION).await.unwrap().unwrap();

    let json = serde_json::to_string(&token).unwrap();

    assert_eq!(json, serde_json::to_string(&token.to_string()).unwrap());
    assert_eq!(serde_json::from_str::<ProcessLockToken>(&json).unwrap(), token);
    let err = serde_json::from_str::<ProcessLockToken>("\"import\"").unwrap_err();
    assert!(err.to_string().contains("invalid lock token"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_token_and_a_lease_on_the_same_lock_exclude_each_other_and_share_its_fencing_tokens() {
    let fake = fake();
    let table = locks(&fake);
    let process = ProcessLocks::new(locks(&fake));

    let lease = table.acquire("import", DURATION).await.unwrap();
    assert_eq!(process.create("import", DURATION).await.unwrap(), None);
    lease.release().await.unwrap();
    let token = process.create("import", DURATION).await.unwrap().unwrap();
    assert!(table.try_acquire("import", DURATION).await.unwrap().is_none());
    process.release(&token).await.unwrap();
    let next = table.try_acquire("import", DURATION).await.unwrap().unwrap();

    assert_eq!(token.fencing_token(), 2);
    assert_eq!(next.fencing_token(), 3);
}

#[tokio::test(start_paused = true)]
async fn bad_durations_and_names_are_refused_before_anything_is_sent() {
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));
    let token = locks.create("import", DURATION).await.unwrap().unwrap();
    fake.clear_request_log();

    assert!(matches!(locks.create("", DURATION).await, Err(Error::InvalidLockName { .. })));
    assert!(matches!(locks.create("import", Duration::from_millis(1)).await, Err(Error::InvalidLeaseDuration { .. })));
    assert!(matches!(
        locks.renew(&token, RenewOptions::new().duration(Duration::from_secs(2 * 24 * 3600))).await,
        Err(Error::InvalidLeaseDuration { .. })
    ));
    assert!(matches!(locks.exists("").await, Err(Error::InvalidLockName { .. })));
    assert!(fake.request_log().is_empty());
}
