//! The rules of the data plane: expressions, item writes, reads, batches, transactions.

use serde_json::{Value as Json, json};

use super::{after_values, passes, validation};
use crate::validate::{check_expression_maps, check_expression_names};

#[test]
fn expressions_and_legacy_parameters_do_not_mix() {
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc", "Item": {"a": {}}, "Expected": {"a": {}}, "ExpressionAttributeNames": {},
                   "ExpressionAttributeValues": {}, "ConditionExpression": ""}),
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {Expected} Expression parameters: {ConditionExpression}"
    );
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc", "Item": {"a": {}}, "Expected": {"a": {}}, "ExpressionAttributeNames": {}, "ExpressionAttributeValues": {}})
        ),
        "ExpressionAttributeNames can only be specified when using expressions"
    );
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc", "Item": {"a": {}}, "Expected": {"a": {}}, "ExpressionAttributeValues": {}})
        ),
        "ExpressionAttributeValues can only be specified when using expressions"
    );
    assert_eq!(
        validation("UpdateItem", json!({"TableName": "abc", "Key": {}, "ExpressionAttributeValues": {}})),
        "ExpressionAttributeValues can only be specified when using expressions"
    );
    assert_eq!(
        validation(
            "UpdateItem",
            json!({"TableName": "abc", "Key": {}, "AttributeUpdates": {}, "Expected": {}, "UpdateExpression": "", "ConditionExpression": ""})
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}"
    );
    assert_eq!(
        validation(
            "Query",
            json!({"TableName": "abc", "QueryFilter": {}, "KeyConditions": {}, "FilterExpression": "", "KeyConditionExpression": ""})
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {QueryFilter, KeyConditions} Expression parameters: {FilterExpression, KeyConditionExpression}"
    );
    // KeyConditions may come with a FilterExpression when there is no KeyConditionExpression.
    passes(
        "Query",
        json!({"TableName": "abc", "KeyConditions": {}, "FilterExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "x"}}}),
    );
    assert_eq!(
        validation("Scan", json!({"TableName": "abc", "ExpressionAttributeValues": {}})),
        "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"
    );
    assert_eq!(
        validation(
            "BatchGetItem",
            json!({"RequestItems": {"abc": {"Keys": [{}], "AttributesToGet": ["a"], "ExpressionAttributeNames": {}, "ProjectionExpression": ""}}})
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {AttributesToGet} Expression parameters: {ProjectionExpression}"
    );
    assert_eq!(
        validation(
            "BatchGetItem",
            json!({"RequestItems": {"abc": {"Keys": [{}], "AttributesToGet": ["a"], "ExpressionAttributeNames": {}}}})
        ),
        "ExpressionAttributeNames can only be specified when using expressions"
    );
    assert_eq!(
        validation(
            "TransactWriteItems",
            json!({"TransactItems": [{"Put": {"TableName": "abc", "Item": {}, "ExpressionAttributeNames": {"#a": "a"}}}]})
        ),
        "ExpressionAttributeNames can only be specified when using expressions"
    );
}

#[test]
fn expression_maps_must_hold_placeholders() {
    let maps = |request: Json| check_expression_maps(&super::doc(&request)).map_err(|e| e.message);
    assert_eq!(maps(json!({"ExpressionAttributeNames": {}})), Err("ExpressionAttributeNames must not be empty".into()));
    assert_eq!(
        maps(json!({"ExpressionAttributeValues": {}})),
        Err("ExpressionAttributeValues must not be empty".into())
    );
    assert_eq!(
        maps(json!({"ExpressionAttributeNames": {"a": "a"}})),
        Err("ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\"".into())
    );
    assert_eq!(
        maps(json!({"ExpressionAttributeValues": {":ok": {"S": "a"}, "::x": {"S": "a"}}})),
        Err("ExpressionAttributeValues contains invalid key: Syntax error; key: \"::x\"".into())
    );
    assert_eq!(
        maps(json!({"ExpressionAttributeNames": {"#a_1": "a"}, "ExpressionAttributeValues": {":B2": {}}})),
        Ok(())
    );
    assert_eq!(
        maps(json!({"ExpressionAttributeNames": {"#ok": "a", "#name": ""}})),
        Err("ExpressionAttributeNames contains invalid value: Empty attribute name for key #name".into())
    );
    // A read whose input has no `ExpressionAttributeValues` checks its names alone.
    let names = |request: Json| check_expression_names(&super::doc(&request)).map_err(|e| e.message);
    assert_eq!(names(json!({"ExpressionAttributeNames": {"#a": "a"}, "ExpressionAttributeValues": {}})), Ok(()));
    assert_eq!(
        names(json!({"ExpressionAttributeNames": {}})),
        Err("ExpressionAttributeNames must not be empty".into())
    );
    // Not part of `check`: DynamoDB reports the attribute values of the item first.
    passes(
        "PutItem",
        json!({"TableName": "abc", "Item": {}, "ExpressionAttributeNames": {}, "ConditionExpression": ""}),
    );
}

#[test]
fn item_writes_return_only_what_they_can() {
    for operation in ["PutItem", "DeleteItem"] {
        let member = if operation == "PutItem" { "Item" } else { "Key" };
        for returns in ["UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"] {
            assert_eq!(
                after_values(operation, json!({"TableName": "abc", member: {}, "ReturnValues": returns})),
                "ReturnValues can only be ALL_OLD or NONE"
            );
        }
        passes(operation, json!({"TableName": "abc", member: {}, "ReturnValues": "ALL_OLD"}));
    }
    passes("UpdateItem", json!({"TableName": "abc", "Key": {}, "ReturnValues": "UPDATED_NEW"}));
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc;", "ReturnConsumedCapacity": "hi", "ReturnItemCollectionMetrics": "hi", "ReturnValues": "hi"})
        ),
        "5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member \
         must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value 'abc;' at 'tableName' failed to satisfy \
         constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value null at 'item' failed to \
         satisfy constraint: Member must not be null; Value 'hi' at 'returnValues' failed to satisfy constraint: \
         Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; Value 'hi' at \
         'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"
    );
}

#[test]
fn attributes_to_get_may_not_repeat_a_name() {
    let duplicate = "One or more parameter values were invalid: Duplicate value in attribute name: a";
    assert_eq!(
        after_values("GetItem", json!({"TableName": "abc", "Key": {}, "AttributesToGet": ["a", "a"]})),
        duplicate
    );
    assert_eq!(
        after_values("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": [{}], "AttributesToGet": ["a", "a"]}}})),
        duplicate
    );
    assert_eq!(
        after_values("Query", json!({"TableName": "abc", "KeyConditions": {}, "AttributesToGet": ["b", "a", "a"]})),
        duplicate
    );
    assert_eq!(validation("Scan", json!({"TableName": "abc", "AttributesToGet": ["a", "b", "a"]})), duplicate);
}

