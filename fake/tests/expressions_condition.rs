//! ConditionExpression: every operator and function, precedence, and DynamoDB's error texts.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

async fn setup() -> Client {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .item("num", n("10"))
        .item("txt", s("hello"))
        .item("bin", AttributeValue::B(vec![1, 2, 3].into()))
        .item("flag", AttributeValue::Bool(true))
        .item("nothing", AttributeValue::Null(true))
        .item("tags", AttributeValue::Ss(vec!["red".into(), "blue".into()]))
        .item("nums", AttributeValue::Ns(vec!["1".into(), "2".into()]))
        .item("elems", AttributeValue::L(vec![s("x"), n("2"), AttributeValue::M([("deep".into(), n("1"))].into())]))
        .item("info", AttributeValue::M([("city".into(), s("Oslo")), ("zip".into(), n("150"))].into()))
        .send()
        .await
        .unwrap();
    client
}

/// Evaluates a condition on the item "a" with a ConditionCheck-like no-op update.
async fn holds(client: &Client, condition: &str, values: &[(&str, AttributeValue)]) -> Result<bool, String> {
    let mut req = client.update_item().table_name("Shop").key("pk", s("a")).condition_expression(condition);
    for (k, v) in values {
        req = req.expression_attribute_values(*k, v.clone());
    }
    match req.send().await {
        Ok(_) => Ok(true),
        Err(e) => {
            let e = e.into_service_error();
            if e.is_conditional_check_failed_exception() {
                Ok(false)
            } else {
                Err(e.message().unwrap_or_default().to_owned())
            }
        }
    }
}

#[tokio::test(start_paused = true)]
async fn comparisons_follow_types() {
    let c = setup().await;
    assert!(holds(&c, "num = :v", &[(":v", n("10.0"))]).await.unwrap());
    assert!(holds(&c, "num < :v", &[(":v", n("9.5"))]).await.map(|b| !b).unwrap());
    assert!(holds(&c, "num <= :v", &[(":v", n("10"))]).await.unwrap());
    assert!(holds(&c, "txt > :v", &[(":v", s("hell"))]).await.unwrap());
    assert!(!holds(&c, "txt > :v", &[(":v", n("1"))]).await.unwrap(), "different types never order");
    assert!(holds(&c, "txt <> :v", &[(":v", n("1"))]).await.unwrap());
    assert!(holds(&c, "absent <> :v", &[(":v", n("1"))]).await.unwrap(), "<> holds for a missing attribute");
    assert!(!holds(&c, "absent = :v", &[(":v", n("1"))]).await.unwrap());
    assert!(holds(&c, "tags = :v", &[(":v", AttributeValue::Ss(vec!["blue".into(), "red".into()]))]).await.unwrap());
    assert!(holds(&c, "info.city = :v", &[(":v", s("Oslo"))]).await.unwrap());
    assert!(holds(&c, "elems[2].deep = :v", &[(":v", n("1"))]).await.unwrap());
    assert!(holds(&c, "bin < :v", &[(":v", AttributeValue::B(vec![1, 3].into()))]).await.unwrap());
}

#[tokio::test(start_paused = true)]
async fn between_in_and_precedence() {
    let c = setup().await;
    assert!(holds(&c, "num BETWEEN :a AND :b", &[(":a", n("10")), (":b", n("11"))]).await.unwrap());
    assert!(!holds(&c, "num BETWEEN :a AND :b", &[(":a", n("11")), (":b", n("12"))]).await.unwrap());
    assert!(holds(&c, "txt IN (:a, :b)", &[(":a", s("x")), (":b", s("hello"))]).await.unwrap());
    // NOT binds tighter than AND, AND tighter than OR.
    let vals = [(":t", s("hello")), (":x", s("nope"))];
    assert!(holds(&c, "txt = :x AND txt = :x OR txt = :t", &vals).await.unwrap());
    assert!(!holds(&c, "txt = :x AND (txt = :x OR txt = :t)", &vals).await.unwrap());
    assert!(holds(&c, "NOT txt = :x AND txt = :t", &vals).await.unwrap());
    assert!(!holds(&c, "NOT (txt = :x OR txt = :t)", &vals).await.unwrap());
    assert!(holds(&c, "(txt) = :t", &vals[..1]).await.unwrap());
    assert!(holds(&c, "txt = :t and not txt = :x", &vals).await.unwrap(), "keywords in any case");
}

