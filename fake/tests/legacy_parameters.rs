//! The parameters older code still sends: Expected, AttributeUpdates, AttributesToGet,
//! KeyConditions, QueryFilter, ScanFilter and ConditionalOperator, through the SDK.

mod support;

use aws_sdk_dynamodb::types::{
    AttributeAction, AttributeValue, AttributeValueUpdate, ComparisonOperator, Condition, ConditionalOperator,
    ExpectedAttributeValue, ReturnValue,
};
use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::{invalid, ok, put_all, s, sdk_error, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

fn absent() -> ExpectedAttributeValue {
    ExpectedAttributeValue::builder().exists(false).build()
}

fn equals(value: AttributeValue) -> ExpectedAttributeValue {
    ExpectedAttributeValue::builder().value(value).build()
}

fn compare(op: ComparisonOperator, values: Vec<AttributeValue>) -> ExpectedAttributeValue {
    ExpectedAttributeValue::builder().comparison_operator(op).set_attribute_value_list(Some(values)).build()
}

#[tokio::test(start_paused = true)]
async fn expected_conditions_guard_puts_updates_and_deletes() {
    let fake = fake();
    let client = fake.client();
    let create = || {
        client
            .put_item()
            .table_name("hash")
            .item("a", s("k"))
            .item("n", AttributeValue::N("5".into()))
            .expected("a", absent())
    };
    create().send().await.unwrap();
    let again = create().send().await.unwrap_err().into_service_error();
    assert!(again.is_conditional_check_failed_exception());

    let update = |expected: ExpectedAttributeValue| {
        client
            .update_item()
            .table_name("hash")
            .key("a", s("k"))
            .attribute_updates("touched", AttributeValueUpdate::builder().value(s("yes")).build())
            .expected("n", expected)
    };
    update(equals(AttributeValue::N("5".into()))).send().await.unwrap();
    assert!(update(equals(AttributeValue::N("6".into()))).send().await.is_err());
    update(compare(ComparisonOperator::Between, vec![AttributeValue::N("1".into()), AttributeValue::N("9".into())]))
        .send()
        .await
        .unwrap();
    update(compare(ComparisonOperator::NotNull, vec![])).send().await.unwrap();
    assert!(update(compare(ComparisonOperator::Gt, vec![AttributeValue::N("5".into())])).send().await.is_err());

    let either = client
        .delete_item()
        .table_name("hash")
        .key("a", s("k"))
        .expected("n", equals(AttributeValue::N("99".into())))
        .expected("touched", equals(s("yes")))
        .conditional_operator(ConditionalOperator::Or)
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    assert_eq!(either.attributes.unwrap()["touched"], s("yes"), "OR: one of the two held");
}

#[tokio::test(start_paused = true)]
async fn expected_is_checked_with_dynamodb_messages() {
    let fake = fake();
    let put = |expected: serde_json::Value| {
        invalid(&fake, "PutItem", json!({"TableName": "hash", "Item": {"a": {"S": "k"}}, "Expected": expected}))
    };
    // PutItem reports each inside the envelope of a check of the request.
    let prefix = "1 validation error detected: One or more parameter values were invalid: ";
    assert_eq!(put(json!({"b": {}})), format!("{prefix}Value must be provided when Exists is null for Attribute: b"));
    assert_eq!(
        put(json!({"b": {"Exists": true}})),
        format!("{prefix}Value must be provided when Exists is true for Attribute: b")
    );
    assert_eq!(
        put(json!({"b": {"Exists": false, "Value": {"S": "x"}}})),
        format!("{prefix}Value cannot be used when Exists is false for Attribute: b")
    );
    assert_eq!(
        put(json!({"b": {"Value": {"S": "x"}, "AttributeValueList": [{"S": "x"}], "ComparisonOperator": "EQ"}})),
        format!("{prefix}Value and AttributeValueList cannot be used together for Attribute: b")
    );
    assert_eq!(
        put(json!({"b": {"Exists": true, "ComparisonOperator": "NULL"}})),
        format!("{prefix}Exists and ComparisonOperator cannot be used together for Attribute: b")
    );
    assert_eq!(
        put(json!({"b": {"ComparisonOperator": "EQ"}})),
        format!("{prefix}Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: b")
    );
    assert_eq!(
        put(json!({"b": {"AttributeValueList": [{"S": "x"}]}})),
        format!("{prefix}AttributeValueList can only be used with a ComparisonOperator for Attribute: b")
    );
    assert_eq!(
        put(json!({"b": {"ComparisonOperator": "NULL", "AttributeValueList": [{"S": "x"}]}})),
        format!("{prefix}Invalid number of argument(s) for the NULL ComparisonOperator")
    );
    assert_eq!(
        put(json!({"b": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "2"}, {"N": "1"}]}})),
        "1 validation error detected: The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
    );
    let message = invalid(
        &fake,
        "PutItem",
        json!({"TableName": "hash", "Item": {"a": {"S": "k"}}, "Expected": {"b": {"Exists": false}}, "ConditionalOperator": "AND"}),
    );
    assert_eq!(
        message,
        "1 validation error detected: ConditionalOperator can only be used when Filter or Expected has two or more elements"
    );
    let message = invalid(
        &fake,
        "PutItem",
        json!({"TableName": "hash", "Item": {"a": {"S": "k"}}, "Expected": {"b": {"Exists": false}}, "ConditionExpression": "attribute_not_exists(a)"}),
    );
    assert_eq!(
        message,
        "1 validation error detected: Can not use both expression and non-expression parameters in the same request: \
         Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"
    );
}

