//! The [`LockStore`] over a DynamoDB table: one item per lock, written with conditional
//! UpdateItem requests.
//!
//! The item of lock `name` has the partition key `LOCK#<name>` and, if the table has a sort
//! key, the sort key `LOCK`. Its attributes are named below; a time-to-live attribute is added
//! when the options ask for one.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::describe_table::DescribeTableError;
use aws_sdk_dynamodb::operation::describe_time_to_live::DescribeTimeToLiveError;
use aws_sdk_dynamodb::operation::get_item::GetItemError;
use aws_sdk_dynamodb::operation::scan::ScanError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder;
use aws_sdk_dynamodb::types::{
    AttributeValue, KeyType, ReturnValue, ReturnValuesOnConditionCheckFailure, ScalarAttributeType, TableDescription,
    TimeToLiveStatus,
};

use super::{AcquireOutcome, Cursor, Expect, Grant, LockStore, LockView, Page, RenewOutcome, StoreFuture};
use crate::clock::Clock;
use crate::error::Error;
use crate::item_mismatch::ItemMismatch;
use crate::lock_table::{MAX_LEASE, MIN_LEASE};
use crate::table::TableRef;
use crate::table_check::TableMismatch;

/// `LOCK`: the value of `_type`, and the sort key of a lock item.
pub(crate) const LOCK: &str = "LOCK";
/// The prefix of the partition key of a lock item.
pub(crate) const KEY_PREFIX: &str = "LOCK#";
/// Tells a lock from an entity in a single-table design.
pub(crate) const TYPE: &str = "_type";
/// The id of the lease that holds the lock; absent while it is free.
pub(crate) const OWNER: &str = "owner";
/// The record version number, new on every acquire and renewal.
pub(crate) const RVN: &str = "rvn";
/// The fencing token, raised by one with ADD on every acquire.
pub(crate) const FENCE: &str = "fence";
/// The lease duration in milliseconds; absent while the lock is free.
pub(crate) const LEASE_MS: &str = "leaseMs";
/// The holder label; absent while the lock is free or its holder has no label.
pub(crate) const HOLDER: &str = "holder";

/// The attributes a lock owns, which no option may reuse.
pub(crate) const LOCK_ATTRIBUTES: [&str; 6] = [TYPE, OWNER, RVN, FENCE, LEASE_MS, HOLDER];

/// Error codes of DynamoDB after which the same request may succeed later.
const TRANSIENT_CODES: [&str; 8] = [
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "Throttling",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "TransactionConflictException",
    "LimitExceededException",
];

/// The key of the item of lock `name` in `table`.
pub(crate) fn lock_key(table: &TableRef, name: &str) -> HashMap<String, AttributeValue> {
    let mut key = HashMap::with_capacity(2);
    key.insert(table.partition_key.clone(), AttributeValue::S(format!("{KEY_PREFIX}{name}")));
    if let Some(sort_key) = &table.sort_key {
        key.insert(sort_key.clone(), AttributeValue::S(LOCK.to_owned()));
    }
    key
}

/// The name of the lock whose item has `key`, or `None` for an item at a key no lock has.
pub(crate) fn lock_name(table: &TableRef, item: &HashMap<String, AttributeValue>) -> Option<String> {
    let partition = item.get(&table.partition_key)?.as_s().ok()?;
    let name = partition.strip_prefix(KEY_PREFIX).filter(|name| !name.is_empty())?;
    if let Some(sort_key) = &table.sort_key {
        if item.get(sort_key)?.as_s().ok()? != LOCK {
            return None;
        }
    }
    Some(name.to_owned())
}

/// How the keys of the table `described` differ from those of `table`, if they do.
fn key_mismatch(table: &TableRef, described: &TableDescription) -> Option<TableMismatch> {
    let key_named = |kind: KeyType| {
        described.key_schema().iter().find(|k| *k.key_type() == kind).map(|k| k.attribute_name().to_owned())
    };
    let hash = key_named(KeyType::Hash);
    let range = key_named(KeyType::Range);
    if hash.as_deref() != Some(table.partition_key.as_str()) {
        return Some(TableMismatch::PartitionKey { expected: table.partition_key.clone(), found: hash });
    }
    if range != table.sort_key {
        return Some(TableMismatch::SortKey { expected: table.sort_key.clone(), found: range });
    }
    for key in [hash, range].into_iter().flatten() {
        let kind =
            described.attribute_definitions().iter().find(|d| d.attribute_name() == key).map(|d| d.attribute_type());
        if kind != Some(&ScalarAttributeType::S) {
            let found = kind.map_or_else(|| String::from("unknown"), |kind| kind.as_str().to_owned());
            return Some(TableMismatch::KeyNotString { key, found });
        }
    }
    None
}

