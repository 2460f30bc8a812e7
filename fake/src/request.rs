//! Reading the members of a request body. The shapes were checked by `validate`, so these
//! helpers only read; where a member is absent they give its default.

use crate::json::Json;

use crate::error::DynamoError;
use crate::expr::context::ExprContext;
use crate::place::Place;
use crate::value::{Item, Value, ValueChecks, item_from_json};

/// A string member, if present.
pub(crate) fn string<'a>(body: &'a Json<'_>, key: &str) -> Option<&'a str> {
    body.get(key).and_then(Json::as_str)
}

/// A boolean member, false if absent.
pub(crate) fn flag(body: &Json<'_>, key: &str) -> bool {
    body.get(key).and_then(crate::validate::as_bool).unwrap_or(false)
}

/// The `TableName` member of a request for `place` (a table's ARN there stands for its name).
pub(crate) fn table_name<'b>(body: &'b Json<'_>, place: Place<'_>) -> Result<&'b str, DynamoError> {
    string(body, "TableName").map(|name| crate::table::plain_name(name, place)).ok_or_else(|| {
        DynamoError::validation(
            "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: Member must not be null",
        )
    })
}

/// A map of attribute values (an item or a key); empty if absent.
pub(crate) fn item(body: &Json<'_>, key: &str) -> Result<Item, DynamoError> {
    match body.get(key) {
        None | Some(Json::Null) => Ok(Item::new()),
        Some(json) => item_from_json(json),
    }
}

/// The request's `ExpressionAttributeNames` alone, as the context of the projection of a read
/// whose input has no `ExpressionAttributeValues` (GetItem, BatchGetItem, TransactGetItems): a
/// member that is not part of an operation's input is ignored, as DynamoDB's protocol does.
pub(crate) fn names_context<'r>(body: &'r Json<'_>) -> Result<ExprContext<'r>, DynamoError> {
    Ok(ExprContext::new(names(body)?, Vec::new()))
}

/// The request's `ExpressionAttributeNames` and `ExpressionAttributeValues`, as a context for its
/// expressions.
pub(crate) fn expression_context<'r>(body: &'r Json<'_>) -> Result<ExprContext<'r>, DynamoError> {
    let names = names(body)?;
    let mut values = Vec::new();
    if let Some(Json::Object(map)) = body.get("ExpressionAttributeValues") {
        values.reserve_exact(map.len());
        for (placeholder, value) in map {
            let value = Value::from_json(value).map_err(|error| {
                if !ValueChecks::in_force().names_placeholder(&error.message) {
                    return error;
                }
                let wrapped = DynamoError::validation(format!(
                    "ExpressionAttributeValues contains invalid value: {} for key {placeholder}",
                    error.message
                ));
                // The wrapper belongs to the family of what it wraps.
                if error.request_check { wrapped.about_the_request() } else { wrapped }
            })?;
            values.push((placeholder, value));
        }
    }
    Ok(ExprContext::new(names, values))
}

/// The placeholders of `ExpressionAttributeNames` and the names behind them.
fn names<'r>(body: &'r Json<'_>) -> Result<Vec<(&'r str, &'r str)>, DynamoError> {
    let mut names = Vec::new();
    if let Some(Json::Object(map)) = body.get("ExpressionAttributeNames") {
        names.reserve_exact(map.len());
        for (placeholder, name) in map {
            if let Json::String(name) = name {
                crate::limits::check_attribute_name(name)?;
                names.push((placeholder, *name));
            }
        }
    }
    Ok(names)
}

/// A `Return...` enum member, or its default.
pub(crate) fn choice<'a>(body: &'a Json<'_>, key: &str, default: &'a str) -> &'a str {
    string(body, key).unwrap_or(default)
}
