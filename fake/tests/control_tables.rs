//! The control plane through the SDK: CreateTable, DescribeTable, ListTables, DeleteTable, and a
//! table's creation time.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    LocalSecondaryIndex, Projection, ProjectionType, ProvisionedThroughput, ScalarAttributeType, TableStatus,
};
use dynalease_fake::FakeDynamoDb;
use std::time::Duration;

fn def(name: &str, kind: ScalarAttributeType) -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name(name).attribute_type(kind).build().unwrap()
}

fn key(name: &str, kind: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap()
}

fn all() -> Projection {
    Projection::builder().projection_type(ProjectionType::All).build()
}

async fn create_orders(client: &Client) {
    client
        .create_table()
        .table_name("Orders")
        .attribute_definitions(def("id", ScalarAttributeType::N))
        .attribute_definitions(def("at", ScalarAttributeType::B))
        .attribute_definitions(def("status", ScalarAttributeType::S))
        .key_schema(key("id", KeyType::Hash))
        .key_schema(key("at", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byStatus")
                .key_schema(key("status", KeyType::Hash))
                .projection(all())
                .build()
                .unwrap(),
        )
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("byStatusLocal")
                .key_schema(key("id", KeyType::Hash))
                .key_schema(key("status", KeyType::Range))
                .projection(Projection::builder().projection_type(ProjectionType::KeysOnly).build())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

#[tokio::test(start_paused = true)]
async fn create_and_describe_a_table_with_number_and_binary_keys_and_indexes() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    create_orders(&client).await;
    let table = client.describe_table().table_name("Orders").send().await.unwrap().table.unwrap();
    assert_eq!(table.table_status(), Some(&TableStatus::Active));
    assert_eq!(table.key_schema().len(), 2);
    assert_eq!(table.key_schema()[1].attribute_name(), "at");
    assert_eq!(table.billing_mode_summary().unwrap().billing_mode(), Some(&BillingMode::PayPerRequest));
    assert_eq!(table.global_secondary_indexes()[0].index_name(), Some("byStatus"));
    assert_eq!(
        table.local_secondary_indexes()[0].projection().unwrap().projection_type(),
        Some(&ProjectionType::KeysOnly)
    );
    assert!(table.table_arn().unwrap().ends_with(":table/Orders"));
}

#[tokio::test(start_paused = true)]
async fn create_table_validates_like_dynamodb() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    create_orders(&client).await;
    let again = client
        .create_table()
        .table_name("Orders")
        .attribute_definitions(def("id", ScalarAttributeType::S))
        .key_schema(key("id", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(again.is_resource_in_use_exception());
    assert_eq!(again.message(), Some("Table already exists: Orders"));

    let undefined = client
        .create_table()
        .table_name("Other")
        .attribute_definitions(def("a", ScalarAttributeType::S))
        .key_schema(key("b", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(undefined.code(), Some("ValidationException"));
    assert_eq!(
        undefined.message(),
        Some(
            "One or more parameter values were invalid: Some index key attributes are not defined in AttributeDefinitions. Keys: [b], AttributeDefinitions: [a]"
        )
    );

    let no_throughput = client
        .create_table()
        .table_name("Other")
        .attribute_definitions(def("a", ScalarAttributeType::S))
        .key_schema(key("a", KeyType::Hash))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(
        no_throughput.message(),
        Some(
            "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
        )
    );

    client
        .create_table()
        .table_name("Provisioned")
        .attribute_definitions(def("a", ScalarAttributeType::S))
        .key_schema(key("a", KeyType::Hash))
        .provisioned_throughput(
            ProvisionedThroughput::builder().read_capacity_units(5).write_capacity_units(7).build().unwrap(),
        )
        .send()
        .await
        .unwrap();
    let table = client.describe_table().table_name("Provisioned").send().await.unwrap().table.unwrap();
    assert_eq!(table.provisioned_throughput().unwrap().write_capacity_units(), Some(7));
}

#[tokio::test(start_paused = true)]
async fn list_tables_pages_in_name_order() {
    let fake = FakeDynamoDb::new();
    for name in ["ccc", "aaa", "bbb", "ddd", "eee"] {
        fake.create_table(name, "pk", None);
    }
    let client = fake.client();
    let first = client.list_tables().limit(2).send().await.unwrap();
    assert_eq!(first.table_names(), ["aaa", "bbb"]);
    assert_eq!(first.last_evaluated_table_name(), Some("bbb"));
    let second = client.list_tables().limit(2).exclusive_start_table_name("bbb").send().await.unwrap();
    assert_eq!(second.table_names(), ["ccc", "ddd"]);
    let last = client.list_tables().limit(2).exclusive_start_table_name("ddd").send().await.unwrap();
    assert_eq!(last.table_names(), ["eee"]);
    assert_eq!(last.last_evaluated_table_name(), None);
    let pages: Vec<_> = client.list_tables().limit(2).into_paginator().items().send().collect::<Vec<_>>().await;
    assert_eq!(pages.len(), 5);
}

#[tokio::test(start_paused = true)]
async fn delete_table_removes_it_and_its_items() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let client = fake.client();
    let out = client.delete_table().table_name("Shop").send().await.unwrap();
    assert_eq!(out.table_description().unwrap().table_status(), Some(&TableStatus::Deleting));
    let err = client.describe_table().table_name("Shop").send().await.unwrap_err().into_service_error();
    assert!(err.is_resource_not_found_exception());
    assert_eq!(err.message(), Some("Requested resource not found: Table: Shop not found"));
    let err = client.delete_table().table_name("Shop").send().await.unwrap_err().into_service_error();
    assert!(err.is_resource_not_found_exception());
}

#[tokio::test(start_paused = true)]
async fn deleting_a_missing_table_names_it_in_the_error() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    let err = client.delete_table().table_name("Ghost").send().await.unwrap_err().into_service_error();
    assert_eq!(err.code(), Some("ResourceNotFoundException"));
    assert_eq!(err.message(), Some("Requested resource not found: Table: Ghost not found"));
}

#[tokio::test(start_paused = true)]
async fn global_indexes_are_creating_with_their_table_then_active() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    let created = client
        .create_table()
        .table_name("Orders")
        .attribute_definitions(def("id", ScalarAttributeType::S))
        .attribute_definitions(def("status", ScalarAttributeType::S))
        .key_schema(key("id", KeyType::Hash))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("byStatus")
                .key_schema(key("status", KeyType::Hash))
                .projection(all())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap()
        .table_description
        .unwrap();
    assert_eq!(created.table_status(), Some(&TableStatus::Creating));
    let status = |t: &aws_sdk_dynamodb::types::TableDescription| {
        t.global_secondary_indexes()[0].index_status().map(|s| s.as_str().to_owned())
    };
    assert_eq!(status(&created).as_deref(), Some("CREATING"));
    let described = client.describe_table().table_name("Orders").send().await.unwrap().table.unwrap();
    assert_eq!(status(&described).as_deref(), Some("ACTIVE"));
}

#[tokio::test(start_paused = true)]
async fn a_table_with_a_creation_time_is_creating_until_it_passes() {
    let fake = FakeDynamoDb::builder().table_creation_time(Duration::from_millis(500)).build();
    let client = fake.client();
    client
        .create_table()
        .table_name("Slow")
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let status = || async {
        client.describe_table().table_name("Slow").send().await.unwrap().table.unwrap().table_status.unwrap()
    };
    assert_eq!(status().await, TableStatus::Creating);
    assert_eq!(client.list_tables().send().await.unwrap().table_names(), ["Slow"]);
    let read = client.get_item().table_name("Slow").key("pk", AttributeValue::S("a".into())).send().await;
    let read = read.unwrap_err().into_service_error();
    assert_eq!(
        (read.code(), read.message()),
        (Some("ResourceNotFoundException"), Some("Requested resource not found"))
    );
    let write = client.put_item().table_name("Slow").item("pk", AttributeValue::S("a".into())).send().await;
    assert!(write.unwrap_err().into_service_error().is_resource_not_found_exception());
    let in_use = "Attempt to change a resource which is still in use: Table is being created: Slow";
    let delete = client.delete_table().table_name("Slow").send().await.unwrap_err().into_service_error();
    assert_eq!((delete.code(), delete.message()), (Some("ResourceInUseException"), Some(in_use)));
    let update = client.update_table().table_name("Slow").deletion_protection_enabled(true).send().await;
    let update = update.unwrap_err().into_service_error();
    assert_eq!((update.code(), update.message()), (Some("ResourceInUseException"), Some(in_use)));

    tokio::time::advance(Duration::from_millis(500)).await;
    assert_eq!(status().await, TableStatus::Active);
    client.put_item().table_name("Slow").item("pk", AttributeValue::S("a".into())).send().await.unwrap();
    client.delete_table().table_name("Slow").send().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn tables_are_active_at_once_by_default_and_from_the_create_table_helper() {
    let fake = FakeDynamoDb::builder().table_creation_time(Duration::from_secs(60)).build();
    fake.create_table("Quick", "pk", None);
    let client = fake.client();
    client.put_item().table_name("Quick").item("pk", AttributeValue::S("a".into())).send().await.unwrap();
    let default = FakeDynamoDb::new();
    let client = default.client();
    client
        .create_table()
        .table_name("Quick")
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    client.put_item().table_name("Quick").item("pk", AttributeValue::S("a".into())).send().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_deleted_tables_description_leaves_out_its_schema_indexes_and_creation_time() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    create_orders(&client).await;
    let deleted = client.delete_table().table_name("Orders").send().await.unwrap().table_description.unwrap();
    assert_eq!(deleted.table_status(), Some(&TableStatus::Deleting));
    assert_eq!(deleted.table_name(), Some("Orders"));
    assert!(deleted.table_arn().is_some_and(|arn| arn.starts_with("arn:")));
    assert!(deleted.table_id().is_some());
    assert_eq!(deleted.global_secondary_indexes, None);
    assert_eq!(deleted.local_secondary_indexes, None);
    assert_eq!(deleted.key_schema, None);
    assert_eq!(deleted.attribute_definitions, None);
    assert_eq!(deleted.creation_date_time, None);
}

#[tokio::test(start_paused = true)]
async fn update_table_checks_throughput_and_index_changes_against_the_table() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    let units = |read, write| {
        ProvisionedThroughput::builder().read_capacity_units(read).write_capacity_units(write).build().unwrap()
    };
    client
        .create_table()
        .table_name("Prov")
        .attribute_definitions(def("pk", ScalarAttributeType::S))
        .key_schema(key("pk", KeyType::Hash))
        .provisioned_throughput(units(10, 5))
        .send()
        .await
        .unwrap();
    fake.create_table("OnDemand", "pk", None);
    let refusal = |table: &'static str, body: serde_json::Value| {
        let mut body = body;
        body["TableName"] = table.into();
        let (status, answer) = fake.handle_json("UpdateTable", body.to_string().as_bytes());
        let answer: serde_json::Value = serde_json::from_slice(&answer).unwrap();
        (
            status,
            answer["__type"].as_str().unwrap_or_default().rsplit('#').next().unwrap().to_owned(),
            answer["message"].as_str().unwrap_or_default().to_owned(),
        )
    };
    let invalid = "One or more parameter values were invalid: ";
    assert_eq!(
        refusal(
            "OnDemand",
            serde_json::json!({"ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}})
        )
        .2,
        format!(
            "{invalid}Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
        )
    );
    assert_eq!(
        refusal("OnDemand", serde_json::json!({"BillingMode": "PROVISIONED"})).2,
        format!("{invalid}ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
    );
    assert_eq!(
        refusal(
            "Prov",
            serde_json::json!({"ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 5}})
        )
        .2,
        "The provisioned throughput for the table will not change. The requested value equals the current value. \
         Current ReadCapacityUnits provisioned for the table: 10. Requested ReadCapacityUnits: 10. \
         Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. \
         Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
    );
    let deletes = serde_json::json!({"GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "abc"}}, {"Delete": {"IndexName": "abd"}}]});
    assert_eq!(
        refusal("Prov", deletes),
        (
            400,
            "LimitExceededException".to_owned(),
            "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
                .to_owned()
        )
    );
    let high = serde_json::json!({"GlobalSecondaryIndexUpdates": [{"Update": {"IndexName": "abc", "ProvisionedThroughput": {"ReadCapacityUnits": 1_000_000_000_001i64, "WriteCapacityUnits": 1}}}]});
    assert_eq!(
        refusal("Prov", high.clone()).2,
        "This operation cannot be performed with given input values. Please contact DynamoDB service team for more info: Action Blocked: IndexUpdate"
    );
    assert_eq!(refusal("Nowhere", high).2, "Requested resource not found: Table: Nowhere not found");
    client.update_table().table_name("Prov").provisioned_throughput(units(30, 15)).send().await.unwrap();
}
