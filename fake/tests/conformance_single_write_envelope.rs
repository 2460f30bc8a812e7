//! Which refusals come inside the `1 validation error detected: ` envelope, from moto's tests
//! that are verified against DynamoDB: PutItem, UpdateItem and DeleteItem envelope an unused
//! placeholder, an empty placeholder map, an empty set value and the rules an update expression
//! breaks once parsed; Scan, GetItem and the transactions give the same texts bare; a syntax
//! error is bare everywhere. Scan and Query envelope the rules of `Select` alike.

mod support;

use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::invalid;

const ENVELOPE: &str = "1 validation error detected: ";
const UNUSED_COUNT: &str = "Value provided in ExpressionAttributeNames unused in expressions: keys: {#count}";

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    fake
}

#[test]
fn an_unused_placeholder_is_enveloped_by_the_single_item_writes_only() {
    let fake = fake();
    let names = json!({"#count": "count"});
    let put = json!({"TableName": "Things", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(body)",
                     "ExpressionAttributeNames": names});
    assert_eq!(invalid(&fake, "PutItem", put), format!("{ENVELOPE}{UNUSED_COUNT}"));
    let delete = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(body)",
                        "ExpressionAttributeNames": names});
    assert_eq!(invalid(&fake, "DeleteItem", delete), format!("{ENVELOPE}{UNUSED_COUNT}"));
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET spec = :v",
                        "ExpressionAttributeNames": names, "ExpressionAttributeValues": {":v": {"S": "x"}}});
    assert_eq!(invalid(&fake, "UpdateItem", update), format!("{ENVELOPE}{UNUSED_COUNT}"));

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
fn update_expression_rules_are_enveloped_and_its_syntax_errors_are_not() {
    let fake = fake();
    let update = |expression: &str| {
        json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": expression,
               "ExpressionAttributeValues": {":v": {"N": "1"}}})
    };
    assert_eq!(
        invalid(&fake, "UpdateItem", update("ADD a :v ADD b :v")),
        format!(
            "{ENVELOPE}Invalid UpdateExpression: The \"ADD\" section can only be used once in an update expression;"
        )
    );
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a = :v REMOVE a")),
        format!(
            "{ENVELOPE}Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one \
             of these paths; path one: [a], path two: [a]"
        )
    );
    let empty = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": ""});
    assert_eq!(
        invalid(&fake, "UpdateItem", empty),
        format!("{ENVELOPE}Invalid UpdateExpression: The expression can not be empty;")
    );
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a = :v,")),
        "Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\""
    );
    let no_values = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET #d = :s",
                           "ExpressionAttributeNames": {"#d": "d"}, "ExpressionAttributeValues": {}});
    assert_eq!(
        invalid(&fake, "UpdateItem", no_values),
        format!("{ENVELOPE}ExpressionAttributeValues must not be empty")
    );
}

#[test]
fn an_empty_set_is_enveloped_by_the_single_item_writes_without_its_placeholder() {
    let fake = fake();
    let put = json!({"TableName": "Things", "Item": {"pk": {"S": "a"}, "nums": {"NS": []}}});
    assert_eq!(
        invalid(&fake, "PutItem", put),
        format!("{ENVELOPE}One or more parameter values were invalid: An number set  may not be empty")
    );
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD stringset :empty",
                        "ExpressionAttributeValues": {":empty": {"SS": []}}});
    assert_eq!(
        invalid(&fake, "UpdateItem", update),
        format!("{ENVELOPE}One or more parameter values were invalid: An string set  may not be empty")
    );
    // A transaction keeps the older wording, bare.
    let transact =
        json!({"TransactItems": [{"Put": {"TableName": "Things", "Item": {"pk": {"S": "a"}, "nums": {"NS": []}}}}]});
    assert_eq!(
        invalid(&fake, "TransactWriteItems", transact),
        "One or more parameter values were invalid: An number set  may not be empty"
    );
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
            format!("{ENVELOPE}ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"),
            "{operation}"
        );
    }
}
