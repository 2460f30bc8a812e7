//! Behaviours that ScyllaDB's Alternator test suite, which its authors run against DynamoDB
//! itself, pins and the fake once got wrong: orderings of constants that have no order, the
//! legacy `Expected` operators, names that start with `_`, nested `list_append`, updates that
//! only remove, sums too precise to keep, the lengths of attribute names and tags, duplicated
//! attribute definitions, time-to-live names, what DeleteTable and tagging answer, which items an
//! index added to a table leaves out, path depth, and where a transaction stops checking.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeValue, ComparisonOperator, ExpectedAttributeValue, ReturnValue, ScalarAttributeType,
};
use dynalease_fake::FakeDynamoDb;
use support::{n, s};

async fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let list = AttributeValue::L(vec![n("1")]);
    client.put_item().table_name("Shop").item("pk", s("k")).item("a", n("5")).item("x", list).send().await.unwrap();
    (fake, client)
}

/// The error code and message of a refused request, or "ok".
fn outcome<T, E: ProvideErrorMetadata>(
    result: Result<T, aws_sdk_dynamodb::error::SdkError<E, aws_smithy_runtime_api::client::orchestrator::HttpResponse>>,
) -> (String, String) {
    match result {
        Ok(_) => ("ok".into(), String::new()),
        Err(error) => (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned()),
    }
}

/// Adds to `Shop` a global index `name` keyed by `attribute` of type `kind`, projecting everything.
async fn add_index(client: &Client, name: &str, attribute: &str, kind: ScalarAttributeType) -> (String, String) {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, CreateGlobalSecondaryIndexAction, GlobalSecondaryIndexUpdate, KeyType, Projection,
        ProjectionType,
    };
    let create = CreateGlobalSecondaryIndexAction::builder()
        .index_name(name)
        .key_schema(support::key(attribute, KeyType::Hash))
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .build()
        .unwrap();
    let definition = AttributeDefinition::builder().attribute_name(attribute).attribute_type(kind).build().unwrap();
    let request = client
        .update_table()
        .table_name("Shop")
        .attribute_definitions(definition)
        .global_secondary_index_updates(GlobalSecondaryIndexUpdate::builder().create(create).build());
    outcome(request.send().await)
}

/// The partition keys of the items in index `name` of `Shop`.
async fn indexed_keys(client: &Client, name: &str) -> Vec<AttributeValue> {
    let scanned = client.scan().table_name("Shop").index_name(name).send().await.unwrap();
    scanned.items().iter().map(|item| item["pk"].clone()).collect()
}

/// An UpdateItem of `Shop`'s item `k` with `expression` and the placeholder `values`.
fn update(
    client: &Client,
    expression: &str,
    values: &[(&str, AttributeValue)],
) -> aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder {
    let mut request = client.update_item().table_name("Shop").key("pk", s("k")).update_expression(expression);
    for (name, value) in values {
        request = request.expression_attribute_values(*name, value.clone());
    }
    request
}

async fn conditional_set(client: &Client, condition: &str, values: &[(&str, AttributeValue)]) -> (String, String) {
    let request =
        update(client, "SET z = :z", values).condition_expression(condition).expression_attribute_values(":z", n("1"));
    outcome(request.send().await)
}

#[tokio::test(start_paused = true)]
async fn ordering_a_constant_that_has_no_order_is_refused_but_an_items_value_is_only_false() {
    let (_fake, client) = setup().await;
    let list = AttributeValue::L(vec![n("1"), n("2")]);
    for condition in ["a < :v", ":v < a", "a >= :v"] {
        let (code, message) = conditional_set(&client, condition, &[(":v", list.clone())]).await;
        assert_eq!(code, "ValidationException", "{condition}");
        assert!(message.contains("Incorrect operand type for operator or function"), "{condition}: {message}");
        assert!(message.ends_with("operand type: L"), "{condition}: {message}");
    }
    let between = [(":lo", list.clone()), (":hi", AttributeValue::L(vec![n("3")]))];
    let (code, message) = conditional_set(&client, "a BETWEEN :lo AND :hi", &between).await;
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "1 validation error detected: Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L"
    );
    // Equality takes any type; and an item's list is merely not less than anything.
    assert_eq!(conditional_set(&client, "a = :v", &[(":v", list)]).await.0, "ConditionalCheckFailedException");
    assert_eq!(conditional_set(&client, "x < :one", &[(":one", n("1"))]).await.0, "ConditionalCheckFailedException");
}

