//! The item rules: keys, sizes, sets, empty values, all ten types, DeleteItem.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let client = fake.client();
    (fake, client)
}

async fn put_error(client: &Client, item: Vec<(&str, AttributeValue)>) -> String {
    let mut req = client.put_item().table_name("Shop");
    for (k, v) in item {
        req = req.item(k, v);
    }
    let err = req.send().await.unwrap_err().into_service_error();
    assert_eq!(err.code(), Some("ValidationException"));
    err.message().unwrap_or_default().to_owned()
}

#[tokio::test(start_paused = true)]
async fn keys_must_be_complete_typed_and_not_empty() {
    let (_fake, client) = setup();
    assert_eq!(
        put_error(&client, vec![("pk", s("a"))]).await,
        "One or more parameter values were invalid: Missing the key sk in the item"
    );
    assert_eq!(
        put_error(&client, vec![("pk", s("a")), ("sk", s(""))]).await,
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: sk"
    );
    let err = client.get_item().table_name("Shop").key("pk", s("a")).send().await.unwrap_err().into_service_error();
    assert_eq!(err.message(), Some("The provided key element does not match the schema"));
    let err = client
        .get_item()
        .table_name("Shop")
        .key("pk", s("a"))
        .key("sk", s("b"))
        .key("extra", s("c"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.message(), Some("The provided key element does not match the schema"));
}

#[tokio::test(start_paused = true)]
async fn items_over_400_kb_are_refused() {
    let (_fake, client) = setup();
    let big = "x".repeat(400 * 1024);
    assert_eq!(
        put_error(&client, vec![("pk", s("a")), ("sk", s("b")), ("blob", s(&big))]).await,
        "Item size has exceeded the maximum allowed size"
    );
    let fits = "x".repeat(400 * 1024 - 100);
    client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .item("sk", s("b"))
        .item("blob", s(&fits))
        .send()
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn set_and_null_rules() {
    let (_fake, client) = setup();
    let base = || vec![("pk", s("a")), ("sk", s("b"))];
    let with = |extra: AttributeValue| {
        let mut item = base();
        item.push(("x", extra));
        item
    };
    assert!(put_error(&client, with(AttributeValue::Ss(vec![]))).await.contains("may not be empty"));
    assert!(
        put_error(&client, with(AttributeValue::Ss(vec!["a".into(), "a".into()])))
            .await
            .contains("contains duplicates")
    );
    assert_eq!(
        put_error(&client, with(AttributeValue::Ns(vec!["1".into(), "1.0".into()]))).await,
        "1 validation error detected: Input collection contains duplicates"
    );
    assert_eq!(
        put_error(&client, with(AttributeValue::N("1e126".into()))).await,
        "Number overflow. Attempting to store a number with magnitude larger than supported range"
    );
    assert_eq!(
        put_error(&client, with(AttributeValue::N("1.23456789012345678901234567890123456789".into()))).await,
        "Attempting to store more than 38 significant digits in a Number"
    );
}

#[tokio::test(start_paused = true)]
async fn a_null_of_false_is_refused_and_not_stored() {
    let (_fake, client) = setup();
    let err = client
        .put_item()
        .table_name("Shop")
        .item("pk", s("a"))
        .item("sk", s("b"))
        .item("x", AttributeValue::Null(false))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.code(), Some("ValidationException"));
    assert_eq!(
        err.message(),
        Some(
            "1 validation error detected: One or more parameter values were invalid: Null attribute value types must have the value of true"
        )
    );
    let item = client.get_item().table_name("Shop").key("pk", s("a")).key("sk", s("b")).send().await.unwrap();
    assert_eq!(item.item(), None);
}

#[tokio::test(start_paused = true)]
async fn all_ten_types_and_empty_non_key_strings_round_trip() {
    let (_fake, client) = setup();
    let values = [
        ("s", s("")),
        ("n", AttributeValue::N("-0.5".into())),
        ("b", AttributeValue::B(Blob::new(vec![]))),
        ("bool", AttributeValue::Bool(false)),
        ("null", AttributeValue::Null(true)),
        ("m", AttributeValue::M([("k".into(), s("v"))].into())),
        ("l", AttributeValue::L(vec![s("v"), AttributeValue::N("1".into())])),
        ("ss", AttributeValue::Ss(vec!["v".into()])),
        ("ns", AttributeValue::Ns(vec!["1".into()])),
        ("bs", AttributeValue::Bs(vec![Blob::new(vec![1, 2])])),
    ];
    let mut put = client.put_item().table_name("Shop").item("pk", s("a")).item("sk", s("b"));
    for (k, v) in &values {
        put = put.item(*k, v.clone());
    }
    put.send().await.unwrap();
    let item =
        client.get_item().table_name("Shop").key("pk", s("a")).key("sk", s("b")).send().await.unwrap().item.unwrap();
    for (k, v) in values {
        assert_eq!(item[k], v, "{k}");
    }
}

#[tokio::test(start_paused = true)]
async fn an_empty_string_or_binary_is_a_set_member_like_any_other() {
    let (_fake, client) = setup();
    let ss = AttributeValue::Ss(vec![String::new(), "v".into()]);
    let bs = AttributeValue::Bs(vec![Blob::new(vec![]), Blob::new(vec![7])]);
    let put = client.put_item().table_name("Shop").item("pk", s("a")).item("sk", s("b"));
    put.item("ss", ss).item("bs", bs).send().await.unwrap();
    let item =
        client.get_item().table_name("Shop").key("pk", s("a")).key("sk", s("b")).send().await.unwrap().item.unwrap();
    assert_eq!(item["ss"].as_ss().unwrap(), &["", "v"]);
    assert_eq!(item["bs"].as_bs().unwrap(), &[Blob::new(vec![]), Blob::new(vec![7])]);
    let twice = AttributeValue::Ss(vec![String::new(), String::new()]);
    let put = client.put_item().table_name("Shop").item("pk", s("a")).item("sk", s("b")).item("ss", twice);
    let refused = put.send().await.unwrap_err().into_service_error();
    assert!(refused.meta().message().unwrap_or_default().contains("contains duplicates"), "{refused:?}");
}

#[tokio::test(start_paused = true)]
async fn delete_item_with_condition_and_all_old() {
    let (_fake, client) = setup();
    client.put_item().table_name("Shop").item("pk", s("a")).item("sk", s("b")).item("v", s("1")).send().await.unwrap();
    let err = client
        .delete_item()
        .table_name("Shop")
        .key("pk", s("a"))
        .key("sk", s("b"))
        .condition_expression("v = :two")
        .expression_attribute_values(":two", s("2"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_conditional_check_failed_exception());
    let out = client
        .delete_item()
        .table_name("Shop")
        .key("pk", s("a"))
        .key("sk", s("b"))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    assert_eq!(out.attributes().unwrap()["v"], s("1"));
    let again = client
        .delete_item()
        .table_name("Shop")
        .key("pk", s("a"))
        .key("sk", s("b"))
        .return_values(ReturnValue::AllOld)
        .send()
        .await
        .unwrap();
    assert!(again.attributes().is_none(), "deleting a missing item succeeds with no attributes");
}

#[tokio::test(start_paused = true)]
async fn an_oversized_put_is_refused_before_its_table_or_conditions_are_read() {
    let (_fake, client) = setup();
    let big = "x".repeat(400 * 1024);
    // No such table, and a legacy condition that is itself invalid: the size is reported first.
    let err = client
        .put_item()
        .table_name("NoSuchTable")
        .item("pk", s("a"))
        .item("blob", s(&big))
        .expected("pk", aws_sdk_dynamodb::types::ExpectedAttributeValue::builder().build())
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(err.code(), Some("ValidationException"));
    assert_eq!(err.message(), Some("Item size has exceeded the maximum allowed size"));
}
