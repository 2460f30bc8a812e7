//! A read of a global secondary index that does not project every attribute gives only what it
//! projects: `Select: ALL_ATTRIBUTES` is refused, and so is a projection (`AttributesToGet`,
//! `ProjectionExpression`) that names an attribute the index leaves out, in Query and Scan alike
//! (ScyllaDB's Alternator suite, against DynamoDB; the words are DynamoDB's, as users quote them).

mod support;

use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};
use support::{invalid, ok};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    ok(
        &fake,
        "CreateTable",
        json!({"TableName": "Things", "BillingMode": "PAY_PER_REQUEST",
               "AttributeDefinitions": [{"AttributeName": "p", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"}],
               "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
               "GlobalSecondaryIndexes": [{"IndexName": "hello", "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
                                           "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]}}]}),
    );
    let item = json!({"p": {"S": "1"}, "x": {"S": "y"}, "a": {"S": "A"}, "b": {"S": "B"}});
    ok(&fake, "PutItem", json!({"TableName": "Things", "Item": item}));
    fake
}

/// A Query of the index for `x = y`, or a Scan of it, with `extra` members.
fn read(operation: &str, extra: Json) -> Json {
    let mut body = json!({"TableName": "Things", "IndexName": "hello"});
    if operation == "Query" {
        body["KeyConditions"] = json!({"x": {"AttributeValueList": [{"S": "y"}], "ComparisonOperator": "EQ"}});
    }
    for (member, value) in extra.as_object().into_iter().flatten() {
        body[member] = value.clone();
    }
    body
}

#[test]
fn a_projection_of_what_a_global_index_leaves_out_is_refused() {
    let fake = fake();
    for operation in ["Query", "Scan"] {
        let projected = ok(&fake, operation, read(operation, json!({"AttributesToGet": ["a", "p"]})));
        assert_eq!(projected["Items"], json!([{"a": {"S": "A"}, "p": {"S": "1"}}]), "{operation}");
        let all = ok(&fake, operation, read(operation, json!({})));
        assert_eq!(all["Items"], json!([{"a": {"S": "A"}, "p": {"S": "1"}, "x": {"S": "y"}}]), "{operation}");

        let to_get = read(operation, json!({"Select": "SPECIFIC_ATTRIBUTES", "AttributesToGet": ["b", "a", "c"]}));
        assert_eq!(
            invalid(&fake, operation, to_get),
            "One or more parameter values were invalid: Global secondary index hello does not project [b, c]",
            "{operation}"
        );
        let expression = read(operation, json!({"ProjectionExpression": "a, b.c, b.d"}));
        assert_eq!(
            invalid(&fake, operation, expression),
            "One or more parameter values were invalid: Global secondary index hello does not project [b]",
            "{operation}"
        );
    }
}
