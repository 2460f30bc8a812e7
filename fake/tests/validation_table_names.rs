//! The table name of a data-plane request: it may be a table's ARN, so an empty one breaks only a
//! least length of 1, while a short name keeps the least length of a table name, 3. CreateTable
//! reports the constraints its name breaks before and without any other (nubo-db's conformance
//! suite, recorded against DynamoDB).

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

async fn put_refusal(table: &str) -> String {
    let fake = FakeDynamoDb::new();
    let error = fake.client().put_item().table_name(table).item("pk", s("k")).send().await.expect_err("refused");
    error.into_service_error().message().unwrap_or_default().to_owned()
}

/// The message of a raw request's answer: the SDK will not send an empty table name itself.
fn raw_refusal(operation: &str, body: serde_json::Value) -> String {
    let (status, answer) = FakeDynamoDb::new().handle_json(operation, body.to_string().as_bytes());
    let answer: serde_json::Value = serde_json::from_slice(&answer).expect("JSON");
    assert_eq!(status, 400, "{answer}");
    answer["message"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn an_empty_table_name_breaks_only_the_least_length_of_one() {
    let empty = "1 validation error detected: Value '' at 'tableName' failed to satisfy constraint: \
                 Member must have length greater than or equal to 1";
    let item = serde_json::json!({"pk": {"S": "k"}});
    assert_eq!(raw_refusal("PutItem", serde_json::json!({"TableName": "", "Item": item})), empty);
    assert_eq!(raw_refusal("GetItem", serde_json::json!({"TableName": "", "Key": item})), empty);
    assert_eq!(raw_refusal("Scan", serde_json::json!({"TableName": ""})), empty);
}

#[tokio::test(start_paused = true)]
async fn a_short_or_malformed_name_keeps_the_pattern_and_the_least_length_of_three() {
    assert_eq!(
        put_refusal("ab").await,
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: \
         Member must have length greater than or equal to 3"
    );
    assert_eq!(
        put_refusal("a;").await,
        "2 validation errors detected: Value 'a;' at 'tableName' failed to satisfy constraint: \
         Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a;' at 'tableName' failed to \
         satisfy constraint: Member must have length greater than or equal to 3"
    );
}

#[tokio::test(start_paused = true)]
async fn create_table_names_only_the_table_name_when_it_breaks_its_constraints() {
    let fake = FakeDynamoDb::new();
    let create = |name: &str| {
        fake.client()
            .create_table()
            .table_name(name)
            .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
            .send()
    };
    let message = |error: aws_sdk_dynamodb::error::SdkError<_, _>| {
        let error: aws_sdk_dynamodb::operation::create_table::CreateTableError = error.into_service_error();
        (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned())
    };
    assert_eq!(
        message(create("ab").await.unwrap_err()),
        (
            "ValidationException".to_owned(),
            "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have \
             length greater than or equal to 3"
                .to_owned()
        )
    );
    let (_, malformed) = message(create("x!").await.unwrap_err());
    assert!(malformed.starts_with("2 validation errors detected: Value 'x!' at 'tableName'"), "{malformed}");
    assert!(!malformed.contains("keySchema"), "{malformed}");
    let (_, good_name) = message(create("abc").await.unwrap_err());
    assert!(good_name.contains("at 'keySchema' failed to satisfy constraint"), "{good_name}");
}
