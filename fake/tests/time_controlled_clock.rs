//! A fake on a `ControlledClock`, in-process: frozen, set and advanced, with what falls due in
//! between made in order before the call returns.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::{AttributeValue, TimeToLiveSpecification};
use dynalease_fake::{ClockError, ControlledClock, FakeDynamoDb};

const START_SECS: u64 = 1_800_000_000;

fn start() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(START_SECS)
}

fn frozen_fake() -> FakeDynamoDb {
    FakeDynamoDb::builder().clock(Arc::new(ControlledClock::frozen_at(start()))).build()
}

#[tokio::test(start_paused = true)]
async fn advancing_the_clock_deletes_each_expired_item_at_the_sweep_after_its_expiry_in_order() {
    let fake = frozen_fake();
    fake.create_table("Carts", "pk", None);
    let client = fake.client();
    let ttl = TimeToLiveSpecification::builder().enabled(true).attribute_name("expires").build().unwrap();
    client.update_time_to_live().table_name("Carts").time_to_live_specification(ttl).send().await.unwrap();
    let deleted = Arc::new(Mutex::new(Vec::new()));
    let seen = deleted.clone();
    fake.observe_item_changes("Carts", move |change| {
        let pk = match &change.keys["pk"] {
            AttributeValue::S(pk) => pk.clone(),
            other => format!("{other:?}"),
        };
        seen.lock().unwrap().push((pk, change.at, change.by_time_to_live));
    });
    // Sweeps run every 10 minutes from the start: one expiring between two sweeps goes at the next.
    for (pk, expires) in
        [("late", START_SECS + 30 * 3600 + 1), ("early", START_SECS + 3600), ("kept", START_SECS + 3 * 86_400)]
    {
        client
            .put_item()
            .table_name("Carts")
            .item("pk", AttributeValue::S(pk.into()))
            .item("expires", AttributeValue::N(expires.to_string()))
            .send()
            .await
            .unwrap();
    }
    deleted.lock().unwrap().clear();
    let reading = fake.advance_clock(Duration::from_secs(2 * 86_400)).unwrap();
    assert_eq!((reading.now, reading.frozen), (start() + Duration::from_secs(2 * 86_400), true));
    assert_eq!(
        *deleted.lock().unwrap(),
        vec![
            ("early".to_owned(), start() + Duration::from_secs(3600), true),
            ("late".to_owned(), start() + Duration::from_secs(30 * 3600 + 600), true),
        ]
    );
    let kept = fake.read_item("Carts", &[("pk".to_owned(), AttributeValue::S("kept".into()))].into());
    assert!(kept.is_some());
}

#[tokio::test(start_paused = true)]
async fn a_frozen_clock_stands_still_until_moved_and_a_running_one_follows_tokio() {
    let fake = frozen_fake();
    tokio::time::advance(Duration::from_secs(60)).await;
    assert_eq!(fake.now(), start());
    let set = fake.set_clock(start() + Duration::from_secs(3600)).unwrap();
    assert_eq!(set.now, start() + Duration::from_secs(3600));
    let resumed = fake.resume_clock().unwrap();
    assert!(!resumed.frozen);
    tokio::time::advance(Duration::from_secs(60)).await;
    assert_eq!(fake.now(), start() + Duration::from_secs(3660));
    let frozen = fake.freeze_clock().unwrap();
    assert_eq!((frozen.now, frozen.frozen), (start() + Duration::from_secs(3660), true));
}

#[tokio::test(start_paused = true)]
async fn the_clock_is_never_set_back_and_a_fake_on_another_clock_refuses_to_be_steered() {
    let fake = frozen_fake();
    let refused = fake.set_clock(start() - Duration::from_secs(1)).unwrap_err();
    assert_eq!(refused, ClockError::Backwards { now: start(), asked: start() - Duration::from_secs(1) });
    assert_eq!(fake.now(), start());
    let ordinary = FakeDynamoDb::new();
    assert_eq!(ordinary.advance_clock(Duration::from_secs(1)), Err(ClockError::NotControlled));
    assert!(!ordinary.clock_reading().frozen);
}
