//! The rules of each operation that the schema cannot say: how parameters combine, limits
//! across members, key schemas. They run after the constraints pass, so every member already has
//! its shape; they still read defensively, since nothing here may panic.
//!
//! Each operation has two sets, in DynamoDB's order around the engine's own checks: `check`
//! before the attribute values are read, `after_values` once they were.

use crate::json::Json;

use crate::error::DynamoError;
use crate::validate::types::same_name;

pub(crate) mod batch;
pub(crate) mod control;
pub(crate) mod create_table;
pub(crate) mod expressions;
pub(crate) mod items;
pub(crate) mod reads;
pub(crate) mod streams;
pub(crate) mod throughput;
pub(crate) mod transact;
pub(crate) mod update_table;

/// A request, or a structure inside it, as the rules read it.
pub(crate) type Object<'a> = crate::json::Object<'a>;

/// The member, unless absent or null.
pub(crate) fn field<'a>(object: &'a Object<'a>, name: &str) -> Option<&'a Json<'a>> {
    member(object, name).filter(|json| !json.is_null())
}

/// Looks a member up. A request object has a handful of members, and most names asked for are
/// absent: comparing the few keys beats hashing the name (the map keeps insertion order, so its
/// entries are a vector).
pub(crate) fn member<'a>(object: &'a Object<'a>, name: &str) -> Option<&'a Json<'a>> {
    const LINEAR_UP_TO: usize = 16;
    if object.len() > LINEAR_UP_TO {
        return object.get(name);
    }
    object.iter().find_map(|(key, value)| same_name(key, name).then_some(value))
}

/// The member if it is a string.
pub(crate) fn text<'a>(object: &'a Object<'_>, name: &str) -> Option<&'a str> {
    field(object, name).and_then(Json::as_str)
}

/// The member if it is an object.
pub(crate) fn object<'a>(object: &'a Object<'a>, name: &str) -> Option<&'a Object<'a>> {
    field(object, name).and_then(Json::as_object)
}

/// The member if it is an array.
pub(crate) fn list<'a>(object: &'a Object<'a>, name: &str) -> Option<&'a [Json<'a>]> {
    field(object, name).and_then(Json::as_array)
}

/// The objects of an array member; elements of another type are skipped.
pub(crate) fn objects<'a>(object: &'a Object<'a>, name: &str) -> impl Iterator<Item = &'a Object<'a>> {
    list(object, name).unwrap_or_default().iter().filter_map(Json::as_object)
}

/// A rule that holds.
pub(crate) fn pass(_: &Object<'_>) -> Result<(), DynamoError> {
    Ok(())
}

/// `ValidationException` with DynamoDB's "One or more parameter values were invalid" prefix.
pub(crate) fn invalid(detail: impl std::fmt::Display) -> Result<(), DynamoError> {
    Err(DynamoError::invalid_parameter(detail))
}

/// `ValidationException` with exactly this message.
pub(crate) fn refuse(message: impl Into<String>) -> Result<(), DynamoError> {
    Err(DynamoError::validation(message))
}

/// DynamoDB's refusal with `message`, of a parameter the request gets wrong in itself: the
/// single-item writes report it inside `1 validation error detected: `.
pub(crate) fn refuse_request(message: impl Into<String>) -> Result<(), DynamoError> {
    Err(DynamoError::validation(message).about_the_request())
}

/// DynamoDB's refusal of a `TableClass` it does not know (the names are case-sensitive).
pub(crate) fn table_class(request: &Object<'_>) -> Result<(), DynamoError> {
    match text(request, "TableClass") {
        Some("STANDARD" | "STANDARD_INFREQUENT_ACCESS") | None => Ok(()),
        Some(_) => refuse(
            "Invalid table-class parameter provided. Please try again with a valid table-class value: \
             [STANDARD, STANDARD_INFREQUENT_ACCESS].",
        ),
    }
}

/// The first string of the list that appears twice, if any.
pub(crate) fn first_duplicate<'a>(items: &'a [Json<'a>]) -> Option<&'a str> {
    items.iter().enumerate().find_map(|(i, item)| {
        let text = item.as_str()?;
        items[..i].iter().any(|earlier| earlier.as_str() == Some(text)).then_some(text)
    })
}

/// DynamoDB's answer to `AttributesToGet` naming an attribute twice.
pub(crate) fn attributes_to_get_unique(object: &Object<'_>) -> Result<(), DynamoError> {
    match list(object, "AttributesToGet").and_then(first_duplicate) {
        Some(name) => invalid(format_args!("Duplicate value in attribute name: {name}")),
        None => Ok(()),
    }
}
