//! Query's key condition, expression or legacy: what DynamoDB accepts, and the message and
//! order of every refusal the public suites pin.

mod support;

use aws_sdk_dynamodb::types::{ComparisonOperator, Condition};
use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::{invalid, n, refused, s, sdk_error, suite_tables};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    suite_tables(&fake);
    fake
}

#[tokio::test(start_paused = true)]
async fn operators_that_no_key_condition_allows_are_named() {
    let fake = fake();
    for (expression, operator) in [
        ("a > b and size(b) > c or a > c", "OR"),
        ("a in (b, size(c), d)", "IN"),
        ("attribute_exists(a)", "attribute_exists"),
        ("attribute_not_exists(a)", "attribute_not_exists"),
        ("contains(a.d, b)", "contains"),
        ("not a > b", "NOT"),
        ("a <> b", "<>"),
    ] {
        let message = invalid(&fake, "Query", json!({"TableName": "abc", "KeyConditionExpression": expression}));
        assert_eq!(message, format!("Invalid operator used in KeyConditionExpression: {operator}"), "{expression}");
    }
}

#[tokio::test(start_paused = true)]
async fn malformed_key_conditions_get_dynamodb_messages_before_the_table_is_looked_up() {
    let fake = fake();
    let values = json!({":a": {"S": "1"}, ":b": {"S": "1"}});
    let cases = [
        (
            ":a between size(b) and size(a) and b > :b",
            "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand",
        ),
        (
            "begins_with(:a, b) and a > :b",
            "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand",
        ),
        ("size(b) > a AND a.b > b AND b > c", "KeyConditionExpressions cannot contain nested operations"),
        ("a > size(b.d)", "KeyConditionExpressions cannot contain nested operations"),
        ("b > a.b", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
        (
            "begins_with(a, b)",
            "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition",
        ),
        ("b.d > a AND c.d > e.f", "KeyConditionExpressions cannot have conditions on nested attributes"),
        ("b[0] > a", "KeyConditionExpressions cannot have conditions on nested attributes"),
        (":b > :a AND a < :b", "Invalid condition in KeyConditionExpression: No key attribute specified"),
        ("b > :a AND b < :a and c = :a and d = :b", "KeyConditionExpressions must only contain one condition per key"),
        (":a = a and b = :a and :b = c", "Conditions can be of length 1 or 2 only"),
    ];
    for (expression, message) in cases {
        let mut body = json!({"TableName": "abc", "KeyConditionExpression": expression});
        let used: Vec<&str> = [":a", ":b"].into_iter().filter(|v| expression.contains(v)).collect();
        if !used.is_empty() {
            body["ExpressionAttributeValues"] =
                json!(used.iter().map(|v| (v.to_string(), values[v].clone())).collect::<serde_json::Map<_, _>>());
        }
        assert_eq!(invalid(&fake, "Query", body), message, "{expression}");
    }
}

#[tokio::test(start_paused = true)]
async fn operand_types_are_checked_before_the_table_and_the_schema_after() {
    let fake = fake();
    let query = |table: &str, expression: &str, values: serde_json::Value| {
        invalid(
            &fake,
            "Query",
            json!({"TableName": table, "KeyConditionExpression": expression, "ExpressionAttributeValues": values}),
        )
    };
    let operand = |op: &str, kind: &str| {
        format!(
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: {op}, operand type: {kind}"
        )
    };
    let schema = "One or more parameter values were invalid: Condition parameter type does not match schema type";
    assert_eq!(
        query("range", "a = :p AND begins_with(b, :v)", json!({":p": {"S": "q"}, ":v": {"N": "1"}})),
        operand("begins_with", "N")
    );
    assert_eq!(query("rangeN", "a = :p AND begins_with(b, :v)", json!({":p": {"S": "q"}, ":v": {"S": "a"}})), schema);
    assert_eq!(
        query("rangeN", "a = :p AND b < :v", json!({":p": {"S": "q"}, ":v": {"BOOL": true}})),
        operand("<", "BOOL")
    );
    assert_eq!(
        query("rangeN", "a = :p AND :v >= b", json!({":p": {"S": "q"}, ":v": {"BOOL": true}})),
        operand(">=", "BOOL")
    );
    assert_eq!(
        query(
            "rangeN",
            "a = :p AND b BETWEEN :x AND :y",
            json!({":p": {"S": "q"}, ":x": {"BOOL": false}, ":y": {"BOOL": true}})
        ),
        operand("BETWEEN", "BOOL")
    );
    assert_eq!(query("rangeN", "a = :p AND b = :v", json!({":p": {"S": "q"}, ":v": {"BOOL": true}})), schema);
    // A bad operand beats a missing table; a good one lets the missing table be reported.
    assert_eq!(
        query("absent", "a = :p AND begins_with(b, :v)", json!({":p": {"S": "q"}, ":v": {"N": "1"}})),
        operand("begins_with", "N")
    );
    let (code, _) = refused(
        &fake,
        "Query",
        json!({"TableName": "absent", "KeyConditionExpression": "a = :p AND begins_with(b, :v)", "ExpressionAttributeValues": {":p": {"S": "q"}, ":v": {"S": "a"}}}),
    );
    assert_eq!(code, "ResourceNotFoundException");
}

#[tokio::test(start_paused = true)]
async fn the_first_problem_in_the_text_is_the_one_reported() {
    let fake = fake();
    let undefined = "Invalid KeyConditionExpression: An expression attribute value used in expression is not defined; attribute value: :missing";
    let operand = "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N";
    let query = |expression: &str| {
        invalid(
            &fake,
            "Query",
            json!({"TableName": "range", "KeyConditionExpression": expression, "ExpressionAttributeValues": {":n": {"N": "1"}}}),
        )
    };
    assert_eq!(query("a = :missing AND begins_with(b, :n)"), undefined);
    assert_eq!(query("begins_with(b, :n) AND a = :missing"), operand);
}

#[tokio::test(start_paused = true)]
async fn conditions_are_counted_against_the_key_schema() {
    let fake = fake();
    let message = invalid(
        &fake,
        "Query",
        json!({
            "TableName": "rangeN",
            "KeyConditionExpression": "a = :p AND b > :x AND extra = :y",
            "ExpressionAttributeValues": {":p": {"S": "q"}, ":x": {"N": "1"}, ":y": {"N": "5"}},
        }),
    );
    assert_eq!(
        message,
        "The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)"
    );
    let message = invalid(
        &fake,
        "Query",
        json!({
            "TableName": "rangeN",
            "KeyConditionExpression": "a = :p AND b > :x AND b < :y",
            "ExpressionAttributeValues": {":p": {"S": "q"}, ":x": {"N": "1"}, ":y": {"N": "5"}},
        }),
    );
    assert_eq!(
        message,
        "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key"
    );
}

#[tokio::test(start_paused = true)]
async fn unsupported_conditions_on_a_hash_key_are_refused() {
    let fake = fake();
    for (expression, table, index) in [
        ("a > :a", "hash", None),
        (":a <= a", "hash", None),
        ("begins_with(a, :a)", "hash", None),
        ("a between :a and :a", "hash", None),
        ("a = :a AND b = :a", "hash", None),
        ("y = :a and z = :a", "hash", None),
        ("c > :a", "range", Some("index3")),
        ("c = :a AND b = :a", "range", Some("index3")),
    ] {
        let mut body = json!({"TableName": table, "KeyConditionExpression": expression, "ExpressionAttributeValues": {":a": {"S": "1"}}});
        if let Some(index) = index {
            body["IndexName"] = json!(index);
        }
        assert_eq!(invalid(&fake, "Query", body), "Query key condition not supported", "{expression}");
    }
}

#[tokio::test(start_paused = true)]
async fn missing_key_elements_are_named() {
    let fake = fake();
    let query = |index: Option<&str>, expression: &str| {
        let values = if expression.contains("between") {
            json!({":a": {"N": "1"}, ":b": {"N": "1"}})
        } else {
            json!({":a": {"S": "b"}, ":b": {"N": "1"}})
        };
        let mut body =
            json!({"TableName": "range", "KeyConditionExpression": expression, "ExpressionAttributeValues": values});
        if let Some(index) = index {
            body["IndexName"] = json!(index);
            body["Select"] = json!("ALL_PROJECTED_ATTRIBUTES");
        }
        invalid(&fake, "Query", body)
    };
    assert_eq!(query(None, "z between :a and :b"), "Query condition missed key schema element: a");
    assert_eq!(query(None, "a = :a and c = :b"), "Query condition missed key schema element: b");
    assert_eq!(query(Some("index1"), "a = :a and b = :b"), "Query condition missed key schema element: c");
    assert_eq!(query(Some("index3"), "z between :a and :b"), "Query condition missed key schema element: c");
    assert_eq!(query(Some("index4"), "c = :a and b = :b"), "Query condition missed key schema element: d");
}

#[tokio::test(start_paused = true)]
async fn legacy_key_conditions_follow_the_same_rules() {
    let fake = fake();
    let client = fake.client();
    let eq =
        |v| Condition::builder().comparison_operator(ComparisonOperator::Eq).attribute_value_list(v).build().unwrap();
    for operator in
        [ComparisonOperator::Null, ComparisonOperator::NotNull, ComparisonOperator::Contains, ComparisonOperator::In]
    {
        let mut condition = Condition::builder().comparison_operator(operator.clone());
        if !matches!(operator, ComparisonOperator::Null | ComparisonOperator::NotNull) {
            condition = condition.attribute_value_list(s("x"));
        }
        let error = client
            .query()
            .table_name("range")
            .key_conditions("a", eq(s("x")))
            .key_conditions("b", condition.build().unwrap())
            .send()
            .await
            .unwrap_err()
            .into_service_error();
        assert_eq!(
            sdk_error(error).1,
            "Attempted conditional constraint is not an indexable operation",
            "{operator:?}"
        );
    }
    let error = client
        .query()
        .table_name("rangeN")
        .key_conditions("a", eq(s("x")))
        .key_conditions("b", eq(s("1")))
        .send()
        .await;
    assert_eq!(
        sdk_error(error.unwrap_err().into_service_error()).1,
        "One or more parameter values were invalid: Condition parameter type does not match schema type"
    );
    let lt_bool = Condition::builder()
        .comparison_operator(ComparisonOperator::Lt)
        .attribute_value_list(aws_sdk_dynamodb::types::AttributeValue::Bool(true))
        .build()
        .unwrap();
    let error = client.query().table_name("abc").key_conditions("a", lt_bool).send().await;
    assert_eq!(
        sdk_error(error.unwrap_err().into_service_error()).1,
        "One or more parameter values were invalid: ComparisonOperator LT is not valid for BOOL AttributeValue type"
    );
    let found = client
        .query()
        .table_name("rangeN")
        .key_conditions("a", eq(s("x")))
        .key_conditions(
            "b",
            Condition::builder()
                .comparison_operator(ComparisonOperator::Between)
                .attribute_value_list(n("1"))
                .attribute_value_list(n("2"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(found.count, 0);
}

#[tokio::test(start_paused = true)]
async fn an_expression_and_key_conditions_cannot_be_mixed_and_one_is_needed() {
    let fake = fake();
    let message = invalid(&fake, "Query", json!({"TableName": "range"}));
    assert_eq!(
        message,
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
    );
    let message = invalid(
        &fake,
        "Query",
        json!({
            "TableName": "range",
            "KeyConditions": {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]}},
            "KeyConditionExpression": "a = :a",
            "ExpressionAttributeValues": {":a": {"S": "x"}},
        }),
    );
    assert_eq!(
        message,
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}"
    );
}
