//! CreateTable and UpdateTable settings that DescribeTable gives back (server-side encryption,
//! on-demand maxima, table class), and the index and stream specifications CreateTable refuses.

mod support;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    BillingMode, GlobalSecondaryIndex, KeyType, LocalSecondaryIndex, OnDemandThroughput, Projection, ProjectionType,
    SseSpecification, SseStatus, SseType, StreamSpecification, StreamViewType, TableClass, TableDescription,
};
use dynalease_fake::FakeDynamoDb;
use support::{def, key};

fn create(
    client: &Client,
    name: &str,
) -> aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder {
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(def("pk"))
        .key_schema(key("pk", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
}

async fn describe(client: &Client, name: &str) -> TableDescription {
    client.describe_table().table_name(name).send().await.unwrap().table.unwrap()
}

fn on_demand(read: i64, write: i64) -> OnDemandThroughput {
    OnDemandThroughput::builder().max_read_request_units(read).max_write_request_units(write).build()
}

#[tokio::test]
async fn server_side_encryption_with_the_account_key_is_described_as_kms() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    create(&client, "Sealed")
        .sse_specification(SseSpecification::builder().enabled(true).build())
        .send()
        .await
        .unwrap();
    let sse = describe(&client, "Sealed").await.sse_description.unwrap();
    assert_eq!(sse.status(), Some(&SseStatus::Enabled));
    assert_eq!(sse.sse_type(), Some(&SseType::Kms));
    let key = sse.kms_master_key_arn().unwrap();
    assert!(key.starts_with("arn:aws:kms:us-east-1:000000000000:key/"), "{key}");

    create(&client, "Plain").send().await.unwrap();
    assert!(describe(&client, "Plain").await.sse_description.is_none());
}

#[tokio::test]
async fn on_demand_maxima_are_described_as_created_and_as_updated() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    create(&client, "Capped").on_demand_throughput(on_demand(10, 5)).send().await.unwrap();
    let limits = describe(&client, "Capped").await.on_demand_throughput.unwrap();
    assert_eq!((limits.max_read_request_units(), limits.max_write_request_units()), (Some(10), Some(5)));

    client.update_table().table_name("Capped").on_demand_throughput(on_demand(20, 15)).send().await.unwrap();
    let limits = describe(&client, "Capped").await.on_demand_throughput.unwrap();
    assert_eq!((limits.max_read_request_units(), limits.max_write_request_units()), (Some(20), Some(15)));
}

#[tokio::test]
async fn update_table_changes_the_table_class() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    create(&client, "Cold").send().await.unwrap();
    client.update_table().table_name("Cold").table_class(TableClass::StandardInfrequentAccess).send().await.unwrap();
    let summary = describe(&client, "Cold").await.table_class_summary.unwrap();
    assert_eq!(summary.table_class(), Some(&TableClass::StandardInfrequentAccess));
}

async fn refusal(request: aws_sdk_dynamodb::operation::create_table::builders::CreateTableFluentBuilder) -> String {
    let error = request.send().await.unwrap_err();
    assert_eq!(error.code(), Some("ValidationException"));
    error.message().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn an_include_projection_needs_non_key_attributes_on_either_kind_of_index() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    let include = Projection::builder().projection_type(ProjectionType::Include).build();
    let global = create(&client, "Shop").attribute_definitions(def("g")).global_secondary_indexes(
        GlobalSecondaryIndex::builder()
            .index_name("byG")
            .key_schema(key("g", KeyType::Hash))
            .projection(include.clone())
            .build()
            .unwrap(),
    );
    let expected =
        "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified";
    assert_eq!(refusal(global).await, expected);
    let local = client
        .create_table()
        .table_name("Shop")
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("sk"))
        .attribute_definitions(def("l"))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .billing_mode(BillingMode::PayPerRequest)
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("byL")
                .key_schema(key("pk", KeyType::Hash))
                .key_schema(key("l", KeyType::Range))
                .projection(include)
                .build()
                .unwrap(),
        );
    assert_eq!(refusal(local).await, expected);
    assert!(client.list_tables().send().await.unwrap().table_names().is_empty());
}

#[tokio::test]
async fn a_stream_created_disabled_names_no_view_type() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    let disabled = |view: Option<StreamViewType>| {
        StreamSpecification::builder().stream_enabled(false).set_stream_view_type(view).build().unwrap()
    };
    let refused = create(&client, "Shop").stream_specification(disabled(Some(StreamViewType::NewImage)));
    assert_eq!(
        refusal(refused).await,
        "One or more parameter values were invalid: Table is being created with a stream disabled, \
         UpdateViewType should not be specified"
    );
    create(&client, "Shop").stream_specification(disabled(None)).send().await.unwrap();
    assert!(describe(&client, "Shop").await.stream_specification.is_none());
}
