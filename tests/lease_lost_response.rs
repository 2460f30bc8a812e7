//! Rule 5: a write whose answer was lost, retried by the client, keeps the lease it took.

mod support;

use std::time::Duration;

use dynalease::{HeldCheck, LossReason, TransactWriteExt};
use dynalease_fake::{Fault, FaultRule};
use support::{LEASE, fake, locks, n, raw_item, requests};

/// A transaction with nothing but the check of `lease`.
async fn holds(client: &aws_sdk_dynamodb::Client, lease: &dynalease::Lease) -> bool {
    let mut held = HeldCheck::default();
    match client.transact_write_items().fenced_by_marked(lease, &mut held).send().await {
        Ok(_) => true,
        Err(err) if held.lost_lease(&err) => false,
        Err(err) => panic!("unexpected error: {err:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn an_acquire_whose_answer_was_lost_finds_its_own_owner_and_keeps_the_lease() {
    let fake = fake();
    let locks = locks(&fake);
    fake.inject(FaultRule::new(Fault::LostResponse).operation("UpdateItem").times(1));

    let lease = locks.try_acquire("job", LEASE).await.unwrap().expect("the retry succeeds");

    assert_eq!(requests(&fake), ["UpdateItem", "UpdateItem"], "applied, lost, retried");
    let item = raw_item(&fake, "job").await.unwrap();
    assert_eq!(n(&item, "fence"), Some(lease.fencing_token()));
    assert!(holds(&fake.client(), &lease).await, "the lease is the one in the item");
    support::advance(LEASE * 2).await;
    assert_eq!(lease.loss_reason(), None, "and it renews");
}

#[tokio::test(start_paused = true)]
async fn a_takeover_whose_answer_was_lost_keeps_the_lease() {
    let fake = fake();
    let locks = locks(&fake);
    locks.simulate_holder("job", LEASE, "crashed").await.unwrap();
    // The first UpdateItem is the contender's failed write; the takeover comes after a lease.
    fake.inject(FaultRule::new(Fault::LostResponse).operation("UpdateItem").after(2).times(1));

    let lease = locks.acquire("job", LEASE).await.unwrap();

    assert!(holds(&fake.client(), &lease).await);
    support::advance(LEASE * 2).await;
    assert_eq!(lease.loss_reason(), None);
}

#[tokio::test(start_paused = true)]
async fn a_renewal_whose_answer_was_lost_keeps_the_lease() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::LostResponse).operation("UpdateItem").times(1));

    assert!(lease.renew().await.unwrap());
    support::advance(Duration::from_secs(95)).await;

    assert_eq!(lease.loss_reason(), None);
    assert!(holds(&fake.client(), &lease).await);
}

#[tokio::test(start_paused = true)]
async fn a_renewal_of_the_heartbeat_whose_answer_was_lost_keeps_the_lease() {
    let fake = fake();
    let locks = locks(&fake);
    fake.inject(FaultRule::new(Fault::LostResponse).operation("UpdateItem").after(1).times(3));

    let lease = locks.acquire("job", LEASE).await.unwrap();
    support::advance(Duration::from_secs(95)).await;

    assert_eq!(lease.loss_reason(), None);
    let state = locks.state("job").await.unwrap().unwrap();
    assert!(state.is_held);
    assert_eq!(state.fencing_token, lease.fencing_token());
}

#[tokio::test(start_paused = true)]
async fn a_release_whose_answer_was_lost_still_frees_the_lock() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::LostResponse).operation("UpdateItem").times(1));

    lease.release().await.unwrap();

    let state = locks.state("job").await.unwrap().unwrap();
    assert!(!state.is_held);
    let next = locks.try_acquire("job", LEASE).await.unwrap().expect("free");
    assert_eq!(next.fencing_token(), 2);
    assert_eq!(next.loss_reason(), None::<LossReason>);
}

/// The record version of the lock item `name`.
async fn rvn(fake: &dynalease_fake::FakeDynamoDb, name: &str) -> String {
    let item = raw_item(fake, name).await.expect("the item exists");
    item.get("rvn").and_then(|v| v.as_s().ok()).cloned().expect("a record version")
}

#[tokio::test(start_paused = true)]
async fn a_renewal_retried_by_the_client_never_brings_back_a_version_a_contender_may_have_seen() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    // Just before the heartbeat is due, a renewal whose answer is lost: the client retries it
    // after its backoff, and meanwhile the heartbeat's own renewal falls due.
    support::advance(LEASE / 3 - Duration::from_millis(100)).await;
    fake.inject(FaultRule::new(Fault::LostResponse).operation("UpdateItem").times(1));
    let renewal = tokio::spawn({
        let lease = lease.clone();
        async move { lease.renew().await }
    });
    support::advance(Duration::from_millis(50)).await;
    let first = rvn(&fake, "job").await;

    support::advance(Duration::from_secs(5)).await;
    assert!(renewal.await.unwrap().unwrap());
    assert_eq!(
        requests(&fake),
        ["UpdateItem", "UpdateItem", "GetItem", "UpdateItem", "UpdateItem"],
        "the acquire, the renewal whose answer was lost, our read, then the retry and the heartbeat's"
    );
    // Had the heartbeat's renewal come between the lost answer and the retry, the retry would
    // have written `first` again: a contender that read it then would count its wait from
    // before the heartbeat's renewal.
    assert_ne!(rvn(&fake, "job").await, first, "the newest renewal's version is in the item");
    assert_eq!(lease.loss_reason(), None);
}
