//! No input panics: random JSON, and valid requests with a random part replaced, go through
//! every phase of every operation and come out as a result.

use proptest::prelude::*;
use serde_json::{Map, Value as Json, json};

use super::{SERIALIZATION, VALIDATION};
use super::{check, check_after_values};
use crate::validate::{check_expression_maps, parse_body};

const OPERATIONS: [&str; 21] = [
    "CreateTable",
    "DeleteTable",
    "DescribeTable",
    "ListTables",
    "UpdateTable",
    "UpdateTimeToLive",
    "DescribeTimeToLive",
    "PutItem",
    "GetItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactWriteItems",
    "TransactGetItems",
    "TagResource",
    "UntagResource",
    "ListTagsOfResource",
    "DescribeLimits",
];

/// Member names the schemas know, so that random objects hit real members often.
const NAMES: [&str; 24] = [
    "TableName",
    "Item",
    "Key",
    "S",
    "N",
    "B",
    "L",
    "M",
    "SS",
    "BOOL",
    "NULL",
    "KeySchema",
    "AttributeName",
    "KeyType",
    "RequestItems",
    "TransactItems",
    "Put",
    "Update",
    "Keys",
    "ProvisionedThroughput",
    "IndexName",
    "ExpressionAttributeNames",
    "Select",
    "GlobalSecondaryIndexes",
];

fn any_json() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::from),
        any::<i64>().prop_map(Json::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Json::from),
        "[a-zA-Z0-9+/=#:;._-]{0,6}".prop_map(Json::from),
        prop::sample::select(&["HASH", "RANGE", "S", "ALL", "PAY_PER_REQUEST", "COUNT", "ALL_OLD"][..])
            .prop_map(Json::from),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Json::Array),
            prop::collection::vec((prop::sample::select(&NAMES[..]), inner), 0..6).prop_map(|entries| Json::Object(
                entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<_, _>>()
            )),
        ]
    })
}

/// Runs every phase; only the two validation error types may come out.
fn run_all(operation: &str, body: &Json) {
    let body = &crate::json::Json::from(body);
    for result in [check(operation, body), check_after_values(operation, body), check_expression_maps(body)] {
        if let Err(error) = result {
            assert!(error.type_name == VALIDATION || error.type_name == SERIALIZATION, "{}", error.type_name);
        }
    }
}

/// Replaces the value at the `choice`-th node of `body` (in a depth-first walk) with `part`.
fn graft(body: &mut Json, choice: usize, part: Json) {
    fn walk(node: &mut Json, countdown: &mut usize, part: &mut Option<Json>) {
        if *countdown == 0 {
            if let Some(part) = part.take() {
                *node = part;
            }
            return;
        }
        *countdown -= 1;
        match node {
            Json::Array(items) => items.iter_mut().for_each(|item| walk(item, countdown, part)),
            Json::Object(members) => members.values_mut().for_each(|member| walk(member, countdown, part)),
            _ => {}
        }
    }
    walk(body, &mut choice.clone(), &mut Some(part));
}

fn valid_bodies() -> Vec<(&'static str, Json)> {
    vec![
        (
            "PutItem",
            json!({"TableName": "Shop", "Item": {"pk": {"S": "a"}, "l": {"L": [{"M": {"x": {"NS": ["1"]}}}]}}, "ConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"B": "AAE="}}}),
        ),
        (
            "CreateTable",
            json!({"TableName": "Shop", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}], "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}], "BillingMode": "PAY_PER_REQUEST", "LocalSecondaryIndexes": [{"IndexName": "lsi", "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}}]}),
        ),
        (
            "UpdateTable",
            json!({"TableName": "Shop", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "gsi"}}]}),
        ),
        (
            "Query",
            json!({"TableName": "Shop", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "x"}}, "Select": "COUNT"}),
        ),
        (
            "Scan",
            json!({"TableName": "Shop", "Segment": 0, "TotalSegments": 2, "ScanFilter": {"a": {"ComparisonOperator": "NULL"}}}),
        ),
        ("BatchGetItem", json!({"RequestItems": {"Shop": {"Keys": [{"pk": {"S": "a"}}], "AttributesToGet": ["a"]}}})),
        ("BatchWriteItem", json!({"RequestItems": {"Shop": [{"PutRequest": {"Item": {"pk": {"S": "a"}}}}]}})),
        (
            "TransactWriteItems",
            json!({"TransactItems": [{"Update": {"TableName": "Shop", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET a = :a", "ExpressionAttributeValues": {":a": {"N": "1"}}}}]}),
        ),
        ("TransactGetItems", json!({"TransactItems": [{"Get": {"TableName": "Shop", "Key": {"pk": {"S": "a"}}}}]})),
    ]
}

proptest! {
    #[test]
    fn random_bodies_never_panic(body in any_json(), operation in prop::sample::select(&OPERATIONS[..])) {
        run_all(operation, &body);
        let _ = parse_body(body.to_string().as_bytes(), &crate::json::Arena::new());
    }

    #[test]
    fn valid_bodies_with_a_random_part_never_panic(which in 0usize..9, at in 0usize..40, part in any_json()) {
        let (operation, mut body) = valid_bodies().swap_remove(which);
        graft(&mut body, at, part);
        run_all(operation, &body);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = parse_body(&bytes, &crate::json::Arena::new());
    }
}

#[test]
fn the_sample_bodies_are_valid() {
    for (operation, body) in valid_bodies() {
        super::passes(operation, body);
    }
}
