//! The engine: every table of one account in one region, and the dispatch of each operation to
//! its handler. The engine is synchronous and knows nothing of HTTP, clocks or faults;
//! `FakeDynamoDb` holds one per account and region (`accounts::Accounts`).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use crate::json::{Answer, Body, Json};

use crate::backup::{Backup, BackupKind, Backups};
use crate::error::DynamoError;
use crate::operation::Operation;
use crate::ops;
use crate::place::Place;
use crate::stream::{Observer, Stream};
use crate::table::Table;
use crate::transfer::Transfers;
use crate::validate;

/// What a transaction's idempotency token remembers.
#[derive(Debug, Clone)]
pub(crate) struct TokenEntry {
    /// The [`Json::digest`] of the request's TransactItems.
    pub(crate) request: u64,
    pub(crate) response: Result<Answer, DynamoError>,
    pub(crate) at: SystemTime,
}

/// All state of one account in one region of a fake DynamoDB.
#[derive(Debug)]
pub(crate) struct Engine {
    pub(crate) tables: BTreeMap<String, Table>,
    pub(crate) region: String,
    pub(crate) account: String,
    pub(crate) tokens: BTreeMap<String, TokenEntry>,
    pub(crate) next_table_id: u64,
    pub(crate) seed: u64,
    /// Whether a failed condition answers the item when the request asks for it.
    pub(crate) item_on_condition_failure: bool,
    /// How many requests of the next batch may be processed before the rest is returned
    /// unprocessed (set by a [`crate::Fault::Unprocessed`] for one request).
    pub(crate) batch_budget: Option<usize>,
    /// How long a table created through the API stays CREATING (zero: active at once).
    pub(crate) table_creation: Duration,
    /// The time of the request being answered.
    pub(crate) now: SystemTime,
    /// The disabled streams, by ARN, readable until 24 hours after they were disabled (a
    /// table's enabled stream lives with the table).
    pub(crate) streams: BTreeMap<String, Stream>,
    /// How long a stream is ENABLING after it is enabled, and DISABLING after it is disabled.
    pub(crate) stream_transition: Duration,
    /// The observers of item changes, by table name: a table of that name gets them when it is
    /// created.
    pub(crate) observers: BTreeMap<String, Vec<Observer>>,
    /// The backups, the user's and those DynamoDB made of tables deleted with point-in-time
    /// recovery.
    pub(crate) backups: Backups,
    /// How long a new backup is CREATING.
    pub(crate) backup_creation: Duration,
    /// The exports and imports, and the work on S3 the request being answered left to start.
    pub(crate) transfers: Transfers,
    /// How long its tables keep the changes of their items, for stale reads (see
    /// [`crate::stale`]); `None`: they keep none.
    pub(crate) history: Option<Duration>,
    /// The instant the eventually consistent reads of the request being answered see (set by a
    /// [`crate::Fault::StaleRead`] for one request); `None`: the present.
    pub(crate) read_at: Option<SystemTime>,
    /// The only table whose reads see `read_at`, when the rule names one.
    pub(crate) read_table: Option<String>,
    /// Whether a read of the request being answered saw `read_at`.
    pub(crate) read_in_past: Cell<bool>,
}

impl Engine {
    pub(crate) fn new(seed: u64) -> Self {
        Engine {
            tables: BTreeMap::new(),
            region: crate::place::DEFAULT_REGION.into(),
            account: crate::place::DEFAULT_ACCOUNT.into(),
            tokens: BTreeMap::new(),
            next_table_id: 0,
            seed,
            batch_budget: None,
            item_on_condition_failure: true,
            table_creation: Duration::ZERO,
            now: SystemTime::UNIX_EPOCH,
            streams: BTreeMap::new(),
            stream_transition: Duration::ZERO,
            observers: BTreeMap::new(),
            backups: Backups::default(),
            backup_creation: Duration::ZERO,
            transfers: Transfers::default(),
            history: None,
            read_at: None,
            read_table: None,
            read_in_past: Cell::new(false),
        }
    }

