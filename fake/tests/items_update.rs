//! UpdateItem: SET, REMOVE, ADD, DELETE, functions, ReturnValues, and DynamoDB's errors.

use std::collections::HashMap;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

async fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Tbl", "pk", None);
    let client = fake.client();
    client
        .put_item()
        .table_name("Tbl")
        .item("pk", s("a"))
        .item("cnt", n("5"))
        .item("tags", AttributeValue::Ss(vec!["x".into(), "y".into()]))
        .item("lst", AttributeValue::L(vec![n("1"), n("2"), n("3")]))
        .item("mp", AttributeValue::M([("leaf".to_owned(), s("v"))].into()))
        .send()
        .await
        .unwrap();
    (fake, client)
}

async fn update(
    client: &Client,
    expr: &str,
    values: &[(&str, AttributeValue)],
) -> Result<HashMap<String, AttributeValue>, String> {
    let mut req = client
        .update_item()
        .table_name("Tbl")
        .key("pk", s("a"))
        .update_expression(expr)
        .return_values(ReturnValue::AllNew);
    for (k, v) in values {
        req = req.expression_attribute_values(*k, v.clone());
    }
    match req.send().await {
        Ok(out) => Ok(out.attributes.unwrap_or_default()),
        Err(e) => Err(e.into_service_error().meta().message().unwrap_or_default().to_owned()),
    }
}

#[tokio::test(start_paused = true)]
async fn set_arithmetic_and_functions() {
    let (_fake, client) = setup().await;
    let item = update(&client, "SET #c = #c + :one", &[(":one", n("1"))]).await;
    assert_eq!(
        item.unwrap_err(),
        "1 validation error detected: Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #c"
    );
    let item = update(
        &client,
        "SET cnt2 = if_not_exists(cnt2, :zero) + :one, lst = list_append(lst, :more)",
        &[(":zero", n("0")), (":one", n("1")), (":more", AttributeValue::L(vec![n("4")]))],
    )
    .await
    .unwrap();
    assert_eq!(item["cnt2"], n("1"));
    assert_eq!(item["lst"], AttributeValue::L(vec![n("1"), n("2"), n("3"), n("4")]));
}

#[tokio::test(start_paused = true)]
async fn add_and_delete_on_numbers_and_sets() {
    let (_fake, client) = setup().await;
    let item =
        update(&client, "ADD tags :t, cnt :d", &[(":t", AttributeValue::Ss(vec!["z".into()])), (":d", n("-2.5"))])
            .await
            .unwrap();
    assert_eq!(item["cnt"], n("2.5"));
    assert_eq!(item["tags"].as_ss().unwrap().len(), 3);
    let item =
        update(&client, "DELETE tags :t", &[(":t", AttributeValue::Ss(vec!["x".into(), "y".into(), "z".into()]))])
            .await
            .unwrap();
    assert!(!item.contains_key("tags"), "a set emptied by DELETE is removed");
}

#[tokio::test(start_paused = true)]
async fn remove_list_elements_and_nested_set() {
    let (_fake, client) = setup().await;
    let item = update(&client, "REMOVE lst[0], lst[2] SET mp.extra = :v", &[(":v", n("7"))]).await.unwrap();
    assert_eq!(item["lst"], AttributeValue::L(vec![n("2")]));
    assert_eq!(item["mp"].as_m().unwrap()["extra"], n("7"));
}

#[tokio::test(start_paused = true)]
async fn elements_set_past_the_end_of_a_list_are_appended_in_index_order() {
    let (_fake, client) = setup().await;
    let values = [(":x", s("x")), (":y", s("y")), (":z", s("z")), (":n", n("5"))];
    let item = update(&client, "SET lst[7] = :x, lst[5] = :y, lst[0] = :z ADD lst[6] :n", &values).await.unwrap();
    assert_eq!(item["lst"], AttributeValue::L(vec![s("z"), n("2"), n("3"), s("y"), n("5"), s("x")]));
}

#[tokio::test(start_paused = true)]
async fn update_errors_carry_dynamodb_messages() {
    let (_fake, client) = setup().await;
    assert_eq!(
        update(&client, "SET a = = :v", &[(":v", n("1"))]).await.unwrap_err(),
        "1 validation error detected: Invalid UpdateExpression: Syntax error; token: \"=\", near: \"= =\""
    );
    assert_eq!(
        update(&client, "SET a = :v, a.b = :v", &[(":v", n("1"))]).await.unwrap_err(),
        "1 validation error detected: Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"
    );
    assert_eq!(
        update(&client, "ADD cnt :v", &[(":v", s("x"))]).await.unwrap_err(),
        "1 validation error detected: Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"
    );
    assert_eq!(
        update(&client, "SET status = :v", &[(":v", s("x"))]).await.unwrap_err(),
        "1 validation error detected: Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status"
    );
    assert_eq!(
        update(&client, "SET x = absent + :v", &[(":v", n("1"))]).await.unwrap_err(),
        "The provided expression refers to an attribute that does not exist in the item"
    );
    assert_eq!(
        update(&client, "SET pk = :v", &[(":v", s("b"))]).await.unwrap_err(),
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
    );
    assert_eq!(
        update(&client, "SET x = :v", &[(":v", s("b")), (":w", s("c"))]).await.unwrap_err(),
        "1 validation error detected: Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"
    );
    assert_eq!(
        update(&client, "SET mp.leaf.deeper = :v", &[(":v", s("b"))]).await.unwrap_err(),
        "The document path provided in the update expression is invalid for update"
    );
}

