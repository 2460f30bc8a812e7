//! `FakeDynamoDb`: the engine behind a lock, with its clock, request log, faults and TTL sweeps.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::types::AttributeValue;

use crate::accounts::{Accounts, EngineSettings};
use crate::clock::{FakeClock, TokioClock};
use crate::connector::{FakeHttpClient, client_config};
use crate::engine::table_of;
use crate::error::DynamoError;
use crate::faults::{Drawn, Fault, FaultRule, FaultSet, SplitMix};
use crate::log::{Entry, RequestRecord};
use crate::operation::{Operation, Service};
use crate::place::{DEFAULT_ACCOUNT, Place, PlaceFilter, is_account_id, is_region};
use crate::request_id::RequestId;
use crate::signature::Signature;
use crate::stream::{ItemChange, Observer};
use crate::validate::parse_body;

/// An in-memory DynamoDB. Cheap to clone: clones share the same tables, log and faults.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let client = fake.client();
/// client.put_item().table_name("Shop")
///     .item("pk", AttributeValue::S("order#1".into()))
///     .item("sk", AttributeValue::S("v1".into()))
///     .send().await.unwrap();
/// assert_eq!(fake.request_log().len(), 1);
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct FakeDynamoDb {
    pub(crate) shared: Arc<Shared>,
}

#[derive(Debug)]
pub(crate) struct Shared {
    /// Every account, with an engine per region, and their time-to-live sweeps.
    accounts: Mutex<Accounts>,
    pub(crate) clock: Arc<dyn FakeClock>,
    log: Mutex<std::collections::VecDeque<Entry>>,
    log_limit: Option<usize>,
    faults: Mutex<FaultSet>,
    request_ids: Mutex<SplitMix>,
    pub(crate) seed: u64,
    clients: AtomicU64,
    /// The S3 that exports write to and imports read from, if one was given.
    pub(crate) s3: Option<crate::transfer::S3Target>,
    /// The runtime the fake was built on, where the work of exports and imports runs when a
    /// request comes from a thread of no runtime (the server's workers).
    pub(crate) runtime: Option<tokio::runtime::Handle>,
    /// Whether any account has a clock of its own (then a request reads its account's time).
    pub(crate) own_clocks: AtomicBool,
}

/// Builds a [`FakeDynamoDb`] with a chosen start time, seed, clock or sweep interval.
#[derive(Debug, Default)]
pub struct FakeDynamoDbBuilder {
    start_time: Option<SystemTime>,
    seed: u64,
    clock: Option<Arc<dyn FakeClock>>,
    ttl_sweep_interval: Option<Duration>,
    request_log_limit: Option<usize>,
    item_on_condition_failure: Option<bool>,
    table_creation_time: Option<Duration>,
    stream_status_change_time: Option<Duration>,
    backup_creation_time: Option<Duration>,
    transfer_time: Option<Duration>,
    s3: Option<crate::S3Config>,
    replication_lag: Option<Duration>,
    snapshot: Option<crate::Snapshot>,
}

impl FakeDynamoDbBuilder {
    /// The wall-clock time the fake starts at (default: the real time at creation).
    pub fn start_time(mut self, start: SystemTime) -> Self {
        self.start_time = Some(start);
        self
    }

