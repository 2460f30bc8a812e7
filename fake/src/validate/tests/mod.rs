//! The catalogue of bad requests and DynamoDB's exact answers, one file per area. The messages
//! are the ones DynamoDB sends (as the dynalite suite records them, checked against the service).

use serde_json::{Value as Json, json};

use crate::error::DynamoError;
use crate::operation::Operation;

mod body;
mod catalogue;
mod constraints;
mod no_panic;
mod requests;
mod tables;
mod types;

/// The `__type` of a serialization error.
pub(super) const SERIALIZATION: &str = "com.amazon.coral.service#SerializationException";
/// The `__type` of a validation error.
pub(super) const VALIDATION: &str = "com.amazon.coral.validate#ValidationException";

/// [`super::check`] for the operation of this name.
pub(super) fn check(operation: &str, body: &crate::json::Json<'_>) -> Result<(), DynamoError> {
    super::check(served(operation), body)
}

/// [`super::check_after_values`] for the operation of this name.
pub(super) fn check_after_values(operation: &str, body: &crate::json::Json<'_>) -> Result<(), DynamoError> {
    super::check_after_values(served(operation), body)
}

/// The operation of this name, which the fake must serve.
fn served(name: &str) -> Operation {
    Operation::from_name(name).unwrap_or_else(|| panic!("the fake does not serve {name}"))
}

/// The error the request gets; panics if it passes.
pub(super) fn refused(operation: &str, body: Json) -> DynamoError {
    match check(operation, &doc(&body)) {
        Ok(()) => panic!("{operation} {body} passed"),
        Err(error) => error,
    }
}

/// A request written as a `serde_json` value, as the engine reads it.
pub(super) fn doc(body: &Json) -> crate::json::Json<'static> {
    crate::json::Json::from(body)
}

/// The message of the `SerializationException` the request gets.
pub(super) fn serialization(operation: &str, body: Json) -> String {
    let error = refused(operation, body);
    assert_eq!(error.type_name, SERIALIZATION, "{}", error.message);
    error.message
}

/// The message of the `ValidationException` the request gets.
pub(super) fn validation(operation: &str, body: Json) -> String {
    let error = refused(operation, body);
    assert_eq!(error.type_name, VALIDATION, "{}", error.message);
    error.message
}

/// The message of the `ValidationException` the request gets once its values are read.
pub(super) fn after_values(operation: &str, body: Json) -> String {
    let parsed = doc(&body);
    check(operation, &parsed).unwrap_or_else(|e| panic!("{operation} {body}: {e}"));
    let error = check_after_values(operation, &parsed).expect_err("passed");
    assert_eq!(error.type_name, VALIDATION);
    error.message
}

/// Asserts that the request passes every phase.
pub(super) fn passes(operation: &str, body: Json) {
    let parsed = doc(&body);
    if let Err(error) = check(operation, &parsed).and_then(|()| check_after_values(operation, &parsed)) {
        panic!("{operation} {body}: {error}");
    }
}

/// Sets the value at a dotted path (`Item.a.L.0`) of a request, building the objects and lists
/// on the way, as the dynalite suite builds its type probes.
pub(super) fn probe(path: &str, value: Json) -> Json {
    let pieces: Vec<&str> = path.split('.').collect();
    let mut root = json!({});
    let mut slot = &mut root;
    for (i, piece) in pieces.iter().enumerate() {
        let child = if i + 1 == pieces.len() {
            value.clone()
        } else if pieces[i + 1] == "0" {
            json!([])
        } else {
            json!({})
        };
        slot = match slot {
            Json::Array(items) => {
                items.push(child);
                items.last_mut().expect("just pushed")
            }
            Json::Object(map) => map.entry(piece.to_string()).or_insert(child),
            _ => unreachable!(),
        };
    }
    root
}