#[test]
fn query_and_scan_rules() {
    assert_eq!(
        after_values("Query", json!({"TableName": "abc"})),
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
    );
    assert_eq!(
        after_values("Scan", json!({"TableName": "abc", "Segment": 1})),
        "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"
    );
    assert_eq!(
        after_values("Scan", json!({"TableName": "abc", "TotalSegments": 1})),
        "The Segment parameter is required but was not present in the request when parameter TotalSegments is present"
    );
    assert_eq!(
        after_values("Scan", json!({"TableName": "abc", "Segment": 1, "TotalSegments": 1})),
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less \
         than TotalSegments: 1"
    );
    passes("Scan", json!({"TableName": "abc", "Segment": 0, "TotalSegments": 1}));
    assert_eq!(
        validation("Scan", json!({"TableName": "abc", "Segment": -1, "TotalSegments": 1000001, "Limit": 0})),
        "3 validation errors detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value \
         greater than or equal to 1; Value '-1' at 'segment' failed to satisfy constraint: Member must have value \
         greater than or equal to 0; Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must \
         have value less than or equal to 1000000"
    );
}

#[test]
fn select_combines_with_projections_and_indexes() {
    let query = |extra: Json| {
        let mut body = json!({"TableName": "abc", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "x"}}});
        for (k, v) in extra.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        body
    };
    let scan = |extra: Json| {
        let mut body = json!({"TableName": "abc"});
        for (k, v) in extra.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        body
    };
    let prefix = "1 validation error detected: ";
    for (select, what) in [
        ("ALL_ATTRIBUTES", "ALL_ATTRIBUTES"),
        ("ALL_PROJECTED_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"),
        ("COUNT", "only the Count"),
    ] {
        let with = json!({"Select": select, "IndexName": "idx", "ProjectionExpression": "a"});
        assert_eq!(
            validation("Query", query(with.clone())),
            format!("{prefix}Cannot specify the ProjectionExpression when choosing to get {what}")
        );
        assert_eq!(
            validation("Scan", scan(with)),
            format!("{prefix}Cannot specify the ProjectionExpression when choosing to get {what}")
        );
        let with = json!({"Select": select, "IndexName": "idx", "AttributesToGet": ["a"]});
        assert_eq!(
            validation("Scan", scan(with)),
            format!("{prefix}Cannot specify the AttributesToGet when choosing to get {what}")
        );
    }
    assert_eq!(
        validation("Query", query(json!({"Select": "SPECIFIC_ATTRIBUTES"}))),
        format!(
            "{prefix}Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
        )
    );
    assert_eq!(
        validation("Scan", scan(json!({"Select": "ALL_PROJECTED_ATTRIBUTES"}))),
        format!("{prefix}ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
    );
    assert_eq!(
        validation("Query", query(json!({"Select": "count"}))),
        "1 validation error detected: Value 'count' at 'select' failed to satisfy constraint: Member must satisfy \
         enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"
    );
    passes("Query", query(json!({"Select": "SPECIFIC_ATTRIBUTES", "ProjectionExpression": "a"})));
    passes("Scan", scan(json!({"Select": "ALL_PROJECTED_ATTRIBUTES", "IndexName": "idx"})));
}

