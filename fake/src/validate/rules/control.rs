//! The small rules of the control plane: the table name of table operations, time to live,
//! and the resource of the tag operations.

use super::{Object, object, refuse, text};
use crate::error::DynamoError;

/// The check that table operations make on `TableName` before any constraint.
pub(crate) fn table_name_present(request: &Object<'_>) -> Result<(), DynamoError> {
    let Some(name) = text(request, "TableName") else {
        return refuse("The parameter 'TableName' is required but was not present in the request");
    };
    let len = name.encode_utf16().count();
    if !(3..=255).contains(&len) {
        return refuse("TableName must be at least 3 characters long and at most 255 characters long");
    }
    Ok(())
}

/// `UpdateTimeToLive`: the attribute must be named.
pub(crate) fn update_time_to_live(request: &Object<'_>) -> Result<(), DynamoError> {
    let attribute = object(request, "TimeToLiveSpecification").and_then(|spec| text(spec, "AttributeName"));
    if attribute == Some("") {
        return refuse("TimeToLiveSpecification.AttributeName must be non empty");
    }
    Ok(())
}

/// `TagResource`, `UntagResource`, `ListTagsOfResource`: the resource must be named.
pub(crate) fn resource_named(request: &Object<'_>) -> Result<(), DynamoError> {
    if text(request, "ResourceArn").is_none() {
        return refuse("Invalid TableArn");
    }
    Ok(())
}