    /// The seed of every random choice of the fake: fault probabilities, request ids, table ids.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// A clock of your own instead of one that follows tokio's clock.
    pub fn clock(mut self, clock: Arc<dyn FakeClock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// How often time-to-live sweeps run on the fake's clock (default 10 minutes; zero: only
    /// when [`FakeDynamoDb::sweep_ttl`] is called).
    pub fn ttl_sweep_interval(mut self, interval: Duration) -> Self {
        self.ttl_sweep_interval = Some(interval);
        self
    }

    /// How long a table created with CreateTable stays CREATING, as in DynamoDB (default: zero,
    /// active at once). Until then DescribeTable says CREATING, reads and writes of it are
    /// answered ResourceNotFoundException, and DeleteTable or UpdateTable
    /// ResourceInUseException. [`FakeDynamoDb::create_table`] makes active tables whatever this
    /// says.
    pub fn table_creation_time(mut self, time: Duration) -> Self {
        self.table_creation_time = Some(time);
        self
    }

    /// How long a stream stays ENABLING after it is enabled, and DISABLING after it is disabled,
    /// as DynamoDB Streams' `StreamStatus` shows it (default: zero, ENABLED and DISABLED at once).
    /// A stream records every change from the moment it is enabled, whatever its status says.
    pub fn stream_status_change_time(mut self, time: Duration) -> Self {
        self.stream_status_change_time = Some(time);
        self
    }

    /// How long a backup made with CreateBackup stays CREATING (default: zero, AVAILABLE at once).
    /// Until then it cannot be deleted or restored (BackupInUseException); its data is the table's
    /// at the time it was asked for, whatever happens meanwhile.
    pub fn backup_creation_time(mut self, time: Duration) -> Self {
        self.backup_creation_time = Some(time);
        self
    }

    /// The S3-compatible endpoint that ExportTableToPointInTime writes to and ImportTable reads
    /// from, such as a moto server or MinIO on a loopback port (`http://127.0.0.1:5000`); see
    /// [`S3Config::new`](crate::S3Config::new) for the credentials and region it uses. Without an
    /// S3, those two operations are refused with a message that names this option.
    pub fn s3_endpoint(self, endpoint: &str) -> Self {
        self.s3(crate::S3Config::new(endpoint))
    }

    /// The S3 of exports and imports, as [`s3_endpoint`](Self::s3_endpoint) gives it or with a
    /// client of your own ([`S3Config::with_client`](crate::S3Config::with_client)).
    pub fn s3(mut self, s3: crate::S3Config) -> Self {
        self.s3 = Some(s3);
        self
    }

    /// How long an export or import stays IN_PROGRESS at least, on the fake's clock (default:
    /// zero, as long as its work on S3 takes). An imported table is CREATING as long.
    pub fn transfer_time(mut self, time: Duration) -> Self {
        self.transfer_time = Some(time);
        self
    }

    /// How long a write to a replica of a global table takes to reach the other replicas, on the
    /// fake's clock (default: one second, DynamoDB's usual replication latency). Until then a
    /// read in another region does not see it.
    pub fn replication_lag(mut self, lag: Duration) -> Self {
        self.replication_lag = Some(lag);
        self
    }

    /// Keeps only the latest `limit` records in the request log (0: none), for a fake that
    /// serves many requests and is never asked for its log, such as `dynalease-fake serve`.
    pub fn request_log_limit(mut self, limit: usize) -> Self {
        self.request_log_limit = Some(limit);
        self
    }

    /// Whether a failed condition answers the item as it is when the request asks for it with
    /// `ReturnValuesOnConditionCheckFailure` (default: yes, as DynamoDB does). `false` answers as
    /// DynamoDB did before that parameter existed, and as some emulators still do: without the
    /// item, so that code can be tested against both.
    pub fn item_on_condition_failure(mut self, answer_item: bool) -> Self {
        self.item_on_condition_failure = Some(answer_item);
        self
    }

    /// The tables the fake starts with: those of `snapshot` (see [`crate::Snapshot`]), created at
    /// the fake's start time unless the snapshot gives their creation time.
    pub fn snapshot(mut self, snapshot: crate::Snapshot) -> Self {
        self.snapshot = Some(snapshot);
        self
    }

    /// The fake.
    pub fn build(self) -> FakeDynamoDb {
        let clock: Arc<dyn FakeClock> = match (self.clock, self.start_time) {
            (Some(clock), _) => clock,
            (None, Some(start)) => Arc::new(TokioClock::starting_at(start)),
            (None, None) => Arc::new(TokioClock::real_start()),
        };
        let now = clock.now();
        let interval = self.ttl_sweep_interval.unwrap_or(Duration::from_secs(600));
        let fake = FakeDynamoDb {
            shared: Arc::new(Shared {
                accounts: Mutex::new(Accounts::new(
                    EngineSettings {
                        seed: self.seed,
                        item_on_condition_failure: self.item_on_condition_failure.unwrap_or(true),
                        table_creation: self.table_creation_time.unwrap_or_default(),
                        stream_transition: self.stream_status_change_time.unwrap_or_default(),
                        backup_creation: self.backup_creation_time.unwrap_or_default(),
                        s3_configured: self.s3.is_some(),
                        transfer_time: self.transfer_time.unwrap_or_default(),
                    },
                    now,
                    interval,
                )),
                clock,
                log: Mutex::new(std::collections::VecDeque::new()),
                log_limit: self.request_log_limit,
                faults: Mutex::new(FaultSet::new(self.seed)),
                request_ids: Mutex::new(SplitMix::new(self.seed ^ 0x05EE_D1D5)),
                seed: self.seed,
                clients: AtomicU64::new(0),
                s3: self.s3.map(crate::S3Config::target),
                runtime: tokio::runtime::Handle::try_current().ok(),
                own_clocks: AtomicBool::new(false),
            }),
        };
        if let Some(lag) = self.replication_lag {
            lock(&fake.shared.accounts).replication_lag = lag;
        }
        if let Some(snapshot) = &self.snapshot {
            fake.restore(snapshot);
        }
        fake
    }
}

impl Default for FakeDynamoDb {
    fn default() -> Self {
        Self::new()
    }
}

/// One request as it reaches the fake.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call<'a> {
    /// The operation, from `X-Amz-Target` without its prefix.
    pub(crate) operation: &'a str,
    /// The service the target's prefix addressed; `None` for a target of neither service.
    pub(crate) service: Option<Service>,
    /// The JSON body.
    pub(crate) body: &'a [u8],
    /// The name of the client that sent it, if it has one.
    pub(crate) client: Option<&'a Arc<str>>,
    /// Whether it carried an `Authorization` header.
    pub(crate) signed: bool,
    /// What the transport saw of its signature, checked before the body is read.
    pub(crate) signature: Signature<'a>,
    /// The account and region it is for: from its signature's scope over HTTP, from the client
    /// that sent it in-process.
    pub(crate) place: Place<'a>,
}

