//! Fuzzing the request parser and the expression parsers: random requests, shaped like real
//! ones or not, for every operation, against tables that hold items and indexes. Every answer is
//! a 200 or a 400 with a body, nothing panics, nothing hangs.
//!
//! Bounded for CI by the number of cases (`PROPTEST_CASES`, default 256 per property):
//! `PROPTEST_CASES=5000 cargo test -p dynalease-fake --test limits_fuzz --release` runs longer.

mod support;

use dynalease_fake::FakeDynamoDb;
use proptest::prelude::*;
use serde_json::{Map, Value as Json, json};
use support::{put_all, suite_tables};

const OPERATIONS: &[&str] = &[
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "TransactWriteItems",
    "TransactGetItems",
    "UpdateTable",
    "CreateTable",
    "DescribeTable",
];

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().unwrap()
}

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::builder()
        .seed(11)
        .start_time(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000))
        .build();
    suite_tables(&fake);
    let items: Vec<Json> = (0..40)
        .map(|i| json!({"a": {"S": format!("k{}", i % 7)}, "b": {"S": format!("{i}")}, "c": {"S": format!("c{}", i % 3)}, "d": {"S": "d"}, "n": {"N": i.to_string()}}))
        .collect();
    put_all(&fake, "range", &items);
    fake
}

/// Words of every expression language, and some that belong to none.
const TOKENS: &[&str] = &[
    "a",
    "b",
    "c",
    "d",
    "n",
    "#n",
    "#m",
    ":v",
    ":w",
    ":x",
    "=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "IN",
    "(",
    ")",
    ",",
    ".",
    "[0]",
    "[99999999999999999999]",
    "size",
    "begins_with",
    "attribute_exists",
    "attribute_not_exists",
    "attribute_type",
    "contains",
    "SET",
    "REMOVE",
    "ADD",
    "DELETE",
    "+",
    "-",
    "if_not_exists",
    "list_append",
    "😀",
    "\u{0}",
    "'",
    "\"",
    "x.y.z",
    "#",
    ":",
    "[",
    "]",
    "_a",
    "9",
];

fn expression() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|tokens| tokens.join(" "))
}

fn scalar() -> impl Strategy<Value = Json> {
    prop_oneof![
        "[a-z0-9]{0,6}".prop_map(|s| json!({"S": s})),
        prop_oneof![
            Just("1".to_owned()),
            Just("-0.5".to_owned()),
            Just("1e126".to_owned()),
            Just("abc".to_owned()),
            "[0-9]{1,45}"
        ]
        .prop_map(|n| json!({"N": n})),
        prop_oneof![Just("AAE="), Just("===="), Just("x")].prop_map(|b| json!({"B": b})),
        any::<bool>().prop_map(|b| json!({"BOOL": b})),
        Just(json!({"NULL": true})),
        Just(json!({"SS": ["a", "a"]})),
        Just(json!({"NS": []})),
        Just(json!({})),
        Just(json!({"S": "a", "N": "1"})),
        Just(json!("not a value")),
        Just(json!(null)),
    ]
}

fn attribute_value() -> impl Strategy<Value = Json> {
    scalar().prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|list| json!({"L": list})),
            prop::collection::btree_map("[a-d]", inner, 0..4).prop_map(|map| json!({"M": map})),
        ]
    })
}