/// Decodes a lock item, or says why it is not one.
pub(crate) fn decode(item: &HashMap<String, AttributeValue>) -> Result<LockView, ItemMismatch> {
    let string = |attr: &str| -> Result<Option<&String>, ItemMismatch> {
        match item.get(attr) {
            None => Ok(None),
            Some(AttributeValue::S(s)) => Ok(Some(s)),
            Some(_) => Err(ItemMismatch::WrongType { attribute: attr.to_owned(), expected: "a string" }),
        }
    };
    let number = |attr: &str| -> Result<Option<u64>, ItemMismatch> {
        match item.get(attr) {
            None => Ok(None),
            Some(AttributeValue::N(n)) => n
                .parse::<u64>()
                .map(Some)
                .map_err(|_| ItemMismatch::NotAWholeNumber { attribute: attr.to_owned(), value: n.clone() }),
            Some(_) => Err(ItemMismatch::WrongType { attribute: attr.to_owned(), expected: "a number" }),
        }
    };

    let kind = string(TYPE)?;
    let owner = string(OWNER)?;
    if kind.map(String::as_str) != Some(LOCK) {
        return Err(match (kind, owner) {
            (Some(_), _) => ItemMismatch::OtherType,
            (None, Some(_)) => ItemMismatch::OwnerWithoutType,
            (None, None) => ItemMismatch::NoType,
        });
    }
    let fence = number(FENCE)?;
    let Some(owner) = owner else {
        return Ok(LockView::Free { fence: fence.unwrap_or(0) });
    };

    let rvn = string(RVN)?;
    let lease_ms = number(LEASE_MS)?;
    let missing: Vec<&'static str> = [(RVN, rvn.is_none()), (FENCE, fence.is_none()), (LEASE_MS, lease_ms.is_none())]
        .into_iter()
        .filter_map(|(attr, absent)| absent.then_some(attr))
        .collect();
    let (Some(rvn), Some(fence), Some(lease_ms)) = (rvn, fence, lease_ms) else {
        return Err(ItemMismatch::Missing { attributes: missing });
    };
    let lease = Duration::from_millis(lease_ms);
    if !(MIN_LEASE..=MAX_LEASE).contains(&lease) {
        return Err(ItemMismatch::LeaseOutOfRange { attribute: LEASE_MS, value: lease_ms.to_string() });
    }
    Ok(LockView::Held(super::Holder {
        owner: owner.clone(),
        rvn: rvn.clone(),
        fence,
        lease,
        label: string(HOLDER)?.cloned(),
    }))
}

/// The clauses of one UpdateItem, with their placeholders.
#[derive(Debug, Default)]
struct Update {
    set: Vec<String>,
    add: Vec<String>,
    remove: Vec<String>,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Update {
    fn name(&mut self, placeholder: &str, attribute: &str) -> &mut Self {
        self.names.insert(placeholder.to_owned(), attribute.to_owned());
        self
    }

    fn set(&mut self, placeholder: &str, attribute: &str, value: AttributeValue) -> &mut Self {
        let value_placeholder = format!(":{}", &placeholder[1..]);
        self.set.push(format!("{placeholder} = {value_placeholder}"));
        self.values.insert(value_placeholder, value);
        self.name(placeholder, attribute)
    }

    fn remove(&mut self, placeholder: &str, attribute: &str) -> &mut Self {
        self.remove.push(placeholder.to_owned());
        self.name(placeholder, attribute)
    }

    fn value(&mut self, placeholder: &str, value: AttributeValue) -> &mut Self {
        self.values.insert(placeholder.to_owned(), value);
        self
    }

    fn expression(&self) -> String {
        let mut clauses = Vec::with_capacity(3);
        if !self.set.is_empty() {
            clauses.push(format!("SET {}", self.set.join(", ")));
        }
        if !self.add.is_empty() {
            clauses.push(format!("ADD {}", self.add.join(", ")));
        }
        if !self.remove.is_empty() {
            clauses.push(format!("REMOVE {}", self.remove.join(", ")));
        }
        clauses.join(" ")
    }

    fn apply(self, request: UpdateItemFluentBuilder) -> UpdateItemFluentBuilder {
        let expression = self.expression();
        request
            .update_expression(expression)
            .set_expression_attribute_names(Some(self.names))
            .set_expression_attribute_values((!self.values.is_empty()).then_some(self.values))
    }
}

/// Lock items in a DynamoDB table.
#[derive(Debug)]
pub(crate) struct DynamoStore {
    table: TableRef,
    time_to_live: Option<(String, Duration)>,
    clock: Arc<dyn Clock>,
}

impl DynamoStore {
    pub(crate) fn new(table: TableRef, time_to_live: Option<(String, Duration)>, clock: Arc<dyn Clock>) -> Self {
        Self { table, time_to_live, clock }
    }

