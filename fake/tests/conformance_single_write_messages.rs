//! The words of the refusals of PutItem, UpdateItem and DeleteItem as DynamoDB answers them since
//! its rollout of 2026: a refusal of the request itself (an unused or undefined placeholder, an
//! empty placeholder map, placeholders without an expression, a mix of expression and legacy
//! parameters, an expression that does not parse or breaks a rule of its language, an empty or
//! repeating set, a null of `false`, a malformed legacy condition, a `ReturnValues` the operation
//! does not take) comes inside `1 validation error detected: `, while a refusal that needs the
//! table or the item (the key's schema, an attribute of the key, a document path the item does
//! not have) stays bare, and every other operation answers the same checks bare.
//!
//! The evidence, newest first: nubo-db's conformance suite (now paritysuite's), captured in
//! eu-west-2 and us-east-1 on 2026-10-09; floci's report of 2026-09-01 (ap-southeast-1); moto's
//! change of 2026-08-22 ("parity with AWS in error messages"); dynoxide's captures in eu-west-2
//! of 2026-07-23. The same suite's capture of 2026-05 had these bare, as the fake answered them
//! until then (docs/fidelity.md).

mod support;

use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};
use support::invalid;

const ENVELOPE: &str = "1 validation error detected: ";
const UNUSED_COUNT: &str = "Value provided in ExpressionAttributeNames unused in expressions: keys: {#count}";

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    fake
}

fn enveloped(message: &str) -> String {
    format!("{ENVELOPE}{message}")
}

#[test]
fn an_unused_placeholder_is_enveloped_by_the_single_item_writes_and_bare_elsewhere() {
    let fake = fake();
    let names = json!({"#count": "count"});
    let put = json!({"TableName": "Things", "Item": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(body)",
                     "ExpressionAttributeNames": names});
    assert_eq!(invalid(&fake, "PutItem", put), enveloped(UNUSED_COUNT));
    let delete = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(body)",
                        "ExpressionAttributeNames": names});
    assert_eq!(invalid(&fake, "DeleteItem", delete), enveloped(UNUSED_COUNT));
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET spec = :v",
                        "ExpressionAttributeNames": names, "ExpressionAttributeValues": {":v": {"S": "x"}}});
    assert_eq!(invalid(&fake, "UpdateItem", update), enveloped(UNUSED_COUNT));
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET spec = :v",
                        "ExpressionAttributeValues": {":v": {"S": "x"}, ":unused": {"S": "y"}}});
    assert_eq!(
        invalid(&fake, "UpdateItem", update),
        enveloped("Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}")
    );

    // The reads and the transactions answer the same check bare.
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
fn update_expression_rules_and_syntax_errors_are_enveloped() {
    let fake = fake();
    let update = |expression: &str| {
        json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": expression,
               "ExpressionAttributeValues": {":v": {"N": "1"}}})
    };
    assert_eq!(
        invalid(&fake, "UpdateItem", update("ADD a :v ADD b :v")),
        enveloped("Invalid UpdateExpression: The \"ADD\" section can only be used once in an update expression;")
    );
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a = :v REMOVE a")),
        enveloped(
            "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these \
             paths; path one: [a], path two: [a]"
        )
    );
    let empty = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": ""});
    assert_eq!(
        invalid(&fake, "UpdateItem", empty),
        enveloped("Invalid UpdateExpression: The expression can not be empty;")
    );
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET a = :v,")),
        enveloped("Invalid UpdateExpression: Syntax error; token: \"<EOF>\", near: \",\"")
    );
    let no_values = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET #d = :s",
                           "ExpressionAttributeNames": {"#d": "d"}, "ExpressionAttributeValues": {}});
    assert_eq!(invalid(&fake, "UpdateItem", no_values), enveloped("ExpressionAttributeValues must not be empty"));
    // The condition's own undefined value, beside an update whose value is defined.
    let condition = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET b = :w",
                           "ConditionExpression": "a = :v", "ExpressionAttributeValues": {":w": {"S": "x"}}});
    assert_eq!(
        invalid(&fake, "UpdateItem", condition),
        enveloped(
            "Invalid ConditionExpression: An expression attribute value used in expression is not defined; \
             attribute value: :v"
        )
    );
}

