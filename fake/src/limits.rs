//! DynamoDB's limits on the shape of what a request carries, beyond what the request schema says:
//! how deep a document nests, and how large a key may be.

use crate::error::DynamoError;
use crate::table::{KeyValue, PrimaryKey};
use crate::value::{Item, Value};

/// The deepest a document may nest, counting the attribute itself as the first level.
pub(crate) const MAX_NESTING_LEVELS: usize = 32;
/// The largest partition key value, in bytes.
pub(crate) const MAX_HASH_KEY_BYTES: usize = 2048;
/// The largest sort key value, in bytes.
pub(crate) const MAX_RANGE_KEY_BYTES: usize = 1024;

/// DynamoDB's error for a document nested deeper than [`MAX_NESTING_LEVELS`].
pub(crate) fn nesting_error() -> DynamoError {
    DynamoError::validation(
        "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit",
    )
}

/// The longest attribute name, in bytes. 64 KB itself is refused (ScyllaDB's Alternator suite,
/// against DynamoDB: 65535 is the last name accepted).
pub(crate) const MAX_ATTRIBUTE_NAME_BYTES: usize = 65535;

/// DynamoDB's refusal of an empty attribute name or one longer than
/// [`MAX_ATTRIBUTE_NAME_BYTES`], wherever a request names one: an item, `AttributesToGet`,
/// `AttributeUpdates`, the legacy conditions (`ExpressionAttributeNames` words an empty name
/// its own way, see `validate`).
pub(crate) fn check_attribute_name(name: &str) -> Result<(), DynamoError> {
    if name.is_empty() {
        return Err(empty_attribute_name());
    }
    if name.len() > MAX_ATTRIBUTE_NAME_BYTES {
        return Err(DynamoError::validation("Attribute name is too large, must be less than 65536 bytes"));
    }
    Ok(())
}

/// The refusal of an attribute named by the empty string.
#[cold]
fn empty_attribute_name() -> DynamoError {
    DynamoError::validation("Empty attribute name")
}

/// Checks what DynamoDB checks of an item to store beyond its values: every attribute has a
/// name of at most [`MAX_ATTRIBUTE_NAME_BYTES`], and none nests deeper than DynamoDB stores.
pub(crate) fn check_item_depth(item: &Item) -> Result<(), DynamoError> {
    // The names sort the empty one first, so the first name tells whether there is one.
    if item.keys().next().is_some_and(str::is_empty) {
        return Err(empty_attribute_name());
    }
    let mut too_deep = false;
    for (name, value) in item {
        check_attribute_name(name)?;
        too_deep = too_deep || exceeds(value, 1);
    }
    if too_deep { Err(nesting_error()) } else { Ok(()) }
}

/// True if `value`, found at `level`, nests beyond the limit. Iterative over siblings and
/// recursive only in depth, which the JSON reader has already bounded.
fn exceeds(value: &Value, level: usize) -> bool {
    if level > MAX_NESTING_LEVELS {
        return true;
    }
    match value {
        Value::M(map) => map.values().any(|v| exceeds(v, level + 1)),
        Value::L(list) => list.iter().any(|v| exceeds(v, level + 1)),
        _ => false,
    }
}

/// DynamoDB's error for a key value over its size limit, if `value` is one.
pub(crate) fn key_size_error(value: &KeyValue, is_hash: bool) -> Option<DynamoError> {
    let bytes = match value {
        KeyValue::S(s) => s.len(),
        KeyValue::B(b) => b.len(),
        // The values of a multi-attribute key part are checked one by one.
        KeyValue::N(_) | KeyValue::Tuple(_) => return None,
    };
    if is_hash && bytes > MAX_HASH_KEY_BYTES {
        return Some(DynamoError::invalid_parameter(
            "Size of hashkey has exceeded the maximum size limit of2048 bytes",
        ));
    }
    if !is_hash && bytes > MAX_RANGE_KEY_BYTES {
        return Some(DynamoError::invalid_parameter(
            "Aggregated size of all range keys has exceeded the size limit of 1024 bytes",
        ));
    }
    None
}

/// Checks the size of each part of a primary key.
pub(crate) fn check_key_size(key: &PrimaryKey) -> Result<(), DynamoError> {
    let pieces = std::iter::once((&key.hash, true)).chain(key.range.as_ref().map(|range| (range, false)));
    match pieces.filter_map(|(value, is_hash)| key_size_error(value, is_hash)).next() {
        Some(error) => Err(error),
        None => Ok(()),
    }
}
