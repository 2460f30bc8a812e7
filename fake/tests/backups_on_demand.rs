//! On-demand backups through the SDK: CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
//! RestoreTableFromBackup, their states on the fake's clock, their filters and DynamoDB's errors.

mod support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BackupStatus, BackupType, BackupTypeFilter, BillingMode, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, PointInTimeRecoverySpecification, Projection, ProjectionType, ProvisionedThroughput,
    ScalarAttributeType, StreamSpecification, StreamViewType, TableStatus,
};
use dynalease_fake::{ControlledClock, FakeDynamoDb};
use support::{refused, s};

fn start() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000)
}

fn fake_at_start() -> FakeDynamoDb {
    FakeDynamoDb::builder().clock(Arc::new(ControlledClock::frozen_at(start()))).build()
}

fn key(name: &str, kind: KeyType) -> KeySchemaElement {
    KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap()
}

fn def(name: &str) -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().unwrap()
}

fn index(name: &str, partition_key: &str) -> GlobalSecondaryIndex {
    GlobalSecondaryIndex::builder()
        .index_name(name)
        .key_schema(key(partition_key, KeyType::Hash))
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .build()
        .unwrap()
}

/// `Shop`: on demand, a stream, two global indexes (`byColour`, `bySize`), and two items.
async fn shop(client: &Client) {
    client
        .create_table()
        .table_name("Shop")
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("colour"))
        .attribute_definitions(def("size"))
        .key_schema(key("pk", KeyType::Hash))
        .global_secondary_indexes(index("byColour", "colour"))
        .global_secondary_indexes(index("bySize", "size"))
        .billing_mode(BillingMode::PayPerRequest)
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewImage)
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    for (pk, colour) in [("a", "red"), ("b", "blue")] {
        let put = client.put_item().table_name("Shop").item("pk", s(pk)).item("colour", s(colour)).item("size", s("m"));
        put.send().await.unwrap();
    }
}

async fn backup(client: &Client, name: &str) -> String {
    let made = client.create_backup().table_name("Shop").backup_name(name).send().await.unwrap();
    made.backup_details().unwrap().backup_arn().to_owned()
}

#[tokio::test(start_paused = true)]
async fn a_backup_is_described_listed_and_deleted_and_then_is_not_found() {
    let fake = fake_at_start();
    let client = fake.client();
    shop(&client).await;
    let made = client.create_backup().table_name("Shop").backup_name("nightly").send().await.unwrap();
    let details = made.backup_details().unwrap();
    let arn = details.backup_arn().to_owned();
    assert!(arn.starts_with("arn:aws:dynamodb:us-east-1:000000000000:table/Shop/backup/01800000000000-"), "{arn}");
    assert_eq!((details.backup_status(), details.backup_type()), (&BackupStatus::Available, &BackupType::User));
    assert_eq!(details.backup_creation_date_time().secs(), 1_800_000_000);

    let described = client.describe_backup().backup_arn(&arn).send().await.unwrap();
    let description = described.backup_description().unwrap();
    let source = description.source_table_details().unwrap();
    assert_eq!((source.table_name(), source.item_count()), ("Shop", Some(2)));
    let features = description.source_table_feature_details().unwrap();
    assert_eq!(features.global_secondary_indexes().len(), 2);
    assert_eq!(features.stream_description().unwrap().stream_view_type(), Some(&StreamViewType::NewImage));

    let listed = client.list_backups().table_name("Shop").send().await.unwrap();
    assert_eq!(listed.backup_summaries().iter().map(|b| b.backup_arn().unwrap()).collect::<Vec<_>>(), [arn.as_str()]);

    let deleted = client.delete_backup().backup_arn(&arn).send().await.unwrap();
    let details = deleted.backup_description().unwrap().backup_details().unwrap();
    assert_eq!(details.backup_status(), &BackupStatus::Deleted);
    let error = client.describe_backup().backup_arn(&arn).send().await.unwrap_err().into_service_error();
    assert!(error.is_backup_not_found_exception());
    assert_eq!(error.message(), Some(format!("Backup not found: {arn}").as_str()));
}

