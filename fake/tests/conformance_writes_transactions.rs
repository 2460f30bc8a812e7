//! TransactWriteItems reports the capacity it consumed, twice what the same writes cost alone.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ConditionCheck, Put, ReturnConsumedCapacity, TransactWriteItem, Update};
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn put(table: &str, pk: &str, v: AttributeValue) -> TransactWriteItem {
    TransactWriteItem::builder()
        .put(Put::builder().table_name(table).item("pk", s(pk)).item("v", v).build().unwrap())
        .build()
}

async fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    fake.create_table("Stock", "pk", None);
    let client = fake.client();
    (fake, client)
}

#[tokio::test]
async fn a_transaction_of_small_puts_reports_two_write_units_per_item() {
    let (_fake, client) = setup().await;
    let out = client
        .transact_write_items()
        .transact_items(put("Shop", "a", s("1")))
        .transact_items(put("Shop", "b", s("1")))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    let consumed = out.consumed_capacity();
    assert_eq!(consumed.len(), 1);
    assert_eq!(consumed[0].table_name(), Some("Shop"));
    assert_eq!(consumed[0].capacity_units(), Some(4.0));
}

#[tokio::test]
async fn a_transaction_reports_capacity_per_table_in_order_of_first_use() {
    let (_fake, client) = setup().await;
    let big = s(&"x".repeat(1500));
    client.put_item().table_name("Stock").item("pk", s("held")).send().await.unwrap();
    let out = client
        .transact_write_items()
        .transact_items(put("Stock", "c", big))
        .transact_items(put("Shop", "a", s("1")))
        .transact_items(
            TransactWriteItem::builder()
                .condition_check(
                    ConditionCheck::builder()
                        .table_name("Stock")
                        .key("pk", s("held"))
                        .condition_expression("attribute_exists(pk)")
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name("Shop")
                        .key("pk", s("b"))
                        .update_expression("SET v = :v")
                        .expression_attribute_values(":v", s("2"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    let consumed: Vec<(Option<&str>, Option<f64>)> =
        out.consumed_capacity().iter().map(|c| (c.table_name(), c.capacity_units())).collect();
    // Stock: a 2 KB put (2 units, doubled) and a condition check (1 read unit, doubled).
    // Shop: two small writes (1 unit each, doubled).
    assert_eq!(consumed, vec![(Some("Stock"), Some(6.0)), (Some("Shop"), Some(4.0))]);
}

#[tokio::test]
async fn a_transaction_reports_no_capacity_unless_asked() {
    let (_fake, client) = setup().await;
    let out = client.transact_write_items().transact_items(put("Shop", "a", s("1"))).send().await.unwrap();
    assert!(out.consumed_capacity.is_none());
}
