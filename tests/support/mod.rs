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

/// A clock whose readings are far from tokio's, as another machine's: its monotonic reading
/// starts at `monotonic_offset`, its wall reading at `wall_start`. It runs at tokio's rate.
#[derive(Debug)]
pub struct OffsetClock {
    inner: dynalease::TokioClock,
    monotonic_offset: Duration,
    wall_start: SystemTime,
}

impl OffsetClock {
    pub fn new(monotonic_offset: Duration, wall_start: SystemTime) -> std::sync::Arc<Self> {
        std::sync::Arc::new(Self {
            inner: dynalease::TokioClock::new(),
            monotonic_offset,
            wall_start,
        })
    }
}

impl dynalease::Clock for OffsetClock {
    fn monotonic(&self) -> Duration {
        self.monotonic_offset + self.inner.monotonic()
    }

    fn wall(&self) -> SystemTime {
        self.wall_start + self.inner.monotonic()
    }

    fn sleep(&self, duration: Duration) -> dynalease::Sleep {
        self.inner.sleep(duration)
    }
}

/// Collects the `event_id` field of the log events emitted while it is the default subscriber.
#[derive(Clone, Debug, Default)]
pub struct EventIds(std::sync::Arc<std::sync::Mutex<Vec<u64>>>);

impl EventIds {
    /// Starts collecting on this thread until the guard is dropped.
    pub fn capture() -> (Self, tracing::subscriber::DefaultGuard) {
        use tracing_subscriber::layer::SubscriberExt;
        let ids = EventIds::default();
        let subscriber = tracing_subscriber::registry().with(ids.clone());
        (ids, tracing::subscriber::set_default(subscriber))
    }

    pub fn seen(&self) -> Vec<u64> {
        self.0.lock().unwrap().clone()
    }
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for EventIds {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Visit(Option<u64>);
        impl tracing::field::Visit for Visit {
            fn record_u64(&mut self, field: &tracing::field::Field, value: u64) {
                if field.name() == "event_id" {
                    self.0 = Some(value);
                }
            }
            fn record_i64(&mut self, field: &tracing::field::Field, value: i64) {
                if field.name() == "event_id" {
                    self.0 = u64::try_from(value).ok();
                }
            }
            fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
        }
        let mut visit = Visit(None);
        event.record(&mut visit);
        if let Some(id) = visit.0 {
            self.0.lock().unwrap().push(id);
        }
    }
}
