//! The rules on expression parameters that need no parsing: expressions and their legacy
//! counterparts may not be mixed, `ExpressionAttributeNames`/`Values` only come with an
//! expression, and their keys must be placeholders.

use super::{Object, field, refuse_request};
use crate::error::DynamoError;

/// The expression parameters of an operation and the legacy parameters they replace.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parameters {
    /// The expressions, in the order messages list them.
    pub(crate) expressions: &'static [&'static str],
    /// The legacy parameters, in the order messages list them.
    pub(crate) legacy: &'static [&'static str],
    /// Whether the refusal of `ExpressionAttributeValues` without an expression names the
    /// expressions that are null (`: FilterExpression is null`): the reads and the transactions
    /// do; the single-item writes, whose refusal DynamoDB envelopes since its 2026 rollout, do not.
    pub(crate) names_null_expressions: bool,
}

impl Parameters {
    /// The expressions that may use `ExpressionAttributeValues`: all but the projection.
    fn with_values(self) -> impl Iterator<Item = &'static str> + Clone {
        self.expressions.iter().copied().filter(|name| *name != "ProjectionExpression")
    }
}

/// Checks how the expression parameters of `object` combine.
pub(crate) fn check_parameters(object: &Object<'_>, parameters: Parameters) -> Result<(), DynamoError> {
    let used = |name: &str| field(object, name).is_some();
    // `KeyConditions` may come with the other expressions; only together with
    // `KeyConditionExpression` is it a mix.
    let mixes = |name: &str| used(name) && (name != "KeyConditions" || used("KeyConditionExpression"));
    let uses_expressions = parameters.expressions.iter().any(|name| used(name));
    if uses_expressions && parameters.legacy.iter().any(|name| mixes(name)) {
        return refuse_request(format!(
            "Can not use both expression and non-expression parameters in the same request: \
             Non-expression parameters: {{{}}} Expression parameters: {{{}}}",
            join(parameters.legacy.iter().copied().filter(|name| mixes(name))),
            join(parameters.expressions.iter().copied().filter(|name| used(name))),
        ));
    }
    if used("ExpressionAttributeNames") && !uses_expressions {
        return refuse_request("ExpressionAttributeNames can only be specified when using expressions");
    }
    let mut with_values = parameters.with_values();
    if used("ExpressionAttributeValues") && with_values.clone().next().is_some() && !with_values.any(used) {
        const REFUSAL: &str = "ExpressionAttributeValues can only be specified when using expressions";
        if !parameters.names_null_expressions {
            return refuse_request(REFUSAL);
        }
        let count = parameters.with_values().count();
        return refuse_request(format!(
            "{REFUSAL}: {} {} null",
            parameters.with_values().collect::<Vec<_>>().join(" and "),
            if count > 1 { "are" } else { "is" },
        ));
    }
    Ok(())
}

fn join<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

/// Checks `ExpressionAttributeNames` and `ExpressionAttributeValues` of `object` (a request, a
/// table of a batch or an action of a transaction): present means not empty, every key a
/// placeholder (`#name`, `:value`), and every name not empty.
pub(crate) fn check_maps(object: &Object<'_>) -> Result<(), DynamoError> {
    check_maps_of(object, &[("ExpressionAttributeNames", '#'), ("ExpressionAttributeValues", ':')])
}

/// Checks `ExpressionAttributeNames` alone, for a read whose input has no
/// `ExpressionAttributeValues` (GetItem, a table of BatchGetItem, a `Get` of TransactGetItems):
/// a member that is not part of an operation's input is ignored.
pub(crate) fn check_names(object: &Object<'_>) -> Result<(), DynamoError> {
    check_maps_of(object, &[("ExpressionAttributeNames", '#')])
}

fn check_maps_of(object: &Object<'_>, maps: &[(&str, char)]) -> Result<(), DynamoError> {
    for &(member, sigil) in maps {
        let Some(map) = field(object, member).and_then(|json| json.as_object()) else {
            continue;
        };
        if map.is_empty() {
            return refuse_request(format!("{member} must not be empty"));
        }
        if let Some(key) = map.keys().find(|key| !is_placeholder(key, sigil)) {
            return refuse_request(format!("{member} contains invalid key: Syntax error; key: \"{key}\""));
        }
        if sigil == '#'
            && let Some((key, _)) = map.iter().find(|(_, name)| name.as_str() == Some(""))
        {
            return refuse_request(format!("{member} contains invalid value: Empty attribute name for key {key}"));
        }
    }
    Ok(())
}

fn is_placeholder(key: &str, sigil: char) -> bool {
    key.strip_prefix(sigil)
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
}
