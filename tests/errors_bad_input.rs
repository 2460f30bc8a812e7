//! Rule 9: bad input and foreign data, each a clear, typed error.

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use dynalease::{Error, InvalidOption, LockTable, LockTableOptions, TableMismatch, TableRef};
use support::{LEASE, fake, locks, raw_item, requests, s};

async fn put_entity(fake: &dynalease_fake::FakeDynamoDb, attributes: &[(&str, &str)]) {
    let mut put = fake
        .client()
        .put_item()
        .table_name("Shop")
        .item("pk", AttributeValue::S("LOCK#widget".into()))
        .item("sk", AttributeValue::S("LOCK".into()));
    for (name, value) in attributes {
        put = put.item(*name, AttributeValue::S((*value).into()));
    }
    put.send().await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn a_lease_outside_one_second_to_one_day_is_refused_before_any_request() {
    let fake = fake();
    let locks = locks(&fake);

    for lease in [Duration::ZERO, Duration::from_millis(999), LockTable::MAX_LEASE + Duration::from_millis(1)] {
        let err = locks.try_acquire("job", lease).await.unwrap_err();
        assert!(matches!(err, Error::InvalidLeaseDuration { lease: l, .. } if l == lease));
        let err = locks.acquire("job", lease).await.unwrap_err();
        assert!(matches!(err, Error::InvalidLeaseDuration { .. }));
    }
    assert!(requests(&fake).is_empty());

    assert_eq!(LockTable::MIN_LEASE, Duration::from_secs(1));
    assert_eq!(LockTable::MAX_LEASE, Duration::from_secs(86_400));
    assert!(locks.try_acquire("short", LockTable::MIN_LEASE).await.unwrap().is_some());
    assert!(locks.try_acquire("long", LockTable::MAX_LEASE).await.unwrap().is_some());
}

#[tokio::test(start_paused = true)]
async fn an_empty_lock_name_is_refused() {
    let fake = fake();
    let locks = locks(&fake);

    let err = locks.try_acquire("", LEASE).await.unwrap_err();

    assert!(matches!(err, Error::InvalidLockName { .. }), "{err:?}");
    assert!(requests(&fake).is_empty());
}

#[tokio::test(start_paused = true)]
async fn an_item_with_an_owner_but_not_the_lock_attributes_is_an_error_naming_lock_and_table() {
    let fake = fake();
    put_entity(&fake, &[("owner", "alice"), ("name", "Widget")]).await;
    let locks = locks(&fake);

    let err = locks.try_acquire("widget", LEASE).await.unwrap_err();
    let Error::NotALock { lock, table, .. } = &err else {
        panic!("expected NotALock, got {err:?}");
    };
    assert_eq!((lock.as_str(), table.as_str()), ("widget", "Shop"));
    let message = err.to_string();
    assert!(message.contains("\"widget\"") && message.contains("\"Shop\""), "{message}");

    assert!(matches!(locks.acquire("widget", LEASE).await, Err(Error::NotALock { .. })));
    let item = raw_item(&fake, "widget").await.unwrap();
    assert_eq!(s(&item, "owner"), Some("alice"), "the entity is left as it was");
    assert_eq!(item.len(), 4);
}

#[tokio::test(start_paused = true)]
async fn an_entity_at_the_key_of_a_lock_is_never_turned_into_a_lock() {
    let fake = fake();
    put_entity(&fake, &[("name", "Widget")]).await;
    let locks = locks(&fake);

    assert!(matches!(locks.try_acquire("widget", LEASE).await, Err(Error::NotALock { .. })));

    let item = raw_item(&fake, "widget").await.unwrap();
    assert_eq!(item.len(), 3, "pk, sk, name: {item:?}");
}

#[tokio::test(start_paused = true)]
async fn a_lease_whose_item_was_replaced_by_an_entity_is_taken_over() {
    let fake = fake();
    let locks = locks(&fake);
    let lease = locks.acquire("widget", LEASE).await.unwrap();
    put_entity(&fake, &[("_type", "ORDER"), ("name", "Widget")]).await;

    assert!(!lease.renew().await.unwrap(), "the item is not this lease's any more");
    assert_eq!(lease.loss_reason(), Some(dynalease::LossReason::TakenOver));
    assert!(lease.ended().is_cancelled());
    let item = raw_item(&fake, "widget").await.unwrap();
    assert_eq!(item.len(), 4, "the entity, left alone: {item:?}");
}

#[tokio::test(start_paused = true)]
async fn a_lock_item_whose_attributes_went_bad_is_an_error_when_read() {
    let fake = fake();
    let locks = locks(&fake);
    let other = support::locks(&fake);
    let _lease = locks.acquire("job", LEASE).await.unwrap();
    assert!(other.try_acquire("job", LEASE).await.unwrap().is_none());
    fake.client()
        .update_item()
        .table_name("Shop")
        .key("pk", AttributeValue::S("LOCK#job".into()))
        .key("sk", AttributeValue::S("LOCK".into()))
        .update_expression("REMOVE leaseMs")
        .send()
        .await
        .unwrap();

    let err = other.try_acquire("job", LEASE).await.unwrap_err();

    assert!(err.to_string().contains("leaseMs"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_missing_table_is_table_not_found() {
    let fake = fake();
    let locks = LockTable::new(
        TableRef::builder(fake.client(), "Nowhere").partition_key("pk").sort_key("sk").build().unwrap(),
        LockTableOptions::default(),
    )
    .unwrap();

    let err = locks.acquire("job", LEASE).await.unwrap_err();

    assert!(matches!(&err, Error::TableNotFound { table, .. } if table == "Nowhere"), "{err:?}");
    assert!(!err.is_transient());
}

#[tokio::test(start_paused = true)]
async fn a_table_whose_keys_are_not_strings_is_a_table_mismatch_naming_the_key() {
    let fake = dynalease_fake::FakeDynamoDb::new();
    fake.client()
        .create_table()
        .table_name("Numbers")
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("id").attribute_type(ScalarAttributeType::N).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("id").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let locks = LockTable::new(
        TableRef::builder(fake.client(), "Numbers").partition_key("id").build().unwrap(),
        LockTableOptions::default(),
    )
    .unwrap();

    let err = locks.try_acquire("job", LEASE).await.unwrap_err();

    let Error::TableMismatch { table, mismatch, .. } = &err else { panic!("{err:?}") };
    assert_eq!(table, "Numbers");
    assert_eq!(mismatch, &TableMismatch::KeyNotString { key: "id".into(), found: "N".into() });
    assert!(err.to_string().contains("not a string"), "{err}");
}

#[tokio::test(start_paused = true)]
async fn a_table_ref_with_a_sort_key_the_table_lacks_is_a_table_mismatch() {
    let fake = dynalease_fake::FakeDynamoDb::new();
    fake.create_table("Locks", "id", None);
    let locks = LockTable::new(
        TableRef::builder(fake.client(), "Locks").partition_key("id").sort_key("sk").build().unwrap(),
        LockTableOptions::default(),
    )
    .unwrap();

    let err = locks.try_acquire("job", LEASE).await.unwrap_err();

    let expected = TableMismatch::SortKey { expected: Some("sk".into()), found: None };
    assert!(matches!(&err, Error::TableMismatch { mismatch, .. } if *mismatch == expected), "{err:?}");
}

#[test]
fn a_table_ref_without_names_is_refused() {
    let fake = fake();
    let cases = [
        ("", "pk", None, InvalidOption::EmptyTableName),
        ("Shop", "", None, InvalidOption::EmptyPartitionKey),
        ("Shop", "pk", Some(""), InvalidOption::EmptySortKey),
        ("Shop", "pk", Some("pk"), InvalidOption::SortKeyIsPartitionKey),
    ];
    for (table, pk, sk, expected) in cases {
        let mut builder = TableRef::builder(fake.client(), table).partition_key(pk);
        if let Some(sk) = sk {
            builder = builder.sort_key(sk);
        }
        let err = builder.build().unwrap_err();
        assert!(
            matches!(&err, Error::InvalidOptions { reason, .. } if *reason == expected),
            "{table:?} {pk:?} {sk:?}: {err:?}"
        );
    }
    let without_partition_key = TableRef::builder(fake.client(), "Shop").sort_key("sk").build();
    assert!(matches!(without_partition_key, Err(Error::InvalidOptions { reason: InvalidOption::NoPartitionKey, .. })));
}

#[tokio::test(start_paused = true)]
async fn a_throttled_acquire_is_a_transient_dynamodb_error() {
    let fake = fake();
    let locks = locks(&fake);
    fake.inject(dynalease_fake::FaultRule::new(dynalease_fake::Fault::Throttle).operation("UpdateItem"));

    let err = locks.try_acquire("job", LEASE).await.unwrap_err();

    assert!(err.is_transient(), "{err:?}");
    assert!(
        matches!(&err, Error::DynamoDb { operation: "UpdateItem", code: Some(code), .. } if code == "ProvisionedThroughputExceededException")
    );
    assert!(std::error::Error::source(&err).is_some());
}
