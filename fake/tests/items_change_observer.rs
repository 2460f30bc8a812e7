//! `FakeDynamoDb::observe_item_changes`: every change the fake applies to a table's items, with
//! both images, whether or not the table has a stream.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::{AttributeValue, Put, TimeToLiveSpecification, TransactWriteItem, Update};
use dynalease_fake::{ChangeKind, FakeDynamoDb, ItemChange};
use support::s;

fn observed(fake: &FakeDynamoDb, table: &str) -> Arc<Mutex<Vec<ItemChange>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    fake.observe_item_changes(table, move |change| log.lock().unwrap().push(change.clone()));
    seen
}

#[tokio::test(start_paused = true)]
async fn an_observer_sees_each_applied_change_with_the_item_before_and_after() {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let fake = FakeDynamoDb::builder().start_time(start).build();
    fake.create_table("Locks", "pk", None);
    fake.create_table("Other", "pk", None);
    let seen = observed(&fake, "Locks");
    let client = fake.client();
    client
        .put_item()
        .table_name("Locks")
        .item("pk", s("a"))
        .item("fence", AttributeValue::N("1".into()))
        .send()
        .await
        .unwrap();
    client.put_item().table_name("Other").item("pk", s("x")).send().await.unwrap();
    tokio::time::advance(Duration::from_secs(2)).await;
    let bump = Update::builder()
        .table_name("Locks")
        .key("pk", s("a"))
        .update_expression("ADD fence :one")
        .expression_attribute_values(":one", AttributeValue::N("1".into()))
        .build()
        .unwrap();
    let fenced = Put::builder().table_name("Other").item("pk", s("y")).build().unwrap();
    client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().update(bump).build())
        .transact_items(TransactWriteItem::builder().put(fenced).build())
        .send()
        .await
        .unwrap();
    // An update in place that changes nothing is no change.
    client
        .update_item()
        .table_name("Locks")
        .key("pk", s("a"))
        .update_expression("SET fence = fence")
        .send()
        .await
        .unwrap();

    let seen = seen.lock().unwrap().clone();
    let fence = |image: &Option<std::collections::HashMap<String, AttributeValue>>| {
        image.as_ref().map(|item| item["fence"].as_n().unwrap().clone())
    };
    let summary: Vec<_> = seen.iter().map(|c| (c.kind, fence(&c.old_image), fence(&c.new_image), c.at)).collect();
    assert_eq!(
        summary,
        [
            (ChangeKind::Insert, None, Some("1".to_owned()), start),
            (ChangeKind::Modify, Some("1".to_owned()), Some("2".to_owned()), start + Duration::from_secs(2)),
        ]
    );
    assert!(seen.iter().all(|c| c.table == "Locks" && c.keys["pk"] == s("a") && !c.by_time_to_live));
}

#[tokio::test(start_paused = true)]
async fn an_observer_follows_its_table_name_to_a_table_created_later_and_sees_ttl_deletions() {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let fake = FakeDynamoDb::builder().start_time(start).build();
    let seen = observed(&fake, "Later");
    fake.create_table("Later", "pk", None);
    let client = fake.client();
    let spec = TimeToLiveSpecification::builder().enabled(true).attribute_name("ttl").build().unwrap();
    client.update_time_to_live().table_name("Later").time_to_live_specification(spec).send().await.unwrap();
    let expires = AttributeValue::N("1700000010".into());
    client.put_item().table_name("Later").item("pk", s("a")).item("ttl", expires).send().await.unwrap();
    tokio::time::advance(Duration::from_secs(20)).await;
    assert_eq!(fake.sweep_ttl(), 1);
    let kinds: Vec<_> = seen.lock().unwrap().iter().map(|c| (c.kind, c.by_time_to_live)).collect();
    assert_eq!(kinds, [(ChangeKind::Insert, false), (ChangeKind::Remove, true)]);
}
