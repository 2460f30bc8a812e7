//! Rule 6: release, explicit and on drop.

mod support;

use std::time::Duration;

use dynalease::{LockState, LockTable, LockTableOptions};
use dynalease_fake::{Fault, FaultRule};
use support::{LEASE, client_without_retries, fake, locks, locks_with, raw_item, requests, s, settle, table};

#[tokio::test(start_paused = true)]
async fn a_release_removes_owner_lease_and_holder_and_keeps_the_rest() {
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));
    let lease = locks.acquire("job", LEASE).await.unwrap();
    let held = raw_item(&fake, "job").await.unwrap();

    lease.release().await.unwrap();

    let released = raw_item(&fake, "job").await.unwrap();
    let names: Vec<&str> = released.keys().map(String::as_str).collect();
    assert_eq!(names, ["_type", "fence", "pk", "rvn", "sk"]);
    assert_eq!(released.get("fence"), held.get("fence"));
    assert_eq!(s(&released, "rvn"), s(&held, "rvn"));
}

#[tokio::test(start_paused = true)]
async fn a_release_ends_the_lease_without_a_loss_reason() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    let ended = lease.ended();

    lease.release().await.unwrap();

    assert!(ended.is_cancelled());
}

#[tokio::test(start_paused = true)]
async fn a_release_leaves_a_lock_that_someone_else_took_over_alone() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    let token = locks.simulate_holder("job", LEASE, "another-pod").await.unwrap();

    lease.release().await.unwrap();

    assert_eq!(
        locks.state("job").await.unwrap(),
        Some(LockState {
            is_held: true,
            holder_label: Some("another-pod".into()),
            lease_duration: Some(LEASE),
            fencing_token: token,
        })
    );
}

#[tokio::test(start_paused = true)]
async fn a_lease_that_was_lost_sends_no_release() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    locks.simulate_delete("job").await.unwrap();
    assert!(!lease.renew().await.unwrap());

    fake.clear_request_log();
    lease.release().await.unwrap();

    assert!(requests(&fake).is_empty());
}

#[tokio::test(start_paused = true)]
async fn dropping_a_lease_releases_it_in_the_background() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    let ended = lease.ended();

    fake.clear_request_log();
    drop(lease);
    assert!(ended.is_cancelled());
    settle().await;

    assert_eq!(requests(&fake), ["UpdateItem"]);
    assert!(!locks.state("job").await.unwrap().unwrap().is_held);
    support::advance(Duration::from_secs(60)).await;
    assert_eq!(requests(&fake).len(), 2, "the release and the state read; no renewal");
}

#[tokio::test(start_paused = true)]
async fn a_failed_release_is_an_error_and_the_lock_is_free_once_its_lease_runs_out() {
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    let lease = locks.acquire("job", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(1));

    let err = lease.release().await.unwrap_err();
    assert!(err.is_transient());

    let other = support::locks(&fake);
    let started = support::Stopwatch::start();
    let next = other.acquire("job", LEASE).await.unwrap();
    assert_eq!(started.elapsed(), LEASE, "taken over after a whole lease");
    assert_eq!(next.fencing_token(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_failed_release_in_the_background_is_logged() {
    let events = support::EventIds::global();
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    let lease = locks.acquire("dropped-job", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(1));

    drop(lease);
    settle().await;

    assert_eq!(events.of("dropped-job"), [43]);
    assert!(locks.state("dropped-job").await.unwrap().unwrap().is_held);
}
