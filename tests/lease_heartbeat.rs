//! Rule 4: the heartbeat, the retries of a failed renewal, and how a lease ends.

mod support;

use std::time::{Duration, SystemTime};

use dynalease::{LockTable, LockTableOptions, LossReason};
use dynalease_fake::{Fault, FaultRule};
use support::{LEASE, client_without_retries, fake, locks, table};

fn update_times_ms(fake: &dynalease_fake::FakeDynamoDb, start: SystemTime) -> Vec<u128> {
    fake.request_log()
        .iter()
        .filter(|r| r.operation == "UpdateItem")
        .map(|r| r.at.duration_since(start).unwrap().as_millis())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_lease_renews_every_third_of_its_duration() {
    let fake = fake();
    let locks = locks(&fake);
    let start = fake.now();

    let lease = locks.acquire("job", LEASE).await.unwrap();
    support::advance(Duration::from_secs(65)).await;

    assert_eq!(update_times_ms(&fake, start), [0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
    assert!(!lease.ended().is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn the_next_renewal_counts_from_the_send_of_the_last_not_its_answer() {
    let fake = fake();
    let locks = locks(&fake);
    let start = fake.now();
    // Every renewal is answered 4 s after it was sent.
    fake.inject(FaultRule::new(Fault::Latency(Duration::from_secs(4))).operation("UpdateItem").after(1));

    let lease = locks.acquire("job", LEASE).await.unwrap();
    support::advance(Duration::from_secs(45)).await;

    // The fake applies each renewal 4 s after it was sent: sent every 10 s, from 10 s on, and
    // not every 14 s, as counting from the answers would.
    assert_eq!(update_times_ms(&fake, start), [0, 14_000, 24_000, 34_000, 44_000]);
    assert!(!lease.ended().is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn an_explicit_renewal_moves_the_heartbeat() {
    let fake = fake();
    let locks = locks(&fake);
    let start = fake.now();

    let lease = locks.acquire("job", LEASE).await.unwrap();
    support::advance(Duration::from_secs(4)).await;
    assert!(lease.renew().await.unwrap());
    support::advance(Duration::from_secs(21)).await;

    assert_eq!(update_times_ms(&fake, start), [0, 4_000, 14_000, 24_000]);
}

#[tokio::test(start_paused = true)]
async fn an_acquire_answered_after_a_whole_lease_hands_out_a_lease_that_has_ended() {
    let fake = fake();
    let locks = locks(&fake);
    fake.inject(FaultRule::new(Fault::Latency(LEASE + Duration::from_secs(1))).operation("UpdateItem").times(1));

    let lease = locks.acquire("job", LEASE).await.unwrap();

    assert!(lease.ended().is_cancelled());
    assert_eq!(lease.loss_reason(), Some(LossReason::Expired));
    assert!(!lease.renew().await.unwrap());
}

#[tokio::test(start_paused = true)]
async fn a_failed_renewal_is_retried_after_100_ms_doubling_up_to_a_sixth_of_the_lease() {
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    let start = fake.now();
    // Renewals every 2 s; waits between retries 100, 200, 400, 800, then 1000 ms (a sixth).
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").after(1).times(6));

    let lease = locks.acquire("job", Duration::from_secs(6)).await.unwrap();
    support::advance(Duration::from_millis(7_600)).await;

    assert_eq!(
        update_times_ms(&fake, start),
        [0, 2_000, 2_100, 2_300, 2_700, 3_500, 4_500, 5_500, 7_500],
        "the seventh try succeeds, and the heartbeat counts from its send"
    );
    assert!(!lease.ended().is_cancelled(), "a lease outlasts failures that leave it time");
}

#[tokio::test(start_paused = true)]
async fn a_lease_runs_out_when_no_renewal_succeeds_in_time() {
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    fake.inject(FaultRule::new(Fault::Throttle).operation("UpdateItem").after(1));
    let started = support::Stopwatch::start();

    let lease = locks.acquire("job", Duration::from_secs(6)).await.unwrap();
    lease.ended().cancelled().await;

    assert_eq!(started.elapsed(), Duration::from_secs(6), "a whole lease after the acquire was sent");
    assert_eq!(lease.loss_reason(), Some(LossReason::Expired));
}

#[tokio::test(start_paused = true)]
async fn a_renewal_unanswered_when_the_lease_runs_out_does_not_save_it() {
    let fake = fake();
    let locks = locks(&fake);
    fake.inject(FaultRule::new(Fault::Latency(Duration::from_secs(60))).operation("UpdateItem").after(1));
    let started = support::Stopwatch::start();

    let lease = locks.acquire("job", LEASE).await.unwrap();
    lease.ended().cancelled().await;

    assert_eq!(started.elapsed(), LEASE);
    assert_eq!(lease.loss_reason(), Some(LossReason::Expired));
}

#[tokio::test(start_paused = true)]
async fn a_renewal_that_finds_another_owner_ends_the_lease_as_taken_over() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    let ended = lease.ended();

    locks.simulate_holder("job", LEASE, "another-pod").await.unwrap();
    support::advance(LEASE / 3 + Duration::from_secs(1)).await;

    assert!(ended.is_cancelled());
    assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
}

#[tokio::test(start_paused = true)]
async fn a_renewal_that_finds_the_item_released_by_someone_else_ends_the_lease_as_taken_over() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();

    locks.simulate_release("job").await.unwrap();

    assert!(!lease.renew().await.unwrap());
    assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));
}

#[tokio::test(start_paused = true)]
async fn a_renewal_that_finds_no_item_ends_the_lease_as_deleted() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();

    locks.simulate_delete("job").await.unwrap();
    lease.ended().cancelled().await;

    assert_eq!(lease.loss_reason(), Some(LossReason::Deleted));
}

#[tokio::test(start_paused = true)]
async fn a_renewal_answered_resource_not_found_ends_the_lease_as_table_not_found() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();

    fake.inject(FaultRule::new(Fault::ResourceNotFound).operation("UpdateItem"));
    lease.ended().cancelled().await;

    assert_eq!(lease.loss_reason(), Some(LossReason::TableNotFound));
}

#[tokio::test(start_paused = true)]
async fn a_lease_ends_once_with_its_first_reason_and_stops_renewing() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    locks.simulate_delete("job").await.unwrap();
    lease.ended().cancelled().await;

    locks.simulate_holder("job", LEASE, None).await.unwrap();
    fake.clear_request_log();
    support::advance(Duration::from_secs(120)).await;

    assert_eq!(lease.loss_reason(), Some(LossReason::Deleted));
    assert!(!lease.renew().await.unwrap(), "losing is final");
    assert!(fake.request_log().is_empty(), "no renewal after the end");
}

#[tokio::test(start_paused = true)]
async fn a_loss_and_a_failed_renewal_are_logged_with_their_event_ids() {
    let events = support::EventIds::global();
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").after(1).times(1));

    let lease = locks.acquire("logged-job", LEASE).await.unwrap();
    support::advance(LEASE / 3 + Duration::from_secs(1)).await;
    locks.simulate_delete("logged-job").await.unwrap();
    lease.ended().cancelled().await;

    assert_eq!(events.of("logged-job"), [42, 40]);
}
