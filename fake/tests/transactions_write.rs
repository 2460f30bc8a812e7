//! TransactWriteItems and TransactGetItems: all or nothing, reasons in order, idempotency.

use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, Delete, Get, Put, ReturnValuesOnConditionCheckFailure, TransactGetItem,
    TransactWriteItem, Update,
};
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn put(pk: &str, v: &str) -> TransactWriteItem {
    TransactWriteItem::builder()
        .put(Put::builder().table_name("Shop").item("pk", s(pk)).item("v", s(v)).build().unwrap())
        .build()
}

fn check_absent(pk: &str) -> TransactWriteItem {
    TransactWriteItem::builder()
        .condition_check(
            ConditionCheck::builder()
                .table_name("Shop")
                .key("pk", s(pk))
                .condition_expression("attribute_not_exists(pk)")
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
                .build()
                .unwrap(),
        )
        .build()
}

async fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    client.put_item().table_name("Shop").item("pk", s("held")).item("v", s("0")).send().await.unwrap();
    (fake, client)
}

async fn value_of(client: &Client, pk: &str) -> Option<AttributeValue> {
    let out = client.get_item().table_name("Shop").key("pk", s(pk)).send().await.unwrap();
    out.item.and_then(|mut i| i.remove("v"))
}

#[tokio::test(start_paused = true)]
async fn a_failed_check_cancels_every_action_and_reports_reasons_in_order() {
    let (_fake, client) = setup().await;
    let err = client
        .transact_write_items()
        .transact_items(put("new", "1"))
        .transact_items(check_absent("held"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let TransactWriteItemsError::TransactionCanceledException(cancelled) = err else { panic!("{err:?}") };
    let reasons = cancelled.cancellation_reasons();
    assert_eq!(reasons.len(), 2);
    assert_eq!(reasons[0].code(), Some("None"));
    assert_eq!(reasons[1].code(), Some("ConditionalCheckFailed"));
    assert_eq!(reasons[1].message(), Some("The conditional request failed"));
    assert_eq!(reasons[1].item().unwrap()["v"], s("0"));
    assert_eq!(
        cancelled.message(),
        Some(
            "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]"
        )
    );
    assert_eq!(value_of(&client, "new").await, None, "nothing of a cancelled transaction is applied");
}

#[tokio::test(start_paused = true)]
async fn a_passing_transaction_applies_every_action() {
    let (_fake, client) = setup().await;
    client
        .transact_write_items()
        .transact_items(put("a", "1"))
        .transact_items(
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name("Shop")
                        .key("pk", s("held"))
                        .update_expression("SET v = :v")
                        .expression_attribute_values(":v", s("2"))
                        .build()
                        .unwrap(),
                )
                .build(),
        )
        .transact_items(check_absent("b"))
        .send()
        .await
        .unwrap();
    assert_eq!(value_of(&client, "a").await, Some(s("1")));
    assert_eq!(value_of(&client, "held").await, Some(s("2")));
    client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .delete(Delete::builder().table_name("Shop").key("pk", s("a")).build().unwrap())
                .build(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(value_of(&client, "a").await, None);
}

#[tokio::test(start_paused = true)]
async fn two_actions_on_one_item_are_a_validation_error() {
    let (_fake, client) = setup().await;
    let err = client
        .transact_write_items()
        .transact_items(put("held", "1"))
        .transact_items(check_absent("held"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.code(), Some("ValidationException"));
    assert_eq!(err.message(), Some("Transaction request cannot include multiple operations on one item"));
}

#[tokio::test(start_paused = true)]
async fn a_validation_error_in_one_action_is_a_cancellation_reason() {
    let (_fake, client) = setup().await;
    let bad_update = TransactWriteItem::builder()
        .update(
            Update::builder()
                .table_name("Shop")
                .key("pk", s("held"))
                .update_expression("SET n = v + :one")
                .expression_attribute_values(":one", AttributeValue::N("1".into()))
                .build()
                .unwrap(),
        )
        .build();
    let err = client.transact_write_items().transact_items(put("x", "1")).transact_items(bad_update).send().await;
    let TransactWriteItemsError::TransactionCanceledException(cancelled) = err.unwrap_err().into_service_error() else {
        panic!("expected a cancellation")
    };
    let reasons = cancelled.cancellation_reasons();
    assert_eq!(reasons[0].code(), Some("None"));
    assert_eq!(reasons[1].code(), Some("ValidationError"));
    assert_eq!(reasons[1].message(), Some("An operand in the update expression has an incorrect data type"));
}

#[tokio::test(start_paused = true)]
async fn a_client_request_token_replays_the_first_result_for_ten_minutes() {
    let (_fake, client) = setup().await;
    let first = client.transact_write_items().client_request_token("tok-1").transact_items(put("a", "1"));
    first.clone().send().await.unwrap();
    // Someone changes the item; a retry with the same token does not write again.
    client.put_item().table_name("Shop").item("pk", s("a")).item("v", s("changed")).send().await.unwrap();
    first.clone().send().await.unwrap();
    assert_eq!(value_of(&client, "a").await, Some(s("changed")));
    // The same token with other parameters is refused.
    let err = client
        .transact_write_items()
        .client_request_token("tok-1")
        .transact_items(put("a", "other"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_idempotent_parameter_mismatch_exception(), "{err:?}");
    // After ten minutes the token is forgotten and the request runs again.
    tokio::time::advance(Duration::from_secs(601)).await;
    first.send().await.unwrap();
    assert_eq!(value_of(&client, "a").await, Some(s("1")));
}

#[tokio::test(start_paused = true)]
async fn transact_get_items_reads_with_projections() {
    let (_fake, client) = setup().await;
    let out = client
        .transact_get_items()
        .transact_items(
            TransactGetItem::builder()
                .get(Get::builder().table_name("Shop").key("pk", s("held")).projection_expression("v").build().unwrap())
                .build(),
        )
        .transact_items(
            TransactGetItem::builder()
                .get(Get::builder().table_name("Shop").key("pk", s("none")).build().unwrap())
                .build(),
        )
        .send()
        .await
        .unwrap();
    let responses = out.responses();
    assert_eq!(responses.len(), 2);
    let first = responses[0].item().unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first["v"], s("0"));
    assert!(responses[1].item().is_none());
}

#[tokio::test(start_paused = true)]
async fn a_transaction_may_carry_at_most_4_mb_but_may_touch_more() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Big", "pk", None);
    let client = fake.client();
    let long = "x".repeat(100_000);
    let big_put = |i: usize| {
        TransactWriteItem::builder()
            .put(Put::builder().table_name("Big").item("pk", s(&format!("k{i}"))).item("x", s(&long)).build().unwrap())
            .build()
    };
    // 50 items of about 100 KB: some 5 MB carried.
    let error = client.transact_write_items().set_transact_items(Some((0..50).map(big_put).collect())).send().await;
    let error = error.unwrap_err().into_service_error();
    assert_eq!(error.code(), Some("ValidationException"));
    assert!(error.message().unwrap_or_default().contains("size cannot exceed"), "{error:?}");
    assert_eq!(client.scan().table_name("Big").send().await.unwrap().count, 0, "nothing was written");

    // 40 of them (some 4 MB less a little) go through; then one small transaction deletes 5 MB.
    for chunk in [0..40, 40..50] {
        client.transact_write_items().set_transact_items(Some(chunk.map(big_put).collect())).send().await.unwrap();
    }
    let delete = |i: usize| {
        TransactWriteItem::builder()
            .delete(Delete::builder().table_name("Big").key("pk", s(&format!("k{i}"))).build().unwrap())
            .build()
    };
    client.transact_write_items().set_transact_items(Some((0..50).map(delete).collect())).send().await.unwrap();
    assert_eq!(client.scan().table_name("Big").send().await.unwrap().count, 0);
}