    /// Answers one request: the operation name and its parsed JSON body.
    pub(crate) fn handle(
        &mut self,
        operation: Operation,
        body: &Json<'_>,
        now: SystemTime,
    ) -> Result<Body, DynamoError> {
        self.now = now;
        validate::check(operation, body)?;
        let _value_checks = crate::value::ValueChecks::of_operation(operation).enter();
        let answer = match operation {
            Operation::PutItem => return ops::items::put_item(self, body),
            Operation::GetItem => return ops::items::get_item(self, body),
            Operation::UpdateItem => return ops::items::update_item(self, body),
            Operation::DeleteItem => return ops::items::delete_item(self, body),
            Operation::CreateTable => ops::control::create_table(self, body, now),
            Operation::DeleteTable => ops::control::delete_table(self, body),
            Operation::DescribeTable => ops::control::describe_table(self, body),
            Operation::ListTables => ops::control::list_tables(self, body),
            Operation::UpdateTable => ops::control::update_table(self, body),
            Operation::UpdateTimeToLive => ops::control::update_time_to_live(self, body),
            Operation::DescribeTimeToLive => ops::control::describe_time_to_live(self, body),
            Operation::DescribeLimits => Ok(ops::control::describe_limits()),
            Operation::DescribeEndpoints => Ok(ops::control::describe_endpoints(self)),
            Operation::TagResource => return ops::tags::tag_resource(self, body),
            Operation::UntagResource => return ops::tags::untag_resource(self, body),
            Operation::ListTagsOfResource => ops::tags::list_tags_of_resource(self, body),
            Operation::TransactWriteItems => ops::transact::transact_write_items(self, body, now),
            Operation::TransactGetItems => ops::transact::transact_get_items(self, body),
            Operation::Query => ops::query::query(self, body),
            Operation::Scan => ops::scan::scan(self, body),
            Operation::BatchGetItem => ops::batch::batch_get_item(self, body),
            Operation::BatchWriteItem => ops::batch::batch_write_item(self, body),
            Operation::ListStreams
            | Operation::DescribeStream
            | Operation::GetShardIterator
            | Operation::GetRecords
            | Operation::ExecuteStatement
            | Operation::BatchExecuteStatement
            | Operation::ExecuteTransaction => self.handle_streams_and_statements(operation, body),
            _ => self.handle_backups_and_policies(operation, body),
        };
        answer.map(Body::from)
    }

    /// The Streams and PartiQL operations, dispatched apart so that the item operations' dispatch
    /// stays as small as it was (the compiler then keeps inlining them into `handle`).
    #[inline(never)]
    fn handle_streams_and_statements(&mut self, operation: Operation, body: &Json<'_>) -> Result<Answer, DynamoError> {
        match operation {
            Operation::ListStreams => ops::streams::list_streams(self, body),
            Operation::DescribeStream => ops::streams::describe_stream(self, body),
            Operation::GetShardIterator => ops::streams::get_shard_iterator(self, body),
            Operation::GetRecords => ops::streams::get_records(self, body),
            Operation::ExecuteStatement => ops::partiql::execute_statement(self, body),
            Operation::BatchExecuteStatement => ops::partiql::batch_execute_statement(self, body),
            Operation::ExecuteTransaction => ops::partiql::execute_transaction(self, body),
            _ => Err(DynamoError::unknown_operation()),
        }
    }

    /// Backups, point-in-time recovery, resource policies, exports and imports, dispatched apart as the Streams and
    /// PartiQL operations are.
    #[inline(never)]
    fn handle_backups_and_policies(&mut self, operation: Operation, body: &Json<'_>) -> Result<Answer, DynamoError> {
        match operation {
            Operation::CreateBackup => ops::backups::create_backup(self, body),
            Operation::DescribeBackup => ops::backups::describe_backup(self, body),
            Operation::ListBackups => ops::backups::list_backups(self, body),
            Operation::DeleteBackup => ops::backups::delete_backup(self, body),
            Operation::RestoreTableFromBackup => ops::backups::restore_table_from_backup(self, body),
            Operation::DescribeContinuousBackups => ops::recovery::describe_continuous_backups(self, body),
            Operation::UpdateContinuousBackups => ops::recovery::update_continuous_backups(self, body),
            Operation::RestoreTableToPointInTime => ops::recovery::restore_table_to_point_in_time(self, body),
            Operation::PutResourcePolicy => ops::policies::put_resource_policy(self, body),
            Operation::GetResourcePolicy => ops::policies::get_resource_policy(self, body),
            Operation::DeleteResourcePolicy => ops::policies::delete_resource_policy(self, body),
            Operation::ExportTableToPointInTime => ops::transfers::export_table_to_point_in_time(self, body),
            Operation::DescribeExport => ops::transfers::describe_export(self, body),
            Operation::ListExports => ops::transfers::list_exports(self, body),
            Operation::ImportTable => ops::transfers::import_table(self, body),
            Operation::DescribeImport => ops::transfers::describe_import(self, body),
            Operation::ListImports => ops::transfers::list_imports(self, body),
            _ => Err(DynamoError::unknown_operation()),
        }
    }

