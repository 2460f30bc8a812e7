//! `UpdateTable`: something to update, throughput bounds, and one update per index.

use crate::json::Json;

use super::{Object, field, invalid, list, object, refuse, text, throughput};
use crate::error::DynamoError;

/// The members of which an update needs at least one.
const UPDATES: [&str; 11] = [
    "ProvisionedThroughput",
    "BillingMode",
    "StreamSpecification",
    "SSESpecification",
    "TableClass",
    "DeletionProtectionEnabled",
    "OnDemandThroughput",
    "WarmThroughput",
    "ReplicaUpdates",
    "MultiRegionConsistency",
    "GlobalTableWitnessUpdates",
];

const INDEX_ACTIONS: [&str; 3] = ["Update", "Create", "Delete"];

/// The rules of `UpdateTable`, in DynamoDB's order.
pub(crate) fn check(request: &Object<'_>) -> Result<(), DynamoError> {
    super::table_class(request)?;
    let index_updates = list(request, "GlobalSecondaryIndexUpdates").unwrap_or_default();
    if index_updates.is_empty() && !UPDATES.iter().any(|member| field(request, member).is_some()) {
        return refuse(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates \
             or SSESpecification or ReplicaUpdates is required",
        );
    }
    if let Some(table_throughput) = object(request, "ProvisionedThroughput") {
        if text(request, "BillingMode") == Some("PAY_PER_REQUEST") {
            return invalid(
                "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
            );
        }
        throughput::check_bounds(table_throughput, None)?;
    }
    check_stream(request, index_updates)?;
    for (i, update) in index_updates.iter().enumerate() {
        let Some(update) = update.as_object() else {
            continue;
        };
        let Some(name) = index_name(update) else {
            return invalid(
                "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, \
                 GlobalSecondaryIndexUpdate.Delete must not be null",
            );
        };
        if INDEX_ACTIONS.iter().filter(|action| object(update, action).is_some()).count() > 1 {
            return invalid("Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object");
        }
        if let Some(create) = object(update, "Create") {
            super::create_table::KeySchema::of(create).check_global_types()?;
        }
        let earlier = index_updates[..i].iter().filter_map(Json::as_object).filter_map(index_name);
        if earlier.into_iter().any(|earlier| earlier == name) {
            return invalid(format_args!(
                "Only one global secondary index update per index is allowed simultaneously. Index: {name}"
            ));
        }
    }
    Ok(())
}

/// The index an update names, if it has an action.
fn index_name<'a>(update: &'a Object<'a>) -> Option<&'a str> {
    let action = INDEX_ACTIONS.iter().find_map(|action| object(update, action))?;
    Some(text(action, "IndexName").unwrap_or_default())
}

/// A stream being enabled names its view type and one being disabled none; a stream's status
/// changes alone, without the table's throughput or an index created or deleted.
fn check_stream(request: &Object<'_>, index_updates: &[Json<'_>]) -> Result<(), DynamoError> {
    let Some(stream) = object(request, "StreamSpecification") else { return Ok(()) };
    let enabled = field(stream, "StreamEnabled").and_then(crate::validate::as_bool);
    let view = field(stream, "StreamViewType").is_some();
    match (enabled, view) {
        (Some(true), false) => return invalid("If stream is being enabled then UpdateViewType is required"),
        (Some(false), true) => {
            return invalid("If stream is being disabled, then UpdateViewType must not be specified");
        }
        _ => {}
    }
    if object(request, "ProvisionedThroughput").is_some() {
        return invalid("You cannot modify stream status while updating table IOPS");
    }
    let online = index_updates
        .iter()
        .filter_map(Json::as_object)
        .any(|update| object(update, "Create").is_some() || object(update, "Delete").is_some());
    if online {
        return invalid("You cannot create or delete index while changing stream status");
    }
    Ok(())
}
