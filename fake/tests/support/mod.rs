//! Shared by the test files: attribute values and key schema pieces, tables shaped like the ones
//! the public DynamoDB test suites use, and access to the wire for requests the SDK would not send.
#![allow(dead_code)]

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{AttributeDefinition, AttributeValue, KeySchemaElement, KeyType, ScalarAttributeType};
use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};

/// A string attribute value.
pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// A number attribute value.
pub fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

/// The definition of a string attribute, for a key schema.
pub fn def(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().unwrap()
}

/// A key schema element.
pub fn key(name: &str, kind: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap()
}

/// Sends a raw request body; answers the status and the parsed body.
pub fn wire(fake: &FakeDynamoDb, operation: &str, body: Json) -> (u16, Json) {
    let (status, bytes) = fake.handle_json(operation, body.to_string().as_bytes());
    let json = serde_json::from_slice(&bytes).unwrap_or(Json::Null);
    (status, json)
}

/// The answer to a request that must succeed.
pub fn ok(fake: &FakeDynamoDb, operation: &str, body: Json) -> Json {
    let (status, json) = wire(fake, operation, body);
    assert_eq!(status, 200, "{operation} failed: {json}");
    json
}

/// The error code (text after `#`) and message of a request that must fail with 400.
pub fn refused(fake: &FakeDynamoDb, operation: &str, body: Json) -> (String, String) {
    let (status, json) = wire(fake, operation, body);
    assert_eq!(status, 400, "{operation} should fail: {json}");
    let code = json["__type"].as_str().unwrap_or_default().rsplit('#').next().unwrap_or_default().to_owned();
    let message = json["message"].as_str().or(json["Message"].as_str()).unwrap_or_default().to_owned();
    (code, message)
}

/// The message of a ValidationException.
pub fn invalid(fake: &FakeDynamoDb, operation: &str, body: Json) -> String {
    let (code, message) = refused(fake, operation, body);
    assert_eq!(code, "ValidationException", "{message}");
    message
}

/// The code and message of an SDK error.
pub fn sdk_error<E: ProvideErrorMetadata>(error: E) -> (String, String) {
    (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned())
}

/// Creates the tables of the public test suites: `hash` (a: S), `hashN` (a: N),
/// `range` (a, b: S; local indexes `index1` on c (ALL) and `index2` on d (INCLUDE c); global
/// indexes `index3` on c (ALL) and `index4` on c, d (INCLUDE e)), `rangeN` (a: S, b: N),
/// `rangeB` (a: S, b: B).
pub fn suite_tables(fake: &FakeDynamoDb) {
    let key = |names: &[(&str, &str)]| -> Json {
        Json::Array(
            names
                .iter()
                .enumerate()
                .map(|(i, (name, _))| json!({"AttributeName": name, "KeyType": if i == 0 { "HASH" } else { "RANGE" }}))
                .collect(),
        )
    };
    let defs = |names: &[(&str, &str)]| -> Json {
        Json::Array(names.iter().map(|(name, kind)| json!({"AttributeName": name, "AttributeType": kind})).collect())
    };
    ok(
        fake,
        "CreateTable",
        json!({"TableName": "hash", "AttributeDefinitions": defs(&[("a", "S")]), "KeySchema": key(&[("a", "S")]), "BillingMode": "PAY_PER_REQUEST"}),
    );
    ok(
        fake,
        "CreateTable",
        json!({"TableName": "hashN", "AttributeDefinitions": defs(&[("a", "N")]), "KeySchema": key(&[("a", "N")]), "BillingMode": "PAY_PER_REQUEST"}),
    );
    ok(
        fake,
        "CreateTable",
        json!({
            "TableName": "range",
            "AttributeDefinitions": defs(&[("a", "S"), ("b", "S"), ("c", "S"), ("d", "S")]),
            "KeySchema": key(&[("a", "S"), ("b", "S")]),
            "BillingMode": "PAY_PER_REQUEST",
            "LocalSecondaryIndexes": [
                {"IndexName": "index1", "KeySchema": key(&[("a", "S"), ("c", "S")]), "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "index2", "KeySchema": key(&[("a", "S"), ("d", "S")]), "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["c"]}},
            ],
            "GlobalSecondaryIndexes": [
                {"IndexName": "index3", "KeySchema": key(&[("c", "S")]), "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "index4", "KeySchema": key(&[("c", "S"), ("d", "S")]), "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["e"]}},
            ],
        }),
    );
    ok(
        fake,
        "CreateTable",
        json!({"TableName": "rangeN", "AttributeDefinitions": defs(&[("a", "S"), ("b", "N")]), "KeySchema": key(&[("a", "S"), ("b", "N")]), "BillingMode": "PAY_PER_REQUEST"}),
    );
    ok(
        fake,
        "CreateTable",
        json!({"TableName": "rangeB", "AttributeDefinitions": defs(&[("a", "S"), ("b", "B")]), "KeySchema": key(&[("a", "S"), ("b", "B")]), "BillingMode": "PAY_PER_REQUEST"}),
    );
}

/// Writes items (wire JSON) to a table, 25 at a time.
pub fn put_all(fake: &FakeDynamoDb, table: &str, items: &[Json]) {
    for chunk in items.chunks(25) {
        let requests: Vec<Json> = chunk.iter().map(|item| json!({"PutRequest": {"Item": item}})).collect();
        let answer = ok(fake, "BatchWriteItem", json!({"RequestItems": {table: requests}}));
        assert_eq!(answer["UnprocessedItems"], json!({}));
    }
}

/// The values of attribute `name` (strings or numbers) of the items of an answer, in order.
pub fn column(answer: &Json, name: &str) -> Vec<String> {
    answer["Items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| {
            let value = &item[name];
            value["S"].as_str().or(value["N"].as_str()).or(value["B"].as_str()).unwrap_or("-").to_owned()
        })
        .collect()
}

pub mod s3;
pub mod streams;
