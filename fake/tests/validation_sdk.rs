//! Request validation as code using the real SDK client sees it: the typed error, its code and
//! DynamoDB's message, for mistakes the SDK lets through to the service.

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, ComparisonOperator, Condition, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    KeysAndAttributes, Projection, ProjectionType, ProvisionedThroughput, PutRequest, ScalarAttributeType, Select,
    TransactWriteItem, Update, WriteRequest,
};
use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put};
use dynalease_fake::FakeDynamoDb;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn key(name: &str, key_type: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(key_type).build().unwrap()
}

fn string_attribute(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().unwrap()
}

fn throughput(units: i64) -> ProvisionedThroughput {
    ProvisionedThroughput::builder().read_capacity_units(units).write_capacity_units(units).build().unwrap()
}

/// The code and message of a service error.
fn code_and_message<E: ProvideErrorMetadata>(error: E) -> (String, String) {
    (error.code().unwrap_or_default().to_owned(), error.message().unwrap_or_default().to_owned())
}

fn validation(message: &str) -> (String, String) {
    ("ValidationException".to_owned(), message.to_owned())
}

#[tokio::test(start_paused = true)]
async fn create_table_refuses_throughput_on_demand_and_indexes_without_definitions() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    let on_demand_with_throughput = client
        .create_table()
        .table_name("Shop")
        .attribute_definitions(string_attribute("pk"))
        .key_schema(key("pk", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .provisioned_throughput(throughput(5))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        code_and_message(on_demand_with_throughput),
        validation(
            "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be \
             specified when BillingMode is PAY_PER_REQUEST"
        )
    );

    let undefined_index_key = client
        .create_table()
        .table_name("Shop")
        .attribute_definitions(string_attribute("pk"))
        .key_schema(key("pk", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byOwner")
                .key_schema(key("owner", KeyType::Hash))
                .projection(Projection::builder().projection_type(ProjectionType::KeysOnly).build())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        code_and_message(undefined_index_key),
        validation(
            "One or more parameter values were invalid: Some index key attributes are not defined in \
             AttributeDefinitions. Keys: [owner], AttributeDefinitions: [pk]"
        )
    );
    assert!(fake.request_log().iter().all(|r| r.error.as_deref() == Some("ValidationException")));
}

#[tokio::test(start_paused = true)]
async fn enum_values_the_sdk_does_not_know_are_refused_by_the_service() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let error = fake
        .client()
        .scan()
        .table_name("Shop")
        .select(Select::from("count"))
        .limit(0)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        code_and_message(error),
        validation(
            "2 validation errors detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value \
             greater than or equal to 1; Value 'count' at 'select' failed to satisfy constraint: Member must satisfy \
             enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"
        )
    );
}

#[tokio::test(start_paused = true)]
async fn expressions_and_legacy_parameters_do_not_mix() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let client = fake.client();
    let mixed = client
        .query()
        .table_name("Shop")
        .key_conditions(
            "pk",
            Condition::builder()
                .comparison_operator(ComparisonOperator::Eq)
                .attribute_value_list(s("a"))
                .build()
                .unwrap(),
        )
        .key_condition_expression("pk = :p")
        .expression_attribute_values(":p", s("a"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        code_and_message(mixed),
        validation(
            "Can not use both expression and non-expression parameters in the same request: Non-expression \
             parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}"
        )
    );
    let names_alone = client
        .get_item()
        .table_name("Shop")
        .key("pk", s("a"))
        .key("sk", s("b"))
        .expression_attribute_names("#n", "name")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        code_and_message(names_alone),
        validation("ExpressionAttributeNames can only be specified when using expressions")
    );
    let projected_count = client
        .scan()
        .table_name("Shop")
        .select(Select::Count)
        .projection_expression("pk")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        code_and_message(projected_count),
        validation(
            "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count"
        )
    );
}

#[tokio::test(start_paused = true)]
async fn batches_and_transactions_have_limits() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let puts: Vec<WriteRequest> = (0..26)
        .map(|i| {
            WriteRequest::builder()
                .put_request(PutRequest::builder().item("pk", s(&i.to_string())).build().unwrap())
                .build()
        })
        .collect();
    let (code, message) = code_and_message(
        client.batch_write_item().request_items("Shop", puts).send().await.unwrap_err().into_service_error(),
    );
    assert_eq!(code, "ValidationException");
    assert!(
        message.ends_with(
            "at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have \
             length less than or equal to 25, Member must have length greater than or equal to 1]"
        ),
        "{message}"
    );

    let keys: Vec<_> =
        (0..60).map(|i| std::collections::HashMap::from([("pk".to_owned(), s(&i.to_string()))])).collect();
    let half = KeysAndAttributes::builder().set_keys(Some(keys)).build().unwrap();
    let too_many = client
        .batch_get_item()
        .request_items("Shop", half.clone())
        .request_items("Other", half)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(code_and_message(too_many), validation("Too many items requested for the BatchGetItem call"));

    let both = TransactWriteItem::builder()
        .put(Put::builder().table_name("Shop").item("pk", s("a")).build().unwrap())
        .delete(Delete::builder().table_name("Shop").key("pk", s("a")).build().unwrap())
        .build();
    let error = client.transact_write_items().transact_items(both).send().await.unwrap_err().into_service_error();
    assert_eq!(
        code_and_message(error),
        validation("TransactItems can only contain one of Check, Put, Update or Delete")
    );

    let updates: Vec<TransactWriteItem> = (0..101)
        .map(|i| {
            TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name("Shop")
                        .key("pk", s(&i.to_string()))
                        .update_expression("SET n = :n")
                        .expression_attribute_values(":n", AttributeValue::N("1".into()))
                        .build()
                        .unwrap(),
                )
                .build()
        })
        .collect();
    let (code, message) = code_and_message(
        client.transact_write_items().set_transact_items(Some(updates)).send().await.unwrap_err().into_service_error(),
    );
    assert_eq!(code, "ValidationException");
    assert!(message.starts_with("1 validation error detected: Value '[{"), "{message}");
    assert!(
        message.ends_with(
            "at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100"
        ),
        "{message}"
    );
}
