//! Query and Scan requests DynamoDB refuses before it reads a table: through the real SDK client
//! where it lets the mistakes through, and as raw bodies through `FakeDynamoDb::handle_json`
//! where it does not (a condition without an operator). The expectations are the ones dynalite's
//! suite records against the service.

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{ComparisonOperator, Condition, ConditionalOperator, ReturnConsumedCapacity, Select};
use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};

const VALIDATION: &str = "com.amazon.coral.validate#ValidationException";

/// The message of a `ValidationException` answer.
fn validation(fake: &FakeDynamoDb, operation: &str, body: &Json) -> String {
    let (status, answer) = fake.handle_json(operation, body.to_string().as_bytes());
    let answer: Json = serde_json::from_slice(&answer).expect("the answer is JSON");
    assert_eq!((status, answer["__type"].as_str()), (400, Some(VALIDATION)), "{answer}");
    answer["message"].as_str().expect("a message").to_owned()
}

/// The members named by the violations of a `N validation errors detected: ...` message.
fn violated(message: &str) -> Vec<&str> {
    let (_, list) = message.split_once("detected: ").expect("a list of violations");
    list.split("; ").map(|v| v.split('\'').rev().nth(1).expect("a quoted member path")).collect()
}

#[test]
fn query_with_eleven_violations_leaves_out_the_second_key_condition() {
    let fake = FakeDynamoDb::new();
    let body = json!({
        "TableName": "abc;", "ReturnConsumedCapacity": "hi", "AttributesToGet": [], "IndexName": "abc;",
        "Select": "hi", "Limit": -1, "ConditionalOperator": "AN",
        "KeyConditions": {"a": {}, "b": {"ComparisonOperator": ""}},
        "QueryFilter": {"a": {}, "b": {"ComparisonOperator": ""}},
    });
    let message = validation(&fake, "Query", &body);
    assert!(message.starts_with("10 validation errors detected: "), "{message}");
    assert_eq!(
        violated(&message),
        [
            "limit",
            "returnConsumedCapacity",
            "attributesToGet",
            "queryFilter.a.member.comparisonOperator",
            "queryFilter.b.member.comparisonOperator",
            "select",
            "conditionalOperator",
            "tableName",
            "indexName",
            "keyConditions.a.member.comparisonOperator",
        ]
    );
}

#[test]
fn scan_with_eleven_violations_leaves_out_attributes_to_get() {
    let fake = FakeDynamoDb::new();
    let body = json!({
        "TableName": "abc;", "ReturnConsumedCapacity": "hi", "AttributesToGet": [], "IndexName": "abc;",
        "Segment": -1, "TotalSegments": -1, "Select": "hi", "Limit": -1, "ConditionalOperator": "AN",
        "ScanFilter": {"a": {}, "b": {"ComparisonOperator": ""}},
    });
    let message = validation(&fake, "Scan", &body);
    assert_eq!(
        violated(&message),
        [
            "limit",
            "returnConsumedCapacity",
            "segment",
            "select",
            "scanFilter.a.member.comparisonOperator",
            "scanFilter.b.member.comparisonOperator",
            "conditionalOperator",
            "totalSegments",
            "tableName",
            "indexName",
        ]
    );
}

/// A condition whose operator DynamoDB does not know.
fn unknown_condition() -> Condition {
    Condition::builder().comparison_operator(ComparisonOperator::from("")).build().expect("an operator is set")
}

/// The code and message of a service error.
fn code_and_message<E: ProvideErrorMetadata>(error: E) -> (String, String) {
    (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned())
}

#[tokio::test(start_paused = true)]
async fn sdk_query_with_eleven_violations_leaves_out_the_key_condition() {
    let fake = FakeDynamoDb::new();
    let error = fake
        .client()
        .query()
        .table_name("a;")
        .select(Select::from("hi"))
        .index_name("abc;")
        .return_consumed_capacity(ReturnConsumedCapacity::from("hi"))
        .query_filter("a", unknown_condition())
        .conditional_operator(ConditionalOperator::from("AN"))
        .limit(-1)
        .set_attributes_to_get(Some(Vec::new()))
        .key_conditions("a", unknown_condition())
        .send()
        .await
        .expect_err("refused")
        .into_service_error();
    let (code, message) = code_and_message(error);
    assert_eq!(code, "ValidationException");
    assert_eq!(
        violated(&message),
        [
            "limit",
            "returnConsumedCapacity",
            "attributesToGet",
            "queryFilter.a.member.comparisonOperator",
            "select",
            "conditionalOperator",
            "tableName",
            "tableName",
            "indexName",
            "keyConditions.a.member.comparisonOperator",
        ]
    );
    assert!(message.starts_with("10 validation errors detected: "), "{message}");
}

#[tokio::test(start_paused = true)]
async fn sdk_scan_with_twelve_violations_leaves_out_attributes_to_get() {
    let fake = FakeDynamoDb::new();
    let error = fake
        .client()
        .scan()
        .table_name("a;")
        .select(Select::from("hi"))
        .index_name("abc;")
        .total_segments(-1)
        .segment(-1)
        .return_consumed_capacity(ReturnConsumedCapacity::from("hi"))
        .conditional_operator(ConditionalOperator::from("AN"))
        .scan_filter("a", unknown_condition())
        .limit(-1)
        .set_attributes_to_get(Some(Vec::new()))
        .send()
        .await
        .expect_err("refused")
        .into_service_error();
    let (code, message) = code_and_message(error);
    assert_eq!(code, "ValidationException");
    assert_eq!(
        violated(&message),
        [
            "limit",
            "returnConsumedCapacity",
            "segment",
            "select",
            "scanFilter.a.member.comparisonOperator",
            "conditionalOperator",
            "totalSegments",
            "tableName",
            "tableName",
            "indexName",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_lone_limit_of_zero_is_worded_apart_in_query_not_in_scan() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    let query = client
        .query()
        .table_name("Shop")
        .key_condition_expression("pk = :v")
        .expression_attribute_values(":v", aws_sdk_dynamodb::types::AttributeValue::S("v".into()))
        .limit(0)
        .send()
        .await
        .expect_err("refused");
    assert_eq!(
        code_and_message(query.into_service_error()).1,
        "1 validation error detected: Value at 'Limit' failed to satisfy constraint: \
         Member must have value greater than or equal to 1"
    );
    let scan = client.scan().table_name("Shop").limit(0).send().await.expect_err("refused");
    assert_eq!(
        code_and_message(scan.into_service_error()).1,
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: \
         Member must have value greater than or equal to 1"
    );
    // Among other violations, Query's Limit is listed like any member.
    let message = validation(&fake, "Query", &json!({"TableName": "Shop", "Limit": 0, "Select": "hi"}));
    assert!(message.starts_with("2 validation errors detected: Value '0' at 'limit' failed"), "{message}");
}
