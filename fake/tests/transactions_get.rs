//! TransactGetItems: a key that does not match its table's schema cancels the transaction with a
//! `ValidationError` reason, as it cancels TransactWriteItems (nubo-db's conformance suite,
//! recorded against DynamoDB); the actions after it are not read, and other mistakes refuse the
//! request outright.

mod support;

use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};
use support::{invalid, ok, refused, wire};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    ok(&fake, "PutItem", json!({"TableName": "Things", "Item": {"pk": {"S": "a"}, "v": {"N": "1"}}}));
    fake
}

fn get(key: Json) -> Json {
    json!({"Get": {"TableName": "Things", "Key": key}})
}

#[test]
fn a_key_without_the_schema_cancels_the_transaction_from_that_action_on() {
    let fake = fake();
    let (status, answer) = wire(
        &fake,
        "TransactGetItems",
        json!({"TransactItems": [get(json!({"pk": {"S": "a"}})), get(json!({})), get(json!({"pk": {"N": "1"}}))]}),
    );
    assert_eq!(status, 400);
    assert_eq!(answer["__type"], "com.amazonaws.dynamodb.v20120810#TransactionCanceledException");
    assert_eq!(
        answer["message"],
        "Transaction cancelled, please refer cancellation reasons for specific reasons [None, ValidationError, None]"
    );
    assert_eq!(
        answer["CancellationReasons"],
        json!([{"Code": "None"},
               {"Code": "ValidationError", "Message": "The provided key element does not match the schema"},
               {"Code": "None"}])
    );
    // A key of the wrong type cancels it as well.
    let (code, message) =
        refused(&fake, "TransactGetItems", json!({"TransactItems": [get(json!({"pk": {"N": "1"}}))]}));
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "TransactionCanceledException",
            "Transaction cancelled, please refer cancellation reasons for specific reasons [ValidationError]"
        )
    );
    // A table that does not exist refuses the request, whichever action names it.
    let missing = json!({"Get": {"TableName": "Nowhere", "Key": {"pk": {"S": "a"}}}});
    let (code, _) = refused(&fake, "TransactGetItems", json!({"TransactItems": [get(json!({})), missing]}));
    assert_eq!(code, "ResourceNotFoundException");
    // The same item twice is refused before any key is read.
    let twice =
        json!({"TransactItems": [get(json!({"pk": {"S": "a"}})), get(json!({"pk": {"S": "a"}})), get(json!({}))]});
    assert_eq!(
        invalid(&fake, "TransactGetItems", twice),
        "Transaction request cannot include multiple operations on one item"
    );
    let read = ok(&fake, "TransactGetItems", json!({"TransactItems": [get(json!({"pk": {"S": "a"}}))]}));
    assert_eq!(read["Responses"], json!([{"Item": {"pk": {"S": "a"}, "v": {"N": "1"}}}]));
}
