//! The tags of a table: TagResource, UntagResource, ListTagsOfResource, and the tags CreateTable
//! gives, with DynamoDB's rules for what a tag may hold.
//!
//! A key and a value hold letters, digits, spaces and `_ . : / = + - @` (the lengths are checked
//! with the request's shape); a key may not start with `aws:`, which AWS keeps for itself; a
//! request names a key once; a table has at most 50 tags.

use std::collections::BTreeMap;

use serde_json::json;

use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Body, Json};
use crate::request::string;
use crate::table::Table;

/// The most tags a table may have.
const MAX_TAGS: usize = 50;

/// Whether `text` holds only the characters a tag key or value may hold.
fn allowed(text: &str) -> bool {
    text.chars().all(|c| c.is_alphanumeric() || (c.is_whitespace() && !c.is_control()) || "_.:/=+-@".contains(c))
}

/// DynamoDB's refusal of a key it does not accept, if `key` is one.
fn check_key(key: &str) -> Result<(), DynamoError> {
    if !allowed(key) {
        return Err(DynamoError::validation(format!("The Tag Key provided is invalid, Key: {key}")));
    }
    if key.starts_with("aws:") {
        return Err(DynamoError::validation(format!("Tag Key cannot be prefixed with aws:, Key: {key}")));
    }
    Ok(())
}

/// The tags of a `Tags` list, checked: each key and value, then keys named twice.
pub(crate) fn read(json: Option<&Json<'_>>) -> Result<BTreeMap<String, String>, DynamoError> {
    let mut tags = BTreeMap::new();
    for tag in json.and_then(Json::as_array).into_iter().flatten() {
        let (Some(key), value) = (string(tag, "Key"), string(tag, "Value")) else { continue };
        check_key(key)?;
        match value {
            Some(value) if allowed(value) => {}
            value => {
                return Err(DynamoError::validation(format!(
                    "The Tag Value provided is invalid, Value: {}",
                    value.unwrap_or("null")
                )));
            }
        }
        if tags.insert(key.to_owned(), value.unwrap_or_default().to_owned()).is_some() {
            return Err(DynamoError::validation(format!(
                "Duplicate Tag Keys provided as input: Duplicate Tag Key found {key}"
            )));
        }
    }
    Ok(tags)
}

/// DynamoDB's refusal of a table that would have `count` tags, if it is too many.
pub(crate) fn check_count(count: usize) -> Result<(), DynamoError> {
    if count > MAX_TAGS {
        return Err(DynamoError::validation("Number of Tags exceed the current limit for the provided ResourceArn"));
    }
    Ok(())
}

fn table_of_arn<'a>(engine: &'a mut Engine, body: &Json<'_>) -> Result<&'a mut Table, DynamoError> {
    let arn = string(body, "ResourceArn").unwrap_or_default();
    let name = arn.rsplit_once(":table/").map(|(_, n)| n).unwrap_or_default();
    match engine.tables.get_mut(name) {
        Some(table) if table.arn() == arn => Ok(table),
        _ => Err(DynamoError::resource_not_found_msg(format!(
            "Requested resource not found: ResourcArn: {arn} not found"
        ))),
    }
}

/// TagResource. DynamoDB answers it, and UntagResource, with an empty body, not `{}`.
pub(crate) fn tag_resource(engine: &mut Engine, body: &Json<'_>) -> Result<Body, DynamoError> {
    let tags = read(body.get("Tags"))?;
    let table = table_of_arn(engine, body)?;
    check_count(table.tags.len() + tags.keys().filter(|key| !table.tags.contains_key(*key)).count())?;
    table.tags.extend(tags);
    Ok(Body::Bytes(Vec::new()))
}

/// UntagResource.
pub(crate) fn untag_resource(engine: &mut Engine, body: &Json<'_>) -> Result<Body, DynamoError> {
    let keys: Vec<&str> =
        body.get("TagKeys").and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str).collect();
    keys.iter().try_for_each(|key| check_key(key))?;
    // UntagResource does not name the missing resource.
    let table = table_of_arn(engine, body).map_err(|_| DynamoError::resource_not_found())?;
    for key in keys {
        table.tags.remove(key);
    }
    Ok(Body::Bytes(Vec::new()))
}

/// ListTagsOfResource. An ARN of a table the fake does not hold is denied, as DynamoDB denies the
/// ARN of a table in an account that is not the caller's (nubo-db's conformance suite names one in
/// the fake's own account, `000000000000`); TagResource finds no such table instead (ScyllaDB's
/// Alternator suite, for an ARN of the caller's account).
pub(crate) fn list_tags_of_resource(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let table = table_of_arn(engine, body).map_err(|_| {
        crate::validate::access_denied("ListTagsOfResource", string(body, "ResourceArn").unwrap_or_default())
    })?;
    let tags: Vec<Answer> = table.tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect();
    Ok(json!({ "Tags": tags }))
}
