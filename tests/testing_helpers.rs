//! Rule 10: the helpers of the `testing` feature, and the two examples of the seed's "Testing"
//! section, in Rust.

mod support;

use std::time::Duration;

use dynalease::{LeaderError, LockState, LockTable, LockTableOptions, LossReason, TableRef};
use dynalease_fake::FakeDynamoDb;
use support::{LEASE, fake, locks};
use tokio_util::sync::CancellationToken;

#[tokio::test(start_paused = true)]
async fn seed_example_a_simulated_holder_takes_the_lock_from_this_process() -> Result<(), dynalease::Error> {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let client = fake.client();
    let locks = LockTable::new(
        TableRef::builder(client, "Shop").partition_key("pk").sort_key("sk").build().unwrap(),
        LockTableOptions::default(),
    )?;

    let lease = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
    locks.simulate_holder("order-sweeper", Duration::from_secs(30), "another-pod").await?;
    let still_held = lease.renew().await?; // false: the lease is lost, and lease.ended() is cancelled
    let state = locks.state("order-sweeper").await?; // held by "another-pod", with fencing token 2

    assert!(!still_held);
    assert!(lease.ended().is_cancelled());
    assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
    assert_eq!(
        state,
        Some(LockState {
            is_held: true,
            holder_label: Some("another-pod".into()),
            lease_duration: Some(Duration::from_secs(30)),
            fencing_token: 2,
        })
    );
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn seed_example_a_second_instance_contends_and_waits() -> Result<(), dynalease::Error> {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let first = fake.client();
    let second = fake.client();
    let leader = LockTable::new(
        TableRef::builder(first, "Shop").partition_key("pk").sort_key("sk").build().unwrap(),
        LockTableOptions::default(),
    )?;
    let follower = LockTable::new(
        TableRef::builder(second, "Shop").partition_key("pk").sort_key("sk").build().unwrap(),
        LockTableOptions::default(),
    )?;

    let _held = leader.acquire("order-sweeper", Duration::from_secs(30)).await?;
    let refused = follower.wait_for_refusal("order-sweeper");
    let stop = CancellationToken::new();
    let election = tokio::spawn({
        let (follower, stop) = (follower.clone(), stop.clone());
        async move {
            follower
                .run_as_leader("order-sweeper", Duration::from_secs(30), stop, |_lease, token| async move {
                    token.cancelled().await;
                    Ok::<(), std::io::Error>(())
                })
                .await
        }
    });
    refused.await; // the follower tried, found the lock held, and waits for the next poll
    stop.cancel();
    let ended = election.await.unwrap(); // LeaderError::Cancelled: the caller cancelled

    assert!(matches!(ended, Err(LeaderError::Cancelled)));
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn simulate_holder_raises_the_token_like_an_acquire_and_is_taken_over_after_a_lease() {
    let fake = fake();
    let locks = locks(&fake);

    assert_eq!(locks.simulate_holder("job", LEASE, None).await.unwrap(), 1);
    assert_eq!(locks.simulate_holder("job", LEASE, "b").await.unwrap(), 2);
    let started = support::Stopwatch::start();
    let lease = locks.acquire("job", LEASE).await.unwrap();

    assert_eq!(started.elapsed(), LEASE);
    assert_eq!(lease.fencing_token(), 3);
}

#[tokio::test(start_paused = true)]
async fn simulate_release_frees_the_lock_and_loses_a_lease_of_this_process() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();

    locks.simulate_release("job").await.unwrap();
    let next = locks.try_acquire("job", LEASE).await.unwrap().expect("free");

    assert_eq!(next.fencing_token(), 2);
    lease.ended().cancelled().await;
    assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
}

#[tokio::test(start_paused = true)]
async fn simulate_release_of_a_lock_without_item_creates_none() {
    let fake = fake();
    let locks = locks(&fake);

    locks.simulate_release("job").await.unwrap();

    assert_eq!(locks.state("job").await.unwrap(), None);
}

#[tokio::test(start_paused = true)]
async fn simulate_delete_loses_the_lease_and_restarts_the_token() {
    let fake = fake();
    let locks = locks(&fake);
    let first = locks.acquire("job", LEASE).await.unwrap();
    first.release().await.unwrap();
    let lease = locks.acquire("job", LEASE).await.unwrap();
    assert_eq!(lease.fencing_token(), 2);

    locks.simulate_delete("job").await.unwrap();
    assert_eq!(locks.state("job").await.unwrap(), None);
    lease.ended().cancelled().await;
    assert_eq!(lease.loss_reason(), Some(LossReason::Deleted));

    let next = locks.try_acquire("job", LEASE).await.unwrap().expect("free");
    assert_eq!(next.fencing_token(), 1);
    locks.simulate_delete("never-held").await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn state_reads_the_lock_as_its_item_says() {
    let fake = fake();
    let locks = locks(&fake);
    let labelled = support::locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));
    assert_eq!(locks.state("job").await.unwrap(), None);

    let lease = labelled.acquire("job", Duration::from_secs(12)).await.unwrap();
    assert_eq!(
        locks.state("job").await.unwrap(),
        Some(LockState {
            is_held: true,
            holder_label: Some("pod-7".into()),
            lease_duration: Some(Duration::from_secs(12)),
            fencing_token: 1,
        })
    );

    lease.release().await.unwrap();
    assert_eq!(
        locks.state("job").await.unwrap(),
        Some(LockState { is_held: false, holder_label: None, lease_duration: None, fencing_token: 1 })
    );
}

#[tokio::test(start_paused = true)]
async fn wait_for_refusal_completes_on_a_try_that_finds_the_lock_held() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = locks(&fake);
    let _lease = holder.acquire("job", LEASE).await.unwrap();

    let refused = tokio::spawn(contender.wait_for_refusal("job"));
    let other_lock = tokio::spawn(contender.wait_for_refusal("other"));
    support::settle().await;
    assert!(!refused.is_finished());

    assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none());
    refused.await.unwrap();
    assert!(!other_lock.is_finished(), "refusals count per lock");

    // The second try reads instead of writing, and is a refusal too.
    let again = contender.wait_for_refusal("job");
    assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none());
    again.await;
}

#[tokio::test(start_paused = true)]
async fn wait_for_refusal_counts_from_the_call_not_from_the_first_poll() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = locks(&fake);
    let _lease = holder.acquire("job", LEASE).await.unwrap();
    assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none());

    let refused = contender.wait_for_refusal("job");
    assert!(contender.try_acquire("job", LEASE).await.unwrap().is_none());

    refused.await;
}

#[tokio::test(start_paused = true)]
async fn wait_for_refusal_does_not_complete_on_an_acquire_that_succeeds() {
    let fake = fake();
    let locks = locks(&fake);

    let refused = tokio::spawn(locks.wait_for_refusal("job"));
    let _lease = locks.acquire("job", LEASE).await.unwrap();
    support::advance(Duration::from_secs(60)).await;

    assert!(!refused.is_finished());
    refused.abort();
}

#[tokio::test(start_paused = true)]
async fn wait_for_refusal_sees_the_polls_of_a_waiting_acquire() {
    let fake = fake();
    let holder = locks(&fake);
    let contender = locks(&fake);
    let _lease = holder.acquire("job", LEASE).await.unwrap();
    let waiting = tokio::spawn({
        let contender = contender.clone();
        async move { contender.acquire("job", LEASE).await }
    });
    contender.wait_for_refusal("job").await; // the first failed write
    let started = support::Stopwatch::start();

    contender.wait_for_refusal("job").await; // the first poll

    assert_eq!(started.elapsed(), LEASE / 3);
    waiting.abort();
}