    fn update(&self, name: &str) -> UpdateItemFluentBuilder {
        self.table.client.update_item().table_name(&self.table.table).set_key(Some(lock_key(&self.table, name)))
    }

    /// Sets the time-to-live attribute, if configured, to the wall clock plus the retention.
    fn expiry(&self, update: &mut Update) {
        if let Some((attribute, retention)) = &self.time_to_live {
            let due = epoch_seconds(self.clock.wall() + *retention);
            update.set("#ttl", attribute, AttributeValue::N(due.to_string()));
        }
    }

    /// The attributes a holder writes on every acquire and renewal: all but the lease duration
    /// if `keep_lease`.
    fn holder_attributes(&self, update: &mut Update, grant: &Grant<'_>, keep_lease: bool) {
        update.set("#rvn", RVN, AttributeValue::S(grant.rvn.to_owned()));
        if !keep_lease {
            update.set("#leaseMs", LEASE_MS, AttributeValue::N(grant.lease.as_millis().to_string()));
        }
        match grant.label {
            Some(label) => update.set("#holder", HOLDER, AttributeValue::S(label.to_owned())),
            None => update.remove("#holder", HOLDER),
        };
        self.expiry(update);
    }

    /// The update of an acquire, without its condition.
    fn acquire_update(&self, grant: &Grant<'_>) -> Update {
        let mut update = Update::default();
        update.set("#type", TYPE, AttributeValue::S(LOCK.to_owned())).set(
            "#owner",
            OWNER,
            AttributeValue::S(grant.owner.to_owned()),
        );
        self.holder_attributes(&mut update, grant, false);
        update.add.push(String::from("#fence :one"));
        update.name("#fence", FENCE).value(":one", AttributeValue::N(String::from("1")));
        update
    }

    fn decode_for(&self, name: &str, item: &HashMap<String, AttributeValue>) -> Result<LockView, Error> {
        decode(item).map_err(|reason| Error::NotALock {
            lock: name.to_owned(),
            table: self.table.table.clone(),
            reason,
        })
    }

    /// The [`Error`] for a failed request; a ValidationException is checked against the key
    /// schema of the table, which is the usual cause.
    async fn failure<E>(&self, operation: &'static str, err: SdkError<E, HttpResponse>) -> Error
    where
        E: ProvideErrorMetadata + StdError + Send + Sync + 'static,
    {
        match err.code() {
            Some("ResourceNotFoundException") => {
                return Error::TableNotFound { table: self.table.table.clone() };
            }
            Some("ValidationException") => {
                if let Some(mismatch) = self.key_schema_mismatch().await {
                    return Error::TableMismatch { table: self.table.table.clone(), mismatch };
                }
            }
            _ => {}
        }
        let transient = match &err {
            SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => true,
            SdkError::ServiceError(context) => {
                context.raw().status().is_server_error()
                    || err.code().is_some_and(|code| TRANSIENT_CODES.contains(&code))
            }
            _ => false,
        };
        Error::DynamoDb {
            operation,
            table: self.table.table.clone(),
            code: err.code().map(str::to_owned),
            transient,
            source: Box::new(err),
        }
    }

    /// Describes the table and compares its keys with the [`TableRef`]. `None` when they fit
    /// or when the table cannot be described.
    async fn key_schema_mismatch(&self) -> Option<TableMismatch> {
        let described = self.table.client.describe_table().table_name(&self.table.table).send().await.ok()?;
        key_mismatch(&self.table, described.table()?)
    }

    /// Checks that time to live is enabled (or being enabled) on `attribute`.
    async fn check_time_to_live(&self, attribute: &str) -> Result<(), Error> {
        let described = match self.table.client.describe_time_to_live().table_name(&self.table.table).send().await {
            Ok(described) => described,
            Err(err) => return Err(self.failure("DescribeTimeToLive", err).await),
        };
        let description = described.time_to_live_description();
        let status = description.and_then(|d| d.time_to_live_status());
        let enabled = matches!(status, Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling));
        let enabled_on = description.and_then(|d| d.attribute_name()).filter(|_| enabled);
        if enabled_on == Some(attribute) {
            return Ok(());
        }
        Err(Error::TableMismatch {
            table: self.table.table.clone(),
            mismatch: TableMismatch::TimeToLiveDisabled {
                attribute: attribute.to_owned(),
                enabled_on: enabled_on.map(str::to_owned),
            },
        })
    }

