//! Exports to S3 and imports from it, in-process, against an S3 in memory: DynamoDB's layout of
//! an export (full and incremental), imports of DynamoDB JSON and CSV, plain or gzipped, their
//! states on the fake's clock, and how they fail.

mod support;

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::primitives::DateTime;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CsvOptions, ExportFormat, ExportStatus, ExportType, ExportViewType, ImportStatus,
    IncrementalExportSpecification, InputCompressionType, InputFormat, InputFormatOptions, KeySchemaElement, KeyType,
    PointInTimeRecoverySpecification, S3BucketSource, ScalarAttributeType, TableCreationParameters, TableStatus,
};
use dynalease_fake::{ControlledClock, FakeDynamoDb, S3Config};
use serde_json::{Value as Json, json};
use support::s;
use support::s3::MemoryS3;

const START: u64 = 1_800_000_000;

fn fake_with(s3: &MemoryS3, transfer_time: Duration) -> FakeDynamoDb {
    let start = SystemTime::UNIX_EPOCH + Duration::from_secs(START);
    FakeDynamoDb::builder()
        .clock(Arc::new(ControlledClock::frozen_at(start)))
        .s3(S3Config::with_client("memory", s3.client()))
        .transfer_time(transfer_time)
        .build()
}

async fn enable_recovery(client: &Client, table: &str) {
    let on = PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(true).build().unwrap();
    client.update_continuous_backups().table_name(table).point_in_time_recovery_specification(on).send().await.unwrap();
}

/// Lets the work on S3 run (it needs no time, only turns of the runtime).
async fn settle() {
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
}

async fn export_status(client: &Client, arn: &str) -> aws_sdk_dynamodb::types::ExportDescription {
    client.describe_export().export_arn(arn).send().await.unwrap().export_description.unwrap()
}

fn gunzip(bytes: &[u8]) -> String {
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes).read_to_string(&mut text).unwrap();
    text
}

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes()).unwrap();
    encoder.finish().unwrap()
}

