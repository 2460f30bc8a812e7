//! Rule 1: the lock item, attribute by attribute, and what release and delete do to it.

mod support;

use std::time::Duration;

use dynalease::{LockTable, LockTableOptions, TableRef};
use support::{LEASE, fake, locks, locks_with, n, raw_item, s};

#[tokio::test(start_paused = true)]
async fn a_held_lock_is_one_item_with_the_lock_attributes() {
    let fake = fake();
    let locks = locks_with(&fake, LockTableOptions::default().holder_label("pod-7"));

    let lease = locks.acquire("nightly-report", LEASE).await.unwrap();

    let item = raw_item(&fake, "nightly-report").await.expect("the lock item");
    let names: Vec<&str> = item.keys().map(String::as_str).collect();
    assert_eq!(names, ["_type", "fence", "holder", "leaseMs", "owner", "pk", "rvn", "sk"]);
    assert_eq!(s(&item, "pk"), Some("LOCK#nightly-report"));
    assert_eq!(s(&item, "sk"), Some("LOCK"));
    assert_eq!(s(&item, "_type"), Some("LOCK"));
    assert_eq!(s(&item, "holder"), Some("pod-7"));
    assert_eq!(n(&item, "leaseMs"), Some(30_000));
    assert_eq!(n(&item, "fence"), Some(1));
    assert_eq!(lease.fencing_token(), 1);
    assert!(s(&item, "owner").is_some_and(|o| !o.is_empty()));
    assert!(s(&item, "rvn").is_some_and(|r| !r.is_empty()));
}

#[tokio::test(start_paused = true)]
async fn a_table_without_sort_key_keys_the_lock_by_partition_key_alone() {
    let fake = dynalease_fake::FakeDynamoDb::new();
    fake.create_table("Locks", "id", None);
    let locks = LockTable::new(
        TableRef::builder(fake.client(), "Locks").partition_key("id").build().unwrap(),
        LockTableOptions::default(),
    )
    .unwrap();

    let _lease = locks.acquire("job", LEASE).await.unwrap();

    let item = fake
        .client()
        .get_item()
        .table_name("Locks")
        .key("id", aws_sdk_dynamodb::types::AttributeValue::S("LOCK#job".into()))
        .send()
        .await
        .unwrap()
        .item
        .expect("the lock item");
    assert!(item.contains_key("owner"));
    assert_eq!(item.len(), 6, "id, _type, owner, rvn, fence, leaseMs: {item:?}");
}

#[tokio::test(start_paused = true)]
async fn every_renewal_writes_a_new_record_version_and_keeps_the_owner() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("job", LEASE).await.unwrap();
    let before = raw_item(&fake, "job").await.unwrap();

    assert!(lease.renew().await.unwrap());
    let after = raw_item(&fake, "job").await.unwrap();

    assert_ne!(s(&before, "rvn"), s(&after, "rvn"));
    assert_eq!(s(&before, "owner"), s(&after, "owner"));
    assert_eq!(n(&after, "fence"), Some(1), "a renewal leaves the fence alone");
}

#[tokio::test(start_paused = true)]
async fn every_acquire_raises_the_fence_by_one_and_release_keeps_it() {
    let fake = fake();
    let locks = locks(&fake);

    for expected in 1..=3 {
        let lease = locks.acquire("job", LEASE).await.unwrap();
        assert_eq!(lease.fencing_token(), expected);
        lease.release().await.unwrap();

        let item = raw_item(&fake, "job").await.expect("release keeps the item");
        assert_eq!(n(&item, "fence"), Some(expected));
        assert_eq!(s(&item, "owner"), None);
        assert_eq!(n(&item, "leaseMs"), None);
        assert_eq!(s(&item, "_type"), Some("LOCK"));
    }
}

#[tokio::test(start_paused = true)]
async fn deleting_the_item_starts_the_token_at_one_again() {
    let fake = fake();
    let locks = locks(&fake);
    let first = locks.acquire("job", LEASE).await.unwrap();
    first.release().await.unwrap();
    let second = locks.acquire("job", LEASE).await.unwrap();
    assert_eq!(second.fencing_token(), 2);
    second.release().await.unwrap();

    fake.client()
        .delete_item()
        .table_name("Shop")
        .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("LOCK#job".into()))
        .key("sk", aws_sdk_dynamodb::types::AttributeValue::S("LOCK".into()))
        .send()
        .await
        .unwrap();

    let third = locks.acquire("job", Duration::from_secs(10)).await.unwrap();
    assert_eq!(third.fencing_token(), 1);
}
