//! `BatchGetItem` and `BatchWriteItem`: per-table expression parameters and the limits across
//! tables.

use super::{Object, attributes_to_get_unique, items, list, object, refuse};
use crate::error::DynamoError;
use crate::json::Json;

/// The most keys one `BatchGetItem` may read.
const MAX_GET_KEYS: usize = 100;
/// The most requests one `BatchWriteItem` may make.
const MAX_WRITE_REQUESTS: usize = 25;

fn tables<'a>(request: &'a Object<'a>) -> impl Iterator<Item = (&'a str, &'a Json<'a>)> {
    object(request, "RequestItems").into_iter().flatten()
}

/// A batch's `RequestItems`, if present, names at least one table (nubo-db's conformance suite,
/// recorded against DynamoDB in 2026; dynalite's older captures had the length constraint).
pub(crate) fn request_items_present(request: &Object<'_>, operation: &str) -> Result<(), DynamoError> {
    match object(request, "RequestItems") {
        Some(tables) if tables.is_empty() => refuse(format!("The requestItems parameter is required for {operation}")),
        _ => Ok(()),
    }
}

/// `BatchGetItem` before the keys are read.
pub(crate) fn get(request: &Object<'_>) -> Result<(), DynamoError> {
    let mut keys = 0;
    for (_, table) in tables(request) {
        let Some(table) = table.as_object() else {
            continue;
        };
        items::projection(table)?;
        keys += list(table, "Keys").map_or(0, <[_]>::len);
    }
    if keys > MAX_GET_KEYS {
        return refuse("Too many items requested for the BatchGetItem call");
    }
    Ok(())
}

/// `BatchGetItem` once the keys are read.
pub(crate) fn get_after_values(request: &Object<'_>) -> Result<(), DynamoError> {
    tables(request).filter_map(|(_, table)| table.as_object()).try_for_each(attributes_to_get_unique)
}

/// `BatchWriteItem` before the items are read.
pub(crate) fn write(request: &Object<'_>) -> Result<(), DynamoError> {
    let mut requests = 0;
    for (_, table) in tables(request) {
        let writes = table.as_array().unwrap_or_default();
        // A write request with neither a put nor a delete, or none at all, is refused with this
        // odd message.
        let is_empty = |write: &Json<'_>| {
            write.as_object().is_none_or(|w| ["PutRequest", "DeleteRequest"].iter().all(|r| object(w, r).is_none()))
        };
        if writes.iter().any(is_empty) {
            return refuse(
                "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes",
            );
        }
        requests += writes.len();
    }
    if requests > MAX_WRITE_REQUESTS {
        return refuse("Too many items requested for the BatchWriteItem call");
    }
    Ok(())
}
