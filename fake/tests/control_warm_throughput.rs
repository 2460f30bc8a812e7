//! Warm throughput through the SDK: where tables and global indexes start, raising it at creation
//! and later, the refusal to lower it, and how it follows the highest provisioned throughput.

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeySchemaElement, KeyType,
    Projection, ProjectionType, ProvisionedThroughput, ScalarAttributeType, TableDescription,
    UpdateGlobalSecondaryIndexAction, WarmThroughput,
};
use dynalease_fake::FakeDynamoDb;

fn warm(read: Option<i64>, write: Option<i64>) -> WarmThroughput {
    WarmThroughput::builder().set_read_units_per_second(read).set_write_units_per_second(write).build()
}

fn hash(name: &str) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(KeyType::Hash).build().unwrap()
}

fn string_attribute(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().unwrap()
}

fn throughput(read: i64, write: i64) -> ProvisionedThroughput {
    ProvisionedThroughput::builder().read_capacity_units(read).write_capacity_units(write).build().unwrap()
}

/// An on-demand table `name` keyed by `p`, with a global index `byG` keyed by `g`.
async fn on_demand(client: &Client, name: &str, warm: Option<WarmThroughput>) -> TableDescription {
    let index = GlobalSecondaryIndex::builder()
        .index_name("byG")
        .key_schema(hash("g"))
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .build()
        .unwrap();
    client
        .create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(hash("p"))
        .attribute_definitions(string_attribute("p"))
        .attribute_definitions(string_attribute("g"))
        .global_secondary_indexes(index)
        .set_warm_throughput(warm)
        .send()
        .await
        .unwrap()
        .table_description
        .unwrap()
}

/// Creates a provisioned table `name` keyed by `p`, with `read` and `write` units and, if given,
/// a warm throughput.
async fn provisioned(
    client: &Client,
    name: &str,
    (read, write): (i64, i64),
    warm: Option<WarmThroughput>,
) -> Result<TableDescription, aws_sdk_dynamodb::Error> {
    let created = client
        .create_table()
        .table_name(name)
        .key_schema(hash("p"))
        .attribute_definitions(string_attribute("p"))
        .provisioned_throughput(throughput(read, write))
        .set_warm_throughput(warm)
        .send()
        .await?;
    Ok(created.table_description.unwrap())
}

/// Read units, write units and status of a table's warm throughput, as DescribeTable tells.
async fn described(client: &Client, name: &str) -> (i64, i64, String) {
    let table = client.describe_table().table_name(name).send().await.unwrap().table.unwrap();
    let warm = table.warm_throughput.unwrap();
    (warm.read_units_per_second.unwrap(), warm.write_units_per_second.unwrap(), warm.status.unwrap().to_string())
}

async fn index_warm(client: &Client, name: &str) -> (i64, i64) {
    let table = client.describe_table().table_name(name).send().await.unwrap().table.unwrap();
    let warm = table.global_secondary_indexes.unwrap()[0].warm_throughput.clone().unwrap();
    (warm.read_units_per_second.unwrap(), warm.write_units_per_second.unwrap())
}

#[tokio::test]
async fn tables_and_global_indexes_start_warm_and_creation_may_raise_it() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    on_demand(&client, "Plain", None).await;
    assert_eq!(described(&client, "Plain").await, (12_000, 4_000, "ACTIVE".into()));
    assert_eq!(index_warm(&client, "Plain").await, (12_000, 4_000));

    // The answer to CreateTable shows the raise under way; the table has it once described.
    let created = on_demand(&client, "Warm", Some(warm(Some(12_240), Some(4_080)))).await;
    let answered = created.warm_throughput.unwrap();
    assert_eq!((answered.read_units_per_second, answered.status.unwrap().as_str()), (Some(12_240), "UPDATING"));
    assert_eq!(described(&client, "Warm").await, (12_240, 4_080, "ACTIVE".into()));
    // Less than an on-demand table starts with is refused (DynamoDB's message goes on with a link).
    let below = client
        .create_table()
        .table_name("Cold")
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(hash("p"))
        .attribute_definitions(string_attribute("p"))
        .warm_throughput(warm(Some(12_000), Some(3_999)))
        .send()
        .await
        .unwrap_err();
    assert!(
        below.message().unwrap_or_default().starts_with(
            "One or more parameter values were invalid: Requested WriteUnitsPerSecond for WarmThroughput for table is \
             lower than initial throughput for OnDemand"
        ),
        "{below:?}"
    );
    // A unit left out keeps where tables start.
    on_demand(&client, "Half", Some(warm(None, Some(4_080)))).await;
    assert_eq!(described(&client, "Half").await, (12_000, 4_080, "ACTIVE".into()));

    let start = provisioned(&client, "Provisioned", (5, 7), None).await.unwrap().warm_throughput.unwrap();
    assert_eq!((start.read_units_per_second, start.write_units_per_second), (Some(5), Some(7)));
    let below = provisioned(&client, "Below", (5, 7), Some(warm(Some(4), Some(10)))).await.unwrap_err();
    assert_eq!(
        below.message(),
        Some(
            "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is \
             lower than ReadCapacityUnits of ProvisionedThroughput"
        )
    );
}

