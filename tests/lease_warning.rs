//! A warning before the end: `Lease::warning(margin)` is cancelled once less than `margin` is
//! left of the lease with no renewal that succeeded, measured from the send of its last
//! successful write, and never for a lease that renews on time.

mod support;

use std::time::Duration;

use dynalease::{Error, LossReason};
use dynalease_fake::{Fault, FaultRule};
use support::{LEASE, advance, client_without_retries, fake, locks, settle, table};
use tokio_util::sync::CancellationToken;

/// Lets `duration` pass, then lets the tasks that woke run.
async fn pass(duration: Duration) {
    advance(duration).await;
    settle().await;
}

store_contract! {
    async fn the_warning_never_comes_for_a_lease_that_renews_on_time(store) {
        let lease = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
        let warning = lease.warning(LEASE / 2).unwrap();

        pass(LEASE * 20).await;

        assert!(!warning.is_cancelled(), "twenty leases, every renewal on time");
        assert!(!lease.ended().is_cancelled());
    }

    async fn the_warning_comes_when_the_lease_is_lost_before_its_margin(store) {
        let locks = store.locks();
        let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
        let warning = lease.warning(Duration::from_secs(5)).unwrap();
        locks.simulate_holder("order-sweeper", LEASE, "another-pod").await.unwrap();

        assert!(!lease.renew().await.unwrap());
        settle().await;

        assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
        assert!(warning.is_cancelled(), "nothing is left of a lost lease");
    }

    async fn a_released_lease_never_warns(store) {
        let lease = store.locks().acquire("order-sweeper", LEASE).await.unwrap();
        let warning = lease.warning(Duration::from_secs(5)).unwrap();

        lease.release().await.unwrap();
        pass(LEASE * 2).await;

        assert!(!warning.is_cancelled());
    }
}

/// A lease of a client that does not retry, whose renewals all fail after the acquire.
async fn lease_whose_renewals_fail(fake: &dynalease_fake::FakeDynamoDb) -> dynalease::Lease {
    let locks = dynalease::LockTable::new(table(client_without_retries(fake)), Default::default()).unwrap();
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem"));
    lease
}

#[tokio::test(start_paused = true)]
async fn the_warning_comes_margin_before_the_end_of_a_lease_whose_renewals_fail() {
    let fake = fake();
    let lease = lease_whose_renewals_fail(&fake).await;
    let warning = lease.warning(Duration::from_secs(5)).unwrap();

    pass(Duration::from_millis(24_999)).await;
    assert!(!warning.is_cancelled(), "more than 5 s are left");
    pass(Duration::from_millis(1)).await;
    assert!(warning.is_cancelled(), "5 s are left, and no renewal succeeded");
    assert!(!lease.ended().is_cancelled(), "the warning comes while the lease still holds");

    pass(Duration::from_secs(5)).await;
    assert_eq!(lease.loss_reason(), Some(LossReason::Expired));
}

#[tokio::test(start_paused = true)]
async fn what_is_left_counts_from_the_send_of_the_last_renewal_that_succeeded_not_its_answer() {
    let fake = fake();
    let locks = dynalease::LockTable::new(table(client_without_retries(&fake)), Default::default()).unwrap();
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
    let warning = lease.warning(Duration::from_secs(5)).unwrap();
    // The renewal sent at 10 s is answered at 13 s; every renewal after it fails.
    fake.inject(FaultRule::new(Fault::SlowResponse(Duration::from_secs(3))).operation("UpdateItem").times(1));
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").after(1));

    pass(Duration::from_millis(34_999)).await;
    assert!(!warning.is_cancelled(), "the renewal sent at 10 s holds the lease until 40 s");
    pass(Duration::from_millis(1)).await;
    assert!(warning.is_cancelled(), "35 s: 5 s before 40 s, not before 43 s");
}

#[tokio::test(start_paused = true)]
async fn a_renewal_that_succeeds_in_time_puts_the_warning_off() {
    let fake = fake();
    let locks = dynalease::LockTable::new(table(client_without_retries(&fake)), Default::default()).unwrap();
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
    let warning = lease.warning(Duration::from_secs(5)).unwrap();
    // The renewals fail from 10 s to about 20 s, and the next retry succeeds.
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(7));

    pass(LEASE * 4).await;

    assert!(!warning.is_cancelled());
    assert!(!lease.ended().is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn a_renewal_by_the_caller_counts_as_one_of_the_heartbeat() {
    let fake = fake();
    let lease = lease_whose_renewals_fail(&fake).await;
    let warning = lease.warning(Duration::from_secs(5)).unwrap();
    pass(Duration::from_secs(20)).await;
    fake.clear_faults();

    assert!(lease.renew().await.unwrap());
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem"));
    pass(Duration::from_millis(24_999)).await;

    assert!(!warning.is_cancelled(), "the renewal at 20 s holds the lease until 50 s");
    pass(Duration::from_millis(1)).await;
    assert!(warning.is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn a_warning_asked_for_after_the_margin_has_passed_comes_at_once() {
    let fake = fake();
    let lease = lease_whose_renewals_fail(&fake).await;
    pass(Duration::from_secs(27)).await;

    let warning = lease.warning(Duration::from_secs(5)).unwrap();
    settle().await;

    assert!(warning.is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn each_warning_watches_its_own_margin() {
    let fake = fake();
    let lease = lease_whose_renewals_fail(&fake).await;
    let (early, late) =
        (lease.warning(Duration::from_secs(15)).unwrap(), lease.warning(Duration::from_secs(2)).unwrap());

    pass(Duration::from_secs(15)).await;
    assert!(early.is_cancelled() && !late.is_cancelled());
    pass(Duration::from_secs(13)).await;
    assert!(late.is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn a_margin_of_zero_or_of_more_than_half_the_lease_is_refused() {
    let fake = fake();
    let lease = locks(&fake).acquire("order-sweeper", LEASE).await.unwrap();

    for margin in [Duration::ZERO, LEASE / 2 + Duration::from_millis(1), LEASE, LEASE * 2, Duration::MAX] {
        let err = lease.warning(margin).unwrap_err();
        assert!(
            matches!(err, Error::InvalidMargin { margin: m, lease: l, .. } if m == margin && l == LEASE),
            "{margin:?}: {err:?}"
        );
    }
    assert!(lease.warning(LEASE / 2).is_ok(), "half the lease is the longest margin");
}

#[tokio::test(start_paused = true)]
async fn a_leader_stops_its_work_on_the_warning_and_hands_the_lock_on() {
    let fake = fake();
    let locks = dynalease::LockTable::new(table(client_without_retries(&fake)), Default::default()).unwrap();
    let checkpointed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));

    let ended = locks
        .run_as_leader("order-sweeper", LEASE, CancellationToken::new(), |lease, stop| {
            let checkpointed = checkpointed.clone();
            let fake = fake.clone();
            async move {
                let warning = lease.warning(Duration::from_secs(5))?;
                // DynamoDB stops answering the renewals.
                fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(1000));
                tokio::select! {
                    biased;
                    () = stop.cancelled() => {}
                    () = warning.cancelled() => checkpointed.store(true, std::sync::atomic::Ordering::SeqCst),
                }
                fake.clear_faults();
                Ok::<(), Error>(())
            }
        })
        .await;

    assert!(ended.is_ok(), "{ended:?}");
    assert!(checkpointed.load(std::sync::atomic::Ordering::SeqCst), "the work saw the warning before the loss");
    let next = locks.try_acquire("order-sweeper", LEASE).await.unwrap();
    assert_eq!(next.map(|lease| lease.fencing_token()), Some(2), "the lease was released when the work returned");
}
