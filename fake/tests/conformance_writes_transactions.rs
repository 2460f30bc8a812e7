//! TransactWriteItems: the capacity it consumed, twice what the same writes cost alone; the key
//! mistakes that cancel it with a `ValidationError` reason and those that refuse it outright; and
//! which index a key mistake names.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ConditionCheck, Delete, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, LocalSecondaryIndex, Projection, ProjectionType, Put, ReturnConsumedCapacity, ScalarAttributeType,
    TransactWriteItem, Update,
};
use dynalease_fake::FakeDynamoDb;
use support::s;

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

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn put_item(table: &str, attributes: &[(&str, AttributeValue)]) -> TransactWriteItem {
    let put = attributes.iter().fold(Put::builder().table_name(table), |put, (k, v)| put.item(*k, v.clone()));
    TransactWriteItem::builder().put(put.build().unwrap()).build()
}

/// The reasons of a cancelled transaction, as (code, message).
async fn reasons(client: &Client, items: Vec<TransactWriteItem>) -> Vec<(String, Option<String>)> {
    let error = client.transact_write_items().set_transact_items(Some(items)).send().await.unwrap_err();
    let Some(TransactWriteItemsError::TransactionCanceledException(cancelled)) = error.as_service_error() else {
        panic!("not cancelled: {error:?}");
    };
    cancelled
        .cancellation_reasons()
        .iter()
        .map(|r| (r.code().unwrap_or_default().to_owned(), r.message().map(str::to_owned)))
        .collect()
}

#[tokio::test]
async fn a_key_of_the_wrong_type_cancels_the_transaction_with_a_validation_reason_in_its_place() {
    let (_fake, client) = setup().await;
    let invalid = |detail: &str| Some(format!("One or more parameter values were invalid: {detail}"));
    let schema = Some("The provided key element does not match the schema".to_owned());
    let delete_wrong_key = TransactWriteItem::builder()
        .delete(Delete::builder().table_name("Shop").key("pk", n("5")).build().unwrap())
        .build();
    let listed_key = AttributeValue::L(vec![s("x")]);
    assert_eq!(
        reasons(&client, vec![put("Shop", "a", s("1")), put_item("Shop", &[("pk", n("5"))]), delete_wrong_key]).await,
        // DynamoDB stops at the first invalid action; the ones after it are not checked
        // (ScyllaDB's Alternator suite, against DynamoDB: [ValidationError, None, None]).
        vec![
            ("None".to_owned(), None),
            ("ValidationError".to_owned(), invalid("Type mismatch for key pk expected: S actual: N")),
            ("None".to_owned(), None),
        ]
    );
    let delete_wrong_key = TransactWriteItem::builder()
        .delete(Delete::builder().table_name("Shop").key("pk", n("5")).build().unwrap())
        .build();
    assert_eq!(reasons(&client, vec![delete_wrong_key]).await, vec![("ValidationError".to_owned(), schema.clone())]);
    assert_eq!(
        reasons(&client, vec![put_item("Shop", &[("pk", listed_key)])]).await,
        vec![("ValidationError".to_owned(), invalid("Type mismatch for key pk expected: S actual: L"))]
    );
    let out = client.get_item().table_name("Shop").key("pk", s("a")).send().await.unwrap();
    assert!(out.item.is_none(), "a cancelled transaction wrote nothing");
}

