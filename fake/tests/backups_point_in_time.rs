//! Point-in-time recovery on the fake's clock: DescribeContinuousBackups, UpdateContinuousBackups
//! and RestoreTableToPointInTime to any second of the window, which moves as the clock does.

mod support;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::operation::restore_table_to_point_in_time::RestoreTableToPointInTimeError;
use aws_sdk_dynamodb::primitives::DateTime;
use aws_sdk_dynamodb::types::{
    AttributeValue, BillingMode, ContinuousBackupsStatus, PointInTimeRecoverySpecification, PointInTimeRecoveryStatus,
    SseSpecification, TimeToLiveSpecification,
};
use dynalease_fake::{ControlledClock, FakeDynamoDb, Snapshot};
use support::{refused, s};

const START: u64 = 1_800_000_000;

fn fake_at_start() -> FakeDynamoDb {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(START);
    FakeDynamoDb::builder().clock(Arc::new(ControlledClock::frozen_at(start))).build()
}

async fn enable(client: &Client, table: &str, period_days: Option<i32>) {
    let spec = PointInTimeRecoverySpecification::builder()
        .point_in_time_recovery_enabled(true)
        .set_recovery_period_in_days(period_days)
        .build()
        .unwrap();
    client
        .update_continuous_backups()
        .table_name(table)
        .point_in_time_recovery_specification(spec)
        .send()
        .await
        .unwrap();
}

/// Earliest and latest restorable times, in epoch seconds.
async fn window(client: &Client, table: &str) -> (f64, f64) {
    let described = client.describe_continuous_backups().table_name(table).send().await.unwrap();
    let recovery = described.continuous_backups_description().unwrap().point_in_time_recovery_description().unwrap();
    let seconds = |time: Option<&DateTime>| time.unwrap().as_secs_f64();
    (seconds(recovery.earliest_restorable_date_time()), seconds(recovery.latest_restorable_date_time()))
}

async fn restore_at(client: &Client, target: &str, secs: u64) -> Result<(), RestoreTableToPointInTimeError> {
    client
        .restore_table_to_point_in_time()
        .source_table_name("Shop")
        .target_table_name(target)
        .restore_date_time(DateTime::from_secs(secs as i64))
        .send()
        .await
        .map(drop)
        .map_err(|error| error.into_service_error())
}

