//! The end of a lock table: `LockTable::shutdown` releases every lease the table holds, each
//! with its one conditional write, waits for them within a bound, ends the leases, stops the
//! elections and refuses new acquires; and what becomes of a lease dropped just before the
//! runtime shuts down.

mod support;

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use dynalease::{Error, LeaderError, LockStatus, LockTable, LossReason, ProcessLocks};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
use support::{LEASE, Stopwatch, advance, client_without_retries, fake, locks, requests, settle, table};
use tokio_util::sync::CancellationToken;

const BOUND: Duration = Duration::from_secs(5);

store_contract! {
    async fn a_shutdown_releases_every_lease_of_the_table_and_ends_them(store) {
        let (locks, other) = (store.locks(), store.locks());
        let report = locks.acquire("report", LEASE).await.unwrap();
        let sweeper = locks.acquire("sweeper", LEASE).await.unwrap();
        let elsewhere = other.acquire("elsewhere", LEASE).await.unwrap();

        let done = locks.shutdown(BOUND).await;

        assert_eq!((done.released, done.failed, done.unanswered), (2, 0, 0));
        assert!(done.is_complete());
        assert!(report.ended().is_cancelled() && sweeper.ended().is_cancelled());
        assert_eq!(report.loss_reason(), None, "released, not lost");
        for name in ["report", "sweeper"] {
            assert_eq!(other.describe(name).await.unwrap().unwrap().status, LockStatus::Free, "{name}");
        }
        assert!(!elsewhere.ended().is_cancelled(), "the leases of another table are its own");
        assert_eq!(other.describe("elsewhere").await.unwrap().unwrap().status, LockStatus::Held);
    }

    async fn a_table_shut_down_refuses_every_acquire_with_a_clear_error(store) {
        let locks = store.locks();
        locks.shutdown(BOUND).await;

        let shut = |err: Error| matches!(err, Error::ShutDown { .. });
        assert!(shut(locks.acquire("job", LEASE).await.unwrap_err()));
        assert!(shut(locks.try_acquire("job", LEASE).await.unwrap_err()));
        assert!(shut(locks.try_acquire_for("job", LEASE, LEASE).await.unwrap_err()));
        let processes = ProcessLocks::new(locks.clone());
        assert!(shut(processes.create("job", LEASE).await.unwrap_err()));
        assert!(shut(processes.scope("job", LEASE).await.unwrap_err()));
        let election = locks
            .run_as_leader("job", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), Error>(()) })
            .await;
        assert!(matches!(election, Err(LeaderError::Election(Error::ShutDown { .. }))), "{election:?}");
        assert_eq!(locks.describe("job").await.unwrap(), None, "nothing was written");
        assert!(locks.shutdown(BOUND).await.is_complete(), "a second shutdown has nothing to do");
    }
}

#[tokio::test(start_paused = true)]
async fn each_lease_costs_one_conditional_write_and_a_lost_one_none() {
    let fake = fake();
    let locks = locks(&fake);
    let _held = locks.acquire("held", LEASE).await.unwrap();
    let lost = locks.acquire("lost", LEASE).await.unwrap();
    locks.simulate_holder("lost", LEASE, "another-pod").await.unwrap();
    assert!(!lost.renew().await.unwrap());
    fake.clear_request_log();

    let done = locks.shutdown(BOUND).await;

    assert_eq!(requests(&fake), ["UpdateItem"]);
    assert_eq!(done.released, 1);
    assert_eq!(lost.loss_reason(), Some(LossReason::TakenOver));
    assert_eq!(locks.describe("lost").await.unwrap().unwrap().holder_label.as_deref(), Some("another-pod"));
}