fn attribute_map() -> impl Strategy<Value = Json> {
    prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "d", "n", "z"]), attribute_value(), 0..4)
        .prop_map(|map| Json::Object(map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

fn legacy_conditions() -> impl Strategy<Value = Json> {
    let operator = prop::sample::select(vec![
        "EQ",
        "NE",
        "LT",
        "BETWEEN",
        "IN",
        "NULL",
        "NOT_NULL",
        "BEGINS_WITH",
        "CONTAINS",
        "XOR",
    ]);
    prop::collection::btree_map(
        prop::sample::select(vec!["a", "b", "c", "e"]),
        (operator, prop::collection::vec(scalar(), 0..3)),
        0..3,
    )
    .prop_map(|map| {
        Json::Object(
            map.into_iter()
                .map(|(k, (op, values))| {
                    (k.to_owned(), json!({"ComparisonOperator": op, "AttributeValueList": values}))
                })
                .collect(),
        )
    })
}

fn junk() -> impl Strategy<Value = Json> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(-1)),
        Just(json!(2.5)),
        Just(json!(1_000_000_000_000u64)),
        Just(json!([])),
        Just(json!({})),
        "[A-Z_]{0,12}".prop_map(Json::String),
    ]
}

/// One member of a request: a plausible value or junk.
fn member(name: &'static str) -> BoxedStrategy<(String, Json)> {
    let value: BoxedStrategy<Json> = match name {
        "TableName" => prop_oneof![Just(json!("range")), Just(json!("hash")), Just(json!("nope")), junk()].boxed(),
        "IndexName" => prop_oneof![Just(json!("index1")), Just(json!("index3")), Just(json!("index4")), junk()].boxed(),
        "KeyConditionExpression" | "FilterExpression" | "ProjectionExpression" | "ConditionExpression" | "UpdateExpression" => {
            prop_oneof![expression().prop_map(Json::String), Just(json!("a = :v")), Just(json!("a = :v AND b > :w")), junk()].boxed()
        }
        "ExpressionAttributeNames" => prop_oneof![
            Just(json!({"#n": "a", "#m": "b"})),
            prop::collection::btree_map("[#:a-z]{0,3}", "[a-z]{0,3}", 0..3).prop_map(|m| json!(m)),
            junk()
        ]
        .boxed(),
        "ExpressionAttributeValues" => prop::collection::btree_map(prop::sample::select(vec![":v", ":w", ":x", "v"]), attribute_value(), 0..4)
            .prop_map(|m| json!(m))
            .boxed(),
        "Key" | "Item" | "ExclusiveStartKey" => prop_oneof![attribute_map(), junk()].boxed(),
        "KeyConditions" | "QueryFilter" | "ScanFilter" | "Expected" => prop_oneof![legacy_conditions(), junk()].boxed(),
        "Limit" | "Segment" | "TotalSegments" => prop_oneof![(0i64..10).prop_map(|n| json!(n)), junk()].boxed(),
        "Select" => prop::sample::select(vec!["ALL_ATTRIBUTES", "COUNT", "SPECIFIC_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "X"]).prop_map(|s| json!(s)).boxed(),
        "ConditionalOperator" => prop::sample::select(vec!["AND", "OR", "XOR"]).prop_map(|s| json!(s)).boxed(),
        "AttributesToGet" => prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "a"]), 0..3).prop_map(|v| json!(v)).boxed(),
        "ReturnValues" => prop::sample::select(vec!["ALL_OLD", "ALL_NEW", "UPDATED_OLD", "NONE"]).prop_map(|s| json!(s)).boxed(),
        "ReturnConsumedCapacity" => prop::sample::select(vec!["TOTAL", "INDEXES", "NONE"]).prop_map(|s| json!(s)).boxed(),
        "RequestItems" => prop_oneof![
            prop::collection::vec(attribute_map(), 0..4).prop_map(|keys| json!({"range": {"Keys": keys}, "hash": {"Keys": [{"a": {"S": "k1"}}]}})),
            prop::collection::vec(attribute_map(), 0..4)
                .prop_map(|items| json!({"range": items.into_iter().map(|i| json!({"PutRequest": {"Item": i}})).collect::<Vec<_>>()})),
            junk()
        ]
        .boxed(),
        "AttributeUpdates" => prop::collection::btree_map(
            prop::sample::select(vec!["a", "x", "y"]),
            (prop::sample::select(vec!["PUT", "ADD", "DELETE"]), prop::option::of(attribute_value())),
            0..3,
        )
        .prop_map(|m| {
            Json::Object(m.into_iter().map(|(k, (action, value))| (k.to_owned(), json!({"Action": action, "Value": value}))).collect())
        })
        .boxed(),
        _ => prop_oneof![any::<bool>().prop_map(|b| json!(b)), junk()].boxed(),
    };
    value.prop_map(move |v| (name.to_owned(), v)).boxed()
}