    /// The item that a failed conditional update brought back (ALL_OLD).
    fn old_item(err: &SdkError<UpdateItemError, HttpResponse>) -> Option<Option<&HashMap<String, AttributeValue>>> {
        match err.as_service_error() {
            Some(UpdateItemError::ConditionalCheckFailedException(failed)) => Some(failed.item()),
            _ => None,
        }
    }

    /// The lock as a failed conditional update found it: the item the failure brought back or,
    /// where the answer carries none, the item read again. DynamoDB answers with the item when
    /// it exists; an older DynamoDB and some emulators never do, and reading tells a lock held
    /// by another owner from one that is gone. `None` when the update failed for another reason.
    async fn refused_view(
        &self,
        name: &str,
        err: &SdkError<UpdateItemError, HttpResponse>,
    ) -> Option<Result<LockView, Error>> {
        match Self::old_item(err)? {
            Some(item) => Some(self.decode_for(name, item)),
            None => Some(self.read(name).await),
        }
    }
}

impl LockStore for DynamoStore {
    fn table_name(&self) -> &str {
        &self.table.table
    }

    fn read<'a>(&'a self, name: &'a str) -> StoreFuture<'a, LockView> {
        Box::pin(async move {
            let answer = self
                .table
                .client
                .get_item()
                .table_name(&self.table.table)
                .set_key(Some(lock_key(&self.table, name)))
                .consistent_read(true)
                .send()
                .await;
            match answer {
                Ok(output) => match output.item() {
                    Some(item) => self.decode_for(name, item),
                    None => Ok(LockView::Absent),
                },
                Err(err) => Err(self.failure("GetItem", err).await),
            }
        })
    }

    fn check_table(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move {
            let described = match self.table.client.describe_table().table_name(&self.table.table).send().await {
                Ok(described) => described,
                Err(err) => return Err(self.failure("DescribeTable", err).await),
            };
            let Some(description) = described.table() else {
                return Err(Error::TableNotFound { table: self.table.table.clone() });
            };
            if let Some(mismatch) = key_mismatch(&self.table, description) {
                return Err(Error::TableMismatch { table: self.table.table.clone(), mismatch });
            }
            match &self.time_to_live {
                Some((attribute, _)) => self.check_time_to_live(attribute).await,
                None => Ok(()),
            }
        })
    }

    fn list<'a>(&'a self, cursor: Option<&'a Cursor>) -> StoreFuture<'a, Page> {
        Box::pin(async move {
            let start = match cursor {
                Some(Cursor::DynamoDb(key)) => Some(key.clone()),
                _ => None,
            };
            // Strongly consistent, so that a listing shows each lock as a read of it would.
            let answer = self
                .table
                .client
                .scan()
                .table_name(&self.table.table)
                .consistent_read(true)
                .filter_expression("#type = :lock")
                .expression_attribute_names("#type", TYPE)
                .expression_attribute_values(":lock", AttributeValue::S(LOCK.to_owned()))
                .set_exclusive_start_key(start)
                .send()
                .await;
            let output = match answer {
                Ok(output) => output,
                Err(err) => return Err(self.failure("Scan", err).await),
            };
            let locks = output
                .items()
                .iter()
                .filter_map(|item| {
                    let name = lock_name(&self.table, item)?;
                    let view = self.decode_for(&name, item);
                    Some((name, view))
                })
                .collect();
            let next = output.last_evaluated_key().filter(|key| !key.is_empty()).cloned().map(Cursor::DynamoDb);
            Ok(Page { locks, next })
        })
    }