#[tokio::test(start_paused = true)]
async fn attribute_updates_put_add_and_delete() {
    let fake = fake();
    let client = fake.client();
    let action = |action: AttributeAction, value: Option<AttributeValue>| {
        AttributeValueUpdate::builder().action(action).set_value(value).build()
    };
    let first = client
        .update_item()
        .table_name("hash")
        .key("a", s("k"))
        .attribute_updates("name", action(AttributeAction::Put, Some(s("first"))))
        .attribute_updates("count", action(AttributeAction::Add, Some(AttributeValue::N("2".into()))))
        .attribute_updates("tags", action(AttributeAction::Add, Some(AttributeValue::Ss(vec!["a".into(), "b".into()]))))
        .attribute_updates("log", action(AttributeAction::Add, Some(AttributeValue::L(vec![s("one")]))))
        .return_values(ReturnValue::AllNew)
        .send()
        .await
        .unwrap();
    let item = first.attributes.unwrap();
    assert_eq!(item["count"], AttributeValue::N("2".into()));
    assert_eq!(item["log"], AttributeValue::L(vec![s("one")]));
    let second = client
        .update_item()
        .table_name("hash")
        .key("a", s("k"))
        .attribute_updates("count", action(AttributeAction::Add, Some(AttributeValue::N("-5".into()))))
        .attribute_updates("tags", action(AttributeAction::Delete, Some(AttributeValue::Ss(vec!["a".into()]))))
        .attribute_updates("log", action(AttributeAction::Add, Some(AttributeValue::L(vec![s("two")]))))
        .attribute_updates("name", action(AttributeAction::Delete, None))
        .return_values(ReturnValue::UpdatedNew)
        .send()
        .await
        .unwrap();
    let updated = second.attributes.unwrap();
    assert_eq!(updated["count"], AttributeValue::N("-3".into()));
    assert_eq!(updated["tags"], AttributeValue::Ss(vec!["b".into()]));
    assert_eq!(updated["log"], AttributeValue::L(vec![s("one"), s("two")]));
    assert!(!updated.contains_key("name"));

    let mismatch = client
        .update_item()
        .table_name("hash")
        .key("a", s("k"))
        .attribute_updates("tags", action(AttributeAction::Add, Some(AttributeValue::N("1".into()))))
        .send()
        .await
        .unwrap_err();
    assert_eq!(sdk_error(mismatch.into_service_error()).1, "Type mismatch for attribute to update");
    let key = client
        .update_item()
        .table_name("hash")
        .key("a", s("k"))
        .attribute_updates("a", action(AttributeAction::Put, Some(s("other"))))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        sdk_error(key.into_service_error()).1,
        "One or more parameter values were invalid: Cannot update attribute a. This attribute is part of the key"
    );
    let update = |updates: serde_json::Value| {
        invalid(
            &fake,
            "UpdateItem",
            json!({"TableName": "hash", "Key": {"a": {"S": "k"}}, "AttributeUpdates": updates}),
        )
    };
    // The checks of AttributeUpdates itself are answered inside the envelope; the index key's type,
    // which needs the table, is not.
    let prefix = "1 validation error detected: One or more parameter values were invalid: ";
    assert_eq!(
        update(json!({"x": {"Action": "PUT"}})),
        format!("{prefix}Only DELETE action is allowed when no attribute value is specified")
    );
    assert_eq!(
        update(json!({"x": {"Action": "DELETE", "Value": {"S": "v"}}})),
        format!("{prefix}DELETE action with value is not supported for the type S")
    );
    assert_eq!(
        update(json!({"x": {"Action": "ADD", "Value": {"BOOL": true}}})),
        format!("{prefix}ADD action is not supported for the type BOOL")
    );
    assert_eq!(
        invalid(
            &fake,
            "UpdateItem",
            json!({"TableName": "range", "Key": {"a": {"S": "k"}, "b": {"S": "k"}}, "AttributeUpdates": {"c": {"Value": {"N": "1"}}}})
        ),
        "One or more parameter values were invalid: Type mismatch for Index Key c Expected: S Actual: N IndexName: index1"
    );
}

#[tokio::test(start_paused = true)]
async fn attributes_to_get_selects_top_level_attributes() {
    let fake = fake();
    let client = fake.client();
    client.put_item().table_name("hash").item("a", s("k")).item("b", s("1")).item("c", s("2")).send().await.unwrap();
    let got = client
        .get_item()
        .table_name("hash")
        .key("a", s("k"))
        .attributes_to_get("c")
        .attributes_to_get("zz")
        .send()
        .await
        .unwrap();
    assert_eq!(got.item.unwrap(), [("c".to_owned(), s("2"))].into());
    let message = invalid(
        &fake,
        "GetItem",
        json!({"TableName": "hash", "Key": {"a": {"S": "k"}}, "AttributesToGet": ["c", "c"]}),
    );
    assert_eq!(message, "One or more parameter values were invalid: Duplicate value in attribute name: c");
}

