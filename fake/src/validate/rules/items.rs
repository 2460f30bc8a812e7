//! `PutItem`, `GetItem`, `UpdateItem`, `DeleteItem`.

use super::expressions::{Parameters, check_parameters};
use super::{Object, attributes_to_get_unique, refuse_request, text};
use crate::error::DynamoError;

const CONDITION: Parameters =
    Parameters { expressions: &["ConditionExpression"], legacy: &["Expected"], names_null_expressions: false };

/// `PutItem` and `DeleteItem` before the values are read.
pub(crate) fn conditional_write(request: &Object<'_>) -> Result<(), DynamoError> {
    check_parameters(request, CONDITION)
}

/// `PutItem` and `DeleteItem` once the values are read: they can only return the old item.
pub(crate) fn conditional_write_after_values(request: &Object<'_>) -> Result<(), DynamoError> {
    match text(request, "ReturnValues") {
        None | Some("ALL_OLD" | "NONE") => Ok(()),
        Some(_) => refuse_request("ReturnValues can only be ALL_OLD or NONE"),
    }
}

/// `UpdateItem` before the values are read.
pub(crate) fn update(request: &Object<'_>) -> Result<(), DynamoError> {
    check_parameters(
        request,
        Parameters {
            expressions: &["UpdateExpression", "ConditionExpression"],
            legacy: &["AttributeUpdates", "Expected"],
            names_null_expressions: false,
        },
    )
}

const PROJECTION: Parameters =
    Parameters { expressions: &["ProjectionExpression"], legacy: &["AttributesToGet"], names_null_expressions: true };

/// `GetItem` before the key is read.
pub(crate) fn get(request: &Object<'_>) -> Result<(), DynamoError> {
    check_parameters(request, PROJECTION)
}

/// `GetItem` once the key is read.
pub(crate) fn get_after_values(request: &Object<'_>) -> Result<(), DynamoError> {
    attributes_to_get_unique(request)
}

/// The projection parameters of a read of one table's items, also used by the batch and
/// transaction reads.
pub(crate) fn projection(request: &Object<'_>) -> Result<(), DynamoError> {
    check_parameters(request, PROJECTION)
}
