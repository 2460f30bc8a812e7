//! Request validation that needs neither a table nor the expression parser, in DynamoDB's order:
//!
//! 1. [`parse_body`]: the body must be a JSON object, or the answer is a bare
//!    `SerializationException`.
//! 2. [`check`]: the JSON type of every member against the operation's schema
//!    (`SerializationException`, [`types`]); then the constraints of the members
//!    (`1 validation error detected: ...`, [`constraints`]); then the operation's own rules that
//!    read no attribute value ([`rules`]).
//! 3. The engine reads the attribute values (`Item`, `Key`, `ExclusiveStartKey`, legacy
//!    conditions), then calls [`check_after_values`] for the rules DynamoDB applies after them.
//! 4. Right before it reads `ExpressionAttributeValues` and parses the expressions of a request
//!    (or of a table of a batch, or an action of a transaction), the engine calls
//!    [`check_expression_maps`].
//!
//! The schemas are static data written in a small language of shapes ([`shape`], [`schema`]);
//! the walkers allocate nothing while a request is valid.

mod base64;
mod constraints;
mod path;
mod rules;
mod schema;
mod shape;
mod types;

#[cfg(test)]
mod tests;

use crate::json::Json;

use crate::error::DynamoError;
use crate::operation::Operation;
use rules::{Object, batch, control, create_table, expressions, items, reads, streams, transact, update_table};
use schema::{
    backups as backup_schema, batch as batch_schema, items as item_schema, partiql as partiql_schema,
    policies as policy_schema, reads as read_schema, streams as stream_schema, tables, transact as transact_schema,
    transfers as transfer_schema,
};
use shape::{Resolved, StructShape};

pub(crate) use rules::control::access_denied;

/// What DynamoDB answers for a body that is not a JSON object: a `SerializationException`
/// without a message.
fn unreadable_body() -> DynamoError {
    DynamoError::serialization("")
}

/// Reads a request body. An empty body, text that is not JSON, and JSON that is not an object
/// (`null`, a list, a scalar) are all refused with a bare `SerializationException`, as DynamoDB
/// answers a body it cannot deserialize.
///
/// DynamoDB reports a body that is not JSON before it looks at `X-Amz-Target`, and an empty body
/// after it: a caller that resolves the target should call this first, report its error at once
/// unless the body is empty, and otherwise report an unknown target first.
pub(crate) fn parse_body<'a>(body: &'a [u8], arena: &'a crate::json::Arena) -> Result<Json<'a>, DynamoError> {
    match crate::json::from_slice(body, arena) {
        Some(json @ Json::Object(_)) => Ok(json),
        _ => Err(unreadable_body()),
    }
}

