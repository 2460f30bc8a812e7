//! The words of the refusals of PutItem, UpdateItem and DeleteItem, as nubo-db's conformance
//! suite recorded them against DynamoDB in 2026: an unused placeholder, an empty placeholder map,
//! an empty set, a string set holding a member twice, a null of `false`, and the rules an update
//! expression breaks once parsed are answered in their sentence alone, as the other operations
//! answer them. moto's older tests verified against DynamoDB had them inside a
//! `1 validation error detected: ` envelope; Scan and Query still give the rules of `Select` in
//! one (moto, nothing newer).

mod support;

use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::invalid;

const UNUSED_COUNT: &str = "Value provided in ExpressionAttributeNames unused in expressions: keys: {#count}";

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    fake
}

#[test]
fn an_unused_placeholder_is_named_in_the_same_sentence_by_every_operation() {
    let fake = fake();
    let names = json!({"#count": "count"});
    let put = json!({"TableName": "Things", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(body)",
                     "ExpressionAttributeNames": names});
    assert_eq!(invalid(&fake, "PutItem", put), UNUSED_COUNT);
    let delete = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(body)",
                        "ExpressionAttributeNames": names});
    assert_eq!(invalid(&fake, "DeleteItem", delete), UNUSED_COUNT);
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET spec = :v",
                        "ExpressionAttributeNames": names, "ExpressionAttributeValues": {":v": {"S": "x"}}});
    assert_eq!(invalid(&fake, "UpdateItem", update), UNUSED_COUNT);
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET spec = :v",
                        "ExpressionAttributeValues": {":v": {"S": "x"}, ":unused": {"S": "y"}}});
    assert_eq!(
        invalid(&fake, "UpdateItem", update),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}"
    );

    let scan = json!({"TableName": "Things", "FilterExpression": "#h = :h", "ExpressionAttributeNames": {"#h": "pk", "#count": "count"},
                      "ExpressionAttributeValues": {":h": {"S": "x"}}});
    assert_eq!(invalid(&fake, "Scan", scan), UNUSED_COUNT);
    let get = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "pk", "ExpressionAttributeNames": names});
    assert_eq!(invalid(&fake, "GetItem", get), UNUSED_COUNT);
    let transact = json!({"TransactItems": [{"Put": {"TableName": "Things", "Item": {"pk": {"S": "a"}},
        "ConditionExpression": "#i <> :foo", "ExpressionAttributeNames": {"#i": "pk", "#count": "count"},
        "ExpressionAttributeValues": {":foo": {"S": "foo"}}}}]});
    assert_eq!(invalid(&fake, "TransactWriteItems", transact), UNUSED_COUNT);
}

#[test]
fn update_expression_rules_and_syntax_errors_are_answered_alone() {
    let fake = fake();
    let update = |expression: &str| {
        json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": expression,
               "ExpressionAttributeValues": {":v": {"N": "1"}}})
    };
    assert_eq!(
        invalid(&fake, "UpdateItem", update("ADD a :v ADD b :v")),
        "Invalid UpdateExpression: The \"ADD\" section can only be used once in an update expression;"
    );
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a = :v REMOVE a")),
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these \
         paths; path one: [a], path two: [a]"
    );
    let empty = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": ""});
    assert_eq!(invalid(&fake, "UpdateItem", empty), "Invalid UpdateExpression: The expression can not be empty;");
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a = :v,")),
        "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\""
    );
    let no_values = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET #d = :s",
                           "ExpressionAttributeNames": {"#d": "d"}, "ExpressionAttributeValues": {}});
    assert_eq!(invalid(&fake, "UpdateItem", no_values), "ExpressionAttributeValues must not be empty");
}

#[test]
fn empty_and_repeating_sets_and_a_null_of_false_are_refused_in_the_older_words() {
    let fake = fake();
    let put = |value: serde_json::Value| json!({"TableName": "Things", "Item": {"pk": {"S": "a"}, "v": value}});
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"SS": []}))),
        "One or more parameter values were invalid: An string set  may not be empty"
    );
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"NS": []}))),
        "One or more parameter values were invalid: An number set  may not be empty"
    );
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"SS": ["a", "a"]}))),
        "One or more parameter values were invalid: Input collection [a, a] contains duplicates."
    );
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"NULL": false}))),
        "One or more parameter values were invalid: Null attribute value types must have the value of true"
    );
    // An empty set in an expression value is not named by its placeholder.
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD stringset :empty",
                        "ExpressionAttributeValues": {":empty": {"SS": []}}});
    assert_eq!(
        invalid(&fake, "UpdateItem", update),
        "One or more parameter values were invalid: An string set  may not be empty"
    );
    // Nothing was stored.
    let (_, got) = support::wire(&fake, "GetItem", json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}}));
    assert_eq!(got, json!({}));
}

#[test]
fn scan_envelopes_the_rules_of_select_as_query_does() {
    let fake = fake();
    for operation in ["Scan", "Query"] {
        let mut body = json!({"TableName": "Things", "Select": "ALL_PROJECTED_ATTRIBUTES"});
        if operation == "Query" {
            body["KeyConditionExpression"] = json!("pk = :p");
            body["ExpressionAttributeValues"] = json!({":p": {"S": "a"}});
        }
        assert_eq!(
            invalid(&fake, operation, body),
            "1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
            "{operation}"
        );
    }
}