#[test]
fn empty_and_repeating_sets_and_a_null_of_false_are_enveloped() {
    let fake = fake();
    let put = |value: Json| json!({"TableName": "Things", "Item": {"pk": {"S": "a"}, "v": value}});
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"SS": []}))),
        enveloped("One or more parameter values were invalid: An string set  may not be empty")
    );
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"NS": []}))),
        enveloped("One or more parameter values were invalid: An number set  may not be empty")
    );
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"SS": ["a", "a"]}))),
        enveloped("One or more parameter values were invalid: Input collection [a, a] contains duplicates.")
    );
    assert_eq!(
        invalid(&fake, "PutItem", put(json!({"NULL": false}))),
        enveloped("One or more parameter values were invalid: Null attribute value types must have the value of true")
    );
    // An empty set in an expression value is not named by its placeholder.
    let update = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD stringset :empty",
                        "ExpressionAttributeValues": {":empty": {"SS": []}}});
    assert_eq!(
        invalid(&fake, "UpdateItem", update),
        enveloped("One or more parameter values were invalid: An string set  may not be empty")
    );
    // Nothing was stored.
    let (_, got) = support::wire(&fake, "GetItem", json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}}));
    assert_eq!(got, json!({}));
}

#[test]
fn placeholders_without_an_expression_empty_maps_and_legacy_conditions_are_enveloped() {
    let fake = fake();
    let key = json!({"pk": {"S": "a"}});
    let with = |operation: &str, extra: Json| {
        let mut body = match operation {
            "PutItem" => json!({"TableName": "Things", "Item": key}),
            _ => json!({"TableName": "Things", "Key": key}),
        };
        for (member, value) in extra.as_object().unwrap() {
            body[member] = value.clone();
        }
        invalid(&fake, operation, body)
    };
    for operation in ["PutItem", "DeleteItem"] {
        // DynamoDB no longer names the expressions that are null.
        assert_eq!(
            with(operation, json!({"ExpressionAttributeValues": {":v": {"S": "x"}}})),
            enveloped("ExpressionAttributeValues can only be specified when using expressions"),
            "{operation}"
        );
        assert_eq!(
            with(operation, json!({"ExpressionAttributeNames": {"#a": "a"}})),
            enveloped("ExpressionAttributeNames can only be specified when using expressions"),
            "{operation}"
        );
        assert_eq!(
            with(operation, json!({"ConditionExpression": ""})),
            enveloped("Invalid ConditionExpression: The expression can not be empty;"),
            "{operation}"
        );
        assert_eq!(
            with(operation, json!({"Expected": {"a": {"Exists": true}}})),
            enveloped(
                "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"
            ),
            "{operation}"
        );
        assert_eq!(
            with(
                operation,
                json!({"Expected": {"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "x"}]}}})
            ),
            enveloped(
                "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"
            ),
            "{operation}"
        );
        assert_eq!(
            with(
                operation,
                json!({"Expected": {"a": {"Exists": false}}, "ConditionExpression": "attribute_not_exists(a)"})
            ),
            enveloped(
                "Can not use both expression and non-expression parameters in the same request: \
                 Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"
            ),
            "{operation}"
        );
    }
    let condition = json!({"ConditionExpression": "attribute_exists(a)", "ExpressionAttributeValues": {}});
    assert_eq!(with("DeleteItem", condition), enveloped("ExpressionAttributeValues must not be empty"));
    let condition = json!({"ConditionExpression": "attribute_exists(a)", "ExpressionAttributeNames": {}});
    assert_eq!(with("DeleteItem", condition), enveloped("ExpressionAttributeNames must not be empty"));
    for returned in ["ALL_NEW", "UPDATED_NEW"] {
        assert_eq!(
            with("DeleteItem", json!({"ReturnValues": returned})),
            enveloped("ReturnValues can only be ALL_OLD or NONE")
        );
    }
}

#[test]
fn refusals_that_need_the_table_or_the_item_stay_bare() {
    let fake = fake();
    let update = |expression: &str| {
        json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "UpdateExpression": expression,
               "ExpressionAttributeValues": {":v": {"S": "x"}}})
    };
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET pk = :v")),
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
    );
    assert_eq!(
        invalid(&fake, "UpdateItem", update("SET m.deeper = :v")),
        "The document path provided in the update expression is invalid for update"
    );
    let wrong_key = json!({"TableName": "Things", "Key": {"pk": {"N": "1"}}});
    assert_eq!(invalid(&fake, "DeleteItem", wrong_key), "The provided key element does not match the schema");
    let empty_key = json!({"TableName": "Things", "Item": {"pk": {"S": ""}}});
    assert_eq!(
        invalid(&fake, "PutItem", empty_key),
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty \
         string value. Key: pk"
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
            "1 validation error detected: ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
            "{operation}"
        );
    }
}