/// A check made once the member types passed and before the other constraints: it reads the
/// request, the members resolved against the schema, and the schema.
type FirstCheck = fn(&Object<'_>, &Resolved<'_>, &'static StructShape) -> Result<(), DynamoError>;

/// One operation: its input schema and its rules.
struct OperationChecks {
    /// The schema of the request body.
    input: &'static StructShape,
    /// What DynamoDB checks before the constraints: the table name of the table operations of
    /// the control plane, the presence of a batch's `RequestItems`.
    first: FirstCheck,
    /// The rules that read no attribute value.
    rules: fn(&Object<'_>) -> Result<(), DynamoError>,
    /// The rules DynamoDB applies once the attribute values were read.
    after_values: fn(&Object<'_>) -> Result<(), DynamoError>,
}

/// Nothing to check before the constraints.
fn nothing_first(_: &Object<'_>, _: &Resolved<'_>, _: &'static StructShape) -> Result<(), DynamoError> {
    Ok(())
}

/// `TableName` of a table operation of the control plane: present, and of a name's length.
fn table_name_first(request: &Object<'_>, _: &Resolved<'_>, _: &'static StructShape) -> Result<(), DynamoError> {
    control::table_name_present(request)
}

/// `TableName` of CreateTable: present, then its constraints, reported alone (nubo-db's
/// conformance suite, recorded against DynamoDB: an empty or malformed name reports only
/// `tableName`, in the constraint's words).
fn create_table_name_first(
    request: &Object<'_>,
    members: &Resolved<'_>,
    input: &'static StructShape,
) -> Result<(), DynamoError> {
    control::table_name_required(request)?;
    constraints::check_member_alone(members, input, "TableName")
}

/// `RequestItems` of BatchGetItem.
fn batch_get_first(request: &Object<'_>, _: &Resolved<'_>, _: &'static StructShape) -> Result<(), DynamoError> {
    batch::request_items_present(request, "BatchGetItem")
}

/// `RequestItems` of BatchWriteItem.
fn batch_write_first(request: &Object<'_>, _: &Resolved<'_>, _: &'static StructShape) -> Result<(), DynamoError> {
    batch::request_items_present(request, "BatchWriteItem")
}

impl OperationChecks {
    const fn new(input: &'static StructShape, rules: fn(&Object<'_>) -> Result<(), DynamoError>) -> OperationChecks {
        OperationChecks { input, first: nothing_first, rules, after_values: rules::pass }
    }

    const fn checking_first(mut self, first: FirstCheck) -> OperationChecks {
        self.first = first;
        self
    }

    const fn with_table_name_first(self) -> OperationChecks {
        self.checking_first(table_name_first)
    }

    const fn then_after_values(mut self, after_values: fn(&Object<'_>) -> Result<(), DynamoError>) -> OperationChecks {
        self.after_values = after_values;
        self
    }
}

/// The checks of an operation's requests.
fn checks_of(operation: Operation) -> &'static OperationChecks {
    static CREATE_TABLE: OperationChecks =
        OperationChecks::new(&tables::CREATE_TABLE, create_table::check).checking_first(create_table_name_first);
    static UPDATE_TABLE: OperationChecks =
        OperationChecks::new(&tables::UPDATE_TABLE, update_table::check).with_table_name_first();
    static TABLE_ONLY: OperationChecks = OperationChecks::new(&tables::TABLE_ONLY, rules::pass).with_table_name_first();
    static LIST_TABLES: OperationChecks = OperationChecks::new(&tables::LIST_TABLES, rules::pass);
    static UPDATE_TIME_TO_LIVE: OperationChecks =
        OperationChecks::new(&tables::UPDATE_TIME_TO_LIVE, rules::pass).with_table_name_first();
    static TAG_RESOURCE: OperationChecks = OperationChecks::new(&tables::TAG_RESOURCE, control::tag_resource);
    static UNTAG_RESOURCE: OperationChecks = OperationChecks::new(&tables::UNTAG_RESOURCE, control::untag_resource);
    static LIST_TAGS: OperationChecks =
        OperationChecks::new(&tables::LIST_TAGS_OF_RESOURCE, control::list_tags_of_resource);
    static EMPTY: OperationChecks = OperationChecks::new(&tables::EMPTY, rules::pass);
    static PUT_ITEM: OperationChecks = OperationChecks::new(&item_schema::PUT_ITEM, items::conditional_write)
        .then_after_values(items::conditional_write_after_values);
    static DELETE_ITEM: OperationChecks = OperationChecks::new(&item_schema::DELETE_ITEM, items::conditional_write)
        .then_after_values(items::conditional_write_after_values);
    static UPDATE_ITEM: OperationChecks = OperationChecks::new(&item_schema::UPDATE_ITEM, items::update);
    static GET_ITEM: OperationChecks =
        OperationChecks::new(&item_schema::GET_ITEM, items::get).then_after_values(items::get_after_values);
    static QUERY: OperationChecks =
        OperationChecks::new(&read_schema::QUERY, reads::query).then_after_values(reads::query_after_values);
    static SCAN: OperationChecks =
        OperationChecks::new(&read_schema::SCAN, reads::scan).then_after_values(reads::scan_after_values);
    static BATCH_GET_ITEM: OperationChecks = OperationChecks::new(&batch_schema::BATCH_GET_ITEM, batch::get)
        .checking_first(batch_get_first)
        .then_after_values(batch::get_after_values);
    static BATCH_WRITE_ITEM: OperationChecks =
        OperationChecks::new(&batch_schema::BATCH_WRITE_ITEM, batch::write).checking_first(batch_write_first);
    static TRANSACT_WRITE_ITEMS: OperationChecks =
        OperationChecks::new(&transact_schema::TRANSACT_WRITE_ITEMS, transact::write);
    static TRANSACT_GET_ITEMS: OperationChecks =
        OperationChecks::new(&transact_schema::TRANSACT_GET_ITEMS, transact::get);
    static LIST_STREAMS: OperationChecks = OperationChecks::new(&stream_schema::LIST_STREAMS, rules::pass);
    static DESCRIBE_STREAM: OperationChecks =
        OperationChecks::new(&stream_schema::DESCRIBE_STREAM, streams::describe_stream);
    static GET_SHARD_ITERATOR: OperationChecks =
        OperationChecks::new(&stream_schema::GET_SHARD_ITERATOR, streams::get_shard_iterator);
    static GET_RECORDS: OperationChecks = OperationChecks::new(&stream_schema::GET_RECORDS, rules::pass);
    static EXECUTE_STATEMENT: OperationChecks = OperationChecks::new(&partiql_schema::EXECUTE_STATEMENT, rules::pass);
    static BATCH_EXECUTE_STATEMENT: OperationChecks =
        OperationChecks::new(&partiql_schema::BATCH_EXECUTE_STATEMENT, rules::pass);
    static EXECUTE_TRANSACTION: OperationChecks =
        OperationChecks::new(&partiql_schema::EXECUTE_TRANSACTION, rules::pass);
    static CREATE_BACKUP: OperationChecks = OperationChecks::new(&backup_schema::CREATE_BACKUP, rules::pass);
    static BACKUP_ONLY: OperationChecks = OperationChecks::new(&backup_schema::BACKUP_ONLY, rules::pass);
    static LIST_BACKUPS: OperationChecks = OperationChecks::new(&backup_schema::LIST_BACKUPS, rules::pass);
    static RESTORE_TABLE_FROM_BACKUP: OperationChecks =
        OperationChecks::new(&backup_schema::RESTORE_TABLE_FROM_BACKUP, rules::pass);
    static DESCRIBE_CONTINUOUS_BACKUPS: OperationChecks =
        OperationChecks::new(&backup_schema::DESCRIBE_CONTINUOUS_BACKUPS, rules::pass);
    static UPDATE_CONTINUOUS_BACKUPS: OperationChecks =
        OperationChecks::new(&backup_schema::UPDATE_CONTINUOUS_BACKUPS, rules::pass);
    static RESTORE_TABLE_TO_POINT_IN_TIME: OperationChecks =
        OperationChecks::new(&backup_schema::RESTORE_TABLE_TO_POINT_IN_TIME, rules::pass);
    static PUT_RESOURCE_POLICY: OperationChecks =
        OperationChecks::new(&policy_schema::PUT_RESOURCE_POLICY, rules::pass);
    static GET_RESOURCE_POLICY: OperationChecks =
        OperationChecks::new(&policy_schema::GET_RESOURCE_POLICY, rules::pass);
    static DELETE_RESOURCE_POLICY: OperationChecks =
        OperationChecks::new(&policy_schema::DELETE_RESOURCE_POLICY, rules::pass);
    static EXPORT_TABLE_TO_POINT_IN_TIME: OperationChecks =
        OperationChecks::new(&transfer_schema::EXPORT_TABLE_TO_POINT_IN_TIME, rules::pass);
    static DESCRIBE_EXPORT: OperationChecks = OperationChecks::new(&transfer_schema::DESCRIBE_EXPORT, rules::pass);
    static LIST_EXPORTS: OperationChecks = OperationChecks::new(&transfer_schema::LIST_EXPORTS, rules::pass);
    static IMPORT_TABLE: OperationChecks = OperationChecks::new(&transfer_schema::IMPORT_TABLE, rules::pass);
    static DESCRIBE_IMPORT: OperationChecks = OperationChecks::new(&transfer_schema::DESCRIBE_IMPORT, rules::pass);
    static LIST_IMPORTS: OperationChecks = OperationChecks::new(&transfer_schema::LIST_IMPORTS, rules::pass);

    match operation {
        Operation::CreateTable => &CREATE_TABLE,
        Operation::UpdateTable => &UPDATE_TABLE,
        Operation::DeleteTable | Operation::DescribeTable | Operation::DescribeTimeToLive => &TABLE_ONLY,
        Operation::ListTables => &LIST_TABLES,
        Operation::UpdateTimeToLive => &UPDATE_TIME_TO_LIVE,
        Operation::TagResource => &TAG_RESOURCE,
        Operation::UntagResource => &UNTAG_RESOURCE,
        Operation::ListTagsOfResource => &LIST_TAGS,
        Operation::DescribeLimits | Operation::DescribeEndpoints => &EMPTY,
        Operation::PutItem => &PUT_ITEM,
        Operation::DeleteItem => &DELETE_ITEM,
        Operation::UpdateItem => &UPDATE_ITEM,
        Operation::GetItem => &GET_ITEM,
        Operation::Query => &QUERY,
        Operation::Scan => &SCAN,
        Operation::BatchGetItem => &BATCH_GET_ITEM,
        Operation::BatchWriteItem => &BATCH_WRITE_ITEM,
        Operation::TransactWriteItems => &TRANSACT_WRITE_ITEMS,
        Operation::TransactGetItems => &TRANSACT_GET_ITEMS,
        Operation::ListStreams => &LIST_STREAMS,
        Operation::DescribeStream => &DESCRIBE_STREAM,
        Operation::GetShardIterator => &GET_SHARD_ITERATOR,
        Operation::GetRecords => &GET_RECORDS,
        Operation::ExecuteStatement => &EXECUTE_STATEMENT,
        Operation::BatchExecuteStatement => &BATCH_EXECUTE_STATEMENT,
        Operation::ExecuteTransaction => &EXECUTE_TRANSACTION,
        Operation::CreateBackup => &CREATE_BACKUP,
        Operation::DescribeBackup | Operation::DeleteBackup => &BACKUP_ONLY,
        Operation::ListBackups => &LIST_BACKUPS,
        Operation::RestoreTableFromBackup => &RESTORE_TABLE_FROM_BACKUP,
        Operation::DescribeContinuousBackups => &DESCRIBE_CONTINUOUS_BACKUPS,
        Operation::UpdateContinuousBackups => &UPDATE_CONTINUOUS_BACKUPS,
        Operation::RestoreTableToPointInTime => &RESTORE_TABLE_TO_POINT_IN_TIME,
        Operation::PutResourcePolicy => &PUT_RESOURCE_POLICY,
        Operation::GetResourcePolicy => &GET_RESOURCE_POLICY,
        Operation::DeleteResourcePolicy => &DELETE_RESOURCE_POLICY,
        Operation::ExportTableToPointInTime => &EXPORT_TABLE_TO_POINT_IN_TIME,
        Operation::DescribeExport => &DESCRIBE_EXPORT,
        Operation::ListExports => &LIST_EXPORTS,
        Operation::ImportTable => &IMPORT_TABLE,
        Operation::DescribeImport => &DESCRIBE_IMPORT,
        Operation::ListImports => &LIST_IMPORTS,
    }
}

/// Checks a request body for `operation` before the engine reads any attribute value or looks
/// at any table: member types, member constraints, then the operation's rules that need no
/// attribute value. An operation the fake does not serve passes; the engine answers it.
pub(crate) fn check(operation: Operation, body: &Json<'_>) -> Result<(), DynamoError> {
    let operation = checks_of(operation);
    let Json::Object(request) = body else {
        return Err(unreadable_body());
    };
    let members = types::check_body(request, operation.input)?;
    (operation.first)(request, &members, operation.input)?;
    constraints::check_body(&members, operation.input)?;
    (operation.rules)(request)
}

/// The rules DynamoDB applies after it read the attribute values of a request and before its
/// expressions: `ReturnValues` of `PutItem`/`DeleteItem`, duplicates in `AttributesToGet`, the
/// key condition of `Query`, the segments of `Scan`. Call it once [`check`] passed and the
/// values were read.
pub(crate) fn check_after_values(operation: Operation, body: &Json<'_>) -> Result<(), DynamoError> {
    match body {
        Json::Object(request) => (checks_of(operation).after_values)(request),
        _ => Ok(()),
    }
}

/// Checks `ExpressionAttributeNames` and `ExpressionAttributeValues` of a request, of a table
/// of `BatchGetItem`, or of an action of a transaction: if present, not empty, and keyed by
/// placeholders (`#name`, `:value`). Call it right before reading the values of
/// `ExpressionAttributeValues` and parsing the expressions.
pub(crate) fn check_expression_maps(request: &Json<'_>) -> Result<(), DynamoError> {
    match request {
        Json::Object(request) => expressions::check_maps(request),
        _ => Ok(()),
    }
}

/// Checks `ExpressionAttributeNames` of a read whose input has no `ExpressionAttributeValues`
/// (GetItem, a table of BatchGetItem, a `Get` of TransactGetItems), as
/// [`check_expression_maps`] does; `ExpressionAttributeValues` is ignored there.
pub(crate) fn check_expression_names(request: &Json<'_>) -> Result<(), DynamoError> {
    match request {
        Json::Object(request) => expressions::check_names(request),
        _ => Ok(()),
    }
}

/// A boolean member as DynamoDB reads it: `true`/`false`, or a string such as `"TRUE"`,
/// `"no"` or `"1"` (the type check has refused every other string).
pub(crate) fn as_bool(json: &Json<'_>) -> Option<bool> {
    match json {
        Json::Bool(b) => Some(*b),
        Json::String(s) => types::text_as_bool(s),
        _ => None,
    }
}

/// An integer member as DynamoDB reads it: a decimal is rounded down; beyond `i64` it saturates.
pub(crate) fn as_integer(json: &Json<'_>) -> Option<i64> {
    constraints::integer_of(json).map(|n| i64::try_from(n).unwrap_or(if n < 0 { i64::MIN } else { i64::MAX }))
}