fn expected(op: ComparisonOperator, values: Vec<AttributeValue>) -> ExpectedAttributeValue {
    ExpectedAttributeValue::builder().comparison_operator(op).set_attribute_value_list(Some(values)).build()
}

async fn expected_set(client: &Client, attribute: &str, condition: ExpectedAttributeValue) -> (String, String) {
    let request = client
        .update_item()
        .table_name("Shop")
        .key("pk", s("k"))
        .attribute_updates("z", aws_sdk_dynamodb::types::AttributeValueUpdate::builder().value(n("1")).build())
        .expected(attribute, condition);
    outcome(request.send().await)
}

#[tokio::test(start_paused = true)]
async fn expected_checks_the_types_its_operator_takes_and_not_contains_needs_the_attribute() {
    let (_fake, client) = setup().await;
    let list = AttributeValue::L(vec![n("1")]);
    let (code, message) = expected_set(&client, "a", expected(ComparisonOperator::Contains, vec![list.clone()])).await;
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "1 validation error detected: One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for L AttributeValue type"
    );
    let (code, _) = expected_set(&client, "a", expected(ComparisonOperator::BeginsWith, vec![n("3")])).await;
    assert_eq!(code, "ValidationException");
    let (code, _) = expected_set(&client, "a", expected(ComparisonOperator::In, vec![list.clone()])).await;
    assert_eq!(code, "ValidationException");
    // NOT_CONTAINS is false where the attribute is missing, CONTAINS too.
    for op in [ComparisonOperator::NotContains, ComparisonOperator::Contains] {
        let (code, _) = expected_set(&client, "missing", expected(op.clone(), vec![n("1")])).await;
        assert_eq!(code, "ConditionalCheckFailedException", "{op:?}");
    }
    assert_eq!(expected_set(&client, "x", expected(ComparisonOperator::NotContains, vec![n("2")])).await.0, "ok");
}

async fn set(client: &Client, expression: &str, values: &[(&str, AttributeValue)]) -> (String, String) {
    outcome(update(client, expression, values).send().await)
}

#[tokio::test(start_paused = true)]
async fn update_names_and_functions_may_not_start_with_an_underscore() {
    let (_fake, client) = setup().await;
    assert_eq!(
        set(&client, "SET _123 = :v", &[(":v", n("1"))]).await,
        (
            "ValidationException".to_owned(),
            "1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"_\", near: \"SET _123\""
                .to_owned()
        )
    );
    let (code, message) = set(&client, "SET a = _f(b, c)", &[]).await;
    assert_eq!(code, "ValidationException");
    assert!(
        message.starts_with("1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"_\""),
        "{message}"
    );
    assert_eq!(set(&client, "SET a_1_ = :v", &[(":v", n("1"))]).await.0, "ok");
}

#[tokio::test(start_paused = true)]
async fn list_append_within_list_append_is_refused_after_the_parse() {
    let (_fake, client) = setup().await;
    let one = |v: &str| AttributeValue::L(vec![s(v)]);
    let (code, message) = set(
        &client,
        "SET l = list_append(list_append(:a, :b), :c)",
        &[(":a", one("a")), (":b", one("b")), (":c", one("c"))],
    )
    .await;
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "1 validation error detected: Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"
    );
    let ok = set(&client, "SET l = list_append(if_not_exists(l, :a), :b)", &[(":a", one("a")), (":b", one("b"))]).await;
    assert_eq!(ok.0, "ok");
}

#[tokio::test(start_paused = true)]
async fn an_update_that_only_removes_creates_no_item_but_an_empty_one_does() {
    let (_fake, client) = setup().await;
    let get = |pk: &'static str| {
        let client = client.clone();
        async move { client.get_item().table_name("Shop").key("pk", s(pk)).consistent_read(true).send().await.unwrap().item }
    };
    let removed = client
        .update_item()
        .table_name("Shop")
        .key("pk", s("gone"))
        .update_expression("REMOVE a, b")
        .return_values(ReturnValue::AllNew)
        .send()
        .await
        .unwrap();
    assert_eq!(removed.attributes, None);
    assert_eq!(get("gone").await, None);
    let set = AttributeValue::Ss(vec!["x".into()]);
    client
        .update_item()
        .table_name("Shop")
        .key("pk", s("gone"))
        .update_expression("DELETE t :s")
        .expression_attribute_values(":s", set)
        .send()
        .await
        .unwrap();
    assert_eq!(get("gone").await, None);
    client.update_item().table_name("Shop").key("pk", s("empty")).send().await.unwrap();
    assert_eq!(get("empty").await, Some([("pk".to_owned(), s("empty"))].into()));
    // A REMOVE inside a missing map is refused, on an item that exists as on one that does not
    // (items_update.rs).
    let (code, _) = set_on_existing(&client, "REMOVE nothing.here").await;
    assert_eq!(code, "ValidationException");
}