    fn acquire<'a>(
        &'a self,
        name: &'a str,
        expect: &'a Expect,
        grant: &'a Grant<'a>,
    ) -> StoreFuture<'a, AcquireOutcome> {
        Box::pin(async move {
            let mut update = self.acquire_update(grant);
            // `OR #owner = :owner`: a retry of this very write, after its answer was lost,
            // finds its own owner and succeeds again.
            let condition = match expect {
                Expect::Free => {
                    update.name("#pk", &self.table.partition_key);
                    "((attribute_not_exists(#pk) OR #type = :type) AND attribute_not_exists(#owner)) OR #owner = :owner"
                }
                Expect::Version(rvn) => {
                    update.value(":seen", AttributeValue::S(rvn.clone()));
                    "#rvn = :seen OR #owner = :owner"
                }
            };
            let answer = update
                .apply(self.update(name))
                .condition_expression(condition)
                .return_values(ReturnValue::AllNew)
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
                .send()
                .await;
            match answer {
                Ok(output) => {
                    let view = match output.attributes() {
                        Some(item) => self.decode_for(name, item)?,
                        None => LockView::Absent,
                    };
                    match view {
                        LockView::Held(holder) if holder.owner == grant.owner => {
                            Ok(AcquireOutcome::Won { fence: holder.fence })
                        }
                        _ => Err(Error::NotALock {
                            lock: name.to_owned(),
                            table: self.table.table.clone(),
                            reason: ItemMismatch::NotReadBack { write: "acquire" },
                        }),
                    }
                }
                Err(err) => match self.refused_view(name, &err).await {
                    Some(view) => Ok(AcquireOutcome::Refused(view?)),
                    None => Err(self.failure("UpdateItem", err).await),
                },
            }
        })
    }

    fn renew<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>, keep_lease: bool) -> StoreFuture<'a, RenewOutcome> {
        Box::pin(async move {
            let mut update = Update::default();
            self.holder_attributes(&mut update, grant, keep_lease);
            update.name("#owner", OWNER).value(":owner", AttributeValue::S(grant.owner.to_owned()));
            let answer = update
                .apply(self.update(name))
                .condition_expression("#owner = :owner")
                .return_values(ReturnValue::AllNew)
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
                .send()
                .await;
            match answer {
                Ok(output) => match output.attributes().map(|item| self.decode_for(name, item)) {
                    Some(Ok(LockView::Held(holder))) if holder.owner == grant.owner => {
                        Ok(RenewOutcome::Renewed { lease: holder.lease })
                    }
                    Some(Err(err)) => Err(err),
                    _ => Err(Error::NotALock {
                        lock: name.to_owned(),
                        table: self.table.table.clone(),
                        reason: ItemMismatch::NotReadBack { write: "renewal" },
                    }),
                },
                Err(err) => match self.refused_view(name, &err).await {
                    Some(Ok(LockView::Absent)) => Ok(RenewOutcome::Deleted),
                    Some(Ok(_)) => Ok(RenewOutcome::TakenOver),
                    // Someone wrote an item that is no lock at the key: the lease is not held.
                    Some(Err(Error::NotALock { .. })) => Ok(RenewOutcome::TakenOver),
                    Some(Err(err)) => Err(err),
                    None => Err(self.failure("UpdateItem", err).await),
                },
            }
        })
    }

    fn release<'a>(&'a self, name: &'a str, owner: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut update = Update::default();
            update
                .remove("#owner", OWNER)
                .remove("#leaseMs", LEASE_MS)
                .remove("#holder", HOLDER)
                .value(":owner", AttributeValue::S(owner.to_owned()));
            self.expiry(&mut update);
            let answer = update.apply(self.update(name)).condition_expression("#owner = :owner").send().await;
            match answer {
                Ok(_) => Ok(true),
                Err(err) => match Self::old_item(&err) {
                    Some(_) => Ok(false),
                    None => Err(self.failure("UpdateItem", err).await),
                },
            }
        })
    }

    #[cfg(feature = "testing")]
    fn force_hold<'a>(&'a self, name: &'a str, grant: &'a Grant<'a>) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            let answer =
                self.acquire_update(grant).apply(self.update(name)).return_values(ReturnValue::AllNew).send().await;
            match answer {
                Ok(output) => match output.attributes().map(|item| self.decode_for(name, item)) {
                    Some(Ok(LockView::Held(holder))) => Ok(holder.fence),
                    Some(Err(err)) => Err(err),
                    _ => Err(Error::NotALock {
                        lock: name.to_owned(),
                        table: self.table.table.clone(),
                        reason: ItemMismatch::NotReadBack { write: "simulated holder" },
                    }),
                },
                Err(err) => Err(self.failure("UpdateItem", err).await),
            }
        })
    }

    #[cfg(feature = "testing")]
    fn force_release<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut update = Update::default();
            update
                .remove("#owner", OWNER)
                .remove("#leaseMs", LEASE_MS)
                .remove("#holder", HOLDER)
                .name("#pk", &self.table.partition_key);
            // The condition only keeps the release from creating an item that is not there.
            let answer = update.apply(self.update(name)).condition_expression("attribute_exists(#pk)").send().await;
            match answer {
                Ok(_) => Ok(()),
                Err(err) if Self::old_item(&err).is_some() => Ok(()),
                Err(err) => Err(self.failure("UpdateItem", err).await),
            }
        })
    }

    #[cfg(feature = "testing")]
    fn force_delete<'a>(&'a self, name: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let answer = self
                .table
                .client
                .delete_item()
                .table_name(&self.table.table)
                .set_key(Some(lock_key(&self.table, name)))
                .send()
                .await;
            match answer {
                Ok(_) => Ok(()),
                Err(err) => Err(self.failure("DeleteItem", err).await),
            }
        })
    }
}