async fn indexed(client: &Client) {
    let def = |name: &str| {
        AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().unwrap()
    };
    let key =
        |name: &str, kind: KeyType| KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap();
    let all = || Projection::builder().projection_type(ProjectionType::All).build();
    client
        .create_table()
        .table_name("Indexed")
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("sk"))
        .attribute_definitions(def("x"))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("byLocal")
                .key_schema(key("pk", KeyType::Hash))
                .key_schema(key("x", KeyType::Range))
                .projection(all())
                .build()
                .unwrap(),
        )
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byGlobal")
                .key_schema(key("x", KeyType::Hash))
                .projection(all())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn an_index_key_mistake_names_the_first_index_by_name_and_an_empty_one_refuses_the_request() {
    let (_fake, client) = setup().await;
    indexed(&client).await;
    let item = |x: AttributeValue| put_item("Indexed", &[("pk", s("a")), ("sk", s("b")), ("x", x)]);
    assert_eq!(
        reasons(&client, vec![item(n("5"))]).await,
        vec![(
            "ValidationError".to_owned(),
            Some(
                "One or more parameter values were invalid: Type mismatch for Index Key x Expected: S Actual: N \
                 IndexName: byGlobal"
                    .to_owned()
            )
        )]
    );

    let error = client.transact_write_items().transact_items(item(s(""))).send().await.unwrap_err();
    assert_eq!(error.code(), Some("ValidationException"));
    assert_eq!(
        error.message(),
        Some(
            "One or more parameter values are not valid. A value specified for a secondary index key is not \
             supported. The AttributeValue for a key attribute cannot contain an empty string value. IndexName: \
             byGlobal, IndexKey: x"
        )
    );

    let update = Update::builder()
        .table_name("Indexed")
        .key("pk", s("a"))
        .key("sk", s("b"))
        .update_expression("SET x = :v")
        .expression_attribute_values(":v", s(""))
        .build()
        .unwrap();
    let error = client
        .transact_write_items()
        .transact_items(TransactWriteItem::builder().update(update).build())
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.code(), Some("ValidationException"));
    assert_eq!(
        error.message(),
        Some(
            "One or more parameter values are not valid. The update expression attempted to update a secondary \
             index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an \
             empty string value."
        )
    );
}

#[tokio::test]
async fn transact_get_items_charges_two_read_units_per_item_found_or_not() {
    let (_fake, client) = setup().await;
    client.put_item().table_name("Shop").item("pk", s("here")).send().await.unwrap();
    let get = |pk: &str| {
        aws_sdk_dynamodb::types::TransactGetItem::builder()
            .get(aws_sdk_dynamodb::types::Get::builder().table_name("Shop").key("pk", s(pk)).build().unwrap())
            .build()
    };
    let out = client
        .transact_get_items()
        .transact_items(get("here"))
        .transact_items(get("gone"))
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .send()
        .await
        .unwrap();
    let consumed = out.consumed_capacity();
    assert_eq!(consumed.len(), 1);
    assert_eq!(
        (consumed[0].table_name(), consumed[0].capacity_units(), consumed[0].read_capacity_units()),
        (Some("Shop"), Some(4.0), Some(4.0))
    );
    assert!(consumed[0].table().is_none());

    let out = client
        .transact_get_items()
        .transact_items(get("here"))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .unwrap();
    let table = out.consumed_capacity()[0].table().unwrap();
    assert_eq!((table.capacity_units(), table.read_capacity_units()), (Some(2.0), Some(2.0)));
}

#[tokio::test]
async fn a_transaction_reports_its_read_and_write_units_apart() {
    let (_fake, client) = setup().await;
    client.put_item().table_name("Shop").item("pk", s("held")).send().await.unwrap();
    let check = TransactWriteItem::builder()
        .condition_check(
            ConditionCheck::builder()
                .table_name("Shop")
                .key("pk", s("held"))
                .condition_expression("attribute_exists(pk)")
                .build()
                .unwrap(),
        )
        .build();
    let out = client
        .transact_write_items()
        .transact_items(check)
        .transact_items(put("Shop", "a", s("1")))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .unwrap();
    let consumed = &out.consumed_capacity()[0];
    assert_eq!(
        (consumed.capacity_units(), consumed.read_capacity_units(), consumed.write_capacity_units()),
        (Some(4.0), Some(2.0), Some(2.0))
    );
    let table = consumed.table().unwrap();
    assert_eq!(
        (table.capacity_units(), table.read_capacity_units(), table.write_capacity_units()),
        (Some(4.0), Some(2.0), Some(2.0))
    );
}