async fn set_on_existing(client: &Client, expression: &str) -> (String, String) {
    set(client, expression, &[]).await
}

#[tokio::test(start_paused = true)]
async fn a_sum_too_precise_to_keep_is_refused_as_an_overflow() {
    let (_fake, client) = setup().await;
    for expression in ["SET b = :big + :one", "SET b = :big - :one"] {
        let (code, message) = set(&client, expression, &[(":big", n("1e50")), (":one", n("1"))]).await;
        assert_eq!(code, "ValidationException");
        assert_eq!(message, "Number overflow. Attempting to store a number with magnitude larger than supported range");
    }
}

fn key_schema_create(
    name: &str,
    key: &str,
) -> aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder {
    use aws_sdk_dynamodb::types::{BillingMode, KeyType};
    let fake_client = FakeDynamoDb::new().client();
    fake_client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(support::def(key))
        .key_schema(support::key(key, KeyType::Hash))
}

#[tokio::test(start_paused = true)]
async fn key_attribute_names_are_1_to_255_characters_and_others_up_to_65535_bytes() {
    let longest_key = "k".repeat(255);
    assert_eq!(outcome(key_schema_create("Fine", &longest_key).send().await).0, "ok");
    let (code, message) = outcome(key_schema_create("TooLong", &"k".repeat(256)).send().await);
    assert_eq!(code, "ValidationException");
    assert!(message.contains("Member must have length less than or equal to 255"), "{message}");

    let (_fake, client) = setup().await;
    let put = |name: String| client.put_item().table_name("Shop").item("pk", s("long")).item(name, n("1")).send();
    assert_eq!(outcome(put("a".repeat(65535)).await).0, "ok");
    let (code, message) = outcome(put("a".repeat(65536)).await);
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("ValidationException", "Attribute name is too large, must be less than 65536 bytes")
    );
    let named = client
        .update_item()
        .table_name("Shop")
        .key("pk", s("long"))
        .update_expression("SET #n = :v")
        .expression_attribute_names("#n", "a".repeat(65536))
        .expression_attribute_values(":v", n("1"))
        .send()
        .await;
    assert_eq!(outcome(named).0, "ValidationException");
    let got =
        client.get_item().table_name("Shop").key("pk", s("long")).attributes_to_get("b".repeat(65536)).send().await;
    assert_eq!(outcome(got).0, "ValidationException");
}

#[tokio::test(start_paused = true)]
async fn a_duplicated_attribute_definition_is_named_before_the_key_schema_is_compared() {
    use aws_sdk_dynamodb::types::AttributeDefinition;
    let number =
        AttributeDefinition::builder().attribute_name("xyz").attribute_type(ScalarAttributeType::N).build().unwrap();
    let (code, message) = outcome(key_schema_create("Dup", "xyz").attribute_definitions(number).send().await);
    assert_eq!((code.as_str(), message.as_str()), ("ValidationException", "Attribute Name is duplicated: xyz"));
}

#[tokio::test(start_paused = true)]
async fn time_to_live_names_its_current_attribute_and_takes_1_to_255_characters() {
    use aws_sdk_dynamodb::types::TimeToLiveSpecification;
    let (_fake, client) = setup().await;
    let spec = |name: &str, enabled: bool| {
        TimeToLiveSpecification::builder().attribute_name(name).enabled(enabled).build().unwrap()
    };
    let ttl = |name: String, enabled| {
        client.update_time_to_live().table_name("Shop").time_to_live_specification(spec(&name, enabled)).send()
    };
    assert_eq!(outcome(ttl("expires".into(), true).await).0, "ok");
    assert_eq!(
        outcome(ttl("dog".into(), false).await).1,
        "TimeToLive is active on a different AttributeName: current AttributeName is expires"
    );
    for name in [String::new(), "x".repeat(256)] {
        let (code, message) = outcome(ttl(name, true).await);
        assert_eq!(code, "ValidationException");
        assert!(message.contains("failed to satisfy constraint: Member must have length"), "{message}");
    }
}