#[tokio::test(start_paused = true)]
async fn an_acquire_waiting_for_a_held_lock_fails_at_once_when_the_table_shuts_down() {
    let fake = fake();
    let (holder, locks) = (support::locks(&fake), support::locks(&fake));
    let _held = holder.acquire("job", LEASE).await.unwrap();
    let waiting = tokio::spawn({
        let locks = locks.clone();
        async move { locks.acquire("job", LEASE).await }
    });
    let bounded = tokio::spawn({
        let locks = locks.clone();
        async move { locks.try_acquire_for("job", LEASE, LEASE * 2).await }
    });
    advance(Duration::from_secs(3)).await;

    let watch = Stopwatch::start();
    locks.shutdown(BOUND).await;
    let (waited, bounded) = (waiting.await.unwrap(), bounded.await.unwrap());

    assert!(matches!(waited, Err(Error::ShutDown { .. })), "{waited:?}");
    assert!(matches!(bounded, Err(Error::ShutDown { .. })), "{bounded:?}");
    assert_eq!(watch.elapsed(), Duration::ZERO, "no poll waited for");
}

#[tokio::test(start_paused = true)]
async fn an_acquire_whose_write_was_under_way_gives_the_lock_back_and_fails() {
    let fake = fake();
    let locks = locks(&fake);
    fake.inject(FaultRule::new(Fault::Latency(Duration::from_secs(2))).operation("UpdateItem").times(1));
    let acquiring = tokio::spawn({
        let locks = locks.clone();
        async move { locks.acquire("job", LEASE).await }
    });
    advance(Duration::from_secs(1)).await;

    locks.shutdown(BOUND).await;
    let acquired = acquiring.await.unwrap();

    assert!(matches!(acquired, Err(Error::ShutDown { .. })), "{acquired:?}");
    let described = support::locks(&fake).describe("job").await.unwrap().unwrap();
    assert_eq!((described.status, described.fencing_token), (LockStatus::Free, 1), "won, then released");
}

#[tokio::test(start_paused = true)]
async fn a_leading_election_releases_its_term_and_returns_cancelled() {
    let fake = fake();
    let locks = locks(&fake);
    let election = tokio::spawn({
        let locks = locks.clone();
        async move {
            locks
                .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_lease, stop| async move {
                    stop.cancelled().await;
                    Ok::<&str, Error>("the work saw its token cancelled")
                })
                .await
        }
    });
    advance(Duration::from_secs(3)).await;
    fake.clear_request_log();

    let done = locks.shutdown(BOUND).await;
    let ended = election.await.unwrap();

    assert!(matches!(ended, Err(LeaderError::Cancelled)), "{ended:?}");
    assert_eq!(done.released, 1);
    assert_eq!(requests(&fake), ["UpdateItem"], "the term's lease released once");
    let described = support::locks(&fake).describe("sweeper").await.unwrap().unwrap();
    assert_eq!(described.status, LockStatus::Free);
}

#[tokio::test(start_paused = true)]
async fn a_waiting_election_returns_cancelled() {
    let fake = fake();
    let (holder, locks) = (support::locks(&fake), support::locks(&fake));
    let _held = holder.acquire("sweeper", LEASE).await.unwrap();
    let election = tokio::spawn({
        let locks = locks.clone();
        async move {
            locks.run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), Error>(()) }).await
        }
    });
    advance(Duration::from_secs(3)).await;

    locks.shutdown(BOUND).await;

    assert!(matches!(election.await.unwrap(), Err(LeaderError::Cancelled)));
}

#[tokio::test(start_paused = true)]
async fn a_release_unanswered_within_the_bound_is_reported_and_goes_on() {
    let fake = fake();
    let locks = locks(&fake);
    let _lease = locks.acquire("job", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::Latency(Duration::from_secs(20))).operation("UpdateItem").times(1));

    let watch = Stopwatch::start();
    let done = locks.shutdown(BOUND).await;

    assert_eq!(watch.elapsed(), BOUND, "it waits its bound, and no longer");
    assert_eq!((done.released, done.unanswered), (0, 1));
    assert!(!done.is_complete());
    advance(Duration::from_secs(20)).await;
    settle().await;
    assert_eq!(support::locks(&fake).describe("job").await.unwrap().unwrap().status, LockStatus::Free);
}

