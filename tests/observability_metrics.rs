//! The counters of the library through the `metrics` facade: labelled with the table, never
//! with the lock name or the holder label.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::config::retry::RetryConfig;
use dynalease::{LockTable, LockTableOptions};
use dynalease_fake::{Fault, FaultRule};
use support::telemetry::Counters;
use support::{LEASE, client_without_retries, fake, locks, locks_with, table};
use tokio_util::sync::CancellationToken;

const TABLE: (&str, &str) = ("db.collection.name", "Shop");

/// No counter is labelled with the lock name, the holder label or any label but those named.
fn assert_labels_are_dimensions_only(counters: &Counters, secrets: &[&str]) {
    let allowed = ["db.collection.name", "dynalease.lock.takeover", "dynalease.lock.loss_reason", "error.type"];
    for ((name, labels), _) in counters.snapshot() {
        for (key, value) in labels {
            assert!(allowed.contains(&key.as_str()), "{name} has the label {key}");
            assert!(!secrets.contains(&value.as_str()), "{name} has {key} = {value}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn acquisitions_count_each_lease_with_whether_it_took_the_lock_over() {
    let counters = Counters::default();
    let _recording = counters.install();
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));

    locks.acquire("nightly-report", LEASE).await.unwrap().release().await.unwrap();
    locks.simulate_holder("nightly-report", LEASE, "crashed-pod").await.unwrap();
    let _lease = locks.acquire("nightly-report", LEASE).await.unwrap();

    let acquisitions = "dynalease.lock.acquisitions";
    assert_eq!(counters.get(acquisitions, &[TABLE, ("dynalease.lock.takeover", "false")]), 1);
    assert_eq!(counters.get(acquisitions, &[TABLE, ("dynalease.lock.takeover", "true")]), 1);
    assert_labels_are_dimensions_only(&counters, &["nightly-report", "pod-7", "crashed-pod"]);
}

#[tokio::test(start_paused = true)]
async fn renewals_count_each_renewal_with_the_error_type_of_one_that_failed() {
    let counters = Counters::default();
    let _recording = counters.install();
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").after(1).times(1));

    let lease = locks.acquire("job", LEASE).await.unwrap();
    // 10 s: fails; 10.1 s: renewed; 20.1 s: renewed.
    support::advance(Duration::from_secs(25)).await;
    locks.simulate_holder("job", LEASE, None).await.unwrap();
    assert!(!lease.renew().await.unwrap());

    let renewals = "dynalease.lock.renewals";
    assert_eq!(counters.get(renewals, &[TABLE]), 2);
    assert_eq!(counters.get(renewals, &[TABLE, ("error.type", "InternalServerError")]), 1);
    assert_eq!(counters.get(renewals, &[TABLE, ("error.type", "ConditionalCheckFailedException")]), 1);
    assert_labels_are_dimensions_only(&counters, &["job"]);
}

#[tokio::test(start_paused = true)]
async fn losses_count_each_lost_lease_with_its_reason_and_a_release_is_no_loss() {
    let counters = Counters::default();
    let _recording = counters.install();
    let fake = fake();
    let locks = locks(&fake);
    let config = fake.client_named("never-renewed").config().to_builder();
    let client = aws_sdk_dynamodb::Client::from_conf(config.retry_config(RetryConfig::disabled()).build());
    let never_renewed = LockTable::new(table(client), LockTableOptions::default()).unwrap();

    let taken = locks.acquire("a", LEASE).await.unwrap();
    locks.simulate_holder("a", LEASE, None).await.unwrap();
    assert!(!taken.renew().await.unwrap());
    let deleted = locks.acquire("b", LEASE).await.unwrap();
    locks.simulate_delete("b").await.unwrap();
    assert!(!deleted.renew().await.unwrap());
    let expired = never_renewed.acquire("c", LEASE).await.unwrap();
    fake.inject(FaultRule::new(Fault::Throttle).operation("UpdateItem").client("never-renewed"));
    expired.ended().cancelled().await;
    locks.acquire("d", LEASE).await.unwrap().release().await.unwrap();

    let losses = "dynalease.lock.losses";
    for reason in ["taken_over", "deleted", "expired"] {
        assert_eq!(counters.get(losses, &[TABLE, ("dynalease.lock.loss_reason", reason)]), 1, "{reason}");
    }
    let total: u64 = counters.snapshot().iter().filter(|((name, _), _)| name == losses).map(|(_, n)| n).sum();
    assert_eq!(total, 3);
}

#[tokio::test(start_paused = true)]
async fn contention_retries_count_every_transient_failure_of_an_election() {
    let counters = Counters::default();
    let _recording = counters.install();
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    fake.inject(FaultRule::new(Fault::Throttle).operation("UpdateItem").times(3));
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").times(1));

    locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), String>(()) })
        .await
        .unwrap();

    let retries = "dynalease.lock.contention_retries";
    assert_eq!(counters.get(retries, &[TABLE, ("error.type", "ProvisionedThroughputExceededException")]), 3);
    assert_eq!(counters.get(retries, &[TABLE, ("error.type", "InternalServerError")]), 1);
    assert_labels_are_dimensions_only(&counters, &["sweeper"]);
}

#[tokio::test(start_paused = true)]
async fn a_request_without_an_answer_is_typed_by_its_failure() {
    let counters = Counters::default();
    let _recording = counters.install();
    let fake = fake();
    let locks = LockTable::new(table(client_without_retries(&fake)), LockTableOptions::default()).unwrap();
    fake.inject(FaultRule::new(Fault::LostResponse).operation("UpdateItem").times(1));

    locks
        .run_as_leader("sweeper", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), String>(()) })
        .await
        .unwrap();

    let snapshot = counters.snapshot();
    let typed: Vec<&str> = snapshot
        .iter()
        .filter(|((name, _), _)| name == "dynalease.lock.contention_retries")
        .flat_map(|((_, labels), _)| labels.iter().filter(|(k, _)| k == "error.type").map(|(_, v)| v.as_str()))
        .collect();
    assert_eq!(typed.len(), 1);
    assert!(["dispatch_failure", "response_error", "timeout"].contains(&typed[0]), "{typed:?}");
}