fn lines(text: &str) -> Vec<Json> {
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[tokio::test(start_paused = true)]
async fn a_full_export_writes_dynamodbs_layout_and_completes() {
    let s3 = MemoryS3::default();
    s3.create_bucket("exports");
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    enable_recovery(&client, "Shop").await;
    for pk in ["a", "b"] {
        client.put_item().table_name("Shop").item("pk", s(pk)).item("n", s("1")).send().await.unwrap();
    }
    let table_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/Shop";
    let started = client
        .export_table_to_point_in_time()
        .table_arn(table_arn)
        .s3_bucket("exports")
        .s3_prefix("daily")
        .export_format(ExportFormat::DynamodbJson)
        .send()
        .await
        .unwrap()
        .export_description
        .unwrap();
    assert_eq!(started.export_status(), Some(&ExportStatus::InProgress));
    let arn = started.export_arn().unwrap().to_owned();
    assert!(arn.starts_with(&format!("{table_arn}/export/01800000000000-")), "{arn}");
    settle().await;

    let done = export_status(&client, &arn).await;
    assert_eq!(done.export_status(), Some(&ExportStatus::Completed));
    assert_eq!((done.item_count(), done.export_type()), (Some(2), Some(&ExportType::FullExport)));
    let id = arn.rsplit('/').next().unwrap();
    let folder = format!("daily/AWSDynamoDB/{id}/");
    assert_eq!(done.export_manifest(), Some(format!("{folder}manifest-summary.json").as_str()));
    let keys = s3.keys("exports");
    for name in ["_started", "manifest-files.json", "manifest-files.checksum", "manifest-summary.json"] {
        assert!(keys.contains(&format!("{folder}{name}")), "{name} in {keys:?}");
    }
    let summary: Json =
        serde_json::from_slice(&s3.get("exports", &format!("{folder}manifest-summary.json")).unwrap()).unwrap();
    assert_eq!((summary["exportArn"].as_str(), summary["itemCount"].as_u64()), (Some(arn.as_str()), Some(2)));
    assert_eq!(summary["outputFormat"], "DYNAMODB_JSON");
    let files = lines(&String::from_utf8(s3.get("exports", &format!("{folder}manifest-files.json")).unwrap()).unwrap());
    let data_key = files[0]["dataFileS3Key"].as_str().unwrap();
    assert!(data_key.starts_with(&format!("{folder}data/")) && data_key.ends_with(".json.gz"));
    let mut items = lines(&gunzip(&s3.get("exports", data_key).unwrap()));
    items.sort_by_key(|line| line["Item"]["pk"]["S"].as_str().unwrap().to_owned());
    assert_eq!(items[0], json!({"Item": {"pk": {"S": "a"}, "n": {"S": "1"}}}));

    let listed = client.list_exports().table_arn(table_arn).send().await.unwrap();
    assert_eq!(listed.export_summaries()[0].export_arn(), Some(arn.as_str()));
}

#[tokio::test(start_paused = true)]
async fn an_export_at_a_past_time_holds_the_table_as_it_was_then() {
    let s3 = MemoryS3::default();
    s3.create_bucket("exports");
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    enable_recovery(&client, "Shop").await;
    client.put_item().table_name("Shop").item("pk", s("early")).send().await.unwrap();
    fake.advance_clock(Duration::from_secs(60)).unwrap();
    client.delete_item().table_name("Shop").key("pk", s("early")).send().await.unwrap();
    client.put_item().table_name("Shop").item("pk", s("late")).send().await.unwrap();
    fake.advance_clock(Duration::from_secs(600)).unwrap();
    let export = client
        .export_table_to_point_in_time()
        .table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Shop")
        .s3_bucket("exports")
        .export_time(DateTime::from_secs((START + 30) as i64))
        .send()
        .await
        .unwrap();
    settle().await;
    let arn = export.export_description().unwrap().export_arn().unwrap();
    assert_eq!(export_status(&client, arn).await.item_count(), Some(1));
    let data = s3.keys("exports").into_iter().find(|key| key.ends_with(".json.gz")).unwrap();
    assert_eq!(lines(&gunzip(&s3.get("exports", &data).unwrap())), [json!({"Item": {"pk": {"S": "early"}}})]);
}

#[tokio::test(start_paused = true)]
async fn an_incremental_export_holds_the_changes_of_its_period_with_their_images() {
    let s3 = MemoryS3::default();
    s3.create_bucket("exports");
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    enable_recovery(&client, "Shop").await;
    client.put_item().table_name("Shop").item("pk", s("kept")).item("n", s("1")).send().await.unwrap();
    client.put_item().table_name("Shop").item("pk", s("gone")).send().await.unwrap();
    fake.advance_clock(Duration::from_secs(60)).unwrap();
    // The period: from START+60 to START+60+20 minutes.
    client.put_item().table_name("Shop").item("pk", s("kept")).item("n", s("2")).send().await.unwrap();
    client.delete_item().table_name("Shop").key("pk", s("gone")).send().await.unwrap();
    client.put_item().table_name("Shop").item("pk", s("new")).send().await.unwrap();
    fake.advance_clock(Duration::from_secs(3600)).unwrap();
    client.put_item().table_name("Shop").item("pk", s("after")).send().await.unwrap();
    let spec = IncrementalExportSpecification::builder()
        .export_from_time(DateTime::from_secs((START + 60) as i64))
        .export_to_time(DateTime::from_secs((START + 60 + 1200) as i64))
        .export_view_type(ExportViewType::NewAndOldImages)
        .build();
    let export = client
        .export_table_to_point_in_time()
        .table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Shop")
        .s3_bucket("exports")
        .export_type(ExportType::IncrementalExport)
        .incremental_export_specification(spec)
        .send()
        .await
        .unwrap();
    settle().await;
    let arn = export.export_description().unwrap().export_arn().unwrap();
    let done = export_status(&client, arn).await;
    assert_eq!((done.export_status(), done.item_count()), (Some(&ExportStatus::Completed), Some(3)));
    let data = s3.keys("exports").into_iter().find(|key| key.ends_with(".json.gz")).unwrap();
    let mut changes = lines(&gunzip(&s3.get("exports", &data).unwrap()));
    changes.sort_by_key(|line| line["Keys"]["pk"]["S"].as_str().unwrap().to_owned());
    let micros = ((START + 60) * 1_000_000).to_string();
    assert_eq!(
        changes,
        [
            json!({"Metadata": {"WriteTimestampMicros": {"N": micros}}, "Keys": {"pk": {"S": "gone"}},
                   "OldImage": {"pk": {"S": "gone"}}}),
            json!({"Metadata": {"WriteTimestampMicros": {"N": micros}}, "Keys": {"pk": {"S": "kept"}},
                   "OldImage": {"pk": {"S": "kept"}, "n": {"S": "1"}}, "NewImage": {"pk": {"S": "kept"}, "n": {"S": "2"}}}),
            json!({"Metadata": {"WriteTimestampMicros": {"N": micros}}, "Keys": {"pk": {"S": "new"}},
                   "NewImage": {"pk": {"S": "new"}}}),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn an_export_is_refused_without_recovery_without_s3_out_of_the_window_or_as_ion() {
    let s3 = MemoryS3::default();
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/Shop";
    let export = || client.export_table_to_point_in_time().table_arn(arn).s3_bucket("exports");
    let error = export().send().await.unwrap_err().into_service_error();
    assert!(error.is_point_in_time_recovery_unavailable_exception());
    assert_eq!(error.message(), Some("Point in time recovery is not enabled for table 'Shop'"));
    let missing = format!("{arn}-missing");
    let error = client.export_table_to_point_in_time().table_arn(&missing).s3_bucket("b1").send().await.unwrap_err();
    let error = error.into_service_error();
    assert!(error.is_table_not_found_exception());
    assert_eq!(error.message(), Some(format!("Table not found: {missing}").as_str()));

    enable_recovery(&client, "Shop").await;
    let error = export().export_format(ExportFormat::Ion).send().await.unwrap_err().into_service_error();
    assert!(error.message().unwrap().contains("ION"), "{error:?}");
    let error = export().export_time(DateTime::from_secs((START - 60) as i64)).send().await.unwrap_err();
    assert!(error.into_service_error().is_invalid_export_time_exception());

    let without = FakeDynamoDb::new();
    without.create_table("Shop", "pk", None);
    let plain = without.client();
    enable_recovery(&plain, "Shop").await;
    let error = plain.export_table_to_point_in_time().table_arn(arn).s3_bucket("b1").send().await.unwrap_err();
    let error = error.into_service_error();
    assert_eq!(error.code(), Some("ValidationException"));
    assert!(error.message().unwrap().contains("--s3-endpoint"), "{error:?}");
}

#[tokio::test(start_paused = true)]
async fn an_export_to_a_bucket_that_does_not_exist_fails_with_s3s_words() {
    let s3 = MemoryS3::default();
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    enable_recovery(&client, "Shop").await;
    let export = client
        .export_table_to_point_in_time()
        .table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Shop")
        .s3_bucket("nowhere")
        .send()
        .await
        .unwrap();
    settle().await;
    let done = export_status(&client, export.export_description().unwrap().export_arn().unwrap()).await;
    assert_eq!(done.export_status(), Some(&ExportStatus::Failed));
    assert_eq!(done.failure_code(), Some("S3NoSuchBucket"));
    assert!(done.failure_message().unwrap().contains("The specified bucket does not exist"));
}

#[tokio::test(start_paused = true)]
async fn an_export_stays_in_progress_for_the_transfer_time_of_the_fakes_clock() {
    let s3 = MemoryS3::default();
    s3.create_bucket("exports");
    let fake = fake_with(&s3, Duration::from_secs(300));
    let client = fake.client();
    fake.create_table("Shop", "pk", None);
    enable_recovery(&client, "Shop").await;
    let export = client
        .export_table_to_point_in_time()
        .table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Shop")
        .s3_bucket("exports")
        .send()
        .await
        .unwrap();
    let arn = export.export_description().unwrap().export_arn().unwrap().to_owned();
    settle().await;
    assert_eq!(export_status(&client, &arn).await.export_status(), Some(&ExportStatus::InProgress));
    assert!(!s3.keys("exports").is_empty(), "the objects are written meanwhile");
    fake.advance_clock(Duration::from_secs(300)).unwrap();
    let done = export_status(&client, &arn).await;
    assert_eq!(done.export_status(), Some(&ExportStatus::Completed));
    assert_eq!(done.end_time().unwrap().secs() as u64, START + 300);
}

fn parameters(name: &str) -> TableCreationParameters {
    TableCreationParameters::builder()
        .table_name(name)
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("pk").attribute_type(ScalarAttributeType::S).build().unwrap(),
        )
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("n").attribute_type(ScalarAttributeType::N).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap())
        .key_schema(KeySchemaElement::builder().attribute_name("n").key_type(KeyType::Range).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .build()
        .unwrap()
}

async fn import(
    client: &Client,
    bucket: &str,
    prefix: Option<&str>,
    table: &str,
    format: InputFormat,
    compression: InputCompressionType,
) -> String {
    let source =
        S3BucketSource::builder().s3_bucket(bucket).set_s3_key_prefix(prefix.map(str::to_owned)).build().unwrap();
    let started = client
        .import_table()
        .s3_bucket_source(source)
        .input_format(format)
        .input_compression_type(compression)
        .table_creation_parameters(parameters(table))
        .send()
        .await
        .unwrap()
        .import_table_description
        .unwrap();
    assert_eq!(started.import_status(), Some(&ImportStatus::InProgress));
    started.import_arn().unwrap().to_owned()
}

async fn import_status(client: &Client, arn: &str) -> aws_sdk_dynamodb::types::ImportTableDescription {
    client.describe_import().import_arn(arn).send().await.unwrap().import_table_description.unwrap()
}

#[tokio::test(start_paused = true)]
async fn an_import_of_dynamodb_json_files_under_a_prefix_fills_a_new_table() {
    let s3 = MemoryS3::default();
    s3.create_bucket("source");
    s3.put(
        "source",
        "in/one.json",
        br#"{"Item": {"pk": {"S": "a"}, "n": {"N": "1"}}}
{"Item": {"pk": {"S": "a"}, "n": {"N": "2"}}}{"Item": {"pk": {"S": "b"}, "n": {"N": "1"}}}"#,
    );
    s3.put("source", "in/two.json.gz", &gzip(r#"{"Item": {"pk": {"S": "c"}, "n": {"N": "1"}}}"#));
    s3.put("source", "elsewhere.json", br#"{"Item": {"pk": {"S": "x"}, "n": {"N": "1"}}}"#);
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();

    let arn =
        import(&client, "source", Some("in/one"), "Plain", InputFormat::DynamodbJson, InputCompressionType::None).await;
    assert!(arn.starts_with("arn:aws:dynamodb:us-east-1:000000000000:table/Plain/import/"), "{arn}");
    settle().await;
    let done = import_status(&client, &arn).await;
    assert_eq!(done.import_status(), Some(&ImportStatus::Completed));
    assert_eq!((done.processed_item_count(), done.imported_item_count(), done.error_count()), (3, 3, 0));
    assert!(done.processed_size_bytes().unwrap() > 0);
    let table = client.describe_table().table_name("Plain").send().await.unwrap().table.unwrap();
    assert_eq!((table.table_status(), table.item_count()), (Some(&TableStatus::Active), Some(3)));

    let arn =
        import(&client, "source", Some("in/two"), "Zipped", InputFormat::DynamodbJson, InputCompressionType::Gzip)
            .await;
    settle().await;
    assert_eq!(import_status(&client, &arn).await.imported_item_count(), 1);
    let listed = client.list_imports().send().await.unwrap();
    assert_eq!(listed.import_summary_list().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_import_of_csv_types_its_keys_and_reads_a_header_list_or_the_first_line() {
    let s3 = MemoryS3::default();
    s3.create_bucket("source");
    s3.put("source", "csv/with-header.csv", b"pk;n;note\na;1;x\nb;2;\"semi;colon\"\n");
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    let source = S3BucketSource::builder().s3_bucket("source").s3_key_prefix("csv/").build().unwrap();
    let csv = CsvOptions::builder().delimiter(";").build();
    let started = client
        .import_table()
        .s3_bucket_source(source)
        .input_format(InputFormat::Csv)
        .input_format_options(InputFormatOptions::builder().csv(csv).build())
        .table_creation_parameters(parameters("FromCsv"))
        .send()
        .await
        .unwrap();
    settle().await;
    let arn = started.import_table_description().unwrap().import_arn().unwrap();
    assert_eq!(import_status(&client, arn).await.imported_item_count(), 2);
    let item = client
        .get_item()
        .table_name("FromCsv")
        .key("pk", s("b"))
        .key("n", aws_sdk_dynamodb::types::AttributeValue::N("2".into()))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(item["note"], s("semi;colon"));
}

#[tokio::test(start_paused = true)]
async fn an_import_with_a_bad_record_fails_but_keeps_the_good_ones_and_one_without_a_bucket_leaves_no_table() {
    let s3 = MemoryS3::default();
    s3.create_bucket("source");
    s3.put("source", "good.json", br#"{"Item": {"pk": {"S": "a"}, "n": {"N": "1"}}}"#);
    s3.put("source", "bad.json", br#"{"pk": {"S": "b"}, "n": {"N": "1"}}"#);
    s3.put("source", "wrong-key.json", br#"{"Item": {"pk": {"S": "c"}, "n": {"S": "one"}}}"#);
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    let arn = import(&client, "source", None, "Partial", InputFormat::DynamodbJson, InputCompressionType::None).await;
    settle().await;
    let done = import_status(&client, &arn).await;
    assert_eq!(done.import_status(), Some(&ImportStatus::Failed));
    assert_eq!((done.processed_item_count(), done.imported_item_count(), done.error_count()), (3, 1, 2));
    assert_eq!(done.failure_code(), Some("ItemValidationError"));
    let table = client.describe_table().table_name("Partial").send().await.unwrap().table.unwrap();
    assert_eq!(table.item_count(), Some(1));

    let arn = import(&client, "nowhere", None, "Nothing", InputFormat::DynamodbJson, InputCompressionType::None).await;
    let during = client.describe_table().table_name("Nothing").send().await.unwrap();
    assert_eq!(during.table().unwrap().table_status(), Some(&TableStatus::Creating));
    settle().await;
    let done = import_status(&client, &arn).await;
    assert_eq!((done.import_status(), done.failure_code()), (Some(&ImportStatus::Failed), Some("S3NoSuchBucket")));
    assert!(done.failure_message().unwrap().contains("The specified bucket does not exist"));
    assert!(done.table_arn().unwrap().ends_with(":table/Nothing"));
    let tables = client.list_tables().send().await.unwrap().table_names().to_vec();
    assert_eq!(tables, ["Partial"], "no table is left of an import that could not read its source");
}

#[tokio::test(start_paused = true)]
async fn an_export_imports_back_into_the_same_items() {
    let s3 = MemoryS3::default();
    s3.create_bucket("round");
    let fake = fake_with(&s3, Duration::ZERO);
    let client = fake.client();
    client
        .create_table()
        .set_attribute_definitions(parameters("Shop").attribute_definitions().to_vec().into())
        .set_key_schema(parameters("Shop").key_schema().to_vec().into())
        .billing_mode(BillingMode::PayPerRequest)
        .table_name("Shop")
        .send()
        .await
        .unwrap();
    enable_recovery(&client, "Shop").await;
    for n in 1..=5 {
        let number = aws_sdk_dynamodb::types::AttributeValue::N(n.to_string());
        client
            .put_item()
            .table_name("Shop")
            .item("pk", s("p"))
            .item("n", number)
            .item("b", s("x"))
            .send()
            .await
            .unwrap();
    }
    let export = client
        .export_table_to_point_in_time()
        .table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/Shop")
        .s3_bucket("round")
        .send()
        .await
        .unwrap();
    settle().await;
    let id = export.export_description().unwrap().export_arn().unwrap().rsplit('/').next().unwrap().to_owned();
    let prefix = format!("AWSDynamoDB/{id}/data/");
    let arn =
        import(&client, "round", Some(&prefix), "Copy", InputFormat::DynamodbJson, InputCompressionType::Gzip).await;
    settle().await;
    assert_eq!(import_status(&client, &arn).await.imported_item_count(), 5);
    let original = client.scan().table_name("Shop").send().await.unwrap();
    let copy = client.scan().table_name("Copy").send().await.unwrap();
    assert_eq!(original.items(), copy.items());
}

#[test]
fn import_requests_meet_create_tables_rules_and_name_a_table_not_yet_taken() {
    let fake = FakeDynamoDb::builder().s3_endpoint("http://127.0.0.1:9").build();
    fake.create_table("Taken", "pk", None);
    let request = |table: &str, billing: &str| {
        json!({
            "S3BucketSource": {"S3Bucket": "source"},
            "InputFormat": "DYNAMODB_JSON",
            "TableCreationParameters": {
                "TableName": table,
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "BillingMode": billing
            }
        })
    };
    let (code, message) = support::refused(&fake, "ImportTable", request("New", "PROVISIONED"));
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
    );
    let (code, _) = support::refused(&fake, "ImportTable", request("Taken", "PAY_PER_REQUEST"));
    assert_eq!(code, "ResourceInUseException");
    let (_, message) = support::refused(
        &fake,
        "ImportTable",
        json!({"S3BucketSource": {"S3Bucket": "-bad-"}, "InputFormat": "XML", "TableCreationParameters": {"TableName": "T1"}}),
    );
    assert!(message.starts_with("5 validation errors detected: "), "{message}");
    assert!(
        message.contains(
            "'s3BucketSource.s3Bucket' failed to satisfy constraint: Member must satisfy regular expression pattern"
        ),
        "{message}"
    );
    assert!(
        message.contains("'tableCreationParameters.keySchema' failed to satisfy constraint: Member must not be null"),
        "{message}"
    );
}
