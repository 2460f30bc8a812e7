//! The spans of the library: what each carries, what nests under it, and the heartbeat's root
//! spans that follow from the acquire. The holder label is never on a span.

mod support;

use std::time::Duration;

use dynalease::{LockTableOptions, ProcessLocks, RenewOptions};
use support::telemetry::{SpanRecord, Telemetry};
use support::{LEASE, fake, locks, locks_with};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// The names of the SDK's operation spans under `span`.
fn requests_under(telemetry: &Telemetry, span: &SpanRecord) -> Vec<&'static str> {
    telemetry.child_names(span.id).into_iter().filter(|name| name.starts_with("DynamoDB.")).collect()
}

fn assert_no_holder_label(telemetry: &Telemetry, lock: &str, label: &str) {
    for span in telemetry.lock_spans(lock) {
        assert!(span.fields.values().all(|v| !v.contains(label)), "the holder label on {span:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn an_acquire_span_carries_the_table_the_lock_and_the_lease_it_got() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));

    let _lease = locks.acquire("span-acquire", LEASE).await.unwrap();

    let [span] = &telemetry.spans_named("span-acquire", "Lock.Acquire")[..] else { panic!("one acquire span") };
    assert_eq!(span.field("db.collection.name"), Some("Shop"));
    assert_eq!(span.field("dynalease.lock.acquired"), Some("true"));
    assert_eq!(span.field("dynalease.lock.takeover"), Some("false"));
    assert_eq!(span.field("dynalease.lock.fencing_token"), Some("1"));
    assert_eq!(requests_under(&telemetry, span), ["DynamoDB.UpdateItem"]);
    assert_no_holder_label(&telemetry, "span-acquire", "pod-7");
}

#[tokio::test(start_paused = true)]
async fn the_polls_of_a_waiting_acquire_nest_under_its_span() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let (holder, contender) = (locks(&fake), locks(&fake));
    let held = holder.acquire("span-polls", LEASE).await.unwrap();

    let waiting = tokio::spawn(async move { contender.acquire("span-polls", LEASE).await.unwrap() });
    support::advance(Duration::from_secs(25)).await;
    held.release().await.unwrap();
    let lease = waiting.await.unwrap();

    let spans = telemetry.spans_named("span-polls", "Lock.Acquire");
    let span = spans.last().expect("the contender's acquire span");
    assert_eq!(
        requests_under(&telemetry, span),
        [
            "DynamoDB.UpdateItem", // refused: the lock is held
            "DynamoDB.GetItem",    // 10 s
            "DynamoDB.GetItem",    // 20 s
            "DynamoDB.GetItem",    // 30 s: released
            "DynamoDB.UpdateItem", // acquired
        ]
    );
    assert_eq!(span.field("dynalease.lock.fencing_token"), Some(lease.fencing_token().to_string().as_str()));
}

#[tokio::test(start_paused = true)]
async fn a_try_acquire_span_says_it_did_not_acquire_and_names_no_lease() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let (holder, contender) = (locks(&fake), locks(&fake));
    let _held = holder.acquire("span-try", LEASE).await.unwrap();

    assert!(contender.try_acquire("span-try", LEASE).await.unwrap().is_none());

    let [span] = &telemetry.spans_named("span-try", "Lock.TryAcquire")[..] else { panic!("one try span") };
    assert_eq!(span.field("dynalease.lock.acquired"), Some("false"));
    assert_eq!(span.field("dynalease.lock.takeover"), None);
    assert_eq!(span.field("dynalease.lock.fencing_token"), None);
}

#[tokio::test(start_paused = true)]
async fn a_takeover_is_marked_on_the_acquire_span() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks(&fake);
    locks.simulate_holder("span-takeover", LEASE, "crashed-pod").await.unwrap();

    let _lease = locks.acquire("span-takeover", LEASE).await.unwrap();

    let [span] = &telemetry.spans_named("span-takeover", "Lock.Acquire")[..] else { panic!("one acquire span") };
    assert_eq!(span.field("dynalease.lock.takeover"), Some("true"));
    assert_eq!(span.field("dynalease.lock.fencing_token"), Some("2"));
}