#[tokio::test(start_paused = true)]
async fn functions() {
    let c = setup().await;
    assert!(holds(&c, "attribute_exists(info.zip)", &[]).await.unwrap());
    assert!(holds(&c, "attribute_not_exists(info.street)", &[]).await.unwrap());
    assert!(holds(&c, "attribute_type(nothing, :t)", &[(":t", s("NULL"))]).await.unwrap());
    assert!(holds(&c, "attribute_type(tags, :t)", &[(":t", s("SS"))]).await.unwrap());
    assert!(holds(&c, "begins_with(txt, :p)", &[(":p", s("he"))]).await.unwrap());
    assert!(holds(&c, "begins_with(bin, :p)", &[(":p", AttributeValue::B(vec![1].into()))]).await.unwrap());
    assert!(holds(&c, "contains(txt, :p)", &[(":p", s("ll"))]).await.unwrap());
    assert!(holds(&c, "contains(tags, :p)", &[(":p", s("red"))]).await.unwrap());
    assert!(holds(&c, "contains(nums, :p)", &[(":p", n("2.0"))]).await.unwrap());
    assert!(holds(&c, "contains(elems, :p)", &[(":p", s("x"))]).await.unwrap());
    assert!(holds(&c, "size(txt) = :five", &[(":five", n("5"))]).await.unwrap());
    assert!(holds(&c, "size(elems) > :two", &[(":two", n("2"))]).await.unwrap());
    assert!(holds(&c, "size(info) = :two", &[(":two", n("2"))]).await.unwrap());
    assert!(!holds(&c, "size(num) = :two", &[(":two", n("2"))]).await.unwrap(), "size of a number has no value");
}

#[tokio::test(start_paused = true)]
async fn errors_have_dynamodb_texts() {
    let c = setup().await;
    type Case = (&'static str, Vec<(&'static str, AttributeValue)>, &'static str);
    let cases: Vec<Case> = vec![
        (
            "num = = :v",
            vec![(":v", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: Syntax error; token: \"=\", near: \"= =\"",
        ),
        (
            "num =",
            vec![],
            "1 validation error detected: Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"=\"",
        ),
        (
            "num",
            vec![],
            "1 validation error detected: Invalid ConditionExpression: Syntax error; token: \"<EOF>\", near: \"num\"",
        ),
        (
            "num = :v",
            vec![],
            "1 validation error detected: Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :v",
        ),
        (
            "#x = :v",
            vec![(":v", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x",
        ),
        (
            "status = :v",
            vec![(":v", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status",
        ),
        (
            "foo(num)",
            vec![],
            "1 validation error detected: Invalid ConditionExpression: Invalid function name; function: foo",
        ),
        (
            "size(num, txt) = :v",
            vec![(":v", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: size, number of operands: 2",
        ),
        (
            "((num = :v))",
            vec![(":v", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: The expression has redundant parentheses;",
        ),
        (
            "size(txt)",
            vec![],
            "1 validation error detected: Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size",
        ),
        (
            "attribute_exists(:v)",
            vec![(":v", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists",
        ),
        (
            "num = num",
            vec![],
            "1 validation error detected: Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [num]",
        ),
        (
            "attribute_type(num, :t)",
            vec![(":t", s("X"))],
            "1 validation error detected: Invalid ConditionExpression: Invalid attribute type name found; type: X, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}",
        ),
        (
            "begins_with(txt, :v)",
            vec![(":v", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N",
        ),
        (
            "num BETWEEN :a AND :b",
            vec![(":a", n("2")), (":b", n("1"))],
            "1 validation error detected: Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}",
        ),
        ("", vec![], "1 validation error detected: Invalid ConditionExpression: The expression can not be empty;"),
    ];
    for (condition, values, expected) in cases {
        assert_eq!(holds(&c, condition, &values).await.unwrap_err(), expected, "for {condition:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_name_starting_with_an_underscore_is_a_syntax_error_anywhere_in_a_path() {
    let c = setup().await;
    for condition in ["attribute_not_exists(_c)", "attribute_not_exists(c._d)", "m.inner._x = m.y"] {
        let refused = holds(&c, condition, &[]).await.unwrap_err();
        assert!(
            refused.starts_with("1 validation error detected: Invalid ConditionExpression: Syntax error; token: \"_"),
            "{condition}: {refused}"
        );
    }
    assert_eq!(holds(&c, "attribute_not_exists(c.d_)", &[]).await, Ok(true));
}

#[tokio::test(start_paused = true)]
async fn hostile_expressions_are_refused_quickly() {
    let c = setup().await;
    let deep = format!("{}num = :v{}", "(".repeat(1500), ")".repeat(1500));
    assert_eq!(
        holds(&c, &deep, &[(":v", n("1"))]).await.unwrap_err(),
        "1 validation error detected: Invalid ConditionExpression: The expression has redundant parentheses;"
    );
    let huge = format!("{}num = :v{}", "(".repeat(5000), ")".repeat(5000));
    assert_eq!(
        holds(&c, &huge, &[(":v", n("1"))]).await.unwrap_err(),
        "1 validation error detected: Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 10008"
    );
    // 151 comparisons and 150 ORs: AND, OR and NOT count as operators too.
    let many = vec!["num <> :v"; 151].join(" OR ");
    assert_eq!(
        holds(&c, &many, &[(":v", n("1"))]).await.unwrap_err(),
        "1 validation error detected: Invalid ConditionExpression: The expression contains too many operators; operator count: 301"
    );
    let nested_or = format!("{}num = :v{}", "num = :v OR (".repeat(100), ")".repeat(100));
    assert!(holds(&c, &nested_or, &[(":v", n("10"))]).await.unwrap(), "deep but legal nesting evaluates");
}
