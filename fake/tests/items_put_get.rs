//! PutItem and GetItem through the real SDK client.

use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue, ReturnValuesOnConditionCheckFailure};
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

#[tokio::test(start_paused = true)]
async fn put_then_get_returns_the_item_with_normalized_numbers() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let client = fake.client();
    client
        .put_item()
        .table_name("Shop")
        .item("pk", s("order#1"))
        .item("sk", s("v1"))
        .item("total", n("0012.50"))
        .item("tags", AttributeValue::Ss(vec!["b".into(), "a".into()]))
        .send()
        .await
        .unwrap();
    let got = client
        .get_item()
        .table_name("Shop")
        .key("pk", s("order#1"))
        .key("sk", s("v1"))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    let item = got.item.expect("the item");
    assert_eq!(item["total"], n("12.5"));
    let mut tags = item["tags"].as_ss().unwrap().clone();
    tags.sort();
    assert_eq!(tags, ["a", "b"]);
}

#[tokio::test(start_paused = true)]
async fn get_of_a_missing_item_has_no_item() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let got = fake.client().get_item().table_name("Shop").key("pk", s("none")).send().await.unwrap();
    assert!(got.item.is_none());
}

#[tokio::test(start_paused = true)]
async fn conditional_put_fails_with_the_old_item_when_asked() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let put = client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .item("v", n("1"))
        .condition_expression("attribute_not_exists(pk)")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
    put.clone().send().await.unwrap();
    let err = put.send().await.unwrap_err().into_service_error();
    assert!(err.is_conditional_check_failed_exception());
    assert_eq!(err.meta().message(), Some("The conditional request failed"));
    let ccf = match err {
        aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(e) => e,
        other => panic!("unexpected {other:?}"),
    };
    assert_eq!(ccf.item.unwrap()["v"], n("1"));
}

#[tokio::test(start_paused = true)]
async fn put_with_all_old_returns_the_replaced_item() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    client.put_item().table_name("Shop").item("pk", s("a")).item("v", n("1")).send().await.unwrap();
    let out = client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .item("v", n("2"))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    assert_eq!(out.attributes.unwrap()["v"], n("1"));
}

#[tokio::test(start_paused = true)]
async fn missing_table_is_resource_not_found() {
    let fake = FakeDynamoDb::new();
    let err = fake.client().get_item().table_name("Nope").key("pk", s("a")).send().await.unwrap_err();
    let err = err.into_service_error();
    assert!(err.is_resource_not_found_exception());
    assert_eq!(err.meta().message(), Some("Requested resource not found"));
}

#[tokio::test(start_paused = true)]
async fn key_of_the_wrong_type_is_rejected() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let err = fake.client().put_item().table_name("Shop").item("pk", n("1")).send().await.unwrap_err();
    let err = err.into_service_error();
    assert_eq!(err.meta().code(), Some("ValidationException"));
    assert_eq!(
        err.meta().message(),
        Some("One or more parameter values were invalid: Type mismatch for key pk expected: S actual: N")
    );
}

#[tokio::test(start_paused = true)]
async fn projection_keeps_only_the_named_paths() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .item("m", AttributeValue::M([("x".into(), n("1")), ("y".into(), n("2"))].into()))
        .item("l", AttributeValue::L(vec![n("10"), n("11"), n("12")]))
        .send()
        .await
        .unwrap();
    let got = client
        .get_item()
        .table_name("Shop")
        .key("pk", s("a"))
        .projection_expression("m.y, l[2], #p")
        .expression_attribute_names("#p", "pk")
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got["m"], AttributeValue::M([("y".into(), n("2"))].into()));
    assert_eq!(got["l"], AttributeValue::L(vec![n("12")]));
}

#[tokio::test(start_paused = true)]
async fn a_fake_like_older_dynamodb_answers_failed_conditions_without_the_item() {
    let fake = FakeDynamoDb::builder().item_on_condition_failure(false).build();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let put = client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .condition_expression("attribute_not_exists(pk)")
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
    put.clone().send().await.unwrap();
    match put.send().await.unwrap_err().into_service_error() {
        aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(e) => {
            assert!(e.item.is_none())
        }
        other => panic!("unexpected {other:?}"),
    }
}