/// The `n` of every item of `table`, by key.
async fn contents(client: &Client, table: &str) -> Vec<(String, String)> {
    let scan = client.scan().table_name(table).send().await.unwrap();
    let mut items: Vec<(String, String)> = scan
        .items()
        .iter()
        .map(|item| {
            let text = |value: &AttributeValue| value.as_s().or(value.as_n()).cloned().unwrap_or_default();
            (text(&item["pk"]), item.get("n").map(text).unwrap_or_default())
        })
        .collect();
    items.sort();
    items
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[tokio::test(start_paused = true)]
async fn point_in_time_recovery_is_disabled_until_enabled_and_then_has_a_window_that_lags_five_minutes() {
    let fake = fake_at_start();
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    let described = client.describe_continuous_backups().table_name("Shop").send().await.unwrap();
    let description = described.continuous_backups_description().unwrap();
    assert_eq!(description.continuous_backups_status(), &ContinuousBackupsStatus::Enabled);
    let recovery = description.point_in_time_recovery_description().unwrap();
    assert_eq!(recovery.point_in_time_recovery_status(), Some(&PointInTimeRecoveryStatus::Disabled));
    assert!(recovery.earliest_restorable_date_time().is_none());

    enable(&client, "Shop", None).await;
    let described = client.describe_continuous_backups().table_name("Shop").send().await.unwrap();
    let recovery = described.continuous_backups_description().unwrap().point_in_time_recovery_description().unwrap();
    assert_eq!(recovery.point_in_time_recovery_status(), Some(&PointInTimeRecoveryStatus::Enabled));
    assert_eq!(recovery.recovery_period_in_days(), Some(35));
    assert_eq!(window(&client, "Shop").await, (START as f64, START as f64), "one instant at first");
    fake.advance_clock(Duration::from_secs(3600)).unwrap();
    assert_eq!(window(&client, "Shop").await, (START as f64, (START + 3600 - 300) as f64));

    let missing = client.describe_continuous_backups().table_name("Nothing").send().await.unwrap_err();
    let missing = missing.into_service_error();
    assert!(missing.is_table_not_found_exception());
    assert_eq!(missing.message(), Some("Table not found: Nothing"));
}

#[tokio::test(start_paused = true)]
async fn a_table_is_restored_as_it_was_at_any_second_of_the_window() {
    let fake = fake_at_start();
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    client.put_item().table_name("Shop").item("pk", s("old")).item("n", s("0")).send().await.unwrap();
    enable(&client, "Shop", None).await;
    // START+10: a=1; START+20: a=2, b=1; START+30: old deleted; START+40: b=2.
    let steps: [&[(&str, Option<&str>)]; 4] =
        [&[("a", Some("1"))], &[("a", Some("2")), ("b", Some("1"))], &[("old", None)], &[("b", Some("2"))]];
    for step in steps {
        fake.advance_clock(Duration::from_secs(10)).unwrap();
        for (pk, n) in step {
            match n {
                Some(n) => {
                    drop(client.put_item().table_name("Shop").item("pk", s(pk)).item("n", s(n)).send().await.unwrap())
                }
                None => drop(client.delete_item().table_name("Shop").key("pk", s(pk)).send().await.unwrap()),
            }
        }
    }
    fake.advance_clock(Duration::from_secs(600)).unwrap();

    let expected = [
        (START, pairs(&[("old", "0")])),
        (START + 9, pairs(&[("old", "0")])),
        (START + 10, pairs(&[("a", "1"), ("old", "0")])),
        (START + 25, pairs(&[("a", "2"), ("b", "1"), ("old", "0")])),
        (START + 30, pairs(&[("a", "2"), ("b", "1")])),
        (START + 45, pairs(&[("a", "2"), ("b", "2")])),
    ];
    for (n, (at, items)) in expected.into_iter().enumerate() {
        let target = format!("At{n}");
        restore_at(&client, &target, at).await.unwrap();
        assert_eq!(contents(&client, &target).await, items, "at +{}", at - START);
    }
    let latest = client
        .restore_table_to_point_in_time()
        .source_table_name("Shop")
        .target_table_name("Latest")
        .use_latest_restorable_time(true)
        .send()
        .await
        .unwrap();
    let summary = latest.table_description().unwrap().restore_summary().unwrap();
    assert_eq!(summary.restore_date_time().secs() as u64, START + 40 + 600 - 300);
    assert!(summary.source_table_arn().unwrap().ends_with(":table/Shop"));
    assert_eq!(contents(&client, "Latest").await, pairs(&[("a", "2"), ("b", "2")]));
}

#[tokio::test(start_paused = true)]
async fn a_time_outside_the_window_or_a_table_without_recovery_is_refused() {
    let fake = fake_at_start();
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    let error = restore_at(&client, "Copy", START).await.unwrap_err();
    assert!(error.is_point_in_time_recovery_unavailable_exception());
    assert_eq!(error.message(), Some("Point in time recovery is not enabled for table 'Shop'"));

    enable(&client, "Shop", None).await;
    fake.advance_clock(Duration::from_secs(3600)).unwrap();
    for outside in [START - 1, START + 3600 - 299, START + 3600] {
        let error = restore_at(&client, "Copy", outside).await.unwrap_err();
        assert!(error.is_invalid_restore_time_exception(), "{outside}: {error:?}");
    }
    restore_at(&client, "Copy", START + 3600 - 300).await.unwrap();
    let error = restore_at(&client, "Copy", START + 60).await.unwrap_err();
    assert!(error.is_table_already_exists_exception());
    let names = client.list_tables().send().await.unwrap().table_names().to_vec();
    assert_eq!(names, ["Copy", "Shop"]);
}

#[tokio::test(start_paused = true)]
async fn the_window_slides_with_the_recovery_period_and_starts_again_when_recovery_is_enabled_again() {
    let fake = fake_at_start();
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    enable(&client, "Shop", Some(1)).await;
    client.put_item().table_name("Shop").item("pk", s("a")).send().await.unwrap();
    fake.advance_clock(Duration::from_secs(2 * 86_400)).unwrap();
    let now = START + 2 * 86_400;
    assert_eq!(window(&client, "Shop").await, ((now - 86_400) as f64, (now - 300) as f64));
    assert!(restore_at(&client, "TooOld", now - 86_400 - 1).await.unwrap_err().is_invalid_restore_time_exception());
    restore_at(&client, "DayOld", now - 86_400).await.unwrap();
    assert_eq!(contents(&client, "DayOld").await, pairs(&[("a", "")]));

    let off = PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(false).build().unwrap();
    client
        .update_continuous_backups()
        .table_name("Shop")
        .point_in_time_recovery_specification(off)
        .send()
        .await
        .unwrap();
    enable(&client, "Shop", None).await;
    assert_eq!(window(&client, "Shop").await, (now as f64, now as f64), "the window starts again");
}

#[tokio::test(start_paused = true)]
async fn the_restored_table_has_the_current_definition_with_overrides_and_time_to_live_deletions_count() {
    let fake = fake_at_start();
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    let ttl = TimeToLiveSpecification::builder().enabled(true).attribute_name("expires").build().unwrap();
    client.update_time_to_live().table_name("Shop").time_to_live_specification(ttl).send().await.unwrap();
    enable(&client, "Shop", None).await;
    let expires = AttributeValue::N((START + 60).to_string());
    client.put_item().table_name("Shop").item("pk", s("brief")).item("expires", expires).send().await.unwrap();
    fake.advance_clock(Duration::from_secs(3600)).unwrap();
    assert!(fake.read_item("Shop", &[("pk".to_owned(), s("brief"))].into()).is_none(), "swept");

    let sse = SseSpecification::builder().enabled(true).kms_master_key_id("alias/shop").build();
    client
        .restore_table_to_point_in_time()
        .source_table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Shop")
        .target_table_name("BeforeTheSweep")
        .restore_date_time(DateTime::from_secs((START + 30) as i64))
        .sse_specification_override(sse)
        .billing_mode_override(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let table = client.describe_table().table_name("BeforeTheSweep").send().await.unwrap().table.unwrap();
    assert!(table.sse_description().unwrap().kms_master_key_arn().unwrap().ends_with(":alias/shop"));
    assert_eq!(table.item_count(), Some(1));
    let ttl = client.describe_time_to_live().table_name("BeforeTheSweep").send().await.unwrap();
    assert_eq!(ttl.time_to_live_description().unwrap().time_to_live_status().unwrap().as_str(), "DISABLED");
    let recovery = client.describe_continuous_backups().table_name("BeforeTheSweep").send().await.unwrap();
    let recovery = recovery.continuous_backups_description().unwrap().point_in_time_recovery_description().unwrap();
    assert_eq!(recovery.point_in_time_recovery_status(), Some(&PointInTimeRecoveryStatus::Disabled));
}

#[tokio::test(start_paused = true)]
async fn a_snapshot_keeps_the_change_log_and_the_backups_so_a_restarted_fake_restores_as_before() {
    let fake = fake_at_start();
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    enable(&client, "Shop", None).await;
    fake.advance_clock(Duration::from_secs(10)).unwrap();
    client.put_item().table_name("Shop").item("pk", s("a")).item("n", s("1")).send().await.unwrap();
    client.create_backup().table_name("Shop").backup_name("kept").send().await.unwrap();
    fake.advance_clock(Duration::from_secs(10)).unwrap();
    client.put_item().table_name("Shop").item("pk", s("a")).item("n", s("2")).send().await.unwrap();
    fake.advance_clock(Duration::from_secs(600)).unwrap();

    let document = fake.snapshot().to_json();
    let read = Snapshot::from_json(&document).unwrap();
    let later = SystemTime::UNIX_EPOCH + Duration::from_secs(START + 620);
    let copy = FakeDynamoDb::builder().clock(Arc::new(ControlledClock::frozen_at(later))).snapshot(read).build();
    assert_eq!(copy.snapshot().to_json(), document);
    let copied = copy.client();
    assert_eq!(window(&copied, "Shop").await, (START as f64, (START + 320) as f64));
    restore_at(&copied, "AtTen", START + 15).await.unwrap();
    assert_eq!(contents(&copied, "AtTen").await, pairs(&[("a", "1")]));
    let backups = copied.list_backups().send().await.unwrap();
    let arn = backups.backup_summaries()[0].backup_arn().unwrap();
    copied.restore_table_from_backup().target_table_name("FromBackup").backup_arn(arn).send().await.unwrap();
    assert_eq!(contents(&copied, "FromBackup").await, pairs(&[("a", "1")]));
}

#[test]
fn restore_requests_name_one_source_and_one_time() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    let restore = |extra: serde_json::Value| {
        let mut body = serde_json::json!({"TargetTableName": "Copy"});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        refused(&fake, "RestoreTableToPointInTime", body)
    };
    let (code, _) = restore(serde_json::json!({"UseLatestRestorableTime": true}));
    assert_eq!(code, "ValidationException", "no source");
    let (code, _) = restore(serde_json::json!({"SourceTableName": "Shop"}));
    assert_eq!(code, "ValidationException", "no time");
    let (code, _) =
        restore(serde_json::json!({"SourceTableName": "Shop", "UseLatestRestorableTime": true, "RestoreDateTime": 1}));
    assert_eq!(code, "ValidationException", "two times");
    let (code, message) = restore(serde_json::json!({"SourceTableName": "Nothing", "UseLatestRestorableTime": true}));
    assert_eq!((code.as_str(), message.as_str()), ("TableNotFoundException", "Table not found: Nothing"));
    let (_, message) = refused(
        &fake,
        "UpdateContinuousBackups",
        serde_json::json!({"TableName": "Shop", "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 36}}),
    );
    assert_eq!(
        message,
        "1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35"
    );
}

#[tokio::test(start_paused = true)]
async fn a_restore_can_drop_local_indexes_and_set_on_demand_limits() {
    use aws_sdk_dynamodb::types::{
        AttributeDefinition, KeySchemaElement, KeyType, LocalSecondaryIndex, OnDemandThroughput, Projection,
        ProjectionType, ScalarAttributeType,
    };
    let fake = fake_at_start();
    let client = fake.client();
    let def = |name: &str| {
        AttributeDefinition::builder().attribute_name(name).attribute_type(ScalarAttributeType::S).build().unwrap()
    };
    let key = |name: &str, kind| KeySchemaElement::builder().attribute_name(name).key_type(kind).build().unwrap();
    client
        .create_table()
        .table_name("Shop")
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("sk"))
        .attribute_definitions(def("colour"))
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .local_secondary_indexes(
            LocalSecondaryIndex::builder()
                .index_name("byColour")
                .key_schema(key("pk", KeyType::Hash))
                .key_schema(key("colour", KeyType::Range))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    enable(&client, "Shop", None).await;
    client
        .restore_table_to_point_in_time()
        .source_table_name("Shop")
        .target_table_name("NoLocalIndex")
        .use_latest_restorable_time(true)
        .set_local_secondary_index_override(Some(Vec::new()))
        .on_demand_throughput_override(OnDemandThroughput::builder().max_read_request_units(50).build())
        .send()
        .await
        .unwrap();
    let table = client.describe_table().table_name("NoLocalIndex").send().await.unwrap().table.unwrap();
    assert!(table.local_secondary_indexes().is_empty());
    let names: Vec<&str> = table.attribute_definitions().iter().map(|d| d.attribute_name()).collect();
    assert_eq!(names, ["pk", "sk"]);
    assert_eq!(table.on_demand_throughput().unwrap().max_read_request_units(), Some(50));
}

#[tokio::test(start_paused = true)]
async fn recovery_and_backups_are_unavailable_while_a_table_is_being_created() {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(START);
    let fake = FakeDynamoDb::builder()
        .clock(Arc::new(ControlledClock::frozen_at(start)))
        .table_creation_time(Duration::from_secs(30))
        .build();
    let client = fake.client();
    client
        .create_table()
        .table_name("Fresh")
        .attribute_definitions(
            aws_sdk_dynamodb::types::AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(aws_sdk_dynamodb::types::ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(
            aws_sdk_dynamodb::types::KeySchemaElement::builder()
                .attribute_name("pk")
                .key_type(aws_sdk_dynamodb::types::KeyType::Hash)
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let on = PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(true).build().unwrap();
    let update = client.update_continuous_backups().table_name("Fresh").point_in_time_recovery_specification(on);
    let error = update.clone().send().await.unwrap_err().into_service_error();
    assert!(error.is_continuous_backups_unavailable_exception(), "{error:?}");
    let error = client.create_backup().table_name("Fresh").backup_name("early").send().await.unwrap_err();
    assert!(error.into_service_error().is_continuous_backups_unavailable_exception());
    fake.advance_clock(Duration::from_secs(30)).unwrap();
    update.send().await.unwrap();
}
