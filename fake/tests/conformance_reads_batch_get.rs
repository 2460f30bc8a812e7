//! BatchGetItem checks that span its tables, through the SDK client: a batch that projects one
//! table with `ProjectionExpression` and another with `AttributesToGet` is refused, as DynamoDB
//! refuses it, before any table is read.

mod support;

use aws_sdk_dynamodb::types::KeysAndAttributes;
use dynalease_fake::FakeDynamoDb;
use support::{s, sdk_error, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

const MIXED: &str = "Can not use both expression and non-expression parameters in the same request: \
                     Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}";

/// The code and message of a BatchGetItem that reads `hash` with a ProjectionExpression and
/// `legacy_table` at `legacy_key` with AttributesToGet.
async fn mixed_styles(legacy_table: &str, legacy_key: &[(&str, &str)]) -> (String, String) {
    let fake = fake();
    let client = fake.client();
    let expression = KeysAndAttributes::builder()
        .keys([("a".to_owned(), s("x"))].into())
        .projection_expression("a")
        .build()
        .unwrap();
    let key = legacy_key.iter().map(|(name, value)| ((*name).to_owned(), s(value))).collect();
    let legacy = KeysAndAttributes::builder().keys(key).attributes_to_get("a").build().unwrap();
    let error = client
        .batch_get_item()
        .request_items("hash", expression)
        .request_items(legacy_table, legacy)
        .send()
        .await
        .unwrap_err();
    sdk_error(error)
}

#[tokio::test(start_paused = true)]
async fn batch_get_refuses_an_expression_projection_on_one_table_and_attributes_to_get_on_another() {
    let refused = mixed_styles("range", &[("a", "y"), ("b", "z")]).await;
    assert_eq!(refused, ("ValidationException".to_owned(), MIXED.to_owned()));
}

#[tokio::test(start_paused = true)]
async fn batch_get_refuses_mixed_projection_styles_even_for_a_table_that_does_not_exist() {
    let refused = mixed_styles("no_such_table", &[("a", "y")]).await;
    assert_eq!(refused, ("ValidationException".to_owned(), MIXED.to_owned()));
}

#[tokio::test(start_paused = true)]
async fn batch_get_reads_tables_that_all_project_in_one_style() {
    let fake = fake();
    let client = fake.client();
    client
        .put_item()
        .table_name("hash")
        .item("a", s("x"))
        .item("c", s("kept"))
        .item("d", s("dropped"))
        .send()
        .await
        .unwrap();
    let first = KeysAndAttributes::builder()
        .keys([("a".to_owned(), s("x"))].into())
        .projection_expression("c")
        .build()
        .unwrap();
    let second = KeysAndAttributes::builder()
        .keys([("a".to_owned(), s("y")), ("b".to_owned(), s("z"))].into())
        .projection_expression("a")
        .build()
        .unwrap();
    let answer =
        client.batch_get_item().request_items("hash", first).request_items("range", second).send().await.unwrap();
    let responses = answer.responses.unwrap();
    assert_eq!(responses["hash"], vec![[("c".to_owned(), s("kept"))].into()]);
    assert!(responses["range"].is_empty());
}