/// What the fake answers one request with.
#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// An HTTP answer: status, body, request id.
    Http { status: u16, body: Vec<u8>, request_id: RequestId },
    /// The request was applied but its answer is lost: the connection drops.
    Lost,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere must not make every later request panic too.
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl FakeDynamoDb {
    /// A fake whose clock follows tokio's, starting at the real time of day, with seed 0.
    pub fn new() -> Self {
        Self::builder().build()
    }

    /// A builder for a fake with a chosen start time, seed or clock.
    pub fn builder() -> FakeDynamoDbBuilder {
        FakeDynamoDbBuilder::default()
    }

    /// Creates a table with string keys, billed per request. Panics if the table exists or the
    /// names are invalid: this is test setup, where a mistake should stop the test.
    pub fn create_table(&self, name: &str, partition_key: &str, sort_key: Option<&str>) {
        let mut definitions = vec![serde_json::json!({"AttributeName": partition_key, "AttributeType": "S"})];
        let mut schema = vec![serde_json::json!({"AttributeName": partition_key, "KeyType": "HASH"})];
        if let Some(sort_key) = sort_key {
            definitions.push(serde_json::json!({"AttributeName": sort_key, "AttributeType": "S"}));
            schema.push(serde_json::json!({"AttributeName": sort_key, "KeyType": "RANGE"}));
        }
        let body = serde_json::json!({
            "TableName": name,
            "AttributeDefinitions": definitions,
            "KeySchema": schema,
            "BillingMode": "PAY_PER_REQUEST",
        });
        let now = self.now_in(DEFAULT_ACCOUNT);
        let (text, arena) = (body.to_string(), crate::json::Arena::new());
        let body = crate::json::from_slice(text.as_bytes(), &arena).unwrap_or_default();
        let mut accounts = lock(&self.shared.accounts);
        let engine = accounts.engine_at(Place::DEFAULT, now);
        if let Err(error) = engine.handle(Operation::CreateTable, &body, now) {
            panic!("create_table({name:?}) failed: {error}");
        }
        if let Some(table) = engine.tables.get_mut(name) {
            table.creating_until = None;
        }
    }

    /// Deletes a table and its items; does nothing if there is none. Its stream, if it has one,
    /// is disabled and stays readable for 24 hours, and a table with point-in-time recovery
    /// leaves a SYSTEM backup, as after DeleteTable.
    pub fn delete_table(&self, name: &str) {
        let now = self.now_in(DEFAULT_ACCOUNT);
        let mut accounts = lock(&self.shared.accounts);
        let engine = accounts.engine_at(Place::DEFAULT, now);
        engine.now = now;
        engine.drop_table(name);
    }

    /// Calls `observer` with every change to an item of the table `table` (of this name now or
    /// created later), as the fake applies it: one call per item that a PutItem, UpdateItem,
    /// DeleteItem, BatchWriteItem, TransactWriteItems or time-to-live sweep changed, with the
    /// item before and after. A write that leaves the item as it was is no change. Streams show
    /// the same changes; an observer needs no stream.
    ///
    /// The call is synchronous and runs while the fake holds its lock: `observer` must not call
    /// the fake. A table with no observer and no stream pays nothing for this.
    pub fn observe_item_changes(&self, table: &str, observer: impl Fn(&ItemChange) + Send + Sync + 'static) {
        let observer = Observer(Arc::new(observer));
        let mut accounts = lock(&self.shared.accounts);
        let engine = accounts.default_engine();
        if let Some(table) = engine.tables.get_mut(table) {
            table.add_observer(observer.clone());
        }
        engine.observers.entry(table.to_owned()).or_default().push(observer);
    }

    /// An SDK client wired to this fake: no credentials, no network, the fake's clock. It sends
    /// none of the headers only a network service reads (user agent, attempt and invocation ids):
    /// less work per call, and no request names the machine it came from.
    pub fn client(&self) -> aws_sdk_dynamodb::Client {
        aws_sdk_dynamodb::Client::from_conf(self.client_config().build())
    }

    /// Like [`client`](Self::client), with requests tagged with `name` for fault rules and the log.
    pub fn client_named(&self, name: &str) -> aws_sdk_dynamodb::Client {
        let config = client_config(self.http_client_named(name), self.shared.clock.clone(), self.next_client_seed());
        aws_sdk_dynamodb::Client::from_conf(config.build())
    }

    /// The configuration [`client`](Self::client) builds from, to change before building: for
    /// example an HTTP client that wraps [`http_client`](Self::http_client) with delays of your
    /// own, or the time source and sleep of a simulated process.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use aws_sdk_dynamodb::config::retry::RetryConfig;
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// let config = fake.client_config().retry_config(RetryConfig::disabled()).build();
    /// let client = aws_sdk_dynamodb::Client::from_conf(config);
    /// # let _ = client;
    /// # }
    /// ```
    pub fn client_config(&self) -> aws_sdk_dynamodb::config::Builder {
        client_config(self.http_client(), self.shared.clock.clone(), self.next_client_seed())
    }

    /// An SDK client for the account `account` in the region `region`, wired to this fake as
    /// [`client`](Self::client) is (whose requests are for the account `000000000000` in
    /// `us-east-1`). Each account and region has tables, streams and tags of its own: a table
    /// made by one client is not seen by a client of another account or region, as in DynamoDB,
    /// and its ARN names its account and region. Over HTTP, a request is for the region of its
    /// signature and for the account of its access key id when the id is twelve digits.
    ///
    /// Panics if `account` is not twelve digits or `region` is not a region's name (lowercase
    /// letters, digits and hyphens): this is test setup, where a mistake should stop the test.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use aws_sdk_dynamodb::types::AttributeValue;
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", None); // in the default account and region
    /// let other = fake.client_for("111122223333", "eu-west-1");
    /// let err = other.get_item().table_name("Shop").key("pk", AttributeValue::S("a".into()))
    ///     .send().await.unwrap_err();
    /// assert!(err.into_service_error().is_resource_not_found_exception());
    /// # }
    /// ```
    pub fn client_for(&self, account: &str, region: &str) -> aws_sdk_dynamodb::Client {
        aws_sdk_dynamodb::Client::from_conf(self.client_config_for(account, region).build())
    }

    /// The configuration [`client_for`](Self::client_for) builds from, to change before building.
    pub fn client_config_for(&self, account: &str, region: &str) -> aws_sdk_dynamodb::config::Builder {
        client_config(self.http_client_for(account, region), self.shared.clock.clone(), self.next_client_seed())
    }

    /// An `aws_sdk_dynamodbstreams` client for the account `account` in the region `region`, as
    /// [`client_for`](Self::client_for) is a DynamoDB client for them: it reads the streams of
    /// that account and region. Panics as `client_for` does.
    pub fn streams_client_for(&self, account: &str, region: &str) -> aws_sdk_dynamodbstreams::Client {
        let http = self.http_client_for(account, region);
        let config = crate::connector::streams_client_config(http, self.shared.clock.clone(), self.next_client_seed());
        aws_sdk_dynamodbstreams::Client::from_conf(config.build())
    }

    /// The fake as an HTTP client whose requests are for the account `account` in the region
    /// `region`. Panics as [`client_for`](Self::client_for) does.
    pub fn http_client_for(&self, account: &str, region: &str) -> FakeHttpClient {
        assert!(is_account_id(account), "an account id is twelve digits, not {account:?}");
        assert!(is_region(region), "{region:?} is not a region's name, such as eu-west-1");
        self.http_client().for_place(Place { account, region }.to_owned())
    }

    /// An `aws_sdk_dynamodbstreams` client wired to this fake, as [`client`](Self::client) is:
    /// it reads the streams of the fake's tables, on the same clock, with the same faults and
    /// request log.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use aws_sdk_dynamodb::types::{AttributeValue, StreamSpecification, StreamViewType};
    /// use aws_sdk_dynamodbstreams::types::ShardIteratorType;
    ///
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", None);
    /// let client = fake.client();
    /// let spec = StreamSpecification::builder().stream_enabled(true).stream_view_type(StreamViewType::NewImage);
    /// let table = client.update_table().table_name("Shop").stream_specification(spec.build().unwrap())
    ///     .send().await.unwrap();
    /// let arn = table.table_description().and_then(|t| t.latest_stream_arn()).unwrap().to_owned();
    /// client.put_item().table_name("Shop").item("pk", AttributeValue::S("a".into())).send().await.unwrap();
    ///
    /// let streams = fake.streams_client();
    /// let stream = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    /// let shard = &stream.stream_description().unwrap().shards()[0];
    /// let iterator = streams.get_shard_iterator().stream_arn(&arn).shard_id(shard.shard_id().unwrap())
    ///     .shard_iterator_type(ShardIteratorType::TrimHorizon).send().await.unwrap();
    /// let records = streams.get_records().shard_iterator(iterator.shard_iterator().unwrap()).send().await.unwrap();
    /// assert_eq!(records.records()[0].event_name().unwrap().as_str(), "INSERT");
    /// # }
    /// ```
    pub fn streams_client(&self) -> aws_sdk_dynamodbstreams::Client {
        aws_sdk_dynamodbstreams::Client::from_conf(self.streams_client_config().build())
    }

    /// The configuration [`streams_client`](Self::streams_client) builds from, to change before
    /// building.
    pub fn streams_client_config(&self) -> aws_sdk_dynamodbstreams::config::Builder {
        crate::connector::streams_client_config(self.http_client(), self.shared.clock.clone(), self.next_client_seed())
    }

    /// The fake as the SDK's HTTP client, to plug into a configuration of your own.
    pub fn http_client(&self) -> FakeHttpClient {
        FakeHttpClient::new(self.clone(), None)
    }

    /// The fake as an HTTP client whose requests carry a client name.
    pub fn http_client_named(&self, name: &str) -> FakeHttpClient {
        FakeHttpClient::new(self.clone(), Some(name.to_owned()))
    }

    fn next_client_seed(&self) -> u64 {
        let n = self.shared.clients.fetch_add(1, Ordering::Relaxed);
        self.shared.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(n)
    }

    /// Every request answered so far, in order.
    pub fn request_log(&self) -> Vec<RequestRecord> {
        lock(&self.shared.log).iter().map(Entry::to_record).collect()
    }

    /// Forgets the requests logged so far.
    pub fn clear_request_log(&self) {
        lock(&self.shared.log).clear();
    }

    /// The fake's wall clock.
    pub fn now(&self) -> SystemTime {
        self.shared.clock.now()
    }

    /// The fake's clock.
    pub fn clock(&self) -> Arc<dyn FakeClock> {
        self.shared.clock.clone()
    }

    /// Adds a fault rule; rules apply in the order they were added.
    pub fn inject(&self, rule: FaultRule) {
        self.inject_numbered(rule);
    }

    /// Adds a fault rule; returns its id.
    pub(crate) fn inject_numbered(&self, rule: FaultRule) -> u64 {
        let id = lock(&self.shared.faults).add(rule);
        self.keep_history();
        id
    }

    /// Removes the fault rule `id`; false if there is none.
    pub(crate) fn remove_fault(&self, id: u64) -> bool {
        let removed = lock(&self.shared.faults).remove(id);
        self.keep_history();
        removed
    }

    /// Makes the tables of every account and region keep the history of their items that the
    /// fault rules in force need for stale reads, and no more: from the moment a rule of
    /// [`Fault::StaleRead`] is added, so that what changes before the next request (a
    /// time-to-live sweep) is kept too.
    fn keep_history(&self) {
        let horizon = lock(&self.shared.faults).history_horizon();
        let mut accounts = lock(&self.shared.accounts);
        for (_, engine) in accounts.engines_mut() {
            crate::stale::keep_history(engine, horizon);
        }
    }

    /// Every fault rule, in force or used up, with what it did so far.
    pub(crate) fn fault_slots(&self) -> Vec<crate::faults::Slot> {
        lock(&self.shared.faults).slots()
    }

    /// The latest `limit` records of the request log of the places `places` covers, oldest
    /// first.
    pub(crate) fn latest_requests(&self, limit: usize, places: &PlaceFilter) -> Vec<RequestRecord> {
        let log = lock(&self.shared.log);
        let mut latest: Vec<RequestRecord> =
            log.iter().rev().filter(|entry| places.covers(entry.place())).take(limit).map(Entry::to_record).collect();
        latest.reverse();
        latest
    }

    /// Forgets the requests of the places `places` covers.
    pub(crate) fn forget_requests(&self, places: &PlaceFilter) {
        lock(&self.shared.log).retain(|entry| !places.covers(entry.place()));
    }

    /// Removes every fault rule.
    pub fn clear_faults(&self) {
        lock(&self.shared.faults).clear();
        self.keep_history();
    }

    /// Runs a time-to-live sweep now: deletes every item whose time to live has passed.
    /// Returns how many items it deleted.
    pub fn sweep_ttl(&self) -> usize {
        let base = &*self.shared.clock;
        lock(&self.shared.accounts).accounts_mut().map(|account| account.sweep(account.now(base))).sum()
    }

    /// The item at `key` of the table `table` as the fake holds it at this instant (`None` when
    /// the table has no such item, there is no such table, or `key` is not a key of strings,
    /// numbers or binaries), after the time-to-live deletions that are due, as a request would
    /// see it. A look from outside the API: no request, no fault, no request id, no log entry and
    /// no consumed capacity, so a checker can hold a write against the table's state at that
    /// instant without changing what the run does next.
    pub fn read_item(
        &self,
        table: &str,
        key: &HashMap<String, AttributeValue>,
    ) -> Option<HashMap<String, AttributeValue>> {
        self.with_item(table, key, crate::stream::to_sdk_item)
    }

    /// The attributes `names` of the item at `key` of the table `table`, in the order asked
    /// (`None` for each the item does not have), looked at as [`read_item`](Self::read_item)
    /// does: from outside the API, after the due time-to-live deletions. `None` when there is
    /// no such item. For a checker that reads a few attributes after every write: it clones
    /// those alone.
    pub fn read_attributes(
        &self,
        table: &str,
        key: &HashMap<String, AttributeValue>,
        names: &[&str],
    ) -> Option<Vec<Option<AttributeValue>>> {
        self.with_item(table, key, |item| names.iter().map(|name| item.get(name).map(crate::stream::to_sdk)).collect())
    }

    /// `look` applied to the item at `key` of `table` as a request arriving now would find it.
    fn with_item<R>(
        &self,
        table: &str,
        key: &HashMap<String, AttributeValue>,
        look: impl FnOnce(&crate::value::Item) -> R,
    ) -> Option<R> {
        let key = crate::stream::from_sdk_key(key)?;
        let now = self.now_in(DEFAULT_ACCOUNT);
        let mut accounts = lock(&self.shared.accounts);
        let table = accounts.engine_at(Place::DEFAULT, now).tables.get(table)?;
        table.items.get(&table.primary_key(&key).ok()?).map(look)
    }

    /// Answers one request synchronously, without faults: operation name and JSON body in,
    /// HTTP status and JSON body out. For embedding the engine behind another transport.
    pub fn handle_json(&self, operation: &str, body: &[u8]) -> (u16, Vec<u8>) {
        // No fault, but the history the rules in force keep is kept on.
        let drawn = Drawn { history: lock(&self.shared.faults).history_horizon(), ..Drawn::default() };
        match self.answer(
            &Call {
                operation,
                service: Some(Service::Either),
                body,
                client: None,
                signed: false,
                signature: Signature::Unchecked,
                place: Place::DEFAULT,
            },
            &drawn,
        ) {
            Reply::Http { status, body, .. } => (status, body),
            Reply::Lost => (500, Vec::new()),
        }
    }

    /// The faults a request for `place` meets.
    pub(crate) fn draw_faults(&self, operation: &str, body: &[u8], client: Option<&str>, place: Place<'_>) -> Drawn {
        let mut faults = lock(&self.shared.faults);
        if faults.is_empty() {
            return Drawn::default();
        }
        let table = if faults.wants_table() {
            crate::json::from_slice(body, &crate::json::Arena::new())
                .and_then(|json| table_of(Operation::from_name(operation), &json, place).map(str::to_owned))
        } else {
            None
        };
        faults.draw(operation, table.as_deref(), client, place)
    }

    /// Answers a request whose latency (if any) has already been waited out.
    pub(crate) fn answer(&self, call: &Call<'_>, drawn: &Drawn) -> Reply {
        let Call { operation, service, client, signed, place, .. } = *call;
        let now = self.now_in(place.account);
        let request_id = self.request_id();
        let fault = (drawn.failure.as_ref().map(Fault::name))
            .or_else(|| drawn.latency.map(|_| "Latency"))
            .or_else(|| drawn.response_delay.map(|_| "SlowResponse"));
        let served = Operation::from_name(operation).filter(|&op| service.is_some_and(|service| service.serves(op)));
        let mut record = Entry::new(served, operation, client, fault, now, place);
        record.signed = signed;
        let result = self.run(served, call, now, drawn, &mut record);
        let reply = match (result, &drawn.failure) {
            (_, Some(Fault::LostResponse)) => Reply::Lost,
            (Ok(json), _) => Reply::Http { status: 200, body: json.into_bytes(), request_id },
            (Err(error), _) => Reply::Http {
                status: error.status,
                body: serde_json::to_vec(&error.to_body()).unwrap_or_default(),
                request_id,
            },
        };
        let mut log = lock(&self.shared.log);
        if let Some(limit) = self.shared.log_limit {
            while log.len() >= limit.max(1) {
                log.pop_front();
            }
            if limit == 0 {
                return reply;
            }
        }
        log.push_back(record);
        reply
    }

    fn run(
        &self,
        operation: Option<Operation>,
        call: &Call<'_>,
        now: SystemTime,
        drawn: &Drawn,
        record: &mut Entry,
    ) -> Result<crate::json::Body, DynamoError> {
        let Call { body, signature, place, .. } = *call;
        let failure = drawn.failure.as_ref();
        // The request document lives in the thread's arena until the answer is written.
        crate::json::with_arena(|arena| {
            // DynamoDB reports a body it cannot read before an unknown target, then a missing or
            // incomplete signature, and an empty body last.
            let parsed = parse_body(body, arena);
            let checked = match (parsed, operation) {
                (Err(error), _) if !body.is_empty() => Err(error),
                (_, None) => Err(DynamoError::unknown_operation()),
                (parsed, Some(operation)) => signature.check().and(parsed).map(|json| (operation, json)),
            };
            let (operation, json) = match checked {
                Ok(checked) => checked,
                Err(error) => {
                    record.error = Some(error.code().to_owned());
                    return Err(error);
                }
            };
            record.table = table_of(Some(operation), &json, place).map(crate::log::table_name);
            record.consistent_read = json.get("ConsistentRead").and_then(crate::validate::as_bool).unwrap_or(false);
            let injected = match failure {
                Some(Fault::Throttle) => Some(DynamoError::provisioned_throughput_exceeded()),
                Some(Fault::ThrottlingException) => Some(DynamoError::throttling()),
                Some(Fault::InternalServerError) => Some(DynamoError::internal_server_error()),
                Some(Fault::ResourceNotFound) => Some(DynamoError::resource_not_found()),
                Some(Fault::Error { status, code, message }) => Some(DynamoError::custom(*status, code, message)),
                _ => None,
            };
            if let Some(error) = injected {
                record.error = Some(error.code().to_owned());
                return Err(error);
            }
            let mut accounts = lock(&self.shared.accounts);
            let (lag, settings) = (accounts.replication_lag, accounts.settings);
            accounts.engine_at(place, now);
            let account = accounts.existing_account_mut(place.account).expect("the request's account was just made");
            // Every region of the account keeps the history stale reads need before the writes
            // of its global tables arrive: a region made since the rule was added too.
            for engine in account.regions.values_mut() {
                crate::stale::keep_history(engine, drawn.history);
            }
            account.deliver(now, &|region, table| self.replication_stalled(place.account, region, table));
            let replica_updates =
                operation == Operation::UpdateTable && json.get("ReplicaUpdates").is_some_and(|r| !r.is_null());
            // A replica deleted by DeleteTable leaves its global table.
            let leaving = (operation == Operation::DeleteTable)
                .then(|| json.get("TableName").and_then(crate::json::Json::as_str))
                .flatten()
                .map(|name| account.regions[place.region].plain_name(name).to_owned())
                .filter(|name| account.regions[place.region].tables.get(name).is_some_and(|t| t.global.is_some()));
            let mut result = if replica_updates {
                crate::validate::check(operation, &json).and_then(|()| {
                    crate::global::replicas::update_replicas(account, &settings, place, &json, now)
                        .map(crate::json::Body::from)
                })
            } else {
                let engine = account.regions.get_mut(place.region).expect("the request's engine was just made");
                engine.batch_budget = match failure {
                    Some(Fault::Unprocessed(processed)) => Some(*processed),
                    _ => None,
                };
                engine.read_at = drawn.stale.and_then(|lag| now.checked_sub(lag));
                engine.read_table = drawn.stale_table.clone();
                let result = engine.handle(operation, &json, now);
                engine.batch_budget = None;
                if engine.read_in_past.take() {
                    record.fault = record.fault.or(Some("StaleRead"));
                    record.read_as_of = engine.read_at;
                }
                engine.read_at = None;
                engine.read_table = None;
                result
            };
            if let Some(name) = leaving.filter(|_| result.is_ok()) {
                crate::global::replicas::leave(account, &name, place.region);
                account.replication.forget(place.region, &name);
            }
            if operation == Operation::UpdateTimeToLive && result.is_ok() {
                crate::global::replicas::share_time_to_live(account, place.region, &json);
            }
            account.collect(lag);
            let transfers = account
                .regions
                .get_mut(place.region)
                .map(|engine| std::mem::take(&mut engine.transfers.pending))
                .unwrap_or_default();
            drop(accounts);
            if !transfers.is_empty() {
                self.start_transfers(transfers, place);
            }
            if matches!(operation, Operation::PutItem | Operation::UpdateItem | Operation::DeleteItem) {
                result = result.map_err(DynamoError::enveloped);
            }
            if let Err(error) = &result {
                record.error = Some(error.code().to_owned());
            }
            result
        })
    }

    /// Whether a fault rule holds back the replication of `table` into `region` of `account`.
    pub(crate) fn replication_stalled(&self, account: &str, region: &str, table: &str) -> bool {
        let faults = lock(&self.shared.faults);
        !faults.is_empty() && faults.stalls(Place { account, region }, table)
    }

    /// Every account and its engines, locked.
    pub(crate) fn lock_accounts(&self) -> MutexGuard<'_, Accounts> {
        lock(&self.shared.accounts)
    }

    /// A new request id, shaped like DynamoDB's.
    pub(crate) fn request_id(&self) -> RequestId {
        let mut ids = lock(&self.shared.request_ids);
        RequestId([ids.next_u64(), ids.next_u64(), ids.next_u64(), ids.next_u64()])
    }
}