#[test]
fn batches_have_limits() {
    let keys: Vec<Json> = (0..101).map(|i| json!({"a": {"S": i.to_string()}})).collect();
    // Alone, the violation is worded by the request's names and without the value (nubo-db's
    // conformance suite, recorded against DynamoDB); beside another one it keeps the usual form.
    assert_eq!(
        validation("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": keys.clone()}}})),
        "1 validation error detected: Value at 'RequestItems.abc.member.Keys' failed to satisfy constraint: \
         Member must have length less than or equal to 100"
    );
    let message =
        validation("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": keys}}, "ReturnConsumedCapacity": "hi"}));
    assert!(message.starts_with("2 validation errors detected: Value 'hi' at 'returnConsumedCapacity'"), "{message}");
    assert!(message.ends_with("' at 'requestItems.abc.member.keys' failed to satisfy constraint: Member must have length less than or equal to 100"), "{message}");
    let hundred: Vec<Json> = (0..100).map(|i| json!({"a": {"S": i.to_string()}})).collect();
    assert_eq!(
        validation(
            "BatchGetItem",
            json!({"RequestItems": {"abc": {"Keys": hundred.clone()}, "abd": {"Keys": [{"a": {"S": "100"}}]}}})
        ),
        "Too many items requested for the BatchGetItem call"
    );
    passes("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": hundred}}}));
    let message = validation("BatchGetItem", json!({"RequestItems": {"a": {}}, "ReturnConsumedCapacity": "hi"}));
    assert_eq!(
        message,
        "3 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member \
         must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value '{\"a\":{}}' at 'requestItems' failed to satisfy \
         constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member \
         must have length greater than or equal to 3, Member must satisfy regular expression pattern: \
         [a-zA-Z0-9_.-]+]; Value null at 'requestItems.a.member.keys' failed to satisfy constraint: Member must not \
         be null"
    );
    assert_eq!(
        validation("BatchWriteItem", json!({"RequestItems": {"abc": [{}]}})),
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
    );
    let writes = |n: usize| -> Vec<Json> {
        (0..n).map(|i| json!({"DeleteRequest": {"Key": {"a": {"S": i.to_string()}}}})).collect()
    };
    assert_eq!(
        validation("BatchWriteItem", json!({"RequestItems": {"abc": writes(25), "abd": writes(1)}})),
        "Too many items requested for the BatchWriteItem call"
    );
    passes("BatchWriteItem", json!({"RequestItems": {"abc": writes(25)}}));
}

#[test]
fn transactions_hold_one_action_per_item() {
    assert_eq!(
        validation("TransactWriteItems", json!({})),
        "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation("TransactWriteItems", json!({"TransactItems": []})),
        "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"
    );
    assert_eq!(
        validation("TransactWriteItems", json!({"TransactItems": [{"Update": {}}]})),
        "2 validation errors detected: Value null at 'transactItems.1.member.update.key' failed to satisfy constraint: \
         Member must not be null; Value null at 'transactItems.1.member.update.updateExpression' failed to satisfy \
         constraint: Member must not be null"
    );
    // A condition check needs its condition (ScyllaDB's Alternator suite, against DynamoDB).
    assert_eq!(
        validation("TransactWriteItems", json!({"TransactItems": [{"ConditionCheck": {}}]})),
        "2 validation errors detected: Value null at 'transactItems.1.member.conditionCheck.key' failed to satisfy \
         constraint: Member must not be null; Value null at 'transactItems.1.member.conditionCheck.conditionExpression' \
         failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation(
            "TransactWriteItems",
            json!({"TransactItems": [{"NotARealAction": {"TableName": "abc"}}, {"Put": {"TableName": "abc", "Item": {}}}]})
        ),
        "The action or operation requested is invalid. Verify that the action is typed correctly."
    );
    assert_eq!(
        validation(
            "TransactWriteItems",
            json!({"TransactItems": [{"Put": {"TableName": "abc", "Item": {}}, "Delete": {"TableName": "abc", "Key": {}}}]})
        ),
        "TransactItems can only contain one of Check, Put, Update or Delete"
    );
    let hundred_one: Vec<Json> =
        (0..101).map(|i| json!({"Put": {"TableName": "abc", "Item": {"a": {"S": i.to_string()}}}})).collect();
    let message = validation("TransactWriteItems", json!({"TransactItems": hundred_one}));
    assert!(message.ends_with(
        "at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100"
    ));
    assert_eq!(
        validation("TransactGetItems", json!({"TransactItems": [{}]})),
        "1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null"
    );
    passes(
        "TransactGetItems",
        json!({"TransactItems": [{"Get": {"TableName": "abc", "Key": {"a": {"S": "x"}}, "ProjectionExpression": "a"}}]}),
    );
}
