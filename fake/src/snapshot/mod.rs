//! Snapshots: every table of a fake, its indexes, time-to-live setting, stream setting and items,
//! as one JSON document that a fake (in-process, or `dynalease-fake serve`) starts from or loads.
//!
//! - [`Snapshot`]: a document read and checked, or taken from a fake.
//! - [`SnapshotError`]: why a document was refused, with its line and column.
//! - `write`: a fake's tables as the document; `read`: the document as tables, checked by the
//!   engine's own CreateTable and PutItem; `file`: reading a file, and writing one atomically.
//!
//! The document:
//!
//! ```json
//! {
//!   "Version": 1,
//!   "Tables": [
//!     {
//!       "TableName": "Shop",
//!       "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
//!       "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
//!       "BillingMode": "PAY_PER_REQUEST",
//!       "TimeToLiveSpecification": {"AttributeName": "expires", "Enabled": true},
//!       "Items": [{"pk": {"S": "order#1"}, "total": {"N": "12.5"}}]
//!     }
//!   ]
//! }
//! ```
//!
//! A table is CreateTable's input (any of its members), with `TimeToLiveSpecification` and
//! `Items` (DynamoDB's JSON); a snapshot the fake takes adds `TableId`, `CreationDateTime` and
//! `LatestStreamLabel`, so that the table describes itself as before. `Tables` are those of the
//! default account (`000000000000`) in `us-east-1`; the tables of any other account and region
//! are in `Regions`:
//!
//! ```json
//! "Regions": [{"Account": "111122223333", "Region": "eu-west-1", "Tables": [...]}]
//! ```

mod file;
mod read;
mod write;

pub(crate) use read::build_table;
pub(crate) use write::table as table_document;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::clock::{ClockError, FakeClock};
use crate::fake::FakeDynamoDb;
use crate::place::PlaceFilter;
use crate::time_control::ClockReading;
use crate::ttl::SweepSchedule;

/// The version of the document this fake writes and reads.
pub(crate) const VERSION: u64 = 1;

/// Every table of a fake as one JSON document: taken with [`FakeDynamoDb::snapshot`], read with
/// [`Snapshot::from_json`] or [`Snapshot::read_file`], loaded with [`FakeDynamoDb::restore`] or
/// [`FakeDynamoDbBuilder::snapshot`](crate::FakeDynamoDbBuilder::snapshot). `dynalease-fake serve`
/// reads and writes the same document (`--data FILE`, and its control API), so one fixture file
/// serves a test in-process and over HTTP.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use dynalease_fake::{FakeDynamoDb, Snapshot};
///
/// let fixture = Snapshot::from_json(r#"{"Tables": [{
///     "TableName": "Shop",
///     "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
///     "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
///     "BillingMode": "PAY_PER_REQUEST",
///     "Items": [{"pk": {"S": "order#1"}}]
/// }]}"#).unwrap();
/// let fake = FakeDynamoDb::builder().snapshot(fixture).build();
/// let got = fake.client().get_item().table_name("Shop")
///     .key("pk", aws_sdk_dynamodb::types::AttributeValue::S("order#1".into()))
///     .send().await.unwrap();
/// assert!(got.item().is_some());
/// # }
/// ```
///
/// Streams keep their setting and their ARN, not their records; transactions' idempotency
/// tokens are not kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The document, checked: each table builds.
    pub(crate) document: serde_json::Value,
}

impl Snapshot {
    /// Reads a snapshot document, checking every table and item as the fake would load it.
    pub fn from_json(text: &str) -> Result<Snapshot, SnapshotError> {
        read::check(text)
    }

    /// Reads a snapshot file; an error names the file.
    pub fn read_file(path: impl AsRef<Path>) -> Result<Snapshot, SnapshotError> {
        file::read(path.as_ref())
    }

    /// The document as indented JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.document).unwrap_or_default()
    }

    /// Writes the document to `path` atomically: to a temporary file beside it, flushed to the
    /// disk, then renamed over `path`, so that a crash at any moment leaves the old file or the
    /// new one, never a part of either.
    pub fn write_file(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        file::write_atomically(path.as_ref(), self.to_json().as_bytes())
    }

    /// The names of its tables, in order: those of the default account and region, then those of
    /// each other account and region it holds.
    pub fn table_names(&self) -> Vec<String> {
        let others = read::regions(&self.document).flat_map(|(_, _, group)| {
            group
                .get("Tables")
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_object())
        });
        read::tables(&self.document)
            .chain(others)
            .filter_map(|table| table.get("TableName").and_then(serde_json::Value::as_str).map(str::to_owned))
            .collect()
    }
}

/// Why a snapshot document was refused: where (file, line, column) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotError {
    file: Option<PathBuf>,
    line: usize,
    column: usize,
    message: String,
}

