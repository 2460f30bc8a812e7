//! Rule 7: a transaction under `fenced_by` commits only while the lease holds its lock, and its
//! error tells a lost lease from the caller's own failed conditions.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use dynalease::{HeldCheck, Lease, TransactWriteExt};
use support::{LEASE, fake, locks};

fn put_order(id: &str, status: &str) -> TransactWriteItem {
    let put = Put::builder()
        .table_name("Shop")
        .item("pk", AttributeValue::S(format!("ORDER#{id}")))
        .item("sk", AttributeValue::S("ORDER".into()))
        .item("status", AttributeValue::S(status.into()))
        .build()
        .unwrap();
    TransactWriteItem::builder().put(put).build()
}

fn put_new_order(id: &str) -> TransactWriteItem {
    let put = Put::builder()
        .table_name("Shop")
        .item("pk", AttributeValue::S(format!("ORDER#{id}")))
        .item("sk", AttributeValue::S("ORDER".into()))
        .condition_expression("attribute_not_exists(pk)")
        .build()
        .unwrap();
    TransactWriteItem::builder().put(put).build()
}

async fn status(client: &Client, id: &str) -> Option<String> {
    client
        .get_item()
        .table_name("Shop")
        .key("pk", AttributeValue::S(format!("ORDER#{id}")))
        .key("sk", AttributeValue::S("ORDER".into()))
        .send()
        .await
        .unwrap()
        .item
        .and_then(|item| item.get("status").and_then(|s| s.as_s().ok()).cloned())
}

/// Ships order 1 under `lease`; `Err(true)` when the lease was lost.
async fn ship(client: &Client, lease: &Lease) -> Result<(), bool> {
    let mut held = HeldCheck::default();
    client
        .transact_write_items()
        .transact_items(put_order("0", "audit"))
        .fenced_by_marked(lease, &mut held)
        .transact_items(put_order("1", "shipped"))
        .send()
        .await
        .map(drop)
        .map_err(|err| held.lost_lease(&err))
}

#[tokio::test(start_paused = true)]
async fn a_transaction_commits_while_the_lease_holds_the_lock() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();

    client.transact_write_items().fenced_by(&lease).transact_items(put_order("1", "shipped")).send().await.unwrap();

    assert_eq!(status(&client, "1").await.as_deref(), Some("shipped"));
}

#[tokio::test(start_paused = true)]
async fn a_transaction_after_a_takeover_is_cancelled_as_a_lost_lease() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
    // The process does not know yet: its next renewal is 10 s away.
    locks.simulate_holder("order-sweeper", LEASE, "another-pod").await.unwrap();
    assert!(!lease.ended().is_cancelled());

    assert_eq!(ship(&client, &lease).await, Err(true));
    assert_eq!(status(&client, "1").await, None, "nothing of the transaction was written");
    assert_eq!(status(&client, "0").await, None);
}

#[tokio::test(start_paused = true)]
async fn a_transaction_after_the_lock_item_was_deleted_is_cancelled_as_a_lost_lease() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
    locks.simulate_delete("order-sweeper").await.unwrap();

    assert_eq!(ship(&client, &lease).await, Err(true));
}

#[tokio::test(start_paused = true)]
async fn a_transaction_after_a_release_and_a_new_acquire_by_the_same_table_is_refused() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let old = locks.acquire("order-sweeper", LEASE).await.unwrap();
    let mut held = HeldCheck::default();
    let stale = client.transact_write_items().fenced_by_marked(&old, &mut held);
    old.release().await.unwrap();
    let _new = locks.acquire("order-sweeper", LEASE).await.unwrap();

    let err = stale.transact_items(put_order("1", "shipped")).send().await.unwrap_err();

    assert!(held.lost_lease(&err));
}

#[tokio::test(start_paused = true)]
async fn the_callers_own_failed_condition_is_not_a_lost_lease() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
    client.transact_write_items().transact_items(put_order("7", "placed")).send().await.unwrap();

    let mut held = HeldCheck::default();
    let err = client
        .transact_write_items()
        .fenced_by_marked(&lease, &mut held)
        .transact_items(put_new_order("7"))
        .send()
        .await
        .unwrap_err();

    assert_eq!(held.index(), Some(0));
    assert!(!held.lost_lease(&err));
    assert_eq!(held.reason(&err).and_then(|r| r.code()), Some("None"));
}

#[tokio::test(start_paused = true)]
async fn the_check_sits_where_it_was_added() {
    let fake = fake();
    let client = fake.client();
    let locks = locks(&fake);
    let lease = locks.acquire("order-sweeper", LEASE).await.unwrap();
    let mut held = HeldCheck::default();

    let _request = client
        .transact_write_items()
        .transact_items(put_order("1", "a"))
        .transact_items(put_order("2", "b"))
        .fenced_by_marked(&lease, &mut held);

    assert_eq!(held.index(), Some(2));
    assert_eq!(HeldCheck::default().index(), None);
}
