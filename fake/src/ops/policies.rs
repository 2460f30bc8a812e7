//! Resource policies: PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy, on a table or
//! its stream. Policies are kept, revisioned and checked as DynamoDB does; they are not enforced.

use serde_json::json;

use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Json};
use crate::policy::{self, Policy};
use crate::request::string;
use crate::table::Table;

/// The revision id that asks for a policy to be put only where there is none.
const NO_POLICY: &str = "NO_POLICY";

fn policy_not_found(message: String) -> DynamoError {
    DynamoError::custom(
        400,
        "PolicyNotFoundException",
        &format!("Resource-based policy not found for the provided ResourceArn: {message}"),
    )
}

fn revision_mismatch(expected: &str, table: &str, current: &Policy) -> DynamoError {
    policy_not_found(format!(
        "Requested update for policy with revision id {expected}, but the policy associated to target table {table} has revision id {}.",
        current.revision
    ))
}

/// The table an ARN names (a table's, or its stream's), and the ARN the policy is attached to.
/// An ARN of a table the fake does not hold names the table it would be, as DynamoDB's refusal
/// does.
fn resource<'e>(engine: &'e mut Engine, arn: &str) -> Result<&'e mut Table, DynamoError> {
    let after = arn.split_once(":table/").map_or(arn, |(_, rest)| rest);
    let (name, stream) = match after.split_once("/stream/") {
        Some((name, _)) => (name, true),
        None => (after, false),
    };
    let not_found =
        || DynamoError::resource_not_found_msg(format!("Requested resource not found: Table: {name} not found"));
    let table = engine.tables.get_mut(name).ok_or_else(not_found)?;
    let known = match stream {
        false => table.arn() == arn,
        true => table.stream().is_some_and(|s| s.arn == arn),
    };
    if !known {
        return Err(if stream {
            DynamoError::resource_not_found_msg(format!("Requested resource not found: Stream: {arn} not found"))
        } else {
            not_found()
        });
    }
    Ok(table)
}

/// PutResourcePolicy: the same document again keeps its revision; another gets a new one. With
/// `ExpectedRevisionId`, only over the policy of that revision (`NO_POLICY`: only where there is
/// none).
pub(crate) fn put_resource_policy(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "ResourceArn").unwrap_or_default();
    let document = string(body, "Policy").unwrap_or_default();
    let expected = string(body, "ExpectedRevisionId");
    let now = engine.now;
    let table = resource(engine, arn)?;
    policy::check(document)?;
    let current = table.policies.get(arn);
    match (expected, current) {
        (Some(NO_POLICY), Some(current)) => {
            return Err(policy_not_found(format!(
                "Requested policy update expecting none to be present for table {}, but a policy exists with revision id {}.",
                table.name, current.revision
            )));
        }
        (Some(NO_POLICY), None) | (None, _) => {}
        (Some(expected), Some(current)) if expected != current.revision => {
            return Err(revision_mismatch(expected, &table.name, current));
        }
        (Some(_), Some(_)) => {}
        (Some(expected), None) => {
            return Err(policy_not_found(format!(
                "Requested update for policy with revision id {expected}, but no policy is associated to target table {}.",
                table.name
            )));
        }
    }
    if let Some(current) = current.filter(|current| current.document == document) {
        return Ok(json!({ "RevisionId": current.revision }));
    }
    let policy = Policy::new(document, now, current);
    let revision = policy.revision.clone();
    table.policies.insert(arn.to_owned(), policy);
    Ok(json!({ "RevisionId": revision }))
}

/// GetResourcePolicy.
pub(crate) fn get_resource_policy(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "ResourceArn").unwrap_or_default();
    let table = resource(engine, arn)?;
    let policy = table.policies.get(arn).ok_or_else(|| policy_not_found(arn.to_owned()))?;
    Ok(json!({ "Policy": policy.document, "RevisionId": policy.revision }))
}

/// DeleteResourcePolicy: deleting no policy is no error, unless a revision was expected.
pub(crate) fn delete_resource_policy(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "ResourceArn").unwrap_or_default();
    let expected = string(body, "ExpectedRevisionId");
    let table = resource(engine, arn)?;
    match (expected, table.policies.get(arn)) {
        (Some(expected), Some(current)) if expected != current.revision => {
            Err(revision_mismatch(expected, &table.name, current))
        }
        (Some(_), None) => Err(policy_not_found(arn.to_owned())),
        (_, None) => Ok(json!({})),
        (_, Some(_)) => {
            let removed = table.policies.remove(arn).map(|policy| policy.revision).unwrap_or_default();
            Ok(json!({ "RevisionId": removed }))
        }
    }
}
