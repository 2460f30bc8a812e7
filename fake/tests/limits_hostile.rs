//! DynamoDB's limits and hostile input: expression size and operator count, parenthesis
//! nesting, document nesting, key sizes, bodies nested too deep to read. Each is refused with
//! DynamoDB's message, and none hangs or panics the fake.

mod support;

use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};
use support::{invalid, ok, refused, s, sdk_error, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

/// `{M: {n: ...}}` wrapped `depth` times around a string.
fn deep(depth: usize) -> AttributeValue {
    let mut value = s("leaf");
    for _ in 0..depth {
        value = AttributeValue::M([("n".to_owned(), value)].into());
    }
    value
}

fn deep_json(depth: usize) -> Json {
    let mut value = json!({"S": "leaf"});
    for _ in 0..depth {
        value = json!({"M": {"n": value}});
    }
    value
}

/// Clauses joined to exactly `bytes` bytes, the last attribute name stretched to land on it.
fn filter_of(bytes: usize) -> (String, Json) {
    let mut clauses = Vec::new();
    let mut total = 0;
    loop {
        let clause = format!("a{:048} = :v{}", clauses.len(), clauses.len());
        let add = clause.len() + if clauses.is_empty() { 0 } else { 4 };
        if total + add > bytes {
            break;
        }
        total += add;
        clauses.push(clause);
    }
    let short = bytes - total;
    let last = clauses.len() - 1;
    clauses[last] = format!("a{:0width$} = :v{last}", last, width = 48 + short);
    let values: serde_json::Map<String, Json> =
        (0..clauses.len()).map(|i| (format!(":v{i}"), json!({"S": "x"}))).collect();
    let text = clauses.join(" OR ");
    assert_eq!(text.len(), bytes);
    (text, Json::Object(values))
}

#[tokio::test(start_paused = true)]
async fn expressions_of_4096_bytes_are_read_and_one_more_byte_is_refused() {
    let fake = fake();
    let (at_limit, values) = filter_of(4096);
    let answer = ok(
        &fake,
        "Scan",
        json!({"TableName": "hash", "FilterExpression": at_limit, "ExpressionAttributeValues": values}),
    );
    assert_eq!(answer["Count"], 0);
    let (over, values) = filter_of(4097);
    let message = invalid(
        &fake,
        "Scan",
        json!({"TableName": "hash", "FilterExpression": over, "ExpressionAttributeValues": values.clone()}),
    );
    assert_eq!(
        message,
        "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"
    );
    let mut values = values;
    values[":k"] = json!({"S": "k"});
    let message = invalid(
        &fake,
        "Query",
        json!({"TableName": "hash", "KeyConditionExpression": "a = :k", "FilterExpression": over, "ExpressionAttributeValues": values}),
    );
    assert!(
        message.starts_with("Invalid FilterExpression: Expression size has exceeded the maximum allowed size"),
        "{message}"
    );
}

#[tokio::test(start_paused = true)]
async fn too_many_operators_and_hopeless_nesting_are_refused_at_once() {
    let fake = fake();
    let chain = vec!["a = :v"; 301].join(" AND ");
    let message = invalid(
        &fake,
        "Scan",
        json!({"TableName": "hash", "FilterExpression": chain, "ExpressionAttributeValues": {":v": {"S": "x"}}}),
    );
    assert!(message.starts_with("Invalid FilterExpression: The expression contains too many operators;"), "{message}");
    let nested = format!("{}a = :v{}", "(".repeat(2000), ")".repeat(2000));
    let message = invalid(
        &fake,
        "Scan",
        json!({"TableName": "hash", "FilterExpression": nested, "ExpressionAttributeValues": {":v": {"S": "x"}}}),
    );
    assert!(message.starts_with("Invalid FilterExpression:"), "{message}");
}

#[tokio::test(start_paused = true)]
async fn documents_nest_thirty_two_levels_deep_and_no_deeper() {
    let fake = fake();
    let client = fake.client();
    let nesting = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit";
    client.put_item().table_name("hash").item("a", s("ok")).item("data", deep(31)).send().await.unwrap();
    let error =
        client.put_item().table_name("hash").item("a", s("deep")).item("data", deep(32)).send().await.unwrap_err();
    assert_eq!(sdk_error(error.into_service_error()).1, nesting);
    let message = invalid(
        &fake,
        "BatchWriteItem",
        json!({"RequestItems": {"hash": [{"PutRequest": {"Item": {"a": {"S": "b"}, "data": deep_json(32)}}}]}}),
    );
    assert_eq!(message, nesting);
    let error = client
        .transact_write_items()
        .transact_items(
            TransactWriteItem::builder()
                .put(Put::builder().table_name("hash").item("a", s("t")).item("data", deep(32)).build().unwrap())
                .build(),
        )
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(error.into_service_error()), ("ValidationException".to_owned(), nesting.to_owned()));
    ok(
        &fake,
        "BatchWriteItem",
        json!({"RequestItems": {"hash": [{"PutRequest": {"Item": {"a": {"S": "b"}, "data": deep_json(31)}}}]}}),
    );
}