#[tokio::test]
async fn warm_throughput_is_raised_but_never_lowered() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    on_demand(&client, "Shop", None).await;
    // UpdateTable with nothing but WarmThroughput is a whole request.
    let answer =
        client.update_table().table_name("Shop").warm_throughput(warm(Some(12_001), None)).send().await.unwrap();
    let answered = answer.table_description.unwrap().warm_throughput.unwrap();
    assert_eq!(answered.status.unwrap().as_str(), "UPDATING");
    assert_eq!(described(&client, "Shop").await, (12_001, 4_000, "ACTIVE".into()));
    // The same value again changes nothing and is no mistake.
    let again = client.update_table().table_name("Shop").warm_throughput(warm(Some(12_001), Some(4_000))).send().await;
    assert_eq!(again.unwrap().table_description.unwrap().warm_throughput.unwrap().status.unwrap().as_str(), "ACTIVE");

    let lower = client.update_table().table_name("Shop").warm_throughput(warm(Some(12_000), None)).send().await;
    let lower = lower.unwrap_err();
    assert_eq!(lower.code(), Some("ValidationException"));
    assert_eq!(
        lower.message(),
        Some(
            "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for table is \
             lower than current WarmThroughput, decreasing WarmThroughput is not supported"
        )
    );

    let index = |read: i64| {
        GlobalSecondaryIndexUpdate::builder()
            .update(
                UpdateGlobalSecondaryIndexAction::builder()
                    .index_name("byG")
                    .warm_throughput(warm(Some(read), None))
                    .build()
                    .unwrap(),
            )
            .build()
    };
    let answer =
        client.update_table().table_name("Shop").global_secondary_index_updates(index(13_000)).send().await.unwrap();
    // The answer shows the index as it was, raising; DescribeTable then shows it raised.
    let answered = answer.table_description.unwrap().global_secondary_indexes.unwrap()[0].warm_throughput.clone();
    let answered = answered.unwrap();
    assert_eq!((answered.read_units_per_second, answered.status.unwrap().as_str()), (Some(12_000), "UPDATING"));
    assert_eq!(index_warm(&client, "Shop").await, (13_000, 4_000));
    let lower = client.update_table().table_name("Shop").global_secondary_index_updates(index(12_500)).send().await;
    assert_eq!(
        lower.unwrap_err().message(),
        Some(
            "One or more parameter values were invalid: Requested ReadUnitsPerSecond for WarmThroughput for index byG \
             is lower than current WarmThroughput, decreasing WarmThroughput is not supported"
        )
    );
}

#[tokio::test]
async fn warm_throughput_follows_the_highest_throughput_the_table_had() {
    let fake = FakeDynamoDb::new();
    let client = fake.client();
    provisioned(&client, "Counters", (5, 5), None).await.unwrap();
    let provision = |read: i64, write: i64| {
        client.update_table().table_name("Counters").provisioned_throughput(throughput(read, write)).send()
    };
    provision(50, 20).await.unwrap();
    assert_eq!(described(&client, "Counters").await, (50, 20, "ACTIVE".into()));
    provision(10, 10).await.unwrap();
    assert_eq!(described(&client, "Counters").await, (50, 20, "ACTIVE".into()), "lowering throughput keeps the peak");
    client.update_table().table_name("Counters").billing_mode(BillingMode::PayPerRequest).send().await.unwrap();
    assert_eq!(described(&client, "Counters").await, (12_000, 4_000, "ACTIVE".into()));
}