#[tokio::test(start_paused = true)]
async fn remove_and_delete_need_the_parent_of_a_nested_path() {
    let (_fake, client) = setup().await;
    let invalid = "The document path provided in the update expression is invalid for update";
    let set = || (":s", AttributeValue::Ss(vec!["x".into()]));
    for expr in ["REMOVE absent.x", "REMOVE absent[0]", "REMOVE mp[0]", "REMOVE lst.x", "REMOVE cnt.x"] {
        assert_eq!(update(&client, expr, &[]).await.unwrap_err(), invalid, "{expr}");
    }
    for expr in ["DELETE absent.x :s", "DELETE absent[0] :s", "DELETE mp[0] :s", "DELETE lst.x :s", "DELETE cnt.x :s"] {
        assert_eq!(update(&client, expr, &[set()]).await.unwrap_err(), invalid, "{expr}");
    }
    // Where the parent exists, a missing attribute or element is left alone.
    let item = update(&client, "REMOVE absent, mp.absent, lst[9] DELETE gone :s, mp.gone :s", &[set()]).await.unwrap();
    assert_eq!(item["lst"], AttributeValue::L(vec![n("1"), n("2"), n("3")]));
    assert_eq!(item["mp"], AttributeValue::M([("leaf".to_owned(), s("v"))].into()));
}

#[tokio::test(start_paused = true)]
async fn remove_and_delete_of_a_nested_path_on_a_missing_item_need_the_parent_too() {
    let (fake, client) = setup().await;
    let invalid = "The document path provided in the update expression is invalid for update";
    let on_missing = |expr: &str, values: Option<AttributeValue>| {
        client
            .update_item()
            .table_name("Tbl")
            .key("pk", s("missing"))
            .update_expression(expr.to_owned())
            .set_expression_attribute_values(values.map(|v| HashMap::from([(":s".to_owned(), v)])))
            .send()
    };
    // The update starts from the key alone, which has no parent for these paths.
    for expr in ["REMOVE a.b", "REMOVE l[1][1]", "REMOVE a[0]"] {
        let error = on_missing(expr, None).await.unwrap_err().into_service_error();
        assert_eq!(error.meta().message(), Some(invalid), "{expr}");
    }
    let error = on_missing("DELETE m.c :s", Some(AttributeValue::Ss(vec!["x".into()]))).await.unwrap_err();
    assert_eq!(error.into_service_error().meta().message(), Some(invalid));
    // Removing top-level attributes of a missing item is allowed and creates nothing.
    on_missing("REMOVE a, b", None).await.unwrap();
    on_missing("DELETE tags :s", Some(AttributeValue::Ss(vec!["x".into()]))).await.unwrap();
    let found = client.get_item().table_name("Tbl").key("pk", s("missing")).send().await.unwrap();
    assert!(found.item.is_none());
    assert_eq!(fake.request_log().iter().filter(|r| r.error.is_some()).count(), 4);
}

#[tokio::test(start_paused = true)]
async fn update_of_a_missing_item_creates_it_and_updated_new_reports_only_changes() {
    let (_fake, client) = setup().await;
    let out = client
        .update_item()
        .table_name("Tbl")
        .key("pk", s("new"))
        .update_expression("SET v = :v")
        .expression_attribute_values(":v", n("1"))
        .return_values(ReturnValue::UpdatedNew)
        .send()
        .await
        .unwrap();
    assert_eq!(out.attributes.unwrap(), HashMap::from([("v".to_owned(), n("1"))]));
    let out = client
        .update_item()
        .table_name("Tbl")
        .key("pk", s("a"))
        .update_expression("SET mp.leaf = :v")
        .expression_attribute_values(":v", s("w"))
        .return_values(ReturnValue::UpdatedOld)
        .send()
        .await
        .unwrap();
    assert_eq!(
        out.attributes.unwrap(),
        HashMap::from([("mp".to_owned(), AttributeValue::M([("leaf".to_owned(), s("v"))].into()))])
    );
}

