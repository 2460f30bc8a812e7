//! What the integration tests share: a fake with the table `Shop`, lock tables over it, and
//! readers of the request log and of raw items.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::types::AttributeValue;
use dynalease::{LockTable, LockTableOptions, TableRef};
use dynalease_fake::{FakeDynamoDb, RequestRecord};

pub const TABLE: &str = "Shop";
pub const LEASE: Duration = Duration::from_secs(30);

/// A fake with the table `Shop` (keys `pk`, `sk`).
pub fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table(TABLE, "pk", Some("sk"));
    fake
}

pub fn table(client: Client) -> TableRef {
    TableRef::new(client, TABLE, "pk", Some("sk"))
}

/// A lock table of its own client, as a process has.
pub fn locks(fake: &FakeDynamoDb) -> LockTable {
    locks_with(fake, LockTableOptions::default())
}

pub fn locks_with(fake: &FakeDynamoDb, options: LockTableOptions) -> LockTable {
    LockTable::new(table(fake.client()), options).expect("valid options")
}

/// A client that does not retry, so a test sees every attempt of the library itself.
pub fn client_without_retries(fake: &FakeDynamoDb) -> Client {
    let config = fake
        .client()
        .config()
        .to_builder()
        .retry_config(RetryConfig::disabled())
        .build();
    Client::from_conf(config)
}

/// The item of lock `name`, in a map ordered by attribute name.
pub async fn raw_item(fake: &FakeDynamoDb, name: &str) -> Option<BTreeMap<String, AttributeValue>> {
    let item = fake
        .client()
        .get_item()
        .table_name(TABLE)
        .key("pk", AttributeValue::S(format!("LOCK#{name}")))
        .key("sk", AttributeValue::S("LOCK".into()))
        .consistent_read(true)
        .send()
        .await
        .expect("get item")
        .item
        .map(|item| item.into_iter().collect());
    item
}

/// A string attribute of an item.
pub fn s<'a>(item: &'a BTreeMap<String, AttributeValue>, attr: &str) -> Option<&'a str> {
    item.get(attr).and_then(|v| v.as_s().ok()).map(String::as_str)
}

/// A number attribute of an item.
pub fn n(item: &BTreeMap<String, AttributeValue>, attr: &str) -> Option<u64> {
    item.get(attr)
        .and_then(|v| v.as_n().ok())
        .and_then(|v| v.parse().ok())
}

/// The requests since the log was last cleared, as `Operation` or `Operation:ErrorCode`.
pub fn requests(fake: &FakeDynamoDb) -> Vec<String> {
    fake.request_log().iter().map(describe).collect()
}

pub fn describe(record: &RequestRecord) -> String {
    match &record.error {
        Some(code) => format!("{}:{code}", record.operation),
        None => record.operation.clone(),
    }
}

/// The wall times of the requests that match `operation`, relative to `start`.
pub fn times_of(fake: &FakeDynamoDb, operation: &str, start: SystemTime) -> Vec<Duration> {
    fake.request_log()
        .iter()
        .filter(|r| r.operation == operation)
        .map(|r| r.at.duration_since(start).unwrap_or_default())
        .collect()
}

/// Lets spawned tasks (heartbeats, background releases) run, without moving the clock.
pub async fn settle() {
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
}
