//! The small rules of the control plane: the table name of table operations, time to live,
//! and the resource of the tag operations.

use super::{Object, list, refuse, text};
use crate::error::DynamoError;

/// The refusal of a table operation of the control plane without a `TableName`.
pub(crate) fn table_name_required(request: &Object<'_>) -> Result<(), DynamoError> {
    match text(request, "TableName") {
        Some(_) => Ok(()),
        None => refuse("The parameter 'TableName' is required but was not present in the request"),
    }
}

/// The check that table operations other than CreateTable make on `TableName` before any
/// constraint.
pub(crate) fn table_name_present(request: &Object<'_>) -> Result<(), DynamoError> {
    table_name_required(request)?;
    let name = text(request, "TableName").unwrap_or_default();
    let len = name.encode_utf16().count();
    if !(3..=255).contains(&len) && crate::table::name_in_arn(name).is_none() {
        return refuse("TableName must be at least 3 characters long and at most 255 characters long");
    }
    Ok(())
}

/// `TagResource`: a table's ARN and at least one tag.
pub(crate) fn tag_resource(request: &Object<'_>) -> Result<(), DynamoError> {
    tagging(request, "TagResource", Some(("Tags", "tags", "Atleast one Tag needs to be provided as Input.")))
}

/// `UntagResource`: a table's ARN and at least one tag key.
pub(crate) fn untag_resource(request: &Object<'_>) -> Result<(), DynamoError> {
    tagging(
        request,
        "UntagResource",
        Some(("TagKeys", "tagKeys", "Atleast one Tag Key needs to be provided as Input.")),
    )
}

/// `ListTagsOfResource`: a table's ARN.
pub(crate) fn list_tags_of_resource(request: &Object<'_>) -> Result<(), DynamoError> {
    tagging(request, "ListTagsOfResource", None)
}

/// DynamoDB's refusal of a tag operation on a resource the caller may not reach.
pub(crate) fn access_denied(operation: &str, arn: &str) -> DynamoError {
    // The fake's one account, as its table ARNs name it.
    let resource = if arn.is_empty() { "*" } else { arn };
    DynamoError::custom(
        400,
        "AccessDeniedException",
        &format!(
            "User: arn:aws:iam::000000000000:user/dynalease-fake is not authorized to perform: dynamodb:{operation} on resource: {resource}"
        ),
    )
}

/// The checks of the tag operations, in DynamoDB's order: a resource is named; it starts as an ARN
/// does; it has the shape of an ARN with a resource path, or the caller is denied access to it; the
/// list of the operation (member, wire name, refusal when empty) is there; the ARN names a table;
/// the list is not empty.
fn tagging(request: &Object<'_>, operation: &str, tags: Option<(&str, &str, &str)>) -> Result<(), DynamoError> {
    let Some(arn) = text(request, "ResourceArn") else { return refuse("Invalid TableArn") };
    // The current service's answer (nubo-db's conformance suite, and ScyllaDB's Alternator suite,
    // which notes that older captures had AccessDeniedException here, as an empty ARN still has).
    if !arn.is_empty() && !arn.starts_with("arn:") {
        return refuse(format!("One or more parameter values were invalid: ARNs must start with 'arn:': {arn}"));
    }
    if !has_arn_shape(arn) {
        return Err(access_denied(operation, arn));
    }
    let items = match tags {
        Some((member, wire, _)) => match list(request, member) {
            Some(items) => Some(items),
            None => {
                return refuse(format!(
                    "1 validation error detected: Value null at '{wire}' failed to satisfy constraint: Member must not be null"
                ));
            }
        },
        None => None,
    };
    if !is_table_arn(arn) {
        return refuse(format!("Invalid TableArn: Invalid ResourceArn provided as input {arn}"));
    }
    if let (Some(items), Some((_, _, empty))) = (items, tags)
        && items.is_empty()
    {
        return refuse(empty);
    }
    Ok(())
}

/// Six non-empty parts separated by colons, the last holding a non-empty path after a slash
/// (`a:b:c:d:e:f/g`); the parts may themselves hold colons and slashes.
fn has_arn_shape(arn: &str) -> bool {
    // The latest slash with text after it leaves the most room for the parts before it.
    let Some(slash) = arn.get(..arn.len().saturating_sub(1)).and_then(|a| a.rfind('/')) else { return false };
    let head = &arn[..slash];
    // Five colons, taken as early as they may be, each with text between it and the one before.
    let mut colons = 0;
    let mut last: Option<usize> = None;
    for (at, c) in head.char_indices() {
        if colons < 5 && c == ':' && at > 0 && last.is_none_or(|l| at > l + 1) {
            colons += 1;
            last = Some(at);
        }
    }
    colons == 5 && last.is_some_and(|l| l + 1 < head.len())
}

/// `arn:aws:dynamodb:<region>:<digits>:table/<name>`, the name at least three characters long
/// and without a slash.
fn is_table_arn(arn: &str) -> bool {
    let Some(rest) = arn.strip_prefix("arn:aws:dynamodb:") else { return false };
    let Some((scope, name)) = rest.split_once(":table/") else { return false };
    let Some((region, account)) = scope.rsplit_once(':') else { return false };
    !region.is_empty()
        && !account.is_empty()
        && account.bytes().all(|b| b.is_ascii_digit())
        && name.chars().count() >= 3
        && !name.contains('/')
}
