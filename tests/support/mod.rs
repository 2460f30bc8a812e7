//! What the integration tests share: a fake with the table `Shop`, lock tables over it, and
//! readers of the request log and of raw items; the stores that one contract runs against
//! (`stores`), and the PostgreSQL test cluster (`pg_cluster`, `pg_wire`).
#![allow(dead_code)]

#[cfg(feature = "postgres")]
pub mod pg_cluster;
#[cfg(feature = "postgres")]
pub mod pg_wire;
pub mod stores;
pub mod telemetry;

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
    TableRef::builder(client, TABLE).partition_key("pk").sort_key("sk").build().unwrap()
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
    let config = fake.client().config().to_builder().retry_config(RetryConfig::disabled()).build();
    Client::from_conf(config)
}

/// The item of lock `name`, in a map ordered by attribute name.
pub async fn raw_item(fake: &FakeDynamoDb, name: &str) -> Option<BTreeMap<String, AttributeValue>> {
    fake.client()
        .get_item()
        .table_name(TABLE)
        .key("pk", AttributeValue::S(format!("LOCK#{name}")))
        .key("sk", AttributeValue::S("LOCK".into()))
        .consistent_read(true)
        .send()
        .await
        .expect("get item")
        .item
        .map(|item| item.into_iter().collect())
}

/// A string attribute of an item.
pub fn s<'a>(item: &'a BTreeMap<String, AttributeValue>, attr: &str) -> Option<&'a str> {
    item.get(attr).and_then(|v| v.as_s().ok()).map(String::as_str)
}

/// A number attribute of an item.
pub fn n(item: &BTreeMap<String, AttributeValue>, attr: &str) -> Option<u64> {
    item.get(attr).and_then(|v| v.as_n().ok()).and_then(|v| v.parse().ok())
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
        std::sync::Arc::new(Self { inner: dynalease::TokioClock::new(), monotonic_offset, wall_start })
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

/// The event ids of the library's log events, per lock, from the global collector of the
/// test binary ([`telemetry::Telemetry`]).
#[derive(Clone, Debug)]
pub struct EventIds(telemetry::Telemetry);

impl EventIds {
    /// The collector of this test binary, installed on first use.
    pub fn global() -> Self {
        EventIds(telemetry::Telemetry::global())
    }

    /// The event ids logged for `lock`, in order.
    pub fn of(&self, lock: &str) -> Vec<u64> {
        self.0.event_ids(lock)
    }
}

/// Lets `duration` of virtual time pass, through the library's default clock (tokio's).
pub async fn advance(duration: Duration) {
    use dynalease::Clock;
    dynalease::TokioClock::new().sleep(duration).await;
}

/// Measures virtual time elapsed, on the library's default clock (tokio's).
#[derive(Debug)]
pub struct Stopwatch {
    clock: dynalease::TokioClock,
    start: Duration,
}

impl Stopwatch {
    pub fn start() -> Self {
        use dynalease::Clock;
        let clock = dynalease::TokioClock::new();
        let start = clock.monotonic();
        Self { clock, start }
    }

    pub fn elapsed(&self) -> Duration {
        use dynalease::Clock;
        self.clock.monotonic() - self.start
    }
}

/// A clock that a test can pause, as a process that its host suspended: while paused, its
/// monotonic reading stands still and its sleeps do not end. It runs at tokio's rate otherwise.
/// Clones share one clock.
#[derive(Clone, Debug)]
pub struct PausableClock(std::sync::Arc<PausableState>);

#[derive(Debug)]
pub struct PausableState {
    inner: dynalease::TokioClock,
    /// Since when it is paused, on tokio's clock, and how long it was paused before.
    state: std::sync::Mutex<(Option<Duration>, Duration)>,
    resumed: tokio::sync::watch::Sender<u64>,
}

impl PausableClock {
    pub fn new() -> Self {
        PausableClock(std::sync::Arc::new(PausableState {
            inner: dynalease::TokioClock::new(),
            state: std::sync::Mutex::new((None, Duration::ZERO)),
            resumed: tokio::sync::watch::Sender::new(0),
        }))
    }

    /// Freezes the clock.
    pub fn pause(&self) {
        use dynalease::Clock;
        let now = self.0.inner.monotonic();
        self.0.state.lock().unwrap().0.get_or_insert(now);
    }

    /// Lets the clock run again, from where it stood.
    pub fn resume(&self) {
        use dynalease::Clock;
        let now = self.0.inner.monotonic();
        {
            let mut state = self.0.state.lock().unwrap();
            if let Some(since) = state.0.take() {
                state.1 += now - since;
            }
        }
        self.0.resumed.send_modify(|n| *n += 1);
    }

    fn reading(&self) -> (Duration, bool) {
        use dynalease::Clock;
        let state = self.0.state.lock().unwrap();
        match state.0 {
            Some(since) => (since - state.1, true),
            None => (self.0.inner.monotonic() - state.1, false),
        }
    }
}

impl dynalease::Clock for PausableClock {
    fn monotonic(&self) -> Duration {
        self.reading().0
    }

    fn wall(&self) -> SystemTime {
        self.0.inner.wall()
    }

    fn sleep(&self, duration: Duration) -> dynalease::Sleep {
        let clock = self.clone();
        Box::pin(async move {
            let deadline = clock.monotonic() + duration;
            let mut resumed = clock.0.resumed.subscribe();
            loop {
                let (now, paused) = clock.reading();
                if !paused && now >= deadline {
                    return;
                }
                if paused {
                    let _ = resumed.changed().await;
                } else {
                    // A pause may come meanwhile: look again when the sleep would have ended.
                    clock.0.inner.sleep(deadline - now).await;
                }
            }
        })
    }
}