#[tokio::test(start_paused = true)]
async fn a_restore_makes_a_new_table_of_the_items_as_they_were_with_its_indexes_and_no_stream() {
    let fake = fake_at_start();
    let client = fake.client();
    shop(&client).await;
    let arn = backup(&client, "before-the-changes").await;
    client.delete_item().table_name("Shop").key("pk", s("a")).send().await.unwrap();
    client.put_item().table_name("Shop").item("pk", s("c")).item("colour", s("red")).send().await.unwrap();

    let restored = client.restore_table_from_backup().target_table_name("Copy").backup_arn(&arn).send().await.unwrap();
    let table = restored.table_description().unwrap();
    assert_eq!(table.table_status(), Some(&TableStatus::Creating));
    let summary = table.restore_summary().unwrap();
    assert_eq!((summary.source_backup_arn(), summary.restore_in_progress()), (Some(arn.as_str()), true));
    assert!(summary.source_table_arn().unwrap().ends_with(":table/Shop"));

    let described = client.describe_table().table_name("Copy").send().await.unwrap();
    let table = described.table().unwrap();
    assert_eq!(table.table_status(), Some(&TableStatus::Active));
    assert!(!table.restore_summary().unwrap().restore_in_progress());
    assert!(table.latest_stream_arn().is_none(), "stream settings are not restored");
    assert_eq!(table.item_count(), Some(2));
    let red = client
        .query()
        .table_name("Copy")
        .index_name("byColour")
        .key_condition_expression("colour = :red")
        .expression_attribute_values(":red", s("red"))
        .send()
        .await
        .unwrap();
    assert_eq!(red.items().iter().map(|item| item["pk"].clone()).collect::<Vec<_>>(), [s("a")]);
}

