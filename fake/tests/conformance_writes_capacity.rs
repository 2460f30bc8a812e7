//! The write capacity PutItem, UpdateItem, DeleteItem and BatchWriteItem report for the indexes of their table:
//! an index pays only when the write changes what it stores.

mod support;

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue, BillingMode, ConsumedCapacity, DeleteRequest, GlobalSecondaryIndex, KeyType, LocalSecondaryIndex,
    Projection, ProjectionType, PutRequest, ReturnConsumedCapacity, WriteRequest,
};
use dynalease_fake::FakeDynamoDb;
use support::{def, key, s};

/// A table keyed by `pk`, `sk`, with a global index on `g` projecting `proj` and a local index on
/// `l` projecting everything.
async fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    client
        .create_table()
        .table_name("Shop")
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("sk"))
        .attribute_definitions(def("g"))
        .attribute_definitions(def("l"))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byG")
                .key_schema(key("g", KeyType::Hash))
                .projection(
                    Projection::builder().projection_type(ProjectionType::Include).non_key_attributes("proj").build(),
                )
                .build()
                .unwrap(),
        )
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("byL")
                .key_schema(key("pk", KeyType::Hash))
                .key_schema(key("l", KeyType::Range))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    (fake, client)
}

fn item(pk: &str, attributes: &[(&str, &str)]) -> HashMap<String, AttributeValue> {
    let mut item: HashMap<String, AttributeValue> = attributes.iter().map(|(k, v)| ((*k).to_owned(), s(v))).collect();
    item.insert("pk".to_owned(), s(pk));
    item.insert("sk".to_owned(), s("1"));
    item
}

/// (total, table, global index, local index) units; an index absent from the answer is `None`.
fn arms(consumed: Option<&ConsumedCapacity>) -> (Option<f64>, Option<f64>, Option<f64>, Option<f64>) {
    let consumed = consumed.unwrap();
    let index = |arm: Option<&HashMap<String, aws_sdk_dynamodb::types::Capacity>>, name: &str| {
        arm.map(|arm| {
            assert_eq!(arm.len(), 1);
            arm[name].capacity_units().unwrap()
        })
    };
    (
        consumed.capacity_units(),
        consumed.table().and_then(|t| t.capacity_units()),
        index(consumed.global_secondary_indexes.as_ref(), "byG"),
        index(consumed.local_secondary_indexes.as_ref(), "byL"),
    )
}

async fn put(client: &Client, item: HashMap<String, AttributeValue>) -> Option<ConsumedCapacity> {
    let out = client
        .put_item()
        .table_name("Shop")
        .set_item(Some(item))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .unwrap();
    out.consumed_capacity
}

#[tokio::test]
async fn a_put_pays_for_each_index_it_enters_and_nothing_for_one_it_misses() {
    let (_fake, client) = setup().await;
    let global = put(&client, item("a", &[("g", "x"), ("proj", "p")])).await;
    assert_eq!(arms(global.as_ref()), (Some(2.0), Some(1.0), Some(1.0), None));
    let both = put(&client, item("b", &[("g", "x"), ("l", "y")])).await;
    assert_eq!(arms(both.as_ref()), (Some(3.0), Some(1.0), Some(1.0), Some(1.0)));
    let sparse = put(&client, item("c", &[("note", "o")])).await;
    assert_eq!(arms(sparse.as_ref()), (Some(1.0), Some(1.0), None, None));
    let identical = put(&client, item("b", &[("g", "x"), ("l", "y")])).await;
    assert_eq!(arms(identical.as_ref()), (Some(1.0), Some(1.0), None, None));

    let total = client
        .put_item()
        .table_name("Shop")
        .set_item(Some(item("d", &[("g", "x")])))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap()
        .consumed_capacity
        .unwrap();
    assert_eq!(total.capacity_units(), Some(2.0));
    assert!(total.table().is_none() && total.global_secondary_indexes.is_none());
}