    /// The name of the table a request names: its ARN stands for it when the ARN is of this
    /// engine's region and account; anything else is taken as a name (and an ARN of elsewhere
    /// names no table).
    pub(crate) fn plain_name<'n>(&self, given: &'n str) -> &'n str {
        crate::table::plain_name(given, self.place())
    }

    /// The account and region of this engine's tables.
    pub(crate) fn place(&self) -> Place<'_> {
        Place { account: &self.account, region: &self.region }
    }

    /// The table of this name, or DynamoDB's ResourceNotFoundException, which a table that is
    /// still being created gets too.
    pub(crate) fn table(&self, name: &str) -> Result<&Table, DynamoError> {
        self.tables
            .get(self.plain_name(name))
            .filter(|t| !t.is_creating(self.now))
            .ok_or_else(DynamoError::resource_not_found)
    }

    /// When the latest stream of a table of this name was created, whether it is the table's
    /// enabled stream or a disabled one still kept (of this table or of one deleted before it).
    pub(crate) fn latest_stream_created(&self, table: &str) -> Option<std::time::SystemTime> {
        let of_table = self.tables.get(table).and_then(|t| t.latest_stream.as_ref()).map(|(_, _, created)| *created);
        let kept = self.streams.values().filter(|s| s.table == table).map(|s| s.created);
        of_table.into_iter().chain(kept).max()
    }

    /// Disables a table's enabled stream at the request's time and keeps it with the disabled
    /// streams.
    pub(crate) fn retire_stream(&mut self, table: &str) {
        let now = self.now;
        let Some(mut stream) = self.tables.get_mut(table).and_then(Table::take_stream) else { return };
        stream.disable(now, self.stream_transition);
        self.streams.insert(stream.arn.clone(), stream);
    }

    /// Deletes the table of this name at the request's time: its stream goes DISABLED and stays
    /// readable for 24 hours, and a table with point-in-time recovery leaves a SYSTEM backup of
    /// itself, as DynamoDB keeps one for 35 days.
    pub(crate) fn drop_table(&mut self, name: &str) {
        self.retire_stream(name);
        let Some(table) = self.tables.remove(name) else { return };
        if table.recovery().is_some() {
            let arn = self.backups.next_arn(&table, self.now, self.seed);
            let backup_name = format!("{name}$DeletedTableBackup");
            self.backups.insert(Backup::of_table(
                &table,
                arn,
                &backup_name,
                BackupKind::System,
                self.now,
                self.backup_creation,
            ));
        }
    }

    /// The table of this name, mutable.
    pub(crate) fn table_mut(&mut self, name: &str) -> Result<&mut Table, DynamoError> {
        let now = self.now;
        let name = crate::table::plain_name(name, Place { account: &self.account, region: &self.region });
        self.tables.get_mut(name).filter(|t| !t.is_creating(now)).ok_or_else(DynamoError::resource_not_found)
    }
}

/// The table a request for `place` names, for the request log and fault rules.
pub(crate) fn table_of<'a>(operation: Option<Operation>, body: &Json<'a>, place: Place<'_>) -> Option<&'a str> {
    let plain_name = |name| crate::table::plain_name(name, place);
    if let Some(name) = body.get("TableName").and_then(Json::as_str) {
        return Some(plain_name(name));
    }
    match operation {
        Some(Operation::BatchGetItem | Operation::BatchWriteItem) => {
            body.get("RequestItems").and_then(Json::as_object).and_then(|m| m.keys().next()).map(plain_name)
        }
        Some(Operation::TransactWriteItems | Operation::TransactGetItems) => {
            let first = body.get("TransactItems")?.as_array()?.first()?.as_object()?;
            first.values().find_map(|action| action.get("TableName")?.as_str()).map(plain_name)
        }
        Some(Operation::DescribeStream | Operation::GetShardIterator) => {
            body.get("StreamArn").and_then(Json::as_str).and_then(crate::stream::table_in)
        }
        Some(Operation::GetRecords) => {
            body.get("ShardIterator").and_then(Json::as_str).and_then(crate::stream::table_in)
        }
        Some(Operation::TagResource | Operation::UntagResource | Operation::ListTagsOfResource) => {
            let arn = body.get("ResourceArn")?.as_str()?;
            arn.rsplit_once("table/").map(|(_, name)| name.split('/').next().unwrap_or(name))
        }
        _ => None,
    }
}