#[tokio::test(start_paused = true)]
async fn deleting_a_table_describes_it_without_schema_and_tagging_answers_an_empty_body() {
    let (fake, client) = setup().await;
    let arn = client.describe_table().table_name("Shop").send().await.unwrap().table.unwrap().table_arn.unwrap();
    let tag = format!(r#"{{"ResourceArn":"{arn}","Tags":[{{"Key":"k","Value":"v"}}]}}"#);
    assert_eq!(fake.handle_json("TagResource", tag.as_bytes()), (200, Vec::new()));
    let untag = format!(r#"{{"ResourceArn":"{arn}","TagKeys":["k"]}}"#);
    assert_eq!(fake.handle_json("UntagResource", untag.as_bytes()), (200, Vec::new()));
    let deleted = client.delete_table().table_name("Shop").send().await.unwrap().table_description.unwrap();
    assert_eq!(deleted.key_schema, None);
    assert_eq!(deleted.attribute_definitions, None);
    assert_eq!(deleted.creation_date_time, None);
}

#[tokio::test(start_paused = true)]
async fn an_index_added_to_a_table_leaves_out_items_whose_key_has_another_type_or_is_empty() {
    let (_fake, client) = setup().await;
    for (pk, x) in [("good", s("x1")), ("number", n("7")), ("empty", s(""))] {
        client.put_item().table_name("Shop").item("pk", s(pk)).item("x", x).send().await.unwrap();
    }
    assert_eq!(add_index(&client, "byX", "x", ScalarAttributeType::S).await.0, "ok");
    assert_eq!(indexed_keys(&client, "byX").await, vec![s("good")]);
    // The same index again is refused before anything else about it is checked.
    assert_eq!(
        add_index(&client, "byX", "y", ScalarAttributeType::S).await,
        ("ValidationException".to_owned(), "Attempting to create an index which already exists".to_owned())
    );
}

#[tokio::test(start_paused = true)]
async fn a_document_path_holds_at_most_32_levels() {
    let (_fake, client) = setup().await;
    let path = |levels: usize| format!("a{}", ".b".repeat(levels - 1));
    let get = |projection: String| {
        client.get_item().table_name("Shop").key("pk", s("k")).projection_expression(projection).send()
    };
    assert_eq!(outcome(get(path(32)).await).0, "ok");
    assert_eq!(
        outcome(get(path(33)).await),
        (
            "ValidationException".to_owned(),
            "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33"
                .to_owned()
        )
    );
}

#[tokio::test(start_paused = true)]
async fn a_transaction_stops_at_its_first_invalid_action_and_a_check_needs_its_condition() {
    use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
    use aws_sdk_dynamodb::types::{ConditionCheck, Put, TransactWriteItem};
    let (fake, client) = setup().await;
    let put = |pk: AttributeValue, condition: Option<&str>| {
        let put =
            Put::builder().table_name("Shop").item("pk", pk).set_condition_expression(condition.map(str::to_owned));
        TransactWriteItem::builder().put(put.build().unwrap()).build()
    };
    let items = vec![put(n("1"), None), put(n("2"), None), put(s("k"), Some("attribute_not_exists(pk)"))];
    let error = client.transact_write_items().set_transact_items(Some(items)).send().await.unwrap_err();
    let reasons: Vec<String> = match error.into_service_error() {
        TransactWriteItemsError::TransactionCanceledException(cancelled) => {
            cancelled.cancellation_reasons().iter().map(|r| r.code().unwrap_or_default().to_owned()).collect()
        }
        other => panic!("not cancelled: {other:?}"),
    };
    assert_eq!(reasons, ["ValidationError", "None", "None"]);

    let check = ConditionCheck::builder().table_name("Shop").key("pk", s("k")).build();
    assert!(check.is_err(), "the SDK's own model requires a condition");
    let request = r#"{"TransactItems": [{"ConditionCheck": {"TableName": "Shop", "Key": {"pk": {"S": "k"}}}}]}"#;
    let (status, body) = fake.handle_json("TransactWriteItems", request.as_bytes());
    assert_eq!(status, 400);
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        body["message"],
        "1 validation error detected: Value null at 'transactItems.1.member.conditionCheck.conditionExpression' \
         failed to satisfy constraint: Member must not be null"
    );
}

#[tokio::test(start_paused = true)]
async fn an_index_may_not_give_an_attribute_another_type() {
    let (_fake, client) = setup().await;
    assert_eq!(add_index(&client, "first", "xyz", ScalarAttributeType::S).await.0, "ok");
    assert_eq!(
        add_index(&client, "second", "xyz", ScalarAttributeType::N).await.1,
        "One or more parameter values were invalid: Attributes cannot be redefined. Please check that your attribute \
         has the same type as previously defined. Existing schema: Schema:[SchemaElement: key{xyz:S:HASH}] New schema: \
         Schema:[SchemaElement: key{xyz:N:HASH}]"
    );
}

#[tokio::test(start_paused = true)]
async fn a_tag_has_a_key_of_1_to_128_characters_and_a_value_of_up_to_256() {
    let (fake, client) = setup().await;
    let arn = client.describe_table().table_name("Shop").send().await.unwrap().table.unwrap().table_arn.unwrap();
    let tag = |tags: &str| {
        let (status, body) =
            fake.handle_json("TagResource", format!(r#"{{"ResourceArn":"{arn}","Tags":{tags}}}"#).as_bytes());
        (status, String::from_utf8_lossy(&body).into_owned())
    };
    let (longest_key, longest_value) = ("k".repeat(128), "v".repeat(256));
    assert_eq!(tag(&format!(r#"[{{"Key":"{longest_key}","Value":"{longest_value}"}}]"#)).0, 200);
    assert_eq!(tag(r#"[{"Key":"empty","Value":""}]"#).0, 200);
    for (tags, member) in [
        (format!(r#"[{{"Key":"{}","Value":"v"}}]"#, "k".repeat(129)), "tags.1.member.key"),
        (r#"[{"Key":"","Value":"v"}]"#.to_owned(), "tags.1.member.key"),
        (format!(r#"[{{"Key":"k","Value":"{}"}}]"#, "v".repeat(257)), "tags.1.member.value"),
        (r#"[{"Key":"dog"}]"#.to_owned(), "tags.1.member.value"),
    ] {
        let (status, body) = tag(&tags);
        assert_eq!(status, 400, "{tags}");
        assert!(body.contains(&format!("at '{member}' failed to satisfy constraint")), "{body}");
    }
}

#[tokio::test(start_paused = true)]
async fn a_table_class_is_named_exactly_and_its_change_is_dated() {
    use aws_sdk_dynamodb::types::TableClass;
    let (_fake, client) = setup().await;
    for class in ["junk", "standard"] {
        let refused = client.update_table().table_name("Shop").table_class(TableClass::from(class)).send().await;
        assert_eq!(
            outcome(refused),
            (
                "ValidationException".to_owned(),
                "Invalid table-class parameter provided. Please try again with a valid table-class value: \
                 [STANDARD, STANDARD_INFREQUENT_ACCESS]."
                    .to_owned()
            )
        );
    }
    let refused = key_schema_create("Classy", "pk").table_class(TableClass::from("junk")).send().await;
    assert_eq!(outcome(refused).0, "ValidationException");
    client.update_table().table_name("Shop").table_class(TableClass::StandardInfrequentAccess).send().await.unwrap();
    let table = client.describe_table().table_name("Shop").send().await.unwrap().table.unwrap();
    let summary = table.table_class_summary.unwrap();
    assert_eq!(summary.table_class, Some(TableClass::StandardInfrequentAccess));
    assert!(summary.last_update_date_time.is_some(), "the change is dated");
}

#[tokio::test(start_paused = true)]
async fn an_index_added_to_a_table_leaves_out_items_whose_key_is_too_long() {
    let (_fake, client) = setup().await;
    for (pk, x) in [("fits", "x".repeat(2048)), ("long", "x".repeat(2049))] {
        client.put_item().table_name("Shop").item("pk", s(pk)).item("x", s(&x)).send().await.unwrap();
    }
    assert_eq!(add_index(&client, "byX", "x", ScalarAttributeType::S).await.0, "ok");
    assert_eq!(indexed_keys(&client, "byX").await, vec![s("fits")]);
}