#[tokio::test]
async fn an_update_pays_an_index_once_for_a_changed_view_and_twice_for_a_moved_key() {
    let (_fake, client) = setup().await;
    let seeded = [("g", "x"), ("l", "y"), ("proj", "p"), ("note", "o")];
    let cases = [
        ("SET note = :v", (Some(2.0), Some(1.0), None, Some(1.0))),
        ("SET proj = :v", (Some(3.0), Some(1.0), Some(1.0), Some(1.0))),
        ("SET g = :v", (Some(4.0), Some(1.0), Some(2.0), Some(1.0))),
        ("SET l = :v", (Some(3.0), Some(1.0), None, Some(2.0))),
        ("REMOVE g", (Some(3.0), Some(1.0), Some(1.0), Some(1.0))),
    ];
    for (n, (expression, expected)) in cases.into_iter().enumerate() {
        let pk = format!("u{n}");
        put(&client, item(&pk, &seeded)).await;
        let update = client
            .update_item()
            .table_name("Shop")
            .key("pk", s(&pk))
            .key("sk", s("1"))
            .update_expression(expression)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let update =
            if expression.contains(":v") { update.expression_attribute_values(":v", s("new")) } else { update };
        let out = update.send().await.unwrap();
        assert_eq!(arms(out.consumed_capacity.as_ref()), expected, "{expression}");
    }
}

#[tokio::test]
async fn a_delete_pays_for_each_index_the_item_was_in() {
    let (_fake, client) = setup().await;
    put(&client, item("a", &[("g", "x"), ("l", "y")])).await;
    put(&client, item("b", &[("note", "o")])).await;
    for (pk, expected) in
        [("a", (Some(3.0), Some(1.0), Some(1.0), Some(1.0))), ("b", (Some(1.0), Some(1.0), None, None))]
    {
        let out = client
            .delete_item()
            .table_name("Shop")
            .key("pk", s(pk))
            .key("sk", s("1"))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .unwrap();
        assert_eq!(arms(out.consumed_capacity.as_ref()), expected, "{pk}");
    }
}

/// BatchWriteItem pays each index as PutItem and DeleteItem do, summed over the table's writes.
/// The first batch is nubo-db's `indexConsumedCapacity` case, measured against DynamoDB: one item
/// in the global index, one in no index, gives 3 units, 2 of them the table's and 1 the index's.
#[tokio::test]
async fn a_batch_write_pays_each_index_for_its_puts_and_deletes() {
    let (_fake, client) = setup().await;
    let batch = async |requests: Vec<WriteRequest>, detail: ReturnConsumedCapacity| {
        let out = client
            .batch_write_item()
            .request_items("Shop", requests)
            .return_consumed_capacity(detail)
            .send()
            .await
            .unwrap();
        assert!(out.unprocessed_items.unwrap_or_default().is_empty());
        let mut consumed = out.consumed_capacity.unwrap();
        assert_eq!(consumed.len(), 1, "one entry for the one table");
        consumed.remove(0)
    };
    let put_of =
        |item| WriteRequest::builder().put_request(PutRequest::builder().set_item(Some(item)).build().unwrap()).build();
    let delete_of = |pk: &str| {
        let request = DeleteRequest::builder().key("pk", s(pk)).key("sk", s("1")).build().unwrap();
        WriteRequest::builder().delete_request(request).build()
    };

    let measured = batch(
        vec![put_of(item("a", &[("g", "x"), ("proj", "p")])), put_of(item("b", &[("note", "o")]))],
        ReturnConsumedCapacity::Indexes,
    )
    .await;
    assert_eq!(arms(Some(&measured)), (Some(3.0), Some(2.0), Some(1.0), None));

    put(&client, item("old", &[("g", "x"), ("l", "y")])).await;
    let mixed = batch(
        vec![put_of(item("c", &[("g", "x"), ("proj", "p")])), put_of(item("d", &[("note", "o")])), delete_of("old")],
        ReturnConsumedCapacity::Indexes,
    )
    .await;
    assert_eq!(arms(Some(&mixed)), (Some(6.0), Some(3.0), Some(2.0), Some(1.0)), "the delete leaves both indexes");

    let total = batch(vec![put_of(item("e", &[("g", "x")])), delete_of("d")], ReturnConsumedCapacity::Total).await;
    assert_eq!(total.capacity_units(), Some(3.0), "the total counts the index's unit too");
    assert!(total.table().is_none() && total.global_secondary_indexes.is_none());
}
