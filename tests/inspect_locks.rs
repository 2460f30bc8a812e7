//! Seeing locks without taking them: `LockTable::describe` for one lock and `LockTable::locks`
//! for every lock of a table, against every store, and what each costs against DynamoDB.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use dynalease::{Error, LockDescription, LockStatus, LockTableOptions};
use dynalease_fake::{Fault, FaultRule};
use futures_util::StreamExt;
use support::{LEASE, advance, fake, locks, locks_with, requests};

/// Every description the listing of `locks` gives, in its order; panics on an error.
async fn listed(locks: &dynalease::LockTable) -> Vec<LockDescription> {
    let mut all = Vec::new();
    let mut listing = locks.locks();
    while let Some(lock) = listing.next().await {
        all.push(lock.expect("a lock of the listing"));
    }
    all
}

store_contract! {
    async fn describing_a_lock_without_an_item_gives_nothing(store) {
        assert_eq!(store.locks().describe("nightly-report").await.unwrap(), None);
    }

    async fn describing_a_held_lock_names_its_holder_token_and_lease_without_taking_it(store) {
        let worker = store.locks_with(LockTableOptions::default().holder_label("pod-7"));
        let operator = store.locks();
        let lease = worker.acquire("nightly-report", LEASE).await.unwrap();

        let described = operator.describe("nightly-report").await.unwrap().expect("held");
        assert_eq!(described.name, "nightly-report");
        assert_eq!(described.status, LockStatus::Held);
        assert_eq!(described.holder_label.as_deref(), Some("pod-7"));
        assert_eq!(described.fencing_token, 1);
        assert_eq!(described.lease_duration, Some(LEASE));
        assert_eq!(described.unchanged_for, Some(Duration::ZERO), "first seen just now");

        assert!(lease.renew().await.unwrap(), "describing took nothing from the holder");
    }

    async fn describing_a_released_lock_shows_it_free_with_the_token_it_keeps(store) {
        let locks = store.locks_with(LockTableOptions::default().holder_label("pod-7"));
        locks.acquire("nightly-report", LEASE).await.unwrap().release().await.unwrap();

        let described = locks.describe("nightly-report").await.unwrap().expect("a released lock keeps its item");
        assert_eq!(described.status, LockStatus::Free);
        assert!(!described.status.is_held());
        assert_eq!((described.holder_label, described.lease_duration, described.unchanged_for), (None, None, None));
        assert_eq!(described.fencing_token, 1);
    }

    async fn a_holder_that_stops_renewing_is_described_as_expired_after_a_whole_lease_unchanged(store) {
        let operator = store.locks();
        operator.simulate_holder("nightly-report", LEASE, "crashed-pod").await.unwrap();

        assert_eq!(operator.describe("nightly-report").await.unwrap().unwrap().status, LockStatus::Held);
        advance(Duration::from_secs(20)).await;
        let later = operator.describe("nightly-report").await.unwrap().unwrap();
        assert_eq!((later.status, later.unchanged_for), (LockStatus::Held, Some(Duration::from_secs(20))));

        advance(Duration::from_secs(10)).await;
        let expired = operator.describe("nightly-report").await.unwrap().unwrap();
        assert_eq!((expired.status, expired.unchanged_for), (LockStatus::Expired, Some(LEASE)));
        assert_eq!(expired.holder_label.as_deref(), Some("crashed-pod"), "the holder stays named");

        let taken = operator.try_acquire("nightly-report", LEASE).await.unwrap();
        assert!(taken.is_some(), "the table that described it expired takes it over");
    }

    async fn every_renewal_of_the_holder_starts_the_unchanged_time_again(store) {
        let (worker, operator) = (store.locks(), store.locks());
        let _lease = worker.acquire("nightly-report", LEASE).await.unwrap();
        operator.describe("nightly-report").await.unwrap();

        advance(Duration::from_secs(9)).await;
        let before = operator.describe("nightly-report").await.unwrap().unwrap();
        assert_eq!(before.unchanged_for, Some(Duration::from_secs(9)));
        // The heartbeat renews 10 s into the lease: a new record version.
        advance(Duration::from_secs(3)).await;
        let after = operator.describe("nightly-report").await.unwrap().unwrap();
        assert_eq!(after.unchanged_for, Some(Duration::ZERO));
        advance(Duration::from_secs(60)).await;
        let held = operator.describe("nightly-report").await.unwrap().unwrap();
        assert_eq!(held.status, LockStatus::Held, "a lease that renews is never described as expired");
    }

    async fn the_listing_gives_every_lock_of_the_table_with_its_state(store) {
        let worker = store.locks_with(LockTableOptions::default().holder_label("pod-7"));
        let operator = store.locks();
        let _report = worker.acquire("nightly-report", LEASE).await.unwrap();
        worker.acquire("cache-refresh", LEASE).await.unwrap().release().await.unwrap();
        operator.simulate_holder("order-sweeper", Duration::from_secs(60), None).await.unwrap();

        let mut all = listed(&operator).await;
        all.sort_by(|a, b| a.name.cmp(&b.name));
        let summary: Vec<_> = all
            .iter()
            .map(|l| (l.name.as_str(), l.status, l.holder_label.as_deref(), l.fencing_token, l.lease_duration))
            .collect();
        assert_eq!(
            summary,
            [
                ("cache-refresh", LockStatus::Free, None, 1, None),
                ("nightly-report", LockStatus::Held, Some("pod-7"), 1, Some(LEASE)),
                ("order-sweeper", LockStatus::Held, None, 1, Some(Duration::from_secs(60))),
            ]
        );
    }

    async fn the_listing_of_a_table_without_locks_is_empty(store) {
        assert!(listed(&store.locks()).await.is_empty());
    }

    async fn the_listing_reads_page_after_page_until_the_last_lock(store) {
        let locks = store.locks();
        // More than one page of a SQL store (500 rows).
        let names: Vec<String> = (0..510).map(|i| format!("job-{i:04}")).collect();
        for name in &names {
            locks.simulate_holder(name, LEASE, None).await.unwrap();
        }
        let mut all: Vec<String> = listed(&locks).await.into_iter().map(|lock| lock.name).collect();
        all.sort();
        assert_eq!(all, names);
    }

    async fn a_listing_remembers_the_holders_it_saw_as_describe_does(store) {
        let operator = store.locks();
        operator.simulate_holder("nightly-report", LEASE, None).await.unwrap();
        listed(&operator).await;

        advance(LEASE).await;
        let listed_again = listed(&operator).await;
        assert_eq!(listed_again[0].status, LockStatus::Expired, "seen unchanged since the first listing");
        assert_eq!(listed_again[0].unchanged_for, Some(LEASE));
    }
}