impl SnapshotError {
    /// The file, if the document was read from one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// The line (from 1) where the problem was found; 0 when it is not about a place in the text
    /// (a file that cannot be read).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column (from 1) where the problem was found.
    pub fn column(&self) -> usize {
        self.column
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "{}: ", file.display())?;
        }
        if self.line > 0 {
            write!(f, "line {}, column {}: ", self.line, self.column)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SnapshotError {}

impl FakeDynamoDb {
    /// Every table of every account and region, with its indexes, time-to-live setting, stream
    /// setting and items, as a [`Snapshot`], taken at one instant (after the time-to-live
    /// deletions due).
    pub fn snapshot(&self) -> Snapshot {
        self.snapshot_of(&PlaceFilter::default())
    }

    /// The tables of the places `filter` covers, as a [`Snapshot`].
    pub(crate) fn snapshot_of(&self, filter: &PlaceFilter) -> Snapshot {
        let now = self.now();
        let mut accounts = self.lock_accounts();
        for account in accounts.accounts_mut() {
            account.sweep_due(account.now(&*self.shared.clock));
        }
        Snapshot { document: write::document(&accounts, filter, now) }
    }

    /// Replaces every table of every account and region with those of `snapshot`, at once: a
    /// request sees the tables as they were or as the snapshot has them, never a mix. Disabled
    /// streams and idempotency tokens are forgotten; fault rules, the clock and the request log
    /// are kept.
    pub fn restore(&self, snapshot: &Snapshot) {
        self.restore_into(snapshot, &PlaceFilter::default())
            .unwrap_or_else(|error| panic!("a snapshot is checked when it is read, yet: {error}"));
    }

    /// Replaces the tables of the places `filter` covers with those of `snapshot`: its `Tables`
    /// go to the filter's [target](PlaceFilter::target), and each member of its `Regions` to its
    /// own account and region, which the filter must cover (else nothing changes).
    pub(crate) fn restore_into(&self, snapshot: &Snapshot, filter: &PlaceFilter) -> Result<(), String> {
        let base = &*self.shared.clock;
        let mut accounts = self.lock_accounts();
        let built = read::build(&snapshot.document, &accounts, filter, base)?;
        for (place, engine) in accounts.engines_mut() {
            if filter.covers(place) {
                read::install(engine, read::Built::default());
            }
        }
        for (place, tables) in built {
            let now = accounts.now_of(&place.account, base);
            read::install(accounts.engine_at(place.as_place(), now), tables);
        }
        Ok(())
    }

    /// Deletes every table of every account and region, and forgets disabled streams and
    /// idempotency tokens, as a fake starts; fault rules, the clock and the request log are kept.
    pub fn reset(&self) {
        self.reset_places(&PlaceFilter::default());
    }

    /// Resets the places `filter` covers as [`reset`](Self::reset) resets all.
    pub(crate) fn reset_places(&self, filter: &PlaceFilter) {
        let mut accounts = self.lock_accounts();
        for (place, engine) in accounts.engines_mut() {
            if filter.covers(place) {
                read::install(engine, read::Built::default());
            }
        }
        // The writes of global tables on their way into what was reset go with it.
        for (id, account) in accounts.accounts_by_id_mut() {
            account.replication.forget_regions(|region| filter.covers(crate::place::Place { account: id, region }));
        }
    }

    /// Resets the fake as [`reset`](Self::reset) does and puts its clock at `to`, which may be
    /// before its time: with no table left, nothing that fell due is left to undo. The clock
    /// stands still there (`frozen` true), runs from there (false) or does as it did (`None`).
    /// Time-to-live sweeps run every interval from `to`.
    pub(crate) fn reset_to(&self, to: SystemTime, frozen: Option<bool>) -> Result<ClockReading, ClockError> {
        let clock = self.controlled_clock().ok_or(ClockError::NotControlled)?;
        let mut accounts = self.lock_accounts();
        for (_, engine) in accounts.engines_mut() {
            read::install(engine, read::Built::default());
        }
        for account in accounts.accounts_mut() {
            account.replication.forget_regions(|_| true);
        }
        clock.restart_at(to, frozen);
        accounts.restart_all_at(to);
        Ok(ClockReading { now: to, frozen: clock.is_frozen() })
    }

    /// Resets the account `id` in every region as [`reset`](Self::reset) resets all, and puts
    /// its own clock at `to` (earlier than its time too), standing still, running or as it was
    /// by `frozen` as [`reset_to`](Self::reset_to) does: its sweeps run every interval from
    /// `to`. Other accounts are left as they are.
    pub(crate) fn reset_account_to(
        &self,
        id: &str,
        to: SystemTime,
        frozen: Option<bool>,
    ) -> Result<ClockReading, ClockError> {
        let base = self.controlled_clock().ok_or(ClockError::NotControlled)?;
        let mut accounts = self.lock_accounts();
        let interval = accounts.sweep_interval();
        let account = accounts.account_mut(id, base.now());
        for engine in account.regions.values_mut() {
            read::install(engine, read::Built::default());
        }
        account.replication.forget_regions(|_| true);
        let clock = account.own_clock(base);
        clock.restart_at(to, frozen);
        let reading = ClockReading { now: to, frozen: clock.is_frozen() };
        account.sweeps = SweepSchedule::new(to, interval);
        self.shared.own_clocks.store(true, std::sync::atomic::Ordering::Release);
        Ok(reading)
    }
}