/// A raw request through `handle_json`: the status and the `message` of an error, if any.
fn raw(fake: &FakeDynamoDb, operation: &str, body: serde_json::Value) -> (u16, String) {
    let (status, answer) = fake.handle_json(operation, body.to_string().as_bytes());
    let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap();
    (status, answer["message"].as_str().unwrap_or_default().to_owned())
}

#[tokio::test(start_paused = true)]
async fn projecting_into_a_key_or_index_key_attribute_is_refused_by_gets() {
    let fake = FakeDynamoDb::new();
    let created = raw(
        &fake,
        "CreateTable",
        serde_json::json!({
            "TableName": "Shop",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "GlobalSecondaryIndexes": [{
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }],
            "BillingMode": "PAY_PER_REQUEST",
        }),
    );
    assert_eq!(created.0, 200);
    let scalars = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed";
    for (projection, attr, kind) in [("#a.b.c", "pk", "Key"), ("#a[0]", "pk", "Key"), ("#a.x", "g", "IndexKey")] {
        let names = serde_json::json!({"#a": attr});
        let get = serde_json::json!({
            "TableName": "Shop", "Key": {"pk": {"S": "k"}}, "ProjectionExpression": projection, "ExpressionAttributeNames": names,
        });
        assert_eq!(raw(&fake, "GetItem", get), (400, format!("{scalars}: {kind}: {attr}")), "{projection} on {attr}");
        let batch = serde_json::json!({"RequestItems": {"Shop": {
            "Keys": [{"pk": {"S": "k"}}], "ProjectionExpression": projection, "ExpressionAttributeNames": names,
        }}});
        assert_eq!(
            raw(&fake, "BatchGetItem", batch),
            (400, format!("{scalars}: {kind}: {attr}")),
            "{projection} on {attr}"
        );
    }
    let fine =
        serde_json::json!({"TableName": "Shop", "Key": {"pk": {"S": "k"}}, "ProjectionExpression": "pk, info.x"});
    assert_eq!(raw(&fake, "GetItem", fine).0, 200);
}

#[tokio::test(start_paused = true)]
async fn a_put_replacing_an_item_recounts_the_table_and_a_refused_put_changes_nothing() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let counts = async || {
        let table = client.describe_table().table_name("Shop").send().await.unwrap().table.unwrap();
        (table.item_count, table.table_size_bytes)
    };
    let put = || client.put_item().table_name("Shop").item("pk", s("a"));

    put().item("v", s("12345")).send().await.unwrap();
    // Names and values: "pk" and "a", "v" and "12345".
    assert_eq!(counts().await, (Some(1), Some(9)));

    let replaced = put().item("v", s("1")).condition_expression("attribute_exists(pk)").send().await.unwrap();
    assert!(replaced.attributes.is_none(), "nothing was asked back");
    assert_eq!(counts().await, (Some(1), Some(5)), "the replaced item no longer counts");

    let refused = put()
        .item("w", s("a longer value"))
        .condition_expression("attribute_not_exists(pk)")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    match refused {
        aws_sdk_dynamodb::operation::put_item::PutItemError::ConditionalCheckFailedException(e) => {
            assert!(e.item.is_none(), "the old item is shown only when asked for")
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(counts().await, (Some(1), Some(5)));
    let item = client.get_item().table_name("Shop").key("pk", s("a")).send().await.unwrap().item.unwrap();
    assert_eq!(item.get("v"), Some(&s("1")));
    assert!(!item.contains_key("w"), "the refused put wrote nothing");

    // A put on a missing item that its condition refuses stores nothing either.
    let missing = client
        .put_item()
        .table_name("Shop")
        .item("pk", s("b"))
        .condition_expression("attribute_exists(pk)")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(missing.is_conditional_check_failed_exception());
    assert_eq!(counts().await, (Some(1), Some(5)));
}