#[tokio::test(start_paused = true)]
async fn describing_a_held_lock_costs_one_strongly_consistent_read() {
    let fake = fake();
    let operator = locks(&fake);
    let _lease = locks(&fake).acquire("nightly-report", LEASE).await.unwrap();
    fake.clear_request_log();

    operator.describe("nightly-report").await.unwrap();

    assert_eq!(requests(&fake), ["GetItem"]);
    assert!(fake.request_log()[0].consistent_read);
}

#[tokio::test(start_paused = true)]
async fn describing_an_item_that_is_no_lock_names_the_lock_and_the_table() {
    let fake = fake();
    put(&fake, "LOCK#nightly-report", "LOCK", &[("owner", "someone")]).await;

    let err = locks(&fake).describe("nightly-report").await.unwrap_err();

    assert!(
        matches!(&err, Error::NotALock { lock, table, .. } if lock == "nightly-report" && table == "Shop"),
        "{err:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_lock_name_that_cannot_be_a_key_is_refused_before_anything_is_sent() {
    let fake = fake();
    fake.clear_request_log();
    let err = locks(&fake).describe("").await.unwrap_err();
    assert!(matches!(err, Error::InvalidLockName { .. }), "{err:?}");
    assert!(requests(&fake).is_empty());
}

#[tokio::test(start_paused = true)]
async fn the_listing_scans_for_lock_items_and_leaves_out_the_entities_of_the_table() {
    let fake = fake();
    let locks = locks(&fake);
    let _lease = locks.acquire("nightly-report", LEASE).await.unwrap();
    put(&fake, "ORDER#1", "ORDER", &[("_type", "ORDER"), ("owner", "alice")]).await;
    // `_type` is LOCK, but the key is no lock's: not a lock of this library.
    put(&fake, "ORDER#2", "LOCK", &[("_type", "LOCK")]).await;
    put(&fake, "LOCK#shipping", "ITEM", &[("_type", "LOCK")]).await;
    fake.clear_request_log();

    let all = listed(&locks).await;

    assert_eq!(all.iter().map(|lock| lock.name.as_str()).collect::<Vec<_>>(), ["nightly-report"]);
    assert_eq!(requests(&fake), ["Scan"]);
    assert!(fake.request_log()[0].consistent_read);
}

#[tokio::test(start_paused = true)]
async fn the_listing_follows_the_pages_of_the_scan_through_a_table_larger_than_a_page() {
    let fake = fake();
    let locks = locks(&fake);
    // 1 MB a page: 300 entities of 4 KB make two pages at least, with locks on both sides.
    for i in 0..300 {
        let padding = "x".repeat(4000);
        put(&fake, &format!("ORDER#{i:03}"), "ORDER", &[("_type", "ORDER"), ("notes", padding.as_str())]).await;
        if i % 100 == 0 {
            locks.simulate_holder(&format!("job-{i:03}"), LEASE, None).await.unwrap();
        }
    }
    fake.clear_request_log();

    let mut names: Vec<String> = listed(&locks).await.into_iter().map(|lock| lock.name).collect();
    names.sort();

    assert_eq!(names, ["job-000", "job-100", "job-200"]);
    assert!(requests(&fake).len() >= 2, "{:?}", requests(&fake));
    assert!(requests(&fake).iter().all(|op| op == "Scan"));
}

#[tokio::test(start_paused = true)]
async fn a_lock_item_that_cannot_be_read_comes_as_an_error_and_the_listing_goes_on() {
    let fake = fake();
    let locks = locks(&fake);
    put(&fake, "LOCK#broken", "LOCK", &[("_type", "LOCK"), ("owner", "someone")]).await;
    locks.simulate_holder("working", LEASE, None).await.unwrap();

    let mut listing = locks.locks();
    let mut names = Vec::new();
    let mut broken = Vec::new();
    while let Some(lock) = listing.next().await {
        match lock {
            Ok(lock) => names.push(lock.name),
            Err(Error::NotALock { lock, .. }) => broken.push(lock),
            Err(other) => panic!("{other:?}"),
        }
    }

    assert_eq!((names, broken), (vec![String::from("working")], vec![String::from("broken")]));
}

#[tokio::test(start_paused = true)]
async fn a_scan_that_fails_ends_the_listing_with_its_error() {
    let fake = fake();
    let locks = dynalease::LockTable::new(support::table(support::client_without_retries(&fake)), Default::default())
        .expect("valid");
    locks.simulate_holder("nightly-report", LEASE, None).await.unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError).operation("Scan").times(1));

    let results: Vec<_> = locks.locks().collect().await;

    assert_eq!(results.len(), 1, "{results:?}");
    assert!(matches!(&results[0], Err(err @ Error::DynamoDb { operation: "Scan", .. }) if err.is_transient()));
}

#[tokio::test(start_paused = true)]
async fn the_listing_of_a_table_that_does_not_exist_is_table_not_found() {
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default());
    fake.delete_table("Shop");

    let results: Vec<_> = locks.locks().collect().await;

    assert!(matches!(results.as_slice(), [Err(Error::TableNotFound { .. })]), "{results:?}");
}

/// Puts an item at (`pk`, `sk`) with string attributes, as an application would.
async fn put(fake: &dynalease_fake::FakeDynamoDb, pk: &str, sk: &str, attributes: &[(&str, &str)]) {
    let mut request = fake
        .client()
        .put_item()
        .table_name("Shop")
        .item("pk", AttributeValue::S(pk.into()))
        .item("sk", AttributeValue::S(sk.into()));
    for (name, value) in attributes {
        request = request.item(*name, AttributeValue::S((*value).into()));
    }
    request.send().await.expect("put the item");
}
