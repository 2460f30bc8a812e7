//! Query and Scan requests DynamoDB refuses before it reads a table, as a client on the wire
//! sees them: raw bodies in through `FakeDynamoDb::handle_json`, the status and the message out.
//! The expectations are the ones dynalite's suite records against the service.

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