#[tokio::test(start_paused = true)]
async fn a_release_that_fails_is_reported() {
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), Default::default()).unwrap();
    let _lease = locks.acquire("job", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem"));

    let done = locks.shutdown(BOUND).await;

    assert_eq!((done.released, done.failed, done.unanswered), (0, 1, 0));
}

#[tokio::test(start_paused = true)]
async fn a_shutdown_waits_for_the_release_of_a_lease_dropped_before_it() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::Latency(Duration::from_secs(2))).operation("UpdateItem").times(1));
    drop(lease);

    let watch = Stopwatch::start();
    let done = locks.shutdown(BOUND).await;

    assert_eq!(watch.elapsed(), Duration::from_secs(2), "until the dropped lease's release was answered");
    assert_eq!((done.released, done.unanswered), (0, 0), "not its own release, but none left under way");
    assert_eq!(support::locks(&fake).describe("job").await.unwrap().unwrap().status, LockStatus::Free);
}

#[tokio::test(start_paused = true)]
async fn shutting_down_twice_releases_nothing_more() {
    let fake = fake();
    let locks = locks(&fake);
    let _lease = locks.acquire("job", LEASE).await.unwrap();
    locks.shutdown(BOUND).await;
    fake.clear_request_log();

    let again = locks.clone().shutdown(BOUND).await;

    assert_eq!(again, dynalease::ShutdownReport::default());
    assert!(requests(&fake).is_empty());
}

#[tokio::test(start_paused = true)]
async fn tokens_of_the_process_lock_shape_are_left_to_their_holders() {
    let fake = fake();
    let processes = ProcessLocks::new(locks(&fake));
    let token = processes.create("import", LEASE).await.unwrap().expect("free");

    processes.lock_table().shutdown(BOUND).await;

    assert!(processes.exists("import").await.unwrap(), "a token may have been handed to another process");
    assert!(processes.release(&token).await.unwrap(), "released by token after the shutdown");
}

/// The item of lock `name` in the fake, looked at from outside any runtime.
fn owner_of(fake: &FakeDynamoDb, name: &str) -> Option<String> {
    let key = HashMap::from([
        (String::from("pk"), AttributeValue::S(format!("LOCK#{name}"))),
        (String::from("sk"), AttributeValue::S(String::from("LOCK"))),
    ]);
    let item = fake.read_item("Shop", &key).expect("the lock has an item");
    item.get("owner").and_then(|owner| owner.as_s().ok()).cloned()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().expect("a runtime")
}

#[test]
fn a_lease_dropped_just_before_its_runtime_shuts_down_is_not_released() {
    let fake = fake();
    let runtime = runtime();
    runtime.block_on(async {
        let lease = locks(&fake).acquire("job", LEASE).await.unwrap();
        drop(lease); // its release is a task of this runtime, which ends before the task runs
    });
    drop(runtime);

    assert!(owner_of(&fake, "job").is_some(), "held until its lease runs out");
}

#[test]
fn a_shutdown_before_the_runtime_ends_releases_a_lease_dropped_just_before() {
    let fake = fake();
    let runtime = runtime();
    runtime.block_on(async {
        let locks = locks(&fake);
        let lease = locks.acquire("job", LEASE).await.unwrap();
        drop(lease);
        locks.shutdown(BOUND).await;
    });
    drop(runtime);

    assert_eq!(owner_of(&fake, "job"), None, "released");
}

#[test]
fn a_lease_released_before_the_runtime_ends_is_released() {
    let fake = fake();
    let runtime = runtime();
    runtime.block_on(async {
        let lease = locks(&fake).acquire("job", LEASE).await.unwrap();
        lease.release().await.unwrap();
    });
    drop(runtime);

    assert_eq!(owner_of(&fake, "job"), None);
}