#[tokio::test(start_paused = true)]
async fn an_attribute_needs_a_name() {
    let fake = fake();
    let message = invalid(
        &fake,
        "PutItem",
        json!({"TableName": "hash", "Item": {"a": {"S": "k"}, "": {"S": "x"}, "d": deep_json(40)}}),
    );
    assert_eq!(message, "Empty attribute name");
    let message = invalid(
        &fake,
        "TransactWriteItems",
        json!({"TransactItems": [
            {"Put": {"TableName": "absent", "Item": {"a": {"S": "k"}, "": {"S": "x"}}}},
            {"Put": {"TableName": "absent", "Item": {"a": {"S": "j"}, "d": deep_json(40)}}},
        ]}),
    );
    assert_eq!(message, "Empty attribute name");
}

#[tokio::test(start_paused = true)]
async fn key_values_have_their_size_limits() {
    let fake = fake();
    let client = fake.client();
    client.put_item().table_name("hash").item("a", s(&"k".repeat(2048))).send().await.unwrap();
    let error = client.put_item().table_name("hash").item("a", s(&"k".repeat(2049))).send().await.unwrap_err();
    assert_eq!(
        sdk_error(error.into_service_error()).1,
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
    );
    let error =
        client.get_item().table_name("range").key("a", s("a")).key("b", s(&"r".repeat(1025))).send().await.unwrap_err();
    assert_eq!(
        sdk_error(error.into_service_error()).1,
        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
    );
    let message = invalid(
        &fake,
        "Query",
        json!({
            "TableName": "range",
            "KeyConditionExpression": "a = :a",
            "ExpressionAttributeValues": {":a": {"S": "a"}},
            "ExclusiveStartKey": {"a": {"S": "a"}, "b": {"S": "r".repeat(1025)}},
        }),
    );
    assert_eq!(
        message,
        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
    );
}

#[tokio::test(start_paused = true)]
async fn a_body_nested_past_what_can_be_read_is_a_serialization_error() {
    let fake = fake();
    let mut item = String::from(r#"{"TableName":"hash","Item":{"a":{"S":"x"},"d":"#);
    for _ in 0..100_000 {
        item.push_str(r#"{"M":{"n":"#);
    }
    item.push_str(r#"{"S":"leaf"}"#);
    for _ in 0..100_000 {
        item.push_str("}}");
    }
    item.push_str("}}");
    let (status, body) = fake.handle_json("PutItem", item.as_bytes());
    assert_eq!(status, 400);
    let body: Json = serde_json::from_slice(&body).unwrap();
    assert_eq!(body["__type"], "com.amazon.coral.service#SerializationException");
    let (code, _) = refused(
        &fake,
        "Query",
        json!({"TableName": "hash", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": deep_json(60)}}),
    );
    assert_eq!(code, "ValidationException");
}