#[tokio::test(start_paused = true)]
async fn scan_filters_compare_as_dynamodb_does() {
    let fake = fake();
    put_all(
        &fake,
        "hash",
        &[
            json!({"a": {"S": "1"}, "s": {"S": "abc"}, "n": {"N": "5"}, "set": {"SS": ["x", "y"]}, "l": {"L": [{"S": "in"}]}}),
            json!({"a": {"S": "2"}, "s": {"S": "abd"}, "n": {"N": "10"}, "set": {"SS": ["y"]}}),
            json!({"a": {"S": "3"}, "s": {"N": "1234"}}),
        ],
    );
    let matching = |filter: serde_json::Value, operator: Option<&str>| -> Vec<String> {
        let mut body = json!({"TableName": "hash", "ScanFilter": filter});
        if let Some(operator) = operator {
            body["ConditionalOperator"] = json!(operator);
        }
        let mut keys = support::column(&ok(&fake, "Scan", body), "a");
        keys.sort();
        keys
    };
    let one =
        |op: &str, values: serde_json::Value| json!({"s": {"ComparisonOperator": op, "AttributeValueList": values}});
    assert_eq!(matching(one("EQ", json!([{"S": "abc"}])), None), ["1"]);
    assert_eq!(matching(one("NE", json!([{"S": "abc"}])), None), ["2", "3"]);
    assert_eq!(matching(one("LT", json!([{"S": "abd"}])), None), ["1"]);
    assert_eq!(matching(one("BEGINS_WITH", json!([{"S": "ab"}])), None), ["1", "2"]);
    assert_eq!(matching(one("CONTAINS", json!([{"S": "bd"}])), None), ["2"]);
    assert_eq!(matching(one("NOT_CONTAINS", json!([{"S": "bd"}])), None), ["1", "3"]);
    assert_eq!(matching(one("IN", json!([{"S": "abd"}, {"S": "zzz"}])), None), ["2"]);
    assert_eq!(matching(one("BETWEEN", json!([{"S": "abc"}, {"S": "abc"}])), None), ["1"]);
    assert_eq!(
        matching(json!({"set": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "x"}]}}), None),
        ["1"]
    );
    assert_eq!(matching(json!({"l": {"ComparisonOperator": "NOT_NULL"}}), None), ["1"]);
    assert_eq!(matching(json!({"l": {"ComparisonOperator": "NULL"}}), None), ["2", "3"]);
    let both = json!({"n": {"ComparisonOperator": "GE", "AttributeValueList": [{"N": "10"}]}, "s": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "abc"}]}});
    assert_eq!(matching(both.clone(), None), Vec::<String>::new());
    assert_eq!(matching(both, Some("OR")), ["1", "2"]);
    let message = invalid(
        &fake,
        "Scan",
        json!({"TableName": "hash", "ScanFilter": {"s": {"ComparisonOperator": "IN", "AttributeValueList": [{"S": "b"}, {"N": "1"}]}}}),
    );
    assert_eq!(
        message,
        "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"
    );
    let message = invalid(
        &fake,
        "Scan",
        json!({"TableName": "hash", "ScanFilter": {"s": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"SS": ["a"]}]}}}),
    );
    assert_eq!(
        message,
        "One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for SS AttributeValue type"
    );
}

#[tokio::test(start_paused = true)]
async fn query_with_key_conditions_and_a_query_filter() {
    let fake = fake();
    let client = fake.client();
    put_all(
        &fake,
        "range",
        &[
            json!({"a": {"S": "p"}, "b": {"S": "1"}, "e": {"S": "x"}}),
            json!({"a": {"S": "p"}, "b": {"S": "2"}}),
            json!({"a": {"S": "p"}, "b": {"S": "3"}, "e": {"S": "y"}}),
        ],
    );
    let cond = |op: ComparisonOperator, values: Vec<AttributeValue>| {
        Condition::builder().comparison_operator(op).set_attribute_value_list(Some(values)).build().unwrap()
    };
    let found = client
        .query()
        .table_name("range")
        .key_conditions("a", cond(ComparisonOperator::Eq, vec![s("p")]))
        .key_conditions("b", cond(ComparisonOperator::Ge, vec![s("2")]))
        .query_filter("e", cond(ComparisonOperator::NotNull, vec![]))
        .attributes_to_get("b")
        .send()
        .await
        .unwrap();
    assert_eq!(found.count, 1);
    assert_eq!(found.scanned_count, 2);
    assert_eq!(found.items.unwrap(), vec![[("b".to_owned(), s("3"))].into()]);
    let mixed = client
        .query()
        .table_name("range")
        .key_conditions("a", cond(ComparisonOperator::Eq, vec![s("p")]))
        .filter_expression("attribute_exists(e)")
        .send()
        .await
        .unwrap();
    assert_eq!(mixed.count, 2, "KeyConditions may come with a FilterExpression");
}
