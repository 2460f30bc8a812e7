//! `Query` and `Scan`: expression parameters, `Select`, segments, and the key condition.

use super::expressions::{Parameters, check_parameters};
use super::{Object, attributes_to_get_unique, field, refuse, text};
use crate::error::DynamoError;
use crate::validate::constraints::integer_of;

/// `Query` before the values are read.
pub(crate) fn query(request: &Object<'_>) -> Result<(), DynamoError> {
    check_parameters(
        request,
        Parameters {
            expressions: &["ProjectionExpression", "FilterExpression", "KeyConditionExpression"],
            legacy: &["AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions"],
            names_null_expressions: true,
        },
    )?;
    check_select(request).map_err(enveloped)
}

/// `Query` once the values are read.
pub(crate) fn query_after_values(request: &Object<'_>) -> Result<(), DynamoError> {
    attributes_to_get_unique(request)?;
    if field(request, "KeyConditions").is_none() && field(request, "KeyConditionExpression").is_none() {
        return refuse(
            "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
        );
    }
    Ok(())
}

/// `Scan` before the values are read.
pub(crate) fn scan(request: &Object<'_>) -> Result<(), DynamoError> {
    check_parameters(
        request,
        Parameters {
            expressions: &["ProjectionExpression", "FilterExpression"],
            legacy: &["AttributesToGet", "ScanFilter", "ConditionalOperator"],
            names_null_expressions: true,
        },
    )?;
    attributes_to_get_unique(request)?;
    check_select(request).map_err(enveloped)
}

/// Query and Scan word the rules of `Select` as a one-item list of validation errors (moto's
/// tests verified against DynamoDB, for both).
fn enveloped(message: String) -> DynamoError {
    DynamoError::validation(format!("1 validation error detected: {message}"))
}

/// `Scan` once the values are read: a parallel scan names both its segment and their number.
pub(crate) fn scan_after_values(request: &Object<'_>) -> Result<(), DynamoError> {
    let segment = field(request, "Segment").and_then(integer_of);
    let total = field(request, "TotalSegments").and_then(integer_of);
    match (segment, total) {
        (None, None) => Ok(()),
        (Some(_), None) => refuse(
            "The TotalSegments parameter is required but was not present in the request when Segment parameter is present",
        ),
        (None, Some(_)) => refuse(
            "The Segment parameter is required but was not present in the request when parameter TotalSegments is present",
        ),
        // nubo-db's conformance suite (recorded against DynamoDB in 2026) has both numbers; moto's
        // older test verified against it had neither.
        (Some(segment), Some(total)) if segment >= total => refuse(format!(
            "The Segment parameter is zero-based and must be less than parameter TotalSegments: \
             Segment: {segment} is not less than TotalSegments: {total}"
        )),
        (Some(_), Some(_)) => Ok(()),
    }
}

/// How `Select` combines with projections and indexes; the error is the bare message.
fn check_select(request: &Object<'_>) -> Result<(), String> {
    let Some(select) = text(request, "Select") else {
        return Ok(());
    };
    let to_get = field(request, "AttributesToGet").is_some();
    let expression = field(request, "ProjectionExpression").is_some();
    let what = match select {
        "SPECIFIC_ATTRIBUTES" if !to_get && !expression => {
            return Err(
                "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
                    .to_owned(),
            );
        }
        "COUNT" => "only the Count",
        "ALL_ATTRIBUTES" => "ALL_ATTRIBUTES",
        "ALL_PROJECTED_ATTRIBUTES" => "ALL_PROJECTED_ATTRIBUTES",
        _ => return Ok(()),
    };
    if to_get {
        return Err(format!("Cannot specify the AttributesToGet when choosing to get {what}"));
    }
    if expression {
        return Err(format!("Cannot specify the ProjectionExpression when choosing to get {what}"));
    }
    if select == "ALL_PROJECTED_ATTRIBUTES" && field(request, "IndexName").is_none() {
        return Err("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName".to_owned());
    }
    Ok(())
}
