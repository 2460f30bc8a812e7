//! How a malformed number or a duplicate set member is worded, which depends on the operation:
//! DynamoDB runs one of two checkers of attribute values. PutItem, UpdateItem and DeleteItem
//! word numbers in the current wording and duplicate set members in the older one (nubo-db's
//! conformance suite, recorded against DynamoDB in 2026, for a string set); GetItem, BatchGetItem
//! and Query use the current wording throughout; BatchWriteItem, the transactions and Scan the
//! older one.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, Put, PutRequest, TransactWriteItem, WriteRequest};
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn setup() -> (FakeDynamoDb, Client) {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    (fake, client)
}

fn refusal<E: ProvideErrorMetadata>(err: E) -> String {
    assert_eq!(err.code(), Some("ValidationException"));
    err.message().unwrap_or_default().to_owned()
}

fn strings_b_a_b() -> AttributeValue {
    AttributeValue::Ss(vec!["b".into(), "a".into(), "b".into()])
}

fn binaries_ff_00_00() -> AttributeValue {
    AttributeValue::Bs(vec![Blob::new(vec![0xff]), Blob::new(vec![0x00]), Blob::new(vec![0x00])])
}

async fn put(client: &Client, value: AttributeValue) -> String {
    let err = client.put_item().table_name("Shop").item("pk", s("k")).item("v", value).send().await.unwrap_err();
    refusal(err.into_service_error())
}

#[tokio::test(start_paused = true)]
async fn writes_of_one_item_word_numbers_currently_and_duplicate_members_the_older_way() {
    let (_fake, client) = setup();
    assert_eq!(put(&client, n("")).await, "The parameter cannot be converted to a numeric value: ");
    assert_eq!(put(&client, n("abc")).await, "The parameter cannot be converted to a numeric value: abc");
    assert_eq!(
        put(&client, n("1e126")).await,
        "Number overflow. Attempting to store a number with magnitude larger than supported range"
    );
    assert_eq!(
        put(&client, strings_b_a_b()).await,
        "1 validation error detected: One or more parameter values were invalid: Input collection [b, a, b] contains duplicates."
    );
    assert_eq!(
        put(&client, binaries_ff_00_00()).await,
        "1 validation error detected: One or more parameter values were invalid: Input collection [/w==, AA==, AA==]of type BS contains duplicates."
    );
    assert_eq!(
        put(&client, AttributeValue::Ns(vec!["2".into(), "1".into(), "2".into()])).await,
        "1 validation error detected: Input collection contains duplicates"
    );
    // An expression value's placeholder is not named.
    let err = client
        .update_item()
        .table_name("Shop")
        .key("pk", s("k"))
        .update_expression("SET v = :v")
        .expression_attribute_values(":v", n("abc"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(refusal(err.into_service_error()), "The parameter cannot be converted to a numeric value: abc");
    let err = client.delete_item().table_name("Shop").key("pk", strings_b_a_b()).send().await.unwrap_err();
    assert_eq!(
        refusal(err.into_service_error()),
        "1 validation error detected: One or more parameter values were invalid: Input collection [b, a, b] contains duplicates."
    );
}

#[tokio::test(start_paused = true)]
async fn reads_by_key_and_query_word_values_currently_and_bare() {
    let (_fake, client) = setup();
    let err = client.get_item().table_name("Shop").key("pk", n("")).send().await.unwrap_err();
    assert_eq!(refusal(err.into_service_error()), "The parameter cannot be converted to a numeric value: ");
    let keys = KeysAndAttributes::builder().keys([("pk".to_owned(), strings_b_a_b())].into()).build().unwrap();
    let err = client.batch_get_item().request_items("Shop", keys).send().await.unwrap_err();
    assert_eq!(
        refusal(err.into_service_error()),
        r#"One or more parameter values were invalid: Input collection ["a", "b", "b"] contains duplicates."#
    );
    let err = client
        .query()
        .table_name("Shop")
        .key_condition_expression("pk = :p")
        .filter_expression("v = :v")
        .expression_attribute_values(":p", s("k"))
        .expression_attribute_values(":v", n("abc"))
        .send()
        .await
        .unwrap_err();
    assert_eq!(refusal(err.into_service_error()), "The parameter cannot be converted to a numeric value: abc");
}

#[tokio::test(start_paused = true)]
async fn batch_writes_and_transactions_word_values_the_older_way() {
    let (_fake, client) = setup();
    let write = |value: AttributeValue| {
        WriteRequest::builder()
            .put_request(PutRequest::builder().item("pk", s("k")).item("v", value).build().unwrap())
            .build()
    };
    let err = client.batch_write_item().request_items("Shop", vec![write(n(""))]).send().await.unwrap_err();
    assert_eq!(refusal(err.into_service_error()), "The parameter cannot be converted to a numeric value");
    let err = client.batch_write_item().request_items("Shop", vec![write(strings_b_a_b())]).send().await.unwrap_err();
    assert_eq!(
        refusal(err.into_service_error()),
        "One or more parameter values were invalid: Input collection [b, a, b] contains duplicates."
    );
    let put = Put::builder().table_name("Shop").item("pk", s("k")).item("v", n("abc")).build().unwrap();
    let err = client.transact_write_items().transact_items(TransactWriteItem::builder().put(put).build()).send().await;
    assert_eq!(
        refusal(err.unwrap_err().into_service_error()),
        "The parameter cannot be converted to a numeric value: abc"
    );
}

#[tokio::test(start_paused = true)]
async fn an_empty_set_value_of_a_single_item_write_is_refused_without_its_placeholder() {
    // moto's test_update_item_add_empty_set, verified against DynamoDB, for UpdateItem; the
    // fake answers DeleteItem and PutItem, which run the same checker, alike.
    let (_fake, client) = setup();
    let err = client
        .delete_item()
        .table_name("Shop")
        .key("pk", s("k"))
        .condition_expression("v = :v")
        .expression_attribute_values(":v", AttributeValue::Ss(vec![]))
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        refusal(err.into_service_error()),
        "1 validation error detected: One or more parameter values were invalid: An string set  may not be empty"
    );
}