const MEMBERS: &[&str] = &[
    "TableName",
    "TableName",
    "TableName",
    "IndexName",
    "KeyConditionExpression",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
    "ConditionExpression",
    "UpdateExpression",
    "ExpressionAttributeNames",
    "ExpressionAttributeValues",
    "ExpressionAttributeValues",
    "Key",
    "Item",
    "ExclusiveStartKey",
    "KeyConditions",
    "QueryFilter",
    "ScanFilter",
    "Expected",
    "Limit",
    "Segment",
    "TotalSegments",
    "Select",
    "ConditionalOperator",
    "AttributesToGet",
    "ReturnValues",
    "ReturnConsumedCapacity",
    "RequestItems",
    "AttributeUpdates",
    "ConsistentRead",
    "ScanIndexForward",
];

fn request() -> impl Strategy<Value = (&'static str, Json)> {
    let members = prop::sample::subsequence(MEMBERS, 0..10)
        .prop_flat_map(|names| names.into_iter().map(member).collect::<Vec<_>>());
    (prop::sample::select(OPERATIONS), members).prop_map(|(operation, members)| {
        let body: Map<String, Json> = members.into_iter().collect();
        (operation, Json::Object(body))
    })
}

fn answers_without_panic(fake: &FakeDynamoDb, operation: &str, body: &[u8]) -> Result<(), TestCaseError> {
    let (status, answer) = fake.handle_json(operation, body);
    prop_assert!(status == 200 || status == 400, "{operation} answered {status}");
    let json: Json = serde_json::from_slice(&answer).map_err(|e| TestCaseError::fail(e.to_string()))?;
    if status == 400 {
        prop_assert!(json["__type"].is_string(), "an error without a type: {json}");
    }
    Ok(())
}

#[test]
fn random_requests_get_an_answer() {
    let runtime = runtime();
    let _guard = runtime.enter();
    let fake = fake();
    proptest!(|((operation, body) in request())| {
        answers_without_panic(&fake, operation, body.to_string().as_bytes())?;
    });
}

#[test]
fn random_expressions_in_every_position_get_an_answer() {
    let runtime = runtime();
    let _guard = runtime.enter();
    let fake = fake();
    let values = json!({":v": {"S": "k1"}, ":w": {"N": "3"}, ":x": {"L": [{"S": "a"}]}});
    proptest!(|(first in expression(), second in expression(), projection in expression())| {
        let bodies = [
            ("Query", json!({"TableName": "range", "KeyConditionExpression": first, "FilterExpression": second, "ExpressionAttributeValues": values})),
            ("Query", json!({"TableName": "range", "IndexName": "index4", "KeyConditionExpression": first, "ProjectionExpression": projection})),
            ("Scan", json!({"TableName": "range", "FilterExpression": first, "ProjectionExpression": projection, "ExpressionAttributeNames": {"#n": "a"}})),
            ("UpdateItem", json!({"TableName": "range", "Key": {"a": {"S": "k1"}, "b": {"S": "1"}}, "UpdateExpression": first, "ConditionExpression": second, "ExpressionAttributeValues": values})),
        ];
        for (operation, body) in bodies {
            answers_without_panic(&fake, operation, body.to_string().as_bytes())?;
        }
    });
}

#[test]
fn random_bytes_get_an_answer() {
    let runtime = runtime();
    let _guard = runtime.enter();
    let fake = fake();
    proptest!(|(operation in prop::sample::select(OPERATIONS), body in prop::collection::vec(any::<u8>(), 0..200))| {
        answers_without_panic(&fake, operation, &body)?;
    });
}
