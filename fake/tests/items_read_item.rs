//! `FakeDynamoDb::read_item`: the item as the fake holds it, read from outside the API, without
//! leaving a trace a request would leave.

mod support;

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::{AttributeValue, TimeToLiveSpecification};
use dynalease_fake::{FakeDynamoDb, Fault, FaultRule};
use support::s;

fn key(pk: &str, sk: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([(String::from("pk"), s(pk)), (String::from("sk"), s(sk))])
}

/// A fake with the table `Locks` and one lock item in it, `LOCK#a`: owner `p1`, fence 7, tags.
async fn lock_table() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table("Locks", "pk", Some("sk"));
    fake.client()
        .put_item()
        .table_name("Locks")
        .item("pk", s("LOCK#a"))
        .item("sk", s("LOCK"))
        .item("owner", s("p1"))
        .item("fence", AttributeValue::N("7".into()))
        .item("tags", AttributeValue::Ss(vec![String::from("x"), String::from("y")]))
        .send()
        .await
        .unwrap();
    fake
}

#[tokio::test(start_paused = true)]
async fn read_item_gives_the_stored_item_and_nothing_for_a_missing_one() {
    let fake = lock_table().await;

    let item = fake.read_item("Locks", &key("LOCK#a", "LOCK")).expect("the stored item");
    assert_eq!(item.len(), 5);
    assert_eq!(item["owner"], s("p1"));
    assert_eq!(item["fence"], AttributeValue::N("7".into()));
    assert_eq!(item["tags"], AttributeValue::Ss(vec![String::from("x"), String::from("y")]));

    assert_eq!(fake.read_item("Locks", &key("LOCK#b", "LOCK")), None);
    assert_eq!(fake.read_item("Nowhere", &key("LOCK#a", "LOCK")), None);
    // Half a key, a key of the wrong type, or a value no key can be: no item.
    assert_eq!(fake.read_item("Locks", &HashMap::from([(String::from("pk"), s("LOCK#a"))])), None);
    let numeric = HashMap::from([(String::from("pk"), AttributeValue::N("1".into())), (String::from("sk"), s("LOCK"))]);
    assert_eq!(fake.read_item("Locks", &numeric), None);
    let boolean = HashMap::from([(String::from("pk"), AttributeValue::Bool(true)), (String::from("sk"), s("LOCK"))]);
    assert_eq!(fake.read_item("Locks", &boolean), None);
}

#[tokio::test(start_paused = true)]
async fn read_item_is_no_request_and_meets_no_fault() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Locks", "pk", Some("sk"));
    let client = fake.client();
    client.put_item().table_name("Locks").item("pk", s("a")).item("sk", s("b")).send().await.unwrap();
    fake.inject(FaultRule::new(Fault::InternalServerError));
    let before = fake.request_log().len();

    assert!(fake.read_item("Locks", &key("a", "b")).is_some());
    assert_eq!(fake.request_log().len(), before, "a read from outside is no request");
    let refused = client.get_item().table_name("Locks").key("pk", s("a")).key("sk", s("b")).send().await;
    assert!(refused.is_err(), "the fault rule still stands for requests");
}

#[tokio::test(start_paused = true)]
async fn read_item_sees_the_time_to_live_deletions_that_are_due() {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let fake = FakeDynamoDb::builder().start_time(start).ttl_sweep_interval(Duration::from_secs(1)).build();
    fake.create_table("Locks", "pk", Some("sk"));
    let client = fake.client();
    let spec = TimeToLiveSpecification::builder().enabled(true).attribute_name("expires").build().unwrap();
    client.update_time_to_live().table_name("Locks").time_to_live_specification(spec).send().await.unwrap();
    let expires = (1_700_000_000 + 10).to_string();
    client
        .put_item()
        .table_name("Locks")
        .item("pk", s("a"))
        .item("sk", s("b"))
        .item("expires", AttributeValue::N(expires))
        .send()
        .await
        .unwrap();

    assert!(fake.read_item("Locks", &key("a", "b")).is_some());
    tokio::time::advance(Duration::from_secs(12)).await;
    assert_eq!(fake.read_item("Locks", &key("a", "b")), None, "the sweep that was due ran first");
}

#[tokio::test(start_paused = true)]
async fn read_attributes_gives_the_named_attributes_in_the_order_asked() {
    let fake = lock_table().await;
    fake.inject(FaultRule::new(Fault::InternalServerError));
    let before = fake.request_log().len();

    let values = fake.read_attributes("Locks", &key("LOCK#a", "LOCK"), &["fence", "missing", "owner"]);
    assert_eq!(values, Some(vec![Some(AttributeValue::N("7".into())), None, Some(s("p1"))]));
    assert_eq!(fake.read_attributes("Locks", &key("LOCK#b", "LOCK"), &["owner"]), None);
    assert_eq!(fake.read_attributes("Nowhere", &key("LOCK#a", "LOCK"), &["owner"]), None);
    assert_eq!(fake.request_log().len(), before, "a read from outside is no request, and meets no fault");
}