#[tokio::test(start_paused = true)]
async fn each_heartbeat_renewal_is_a_root_span_that_follows_from_the_acquire() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));

    let lease = locks.acquire("span-heartbeat", LEASE).instrument(tracing::info_span!("request")).await.unwrap();
    support::advance(Duration::from_secs(25)).await;

    let acquire = &telemetry.spans_named("span-heartbeat", "Lock.Acquire")[0];
    assert!(acquire.parent.is_some(), "the acquire joins the caller's trace");
    let renewals = telemetry.spans_named("span-heartbeat", "Lock.Renew");
    assert_eq!(renewals.len(), 2, "at 10 s and 20 s");
    for renewal in &renewals {
        assert_eq!(renewal.parent, None, "a root span");
        assert_eq!(renewal.follows_from, [acquire.id]);
        assert_eq!(renewal.field("db.collection.name"), Some("Shop"));
        assert_eq!(renewal.field("dynalease.lock.fencing_token"), Some("1"));
        assert_eq!(requests_under(&telemetry, renewal), ["DynamoDB.UpdateItem"]);
    }
    assert_no_holder_label(&telemetry, "span-heartbeat", "pod-7");
    drop(lease);
}

#[tokio::test(start_paused = true)]
async fn an_explicit_renewal_and_a_release_are_spans_in_the_callers_trace() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("span-caller", LEASE).await.unwrap();

    let caller = tracing::info_span!("caller");
    async {
        assert!(lease.renew().await.unwrap());
        lease.release().await.unwrap();
    }
    .instrument(caller.clone())
    .await;

    let caller_id = caller.id().unwrap().into_u64();
    let [renew] = &telemetry.spans_named("span-caller", "Lock.Renew")[..] else { panic!("one renew span") };
    let [release] = &telemetry.spans_named("span-caller", "Lock.Release")[..] else { panic!("one release span") };
    assert_eq!(renew.parent, Some(caller_id));
    assert_eq!(release.parent, Some(caller_id));
    assert_eq!(requests_under(&telemetry, renew), ["DynamoDB.UpdateItem"]);
    assert_eq!(requests_under(&telemetry, release), ["DynamoDB.UpdateItem"]);
    assert_eq!(release.field("dynalease.lock.fencing_token"), Some("1"));
}

#[tokio::test(start_paused = true)]
async fn an_election_contends_in_an_acquire_span_and_records_an_error_of_the_election() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = locks(&fake);

    locks
        .run_as_leader("span-election", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), String>(()) })
        .await
        .unwrap();
    fake.delete_table("Shop");
    let failed = locks
        .run_as_leader("span-election", LEASE, CancellationToken::new(), |_, _| async { Ok::<(), String>(()) })
        .await;

    assert!(failed.is_err());
    let spans = telemetry.spans_named("span-election", "Lock.Acquire");
    assert_eq!(spans.len(), 2);
    assert_eq!(spans[0].field("dynalease.lock.acquired"), Some("true"));
    assert_eq!(spans[0].field("dynalease.lock.fencing_token"), Some("1"));
    assert_eq!(spans[1].field("dynalease.lock.acquired"), None);
    assert_eq!(spans[1].field("error.type"), Some("ResourceNotFoundException"));
}

#[tokio::test(start_paused = true)]
async fn the_process_lock_shape_reports_the_same_spans() {
    let telemetry = Telemetry::global();
    let fake = fake();
    let locks = ProcessLocks::new(locks(&fake));

    let token = locks.create("span-process", LEASE).await.unwrap().unwrap();
    assert!(locks.renew(&token, RenewOptions::new()).await.unwrap());
    assert!(locks.release(&token).await.unwrap());

    let names: Vec<&str> = telemetry.lock_spans("span-process").iter().map(|s| s.name).collect();
    assert_eq!(names, ["Lock.TryAcquire", "Lock.Renew", "Lock.Release"]);
    for span in telemetry.lock_spans("span-process") {
        assert_eq!(requests_under(&telemetry, &span), ["DynamoDB.UpdateItem"], "{}", span.name);
    }
}
