//! What a request may name an attribute by: never the empty string, whether through a name
//! placeholder, `AttributesToGet`, `AttributeUpdates` or an item; and a list index of a document
//! path fits in 32 bits. ScyllaDB's Alternator suite, run against DynamoDB, pins both; the words
//! for a placeholder and for an index are DynamoDB's own.

mod support;

use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};
use support::{invalid, ok};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    ok(
        &fake,
        "PutItem",
        json!({"TableName": "Things", "Item": {"pk": {"S": "k"}, "a": {"L": [{"N": "7"}, {"N": "42"}]}}}),
    );
    fake
}

/// The item `k` as stored now.
fn stored(fake: &FakeDynamoDb) -> Json {
    ok(fake, "GetItem", json!({"TableName": "Things", "Key": {"pk": {"S": "k"}}}))["Item"].clone()
}

#[test]
fn an_empty_attribute_name_is_refused_wherever_a_request_names_one() {
    let fake = fake();
    let before = stored(&fake);
    let key = json!({"pk": {"S": "k"}});
    let empty_placeholder = "ExpressionAttributeNames contains invalid value: Empty attribute name for key #name";
    // UpdateItem answers a check of the request inside DynamoDB's envelope; GetItem does not.
    let enveloped = format!("1 validation error detected: {empty_placeholder}");
    let get = json!({"TableName": "Things", "Key": key, "ProjectionExpression": "#name",
                     "ExpressionAttributeNames": {"#name": ""}});
    assert_eq!(invalid(&fake, "GetItem", get), empty_placeholder);
    let set = json!({"TableName": "Things", "Key": key, "UpdateExpression": "SET #name = :v",
                     "ExpressionAttributeNames": {"#name": ""}, "ExpressionAttributeValues": {":v": {"N": "3"}}});
    assert_eq!(invalid(&fake, "UpdateItem", set), enveloped);
    let condition = json!({"TableName": "Things", "Key": key, "UpdateExpression": "SET b = :v",
                           "ConditionExpression": "#name = :v", "ExpressionAttributeNames": {"#name": ""},
                           "ExpressionAttributeValues": {":v": {"N": "1"}}});
    assert_eq!(invalid(&fake, "UpdateItem", condition), enveloped);

    let to_get = json!({"TableName": "Things", "Key": key, "AttributesToGet": [""]});
    assert_eq!(invalid(&fake, "GetItem", to_get), "Empty attribute name");
    let legacy =
        json!({"TableName": "Things", "Key": key, "AttributeUpdates": {"": {"Value": {"N": "2"}, "Action": "PUT"}}});
    assert_eq!(invalid(&fake, "UpdateItem", legacy), "Empty attribute name");
    let put = json!({"TableName": "Things", "Item": {"pk": {"S": "k"}, "": {"N": "1"}}});
    assert_eq!(invalid(&fake, "PutItem", put), "Empty attribute name");
    assert_eq!(stored(&fake), before, "no refused request wrote anything");
}

#[test]
fn a_list_index_beyond_32_bits_is_refused_and_one_past_the_list_reads_nothing() {
    let fake = fake();
    let project = |path: &str| json!({"TableName": "Things", "Key": {"pk": {"S": "k"}}, "ProjectionExpression": path});
    assert_eq!(ok(&fake, "GetItem", project("a[1]"))["Item"], json!({"a": {"L": [{"N": "42"}]}}));
    assert_eq!(ok(&fake, "GetItem", project("a[2147483647]"))["Item"], json!({}));
    for index in ["2147483648", "99999999999999", "99999999999999999999999"] {
        assert_eq!(
            invalid(&fake, "GetItem", project(&format!("a[{index}]"))),
            format!("Invalid ProjectionExpression: List index is not within the allowable range; index: [{index}]")
        );
    }
    assert!(invalid(&fake, "GetItem", project("a[-1]")).starts_with("Invalid ProjectionExpression: Syntax error;"));
    // In an update, and after the text parsed: a syntax error further on is reported first.
    let update = |expression: &str| {
        json!({"TableName": "Things", "Key": {"pk": {"S": "k"}}, "UpdateExpression": expression,
               "ExpressionAttributeValues": {":v": {"N": "1"}}})
    };
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a[4294967295] = :v")),
        "1 validation error detected: Invalid UpdateExpression: List index is not within the allowable range; index: [4294967295]"
    );
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a[4294967295] = :v,")),
        "1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\""
    );
}