#[tokio::test(start_paused = true)]
async fn updates_of_index_keys_are_checked_before_and_after_the_item_is_read() {
    let fake = FakeDynamoDb::new();
    let create = serde_json::json!({
        "TableName": "Idx",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [{
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"},
        }],
        "BillingMode": "PAY_PER_REQUEST",
    });
    assert_eq!(fake.handle_json("CreateTable", create.to_string().as_bytes()).0, 200);
    let client = fake.client();
    let refusal = |expr: &'static str, values: Vec<(&'static str, AttributeValue)>| {
        let mut req = client.update_item().table_name("Idx").key("pk", s("k")).update_expression(expr);
        for (k, v) in values {
            req = req.expression_attribute_values(k, v);
        }
        async move { req.send().await.unwrap_err().into_service_error().meta().message().unwrap_or_default().to_owned() }
    };
    // Known from the expression alone, before the path into a missing map is found invalid.
    let mismatch =
        "One or more parameter values were invalid: Type mismatch for Index Key g Expected: S Actual: N IndexName: byG";
    assert_eq!(refusal("SET m.x = :s ADD g :n", vec![(":s", s("v")), (":n", n("1"))]).await, mismatch);
    assert_eq!(refusal("SET e = g[1], g = e + :n", vec![(":n", n("1"))]).await, mismatch);
    let scalars =
        "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: IndexKey: g";
    assert_eq!(refusal("ADD g.b :n", vec![(":n", n("1"))]).await, scalars);
    assert_eq!(refusal("SET e = list_append(a, b), f = g[1]", vec![]).await, scalars);
    // Known only from the item: worded as an update of the index key.
    let put = client.update_item().table_name("Idx").key("pk", s("k")).update_expression("SET e = :n");
    put.expression_attribute_values(":n", n("1")).send().await.unwrap();
    assert_eq!(
        refusal("SET g = e", vec![]).await,
        "The update expression attempted to update the secondary index key to unsupported type"
    );
}

async fn stored(client: &Client) -> HashMap<String, AttributeValue> {
    let out = client.get_item().table_name("Tbl").key("pk", s("a")).consistent_read(true).send().await.unwrap();
    out.item.unwrap_or_default()
}

/// An update is made where the item is kept when its answer needs nothing of the item as it
/// was; one that a check refuses after its writes (here the size limit) leaves the item exactly
/// as it was, and a later update starts from that.
#[tokio::test(start_paused = true)]
async fn an_update_refused_after_its_writes_leaves_the_item_as_it_was() {
    let (fake, client) = setup().await;
    let size_of = async |table: &str| {
        let described = client.describe_table().table_name(table).send().await.unwrap().table.unwrap();
        described.table_size_bytes.unwrap()
    };
    let before = stored(&client).await;
    let size_before = size_of("Tbl").await;
    let refused = client
        .update_item()
        .table_name("Tbl")
        .key("pk", s("a"))
        .update_expression("SET big = :big, cnt = cnt + :one, fresh = :v REMOVE tags")
        .expression_attribute_values(":big", s(&"x".repeat(400 * 1024)))
        .expression_attribute_values(":one", n("1"))
        .expression_attribute_values(":v", s("v"))
        .send()
        .await
        .unwrap_err();
    let message = refused.into_service_error().meta().message().unwrap_or_default().to_owned();
    assert_eq!(message, "Item size to update has exceeded the maximum allowed size");
    assert_eq!(stored(&client).await, before);
    assert_eq!(size_of("Tbl").await, size_before, "the refused update left the table's size alone");

    client
        .update_item()
        .table_name("Tbl")
        .key("pk", s("a"))
        .update_expression("SET cnt = cnt + :one, fresh = :v REMOVE tags")
        .expression_attribute_values(":one", n("1"))
        .expression_attribute_values(":v", s("v"))
        .send()
        .await
        .unwrap();
    let mut expected = before;
    expected.insert("cnt".into(), n("6"));
    expected.insert("fresh".into(), s("v"));
    expected.remove("tags");
    assert_eq!(stored(&client).await, expected);
    // The table counts the updated item as it would count the same item put afresh.
    fake.create_table("Copy", "pk", None);
    client.put_item().table_name("Copy").set_item(Some(expected)).send().await.unwrap();
    assert_eq!(size_of("Tbl").await, size_of("Copy").await);
}

#[tokio::test(start_paused = true)]
async fn a_path_invalid_for_update_is_reported_before_an_operand_the_item_lacks() {
    let (_fake, client) = setup().await;
    let invalid_path = "The document path provided in the update expression is invalid for update";
    let missing = "The provided expression refers to an attribute that does not exist in the item";
    let values = [(":v", n("1"))];
    for expression in ["SET nothing = gone, cnt.deeper = :v", "SET cnt.deeper = :v, nothing = gone"] {
        assert_eq!(update(&client, expression, &values).await.unwrap_err(), invalid_path, "{expression}");
    }
    assert_eq!(update(&client, "SET nothing = gone, mp.deeper = :v", &values).await.unwrap_err(), missing);
    assert_eq!(update(&client, "REMOVE absent.deeper SET cnt = gone", &[]).await.unwrap_err(), invalid_path);
}