/// The kind of a failed request that DynamoDB did not answer with an error code, for the
/// `error.type` of metrics: the request timed out, was not sent or delivered, or its response
/// could not be read.
pub(crate) fn failure_kind(source: &(dyn StdError + 'static)) -> &'static str {
    fn kind<E: StdError + 'static>(source: &(dyn StdError + 'static)) -> Option<&'static str> {
        Some(match source.downcast_ref::<SdkError<E, HttpResponse>>()? {
            SdkError::TimeoutError(_) => "timeout",
            SdkError::DispatchFailure(_) => "dispatch_failure",
            SdkError::ResponseError(_) => "response_error",
            SdkError::ConstructionFailure(_) => "construction_failure",
            _ => "_OTHER",
        })
    }
    kind::<GetItemError>(source)
        .or_else(|| kind::<UpdateItemError>(source))
        .or_else(|| kind::<DeleteItemError>(source))
        .or_else(|| kind::<ScanError>(source))
        .or_else(|| kind::<DescribeTableError>(source))
        .or_else(|| kind::<DescribeTimeToLiveError>(source))
        .unwrap_or("_OTHER")
}

/// Seconds since the epoch of a wall time, for the time-to-live attribute.
fn epoch_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pairs: &[(&str, AttributeValue)]) -> HashMap<String, AttributeValue> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }

    fn n(v: u64) -> AttributeValue {
        AttributeValue::N(v.to_string())
    }

    #[test]
    fn a_released_lock_is_free_with_its_fence() {
        let view = decode(&item(&[(TYPE, s(LOCK)), (FENCE, n(4)), (RVN, s("r"))]));
        assert_eq!(view, Ok(LockView::Free { fence: 4 }));
    }

    #[test]
    fn an_owner_without_the_lock_attributes_is_not_a_lock() {
        let reason = decode(&item(&[(OWNER, s("someone"))])).unwrap_err();
        assert_eq!(reason, ItemMismatch::OwnerWithoutType);
        let reason = decode(&item(&[(TYPE, s(LOCK)), (OWNER, s("o")), (FENCE, n(1))])).unwrap_err();
        assert_eq!(reason, ItemMismatch::Missing { attributes: vec![RVN, LEASE_MS] });
        assert_eq!(reason.to_string(), "it has an owner but no rvn and no leaseMs");
    }

    #[test]
    fn a_held_lock_decodes_with_its_holder() {
        let view = decode(&item(&[
            (TYPE, s(LOCK)),
            (OWNER, s("o")),
            (RVN, s("r")),
            (FENCE, n(2)),
            (LEASE_MS, n(30_000)),
            (HOLDER, s("pod-7")),
        ]));
        assert_eq!(
            view,
            Ok(LockView::Held(super::super::Holder {
                owner: "o".into(),
                rvn: "r".into(),
                fence: 2,
                lease: Duration::from_secs(30),
                label: Some("pod-7".into()),
            }))
        );
    }

    #[test]
    fn an_entity_without_a_type_is_not_a_lock() {
        assert!(decode(&item(&[("name", s("widget"))])).is_err());
        assert!(decode(&item(&[(TYPE, s("ORDER"))])).is_err());
    }
}
