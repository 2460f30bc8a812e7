//! Checking a table before use: `LockTable::check_table` verifies that a DynamoDB table exists,
//! that its keys are the ones given and strings, and that time to live is enabled on the
//! attribute of the options; the SQL stores check their table's columns the same way; each
//! mismatch is a typed `TableMismatch`.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, TimeToLiveSpecification,
};
use dynalease::{Error, LockTable, LockTableOptions, TableMismatch, TableRef};
use dynalease_fake::FakeDynamoDb;
use support::{LEASE, requests};

/// The mismatch of `err`; panics for any other error.
fn mismatch(err: &Error) -> &TableMismatch {
    match err {
        Error::TableMismatch { mismatch, .. } => mismatch,
        other => panic!("expected TableMismatch, got {other:?}"),
    }
}

fn locks_on(fake: &FakeDynamoDb, table: &str, pk: &str, sk: Option<&str>, options: LockTableOptions) -> LockTable {
    let mut builder = TableRef::builder(fake.client(), table).partition_key(pk);
    if let Some(sk) = sk {
        builder = builder.sort_key(sk);
    }
    LockTable::new(builder.build().expect("names"), options).expect("valid options")
}

/// Creates `table` with a partition key `id` of type `kind` and no sort key.
async fn create_with_key(fake: &FakeDynamoDb, table: &str, kind: ScalarAttributeType) {
    fake.client()
        .create_table()
        .table_name(table)
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("id").attribute_type(kind).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("id").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

async fn enable_time_to_live(fake: &FakeDynamoDb, attribute: &str) {
    let specification = TimeToLiveSpecification::builder().attribute_name(attribute).enabled(true).build().unwrap();
    fake.client()
        .update_time_to_live()
        .table_name("Shop")
        .time_to_live_specification(specification)
        .send()
        .await
        .unwrap();
}

const EXPIRY: (&str, Duration) = ("expiresAt", Duration::from_secs(7 * 24 * 3600));

#[tokio::test(start_paused = true)]
async fn a_table_that_fits_passes_with_one_description() {
    let fake = support::fake();
    fake.clear_request_log();

    support::locks(&fake).check_table().await.unwrap();

    assert_eq!(requests(&fake), ["DescribeTable"]);
}

#[tokio::test(start_paused = true)]
async fn a_table_that_does_not_exist_is_table_not_found() {
    let fake = FakeDynamoDb::new();
    let err = locks_on(&fake, "Shop", "pk", Some("sk"), LockTableOptions::default()).check_table().await.unwrap_err();
    assert!(matches!(&err, Error::TableNotFound { table, .. } if table == "Shop"), "{err:?}");
    assert!(!err.is_transient());
}

#[tokio::test(start_paused = true)]
async fn another_partition_key_is_named_with_the_one_the_table_has() {
    let fake = support::fake();
    let err = locks_on(&fake, "Shop", "id", Some("sk"), LockTableOptions::default()).check_table().await.unwrap_err();

    assert_eq!(mismatch(&err), &TableMismatch::PartitionKey { expected: "id".into(), found: Some("pk".into()) });
    assert!(matches!(&err, Error::TableMismatch { table, .. } if table == "Shop"));
    assert_eq!(err.to_string(), r#"table "Shop" does not fit the locks: its partition key is "pk", not "id""#);
    assert!(!err.is_transient());
}

#[tokio::test(start_paused = true)]
async fn a_sort_key_more_less_or_other_is_named() {
    let fake = support::fake();
    fake.create_table("Locks", "pk", None);
    let cases = [("Shop", Some("range"), Some("sk")), ("Shop", None, Some("sk")), ("Locks", Some("sk"), None)];
    for (table, given, has) in cases {
        let err = locks_on(&fake, table, "pk", given, LockTableOptions::default()).check_table().await.unwrap_err();
        assert_eq!(
            mismatch(&err),
            &TableMismatch::SortKey { expected: given.map(str::to_owned), found: has.map(str::to_owned) },
            "{table} {given:?}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_key_that_is_a_number_or_binary_is_named_with_its_type() {
    let fake = FakeDynamoDb::new();
    create_with_key(&fake, "Numbers", ScalarAttributeType::N).await;
    create_with_key(&fake, "Blobs", ScalarAttributeType::B).await;

    for (table, kind) in [("Numbers", "N"), ("Blobs", "B")] {
        let locks = locks_on(&fake, table, "id", None, LockTableOptions::default());
        let err = locks.check_table().await.unwrap_err();
        assert_eq!(mismatch(&err), &TableMismatch::KeyNotString { key: "id".into(), found: kind.into() });
        // The first acquire says the same, without the check.
        let err = locks.try_acquire("job", LEASE).await.unwrap_err();
        assert_eq!(mismatch(&err), &TableMismatch::KeyNotString { key: "id".into(), found: kind.into() });
    }
}

#[tokio::test(start_paused = true)]
async fn with_the_expiry_option_time_to_live_must_be_enabled_on_its_attribute() {
    let fake = support::fake();
    let options = || LockTableOptions::default().time_to_live(EXPIRY.0, EXPIRY.1);
    let locks = locks_on(&fake, "Shop", "pk", Some("sk"), options());

    let err = locks.check_table().await.unwrap_err();
    assert_eq!(mismatch(&err), &TableMismatch::TimeToLiveDisabled { attribute: EXPIRY.0.into(), enabled_on: None });

    enable_time_to_live(&fake, "ttl").await;
    let err = locks.check_table().await.unwrap_err();
    assert_eq!(
        mismatch(&err),
        &TableMismatch::TimeToLiveDisabled { attribute: EXPIRY.0.into(), enabled_on: Some("ttl".into()) }
    );
}

#[tokio::test(start_paused = true)]
async fn time_to_live_enabled_on_the_attribute_of_the_options_passes() {
    let fake = support::fake();
    enable_time_to_live(&fake, EXPIRY.0).await;
    fake.clear_request_log();

    locks_on(&fake, "Shop", "pk", Some("sk"), LockTableOptions::default().time_to_live(EXPIRY.0, EXPIRY.1))
        .check_table()
        .await
        .unwrap();

    assert_eq!(requests(&fake), ["DescribeTable", "DescribeTimeToLive"]);
}

#[tokio::test(start_paused = true)]
async fn without_the_expiry_option_the_time_to_live_of_the_table_is_its_own() {
    let fake = support::fake();
    enable_time_to_live(&fake, "ttl").await;
    support::locks(&fake).check_table().await.unwrap();
}

sql_store_contract! {
    async fn the_check_creates_a_missing_sql_table_as_first_use_does(store) {
        let locks = store.locks();
        locks.check_table().await.unwrap();
        assert_eq!(store.column("job", "name").await, None, "created, and empty");
        assert!(locks.try_acquire("job", LEASE).await.unwrap().is_some());
    }

    async fn the_check_names_a_missing_column(store) {
        store.execute(&format!("CREATE TABLE \"{}\" (name TEXT PRIMARY KEY, owner TEXT)", store.table())).await;
        let err = store.locks().check_table().await.unwrap_err();
        assert_eq!(mismatch(&err), &TableMismatch::MissingColumn { column: "rvn" });
    }

    async fn the_check_names_a_name_column_that_holds_numbers(store) {
        store.execute(&format!(
            "CREATE TABLE \"{}\" (name BIGINT PRIMARY KEY, owner TEXT, rvn TEXT, fence BIGINT, lease_ms BIGINT, holder TEXT, expires_at BIGINT)",
            store.table()
        )).await;
        let err = store.locks().check_table().await.unwrap_err();
        assert!(matches!(mismatch(&err), TableMismatch::ColumnType { column: "name", expected: "text", .. }), "{err:?}");
    }

    async fn the_check_names_another_primary_key_and_a_required_column(store) {
        store.execute(&format!(
            "CREATE TABLE \"{}\" (name TEXT PRIMARY KEY, owner TEXT, rvn TEXT, fence BIGINT, lease_ms BIGINT, holder TEXT, expires_at BIGINT, tenant TEXT NOT NULL)",
            store.table()
        )).await;
        let err = store.locks().check_table().await.unwrap_err();
        assert_eq!(mismatch(&err), &TableMismatch::RequiredColumn { column: "tenant".into() });
    }

    async fn a_table_changed_after_first_use_is_checked_again(store) {
        let locks = store.locks();
        locks.check_table().await.unwrap();
        store.drop_table().await;
        store.execute(&format!("CREATE TABLE \"{}\" (id TEXT PRIMARY KEY, name TEXT)", store.table())).await;

        let err = locks.check_table().await.unwrap_err();
        assert!(matches!(mismatch(&err), TableMismatch::MissingColumn { column: "owner" }), "{err:?}");
    }
}