#[tokio::test(start_paused = true)]
async fn a_restore_takes_overrides_of_billing_throughput_and_indexes() {
    let fake = fake_at_start();
    let client = fake.client();
    shop(&client).await;
    let arn = backup(&client, "overrides").await;
    let units = ProvisionedThroughput::builder().read_capacity_units(4).write_capacity_units(2).build().unwrap();
    let by_colour = index("byColour", "colour");
    client
        .restore_table_from_backup()
        .target_table_name("Provisioned")
        .backup_arn(&arn)
        .billing_mode_override(BillingMode::Provisioned)
        .provisioned_throughput_override(units)
        .global_secondary_index_override(by_colour)
        .send()
        .await
        .unwrap();
    let table = client.describe_table().table_name("Provisioned").send().await.unwrap().table.unwrap();
    let throughput = table.provisioned_throughput().unwrap();
    assert_eq!((throughput.read_capacity_units(), throughput.write_capacity_units()), (Some(4), Some(2)));
    let indexes: Vec<&str> = table.global_secondary_indexes().iter().map(|i| i.index_name().unwrap()).collect();
    assert_eq!(indexes, ["byColour"]);
    let attributes: Vec<&str> = table.attribute_definitions().iter().map(|d| d.attribute_name()).collect();
    assert_eq!(attributes, ["pk", "colour"], "definitions of dropped indexes go with them");

    let error = client
        .restore_table_from_backup()
        .target_table_name("NoThroughput")
        .backup_arn(&arn)
        .billing_mode_override(BillingMode::Provisioned)
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(error.code(), Some("ValidationException"));
    let unknown = client
        .restore_table_from_backup()
        .target_table_name("Unknown")
        .backup_arn(&arn)
        .global_secondary_index_override(index("byWeight", "weight"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(unknown.code(), Some("ValidationException"));
    let names = client.list_tables().send().await.unwrap().table_names().to_vec();
    assert_eq!(names, ["Provisioned", "Shop"], "a refused restore makes no table");
}

#[tokio::test(start_paused = true)]
async fn a_restore_over_an_existing_table_or_from_an_unknown_backup_is_refused() {
    let fake = fake_at_start();
    let client = fake.client();
    shop(&client).await;
    let arn = backup(&client, "one").await;
    let error = client.restore_table_from_backup().target_table_name("Shop").backup_arn(&arn).send().await.unwrap_err();
    let error = error.into_service_error();
    assert!(error.is_table_already_exists_exception());
    assert_eq!(error.message(), Some("Table already exists: Shop"));
    let unknown = format!("{arn}0");
    let error = client.restore_table_from_backup().target_table_name("New").backup_arn(&unknown).send().await;
    assert!(error.unwrap_err().into_service_error().is_backup_not_found_exception());
    let missing = client.create_backup().table_name("Nothing").backup_name("x-backup").send().await.unwrap_err();
    let missing = missing.into_service_error();
    assert!(missing.is_table_not_found_exception());
    assert_eq!(missing.message(), Some("Table not found: Nothing"));
}

#[tokio::test(start_paused = true)]
async fn a_backup_in_creation_cannot_be_deleted_or_restored_until_it_is_available() {
    let clock = Arc::new(ControlledClock::frozen_at(start()));
    let fake = FakeDynamoDb::builder().clock(clock).backup_creation_time(Duration::from_secs(60)).build();
    let client = fake.client();
    shop(&client).await;
    let made = client.create_backup().table_name("Shop").backup_name("slow").send().await.unwrap();
    let details = made.backup_details().unwrap();
    assert_eq!(details.backup_status(), &BackupStatus::Creating);
    let arn = details.backup_arn().to_owned();
    client.put_item().table_name("Shop").item("pk", s("later")).send().await.unwrap();
    let error = client.delete_backup().backup_arn(&arn).send().await.unwrap_err().into_service_error();
    assert!(error.is_backup_in_use_exception(), "{error:?}");
    let error = client.restore_table_from_backup().target_table_name("Copy").backup_arn(&arn).send().await;
    assert!(error.unwrap_err().into_service_error().is_backup_in_use_exception());

    fake.advance_clock(Duration::from_secs(60)).unwrap();
    let described = client.describe_backup().backup_arn(&arn).send().await.unwrap();
    let details = described.backup_description().unwrap().backup_details().unwrap();
    assert_eq!(details.backup_status(), &BackupStatus::Available);
    client.restore_table_from_backup().target_table_name("Copy").backup_arn(&arn).send().await.unwrap();
    let copied = client.describe_table().table_name("Copy").send().await.unwrap();
    assert_eq!(copied.table().unwrap().item_count(), Some(2), "the data of the time it was asked for");
}

#[tokio::test(start_paused = true)]
async fn list_backups_filters_by_table_type_and_time_and_pages_in_the_order_they_were_made() {
    let fake = fake_at_start();
    let client = fake.client();
    shop(&client).await;
    fake.create_table("Other", "id", None);
    let mut arns = Vec::new();
    for name in ["first", "second", "third"] {
        arns.push(backup(&client, name).await);
        fake.advance_clock(Duration::from_secs(10)).unwrap();
    }
    client.create_backup().table_name("Other").backup_name("other").send().await.unwrap();
    let summaries = |page: &aws_sdk_dynamodb::operation::list_backups::ListBackupsOutput| {
        page.backup_summaries().iter().map(|b| b.backup_name().unwrap().to_owned()).collect::<Vec<_>>()
    };

    let all = client.list_backups().send().await.unwrap();
    assert_eq!(summaries(&all), ["first", "second", "third", "other"]);
    let shop = client.list_backups().table_name("Shop").send().await.unwrap();
    assert_eq!(summaries(&shop), ["first", "second", "third"]);
    let middle = client
        .list_backups()
        .time_range_lower_bound(aws_sdk_dynamodb::primitives::DateTime::from_secs(1_800_000_010))
        .time_range_upper_bound(aws_sdk_dynamodb::primitives::DateTime::from_secs(1_800_000_020))
        .send()
        .await
        .unwrap();
    assert_eq!(summaries(&middle), ["second"], "the lower bound is included, the upper one is not");

    let first = client.list_backups().limit(2).send().await.unwrap();
    assert_eq!(summaries(&first), ["first", "second"]);
    assert_eq!(first.last_evaluated_backup_arn(), Some(arns[1].as_str()));
    let rest = client.list_backups().limit(2).exclusive_start_backup_arn(&arns[1]).send().await.unwrap();
    assert_eq!(summaries(&rest), ["third", "other"]);
    assert_eq!(rest.last_evaluated_backup_arn(), None);

    let system = client.list_backups().backup_type(BackupTypeFilter::System).send().await.unwrap();
    assert!(system.backup_summaries().is_empty());
}

#[tokio::test(start_paused = true)]
async fn deleting_a_table_with_point_in_time_recovery_leaves_a_system_backup_for_35_days() {
    let fake = fake_at_start();
    let client = fake.client();
    shop(&client).await;
    let spec = PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(true).build().unwrap();
    client
        .update_continuous_backups()
        .table_name("Shop")
        .point_in_time_recovery_specification(spec)
        .send()
        .await
        .unwrap();
    client.delete_table().table_name("Shop").send().await.unwrap();

    assert!(client.list_backups().send().await.unwrap().backup_summaries().is_empty(), "USER backups by default");
    let system = client.list_backups().backup_type(BackupTypeFilter::System).send().await.unwrap();
    let summary = &system.backup_summaries()[0];
    assert_eq!(summary.backup_name(), Some("Shop$DeletedTableBackup"));
    assert_eq!(summary.backup_type(), Some(&BackupType::System));
    assert_eq!(summary.backup_expiry_date_time().unwrap().secs(), 1_800_000_000 + 35 * 86_400);
    let all = client.list_backups().backup_type(BackupTypeFilter::All).send().await.unwrap();
    assert_eq!(all.backup_summaries().len(), 1);

    let arn = summary.backup_arn().unwrap().to_owned();
    client.restore_table_from_backup().target_table_name("Shop").backup_arn(&arn).send().await.unwrap();
    assert_eq!(client.describe_table().table_name("Shop").send().await.unwrap().table().unwrap().item_count(), Some(2));

    fake.advance_clock(Duration::from_secs(35 * 86_400)).unwrap();
    let system = client.list_backups().backup_type(BackupTypeFilter::System).send().await.unwrap();
    assert!(system.backup_summaries().is_empty(), "expired");
    let error = client.describe_backup().backup_arn(&arn).send().await.unwrap_err();
    assert!(error.into_service_error().is_backup_not_found_exception());
}

#[test]
fn backup_requests_are_checked_against_dynamodbs_constraints() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let (code, message) = refused(&fake, "CreateBackup", serde_json::json!({"TableName": "Shop", "BackupName": "ab"}));
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "1 validation error detected: Value 'ab' at 'backupName' failed to satisfy constraint: Member must have length greater than or equal to 3"
    );
    let (_, message) = refused(&fake, "CreateBackup", serde_json::json!({"TableName": "Shop"}));
    assert_eq!(
        message,
        "1 validation error detected: Value null at 'backupName' failed to satisfy constraint: Member must not be null"
    );
    let (_, message) = refused(&fake, "ListBackups", serde_json::json!({"Limit": 0, "BackupType": "MINE"}));
    assert_eq!(
        message,
        "2 validation errors detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1; Value 'MINE' at 'backupType' failed to satisfy constraint: Member must satisfy enum value set: [USER, SYSTEM, AWS_BACKUP, ALL]"
    );
    let (code, message) = refused(&fake, "ListBackups", serde_json::json!({"TimeRangeLowerBound": "yesterday"}));
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("SerializationException", "STRING_VALUE cannot be converted to Date")
    );
}

#[tokio::test(start_paused = true)]
async fn backups_belong_to_their_account_and_region_and_a_snapshot_keeps_each_with_its_place() {
    let fake = fake_at_start();
    let other = fake.client_for("111122223333", "eu-west-1");
    shop(&other).await;
    let arn = backup(&other, "elsewhere").await;
    assert!(arn.starts_with("arn:aws:dynamodb:eu-west-1:111122223333:table/Shop/backup/"), "{arn}");
    assert!(fake.client().list_backups().send().await.unwrap().backup_summaries().is_empty());
    let error = fake.client().describe_backup().backup_arn(&arn).send().await.unwrap_err();
    assert!(error.into_service_error().is_backup_not_found_exception(), "the default account has no such backup");

    let document = fake.snapshot().to_json();
    let copy = FakeDynamoDb::builder()
        .clock(Arc::new(ControlledClock::frozen_at(start())))
        .snapshot(dynalease_fake::Snapshot::from_json(&document).unwrap())
        .build();
    let listed = copy.client_for("111122223333", "eu-west-1").list_backups().send().await.unwrap();
    assert_eq!(listed.backup_summaries()[0].backup_arn(), Some(arn.as_str()));
}
