//! Rule 8: the holder label, the time-to-live attribute, and the injected clock and ids.

mod support;

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::types::AttributeValue;
use dynalease::{Error, IdSource, LockTable, LockTableOptions, SeededIds};
use support::{LEASE, OffsetClock, fake, locks, locks_with, n, raw_item, s, table};

const DAY: Duration = Duration::from_secs(24 * 3600);

fn options_error(options: LockTableOptions) -> String {
    let fake = fake();
    match LockTable::new(table(fake.client()), options) {
        Err(err @ Error::InvalidOptions { .. }) => err.to_string(),
        other => panic!("expected invalid options, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn the_holder_label_is_written_on_acquire_and_renewal_and_removed_on_release() {
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));
    let lease = locks.acquire("job", LEASE).await.unwrap();
    assert_eq!(s(&raw_item(&fake, "job").await.unwrap(), "holder"), Some("pod-7"));

    // Someone writes over the label; the next renewal writes it again.
    fake.client()
        .update_item()
        .table_name("Shop")
        .key("pk", AttributeValue::S("LOCK#job".into()))
        .key("sk", AttributeValue::S("LOCK".into()))
        .update_expression("SET holder = :x")
        .expression_attribute_values(":x", AttributeValue::S("scribble".into()))
        .send()
        .await
        .unwrap();
    assert!(lease.renew().await.unwrap(), "the label is not part of the condition");
    assert_eq!(s(&raw_item(&fake, "job").await.unwrap(), "holder"), Some("pod-7"));

    lease.release().await.unwrap();
    assert_eq!(s(&raw_item(&fake, "job").await.unwrap(), "holder"), None);
}

#[tokio::test(start_paused = true)]
async fn an_acquire_without_a_label_removes_the_label_of_the_holder_before() {
    let fake = fake();
    let unlabelled = locks(&fake);
    unlabelled.simulate_holder("job", LEASE, "crashed-pod").await.unwrap();

    let lease = unlabelled.acquire("job", LEASE).await.unwrap();

    assert_eq!(lease.fencing_token(), 2);
    let state = unlabelled.state("job").await.unwrap().unwrap();
    assert!(state.is_held);
    assert_eq!(state.holder_label, None);
}

#[tokio::test(start_paused = true)]
async fn processes_with_and_without_labels_contend_as_equals() {
    let fake = fake();
    let labelled = locks_with(&fake, LockTableOptions::default().holder_label("pod-1"));
    let unlabelled = locks(&fake);

    let first = unlabelled.acquire("job", LEASE).await.unwrap();
    assert!(labelled.try_acquire("job", LEASE).await.unwrap().is_none());
    first.release().await.unwrap();
    let second = labelled.acquire("job", LEASE).await.unwrap();
    assert!(unlabelled.try_acquire("job", LEASE).await.unwrap().is_none());
    second.release().await.unwrap();
    let third = unlabelled.try_acquire("job", LEASE).await.unwrap().expect("free");
    assert_eq!(third.fencing_token(), 3);
}

#[test]
fn a_holder_label_has_1_to_256_characters() {
    assert!(options_error(LockTableOptions::default().holder_label("")).contains("1 to 256"));
    assert!(options_error(LockTableOptions::default().holder_label("x".repeat(257))).contains("257"));
    let fake = fake();
    // 256 characters of two bytes each: characters count, not bytes.
    let label = "é".repeat(256);
    assert!(LockTable::new(table(fake.client()), LockTableOptions::default().holder_label(label)).is_ok());
}

#[tokio::test(start_paused = true)]
async fn the_time_to_live_is_the_wall_clock_plus_the_retention_on_every_write() {
    let fake = fake();
    let wall = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let clock = OffsetClock::new(Duration::ZERO, wall);
    let retention = 7 * DAY;
    let locks = locks_with(&fake, LockTableOptions::default().time_to_live("expiresAt", retention).clock(clock));
    let expected = |elapsed: u64| 1_700_000_000 + retention.as_secs() + elapsed;

    let lease = locks.acquire("job", LEASE).await.unwrap();
    assert_eq!(n(&raw_item(&fake, "job").await.unwrap(), "expiresAt"), Some(expected(0)));

    support::advance(Duration::from_secs(11)).await; // the heartbeat renewed at 10 s
    assert_eq!(n(&raw_item(&fake, "job").await.unwrap(), "expiresAt"), Some(expected(10)));

    lease.release().await.unwrap();
    assert_eq!(n(&raw_item(&fake, "job").await.unwrap(), "expiresAt"), Some(expected(11)));
}

#[tokio::test(start_paused = true)]
async fn without_time_to_live_no_expiry_is_written() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    lease.release().await.unwrap();

    let item = raw_item(&fake, "job").await.unwrap();
    assert_eq!(item.len(), 5, "pk, sk, _type, rvn, fence: {item:?}");
}

#[test]
fn the_time_to_live_attribute_is_neither_a_key_nor_a_lock_attribute() {
    for attribute in ["pk", "sk", "_type", "owner", "rvn", "fence", "leaseMs", "holder", ""] {
        let options = LockTableOptions::default().time_to_live(attribute, 30 * DAY);
        options_error(options);
    }
    let fake = fake();
    let fine = LockTableOptions::default().time_to_live("expiresAt", LockTableOptions::DEFAULT_RETENTION);
    assert!(LockTable::new(table(fake.client()), fine).is_ok());
}

#[test]
fn the_retention_is_at_least_a_day() {
    let short = LockTableOptions::default().time_to_live("expiresAt", DAY - Duration::from_secs(1));
    assert!(options_error(short).contains("shorter than one day"));
    let fake = fake();
    let day = LockTableOptions::default().time_to_live("expiresAt", DAY);
    assert!(LockTable::new(table(fake.client()), day).is_ok());
}

#[tokio::test(start_paused = true)]
async fn owner_and_record_versions_come_from_the_injected_id_source() {
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().id_source(Arc::new(SeededIds::new(9))));
    let expected = SeededIds::new(9);

    let lease = locks.acquire("job", LEASE).await.unwrap();
    let item = raw_item(&fake, "job").await.unwrap();
    assert_eq!(s(&item, "owner"), Some(expected.next_id().as_str()));
    assert_eq!(s(&item, "rvn"), Some(expected.next_id().as_str()));

    assert!(lease.renew().await.unwrap());
    let item = raw_item(&fake, "job").await.unwrap();
    assert_eq!(s(&item, "rvn"), Some(expected.next_id().as_str()));
}

#[tokio::test(start_paused = true)]
async fn leases_are_timed_on_the_injected_clock() {
    let fake = fake();
    // A clock whose readings are nowhere near tokio's: only its elapsed time matters.
    let clock = OffsetClock::new(Duration::from_secs(1 << 40), SystemTime::UNIX_EPOCH);
    let locks = locks_with(&fake, LockTableOptions::default().clock(clock));
    let start = fake.now();

    let _lease = locks.acquire("job", LEASE).await.unwrap();
    support::advance(Duration::from_secs(21)).await;

    let renewals: Vec<u64> = fake.request_log().iter().map(|r| r.at.duration_since(start).unwrap().as_secs()).collect();
    assert_eq!(renewals, [0, 10, 20]);
}
