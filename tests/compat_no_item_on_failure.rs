//! Against a DynamoDB that answers failed conditions without the item (DynamoDB before
//! `ReturnValuesOnConditionCheckFailure`, and some emulators), the library reads the lock instead:
//! a contender still waits with one read per poll, and a lost lease still knows why it ended.

mod support;

use std::time::Duration;

use dynalease::{LockTable, LockTableOptions, LossReason};
use dynalease_fake::FakeDynamoDb;
use support::{LEASE, TABLE, table};

fn fake_without_items() -> FakeDynamoDb {
    let fake = FakeDynamoDb::builder().item_on_condition_failure(false).build();
    fake.create_table(TABLE, "pk", Some("sk"));
    fake
}

fn requests_of(fake: &FakeDynamoDb, client: &str) -> Vec<String> {
    fake.request_log().iter().filter(|r| r.client.as_deref() == Some(client)).map(support::describe).collect()
}

#[tokio::test(start_paused = true)]
async fn a_contender_reads_the_held_lock_once_and_then_waits_for_its_polls() {
    let fake = fake_without_items();
    let holder = LockTable::new(table(fake.client()), LockTableOptions::default()).unwrap();
    let contender = LockTable::new(table(fake.client_named("contender")), LockTableOptions::default()).unwrap();
    let lease = holder.acquire("job", LEASE).await.unwrap();

    let waiting = tokio::spawn(async move { contender.acquire("job", LEASE).await });
    support::advance(Duration::from_secs(25)).await;
    assert_eq!(
        requests_of(&fake, "contender"),
        ["UpdateItem:ConditionalCheckFailedException", "GetItem", "GetItem", "GetItem"],
        "the failed write reads the item it did not bring back, then polls every 10 s"
    );

    lease.release().await.unwrap();
    let taken = waiting.await.unwrap().unwrap();
    assert_eq!(taken.fencing_token(), 2);
}

#[tokio::test(start_paused = true)]
async fn a_renewal_tells_a_takeover_from_a_deletion() {
    let fake = fake_without_items();
    let locks = LockTable::new(table(fake.client()), LockTableOptions::default()).unwrap();

    let lease = locks.acquire("taken", LEASE).await.unwrap();
    locks.simulate_holder("taken", LEASE, "another-pod").await.unwrap();
    assert!(!lease.renew().await.unwrap());
    assert_eq!(lease.loss_reason(), Some(LossReason::TakenOver));

    let lease = locks.acquire("deleted", LEASE).await.unwrap();
    locks.simulate_delete("deleted").await.unwrap();
    assert!(!lease.renew().await.unwrap());
    assert_eq!(lease.loss_reason(), Some(LossReason::Deleted));
}
