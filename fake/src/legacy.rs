//! The parameters that older code still sends instead of expressions, translated into the forms
//! of [`crate::expr::ast`] so that the engine evaluates one language only.
//!
//! - [`read_filter`]: `QueryFilter`, `ScanFilter` and `KeyConditions` (maps of
//!   [`LegacyCondition`]s), with DynamoDB's checks of argument counts and types;
//! - [`read_expected`]: `Expected` of PutItem, UpdateItem and DeleteItem (`Value`/`Exists` or a
//!   `ComparisonOperator`);
//! - [`to_condition`]: the conditions joined by `ConditionalOperator` (AND unless OR);
//! - [`check_conditional_operator`]: `ConditionalOperator` needs two conditions to join;
//! - [`read_attribute_updates`]: `AttributeUpdates` (PUT, ADD, DELETE) as update actions.
//!
//! Mixing these with expressions is refused earlier, by [`crate::validate`].

use crate::json::Json;

use crate::error::DynamoError;
use crate::expr::ast::{CmpOp, Condition, Operand, Path, SetValue, UpdateAction, UpdateOperand};
use crate::validate;
use crate::value::Value;

/// A `ComparisonOperator` of the legacy conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operator {
    Eq,
    Ne,
    Le,
    Lt,
    Ge,
    Gt,
    NotNull,
    Null,
    Contains,
    NotContains,
    BeginsWith,
    In,
    Between,
}

impl Operator {
    /// The operator of this name.
    pub(crate) fn parse(name: &str) -> Option<Operator> {
        Some(match name {
            "EQ" => Operator::Eq,
            "NE" => Operator::Ne,
            "LE" => Operator::Le,
            "LT" => Operator::Lt,
            "GE" => Operator::Ge,
            "GT" => Operator::Gt,
            "NOT_NULL" => Operator::NotNull,
            "NULL" => Operator::Null,
            "CONTAINS" => Operator::Contains,
            "NOT_CONTAINS" => Operator::NotContains,
            "BEGINS_WITH" => Operator::BeginsWith,
            "IN" => Operator::In,
            "BETWEEN" => Operator::Between,
            _ => return None,
        })
    }

    /// The name DynamoDB uses in messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Operator::Eq => "EQ",
            Operator::Ne => "NE",
            Operator::Le => "LE",
            Operator::Lt => "LT",
            Operator::Ge => "GE",
            Operator::Gt => "GT",
            Operator::NotNull => "NOT_NULL",
            Operator::Null => "NULL",
            Operator::Contains => "CONTAINS",
            Operator::NotContains => "NOT_CONTAINS",
            Operator::BeginsWith => "BEGINS_WITH",
            Operator::In => "IN",
            Operator::Between => "BETWEEN",
        }
    }

    fn arity_ok(self, count: usize) -> bool {
        match self {
            Operator::NotNull | Operator::Null => count == 0,
            Operator::In => count >= 1,
            Operator::Between => count == 2,
            _ => count == 1,
        }
    }

    /// The value types the operator compares with; `None` for every type.
    fn value_types(self) -> Option<&'static [&'static str]> {
        match self {
            Operator::Eq | Operator::Ne | Operator::NotNull | Operator::Null => None,
            Operator::Le | Operator::Lt | Operator::Ge | Operator::Gt | Operator::In | Operator::Between => {
                Some(&["S", "N", "B"])
            }
            Operator::Contains | Operator::NotContains => Some(&["S", "N", "B", "BOOL", "NULL"]),
            Operator::BeginsWith => Some(&["S", "B"]),
        }
    }
}

/// One legacy condition: an attribute, an operator, its values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LegacyCondition {
    pub(crate) attribute: String,
    pub(crate) operator: Operator,
    pub(crate) values: Vec<Value>,
}

impl LegacyCondition {
    /// The condition in the expression language.
    pub(crate) fn to_condition(&self) -> Condition {
        let path = || Operand::Path(Path::attribute(&self.attribute));
        let value = |i: usize| Operand::Value(self.values.get(i).cloned().unwrap_or(Value::Null));
        let compare = |op| Condition::Compare(op, path(), value(0));
        match self.operator {
            Operator::Eq => compare(CmpOp::Eq),
            Operator::Ne => compare(CmpOp::Ne),
            Operator::Le => compare(CmpOp::Le),
            Operator::Lt => compare(CmpOp::Lt),
            Operator::Ge => compare(CmpOp::Ge),
            Operator::Gt => compare(CmpOp::Gt),
            Operator::NotNull => Condition::Exists(Path::attribute(&self.attribute)),
            Operator::Null => Condition::NotExists(Path::attribute(&self.attribute)),
            Operator::Contains => Condition::Contains(path(), value(0)),
            // Unlike `NOT contains(a, :v)`, NOT_CONTAINS is false where the attribute is missing.
            Operator::NotContains => Condition::And(
                Box::new(Condition::Exists(Path::attribute(&self.attribute))),
                Box::new(Condition::Not(Box::new(Condition::Contains(path(), value(0))))),
            ),
            Operator::BeginsWith => Condition::BeginsWith(path(), value(0)),
            Operator::In => Condition::In(path(), self.values.iter().cloned().map(Operand::Value).collect()),
            Operator::Between => Condition::Between(path(), value(0), value(1)),
        }
    }
}

/// A legacy condition or update the request gets wrong: a check of the request itself.
fn invalid(detail: impl std::fmt::Display) -> DynamoError {
    DynamoError::invalid_parameter(detail).about_the_request()
}

fn read_values(list: Option<&Json<'_>>) -> Result<Vec<Value>, DynamoError> {
    match list {
        Some(Json::Array(values)) => values.iter().map(Value::from_json).collect(),
        _ => Ok(Vec::new()),
    }
}

fn present<'a>(object: &Json<'a>, member: &str) -> Option<Json<'a>> {
    object.get(member).filter(|json| !json.is_null()).cloned()
}

/// The checks every legacy condition with an operator and values passes: the number of values,
/// one type among them, a type the operator takes, and BETWEEN's bounds in order.
fn check_operator_values(operator: Operator, values: &[Value]) -> Result<(), DynamoError> {
    if !operator.arity_ok(values.len()) {
        return Err(invalid(format_args!(
            "Invalid number of argument(s) for the {} ComparisonOperator",
            operator.name()
        )));
    }
    if let Some(first) = values.first()
        && values.iter().any(|v| v.type_name() != first.type_name())
    {
        return Err(invalid("AttributeValues inside AttributeValueList must be of same type"));
    }
    if let Some(types) = operator.value_types()
        && let Some(bad) = values.iter().find(|v| !types.contains(&v.type_name()))
    {
        return Err(invalid(format_args!(
            "ComparisonOperator {} is not valid for {} AttributeValue type",
            operator.name(),
            bad.type_name()
        )));
    }
    if operator == Operator::Between
        && let [low, high] = values
        && low.compare(high) == Some(std::cmp::Ordering::Greater)
    {
        return Err(DynamoError::validation(
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound",
        )
        .about_the_request());
    }
    Ok(())
}

/// Reads a map of conditions (`QueryFilter`, `ScanFilter`, `KeyConditions`), in request order.
pub(crate) fn read_filter(json: Option<&Json<'_>>) -> Result<Option<Vec<LegacyCondition>>, DynamoError> {
    let Some(Json::Object(map)) = json else {
        return Ok(None);
    };
    let mut conditions = Vec::with_capacity(map.len());
    for (attribute, condition) in map {
        let values = read_values(condition.get("AttributeValueList"))?;
        let operator = condition
            .get("ComparisonOperator")
            .and_then(Json::as_str)
            .and_then(Operator::parse)
            .ok_or_else(|| invalid("ComparisonOperator must not be null"))?;
        check_operator_values(operator, &values)?;
        conditions.push(LegacyCondition { attribute: attribute.to_owned(), operator, values });
    }
    Ok(Some(conditions))
}

/// Reads `Expected`, in request order.
pub(crate) fn read_expected(json: Option<&Json<'_>>) -> Result<Option<Vec<LegacyCondition>>, DynamoError> {
    let Some(Json::Object(map)) = json else {
        return Ok(None);
    };
    let mut conditions = Vec::with_capacity(map.len());
    for (attribute, condition) in map {
        let list = present(condition, "AttributeValueList");
        let value = present(condition, "Value").map(|v| Value::from_json(&v)).transpose()?;
        let list_values = read_values(list.as_ref())?;
        let exists = present(condition, "Exists").as_ref().and_then(validate::as_bool);
        if list.is_some() && value.is_some() {
            return Err(invalid(format_args!(
                "Value and AttributeValueList cannot be used together for Attribute: {attribute}"
            )));
        }
        let operator = condition.get("ComparisonOperator").and_then(Json::as_str).and_then(Operator::parse);
        let parsed = match operator {
            Some(operator) => {
                if present(condition, "Exists").is_some() {
                    return Err(invalid(format_args!(
                        "Exists and ComparisonOperator cannot be used together for Attribute: {attribute}"
                    )));
                }
                if !matches!(operator, Operator::Null | Operator::NotNull) && list.is_none() && value.is_none() {
                    return Err(invalid(format_args!(
                        "Value or AttributeValueList must be used with ComparisonOperator: {} for Attribute: {attribute}",
                        operator.name()
                    )));
                }
                let values = match value {
                    Some(v) => vec![v],
                    None => list_values,
                };
                check_operator_values(operator, &values)?;
                LegacyCondition { attribute: attribute.to_owned(), operator, values }
            }
            None if list.is_some() => {
                return Err(invalid(format_args!(
                    "AttributeValueList can only be used with a ComparisonOperator for Attribute: {attribute}"
                )));
            }
            None => match (exists.unwrap_or(true), value) {
                (true, None) => {
                    let shown = match exists {
                        None => "null",
                        Some(_) => "true",
                    };
                    return Err(invalid(format_args!(
                        "Value must be provided when Exists is {shown} for Attribute: {attribute}"
                    )));
                }
                (false, Some(_)) => {
                    return Err(invalid(format_args!(
                        "Value cannot be used when Exists is false for Attribute: {attribute}"
                    )));
                }
                (true, Some(value)) => {
                    LegacyCondition { attribute: attribute.to_owned(), operator: Operator::Eq, values: vec![value] }
                }
                (false, None) => {
                    LegacyCondition { attribute: attribute.to_owned(), operator: Operator::Null, values: Vec::new() }
                }
            },
        };
        conditions.push(parsed);
    }
    Ok(Some(conditions))
}

/// `ConditionalOperator` joins two or more conditions; with fewer it is refused.
pub(crate) fn check_conditional_operator(
    body: &Json<'_>,
    conditions: Option<&[LegacyCondition]>,
) -> Result<(), DynamoError> {
    let used = body.get("ConditionalOperator").is_some_and(|op| !op.is_null());
    if used && conditions.is_none_or(|c| c.len() < 2) {
        return Err(DynamoError::validation(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements",
        )
        .about_the_request());
    }
    Ok(())
}

/// The conditions joined by the request's `ConditionalOperator` (AND unless it says OR).
pub(crate) fn to_condition(body: &Json<'_>, conditions: &[LegacyCondition]) -> Option<Condition> {
    let or = body.get("ConditionalOperator").and_then(Json::as_str) == Some("OR");
    conditions.iter().map(LegacyCondition::to_condition).reduce(|joined, next| {
        if or {
            Condition::Or(Box::new(joined), Box::new(next))
        } else {
            Condition::And(Box::new(joined), Box::new(next))
        }
    })
}

/// Reads `AttributeUpdates` into update actions, with DynamoDB's checks of each action.
pub(crate) fn read_attribute_updates(json: Option<&Json<'_>>) -> Result<Option<Vec<UpdateAction>>, DynamoError> {
    let Some(Json::Object(map)) = json else {
        return Ok(None);
    };
    let mut actions = Vec::with_capacity(map.len());
    for (attribute, update) in map {
        crate::limits::check_attribute_name(attribute)?;
        let value = present(update, "Value").map(|v| Value::from_json(&v)).transpose()?;
        let action = update.get("Action").and_then(Json::as_str).unwrap_or("PUT");
        let path = Path::attribute(attribute);
        let Some(value) = value else {
            if action != "DELETE" {
                return Err(invalid("Only DELETE action is allowed when no attribute value is specified"));
            }
            actions.push(UpdateAction::Remove(path));
            continue;
        };
        let kind = value.type_name();
        actions.push(match action {
            "DELETE" => {
                if !matches!(kind, "SS" | "NS" | "BS") {
                    return Err(invalid(format_args!("DELETE action with value is not supported for the type {kind}")));
                }
                UpdateAction::Delete(path, value)
            }
            "ADD" => match kind {
                "N" | "SS" | "NS" | "BS" => UpdateAction::Add(path, value),
                "L" => {
                    // ADD appends to a list, starting from an empty one.
                    let current =
                        UpdateOperand::IfNotExists(path.clone(), Box::new(UpdateOperand::Value(Value::L(Vec::new()))));
                    let appended = UpdateOperand::ListAppend(Box::new(current), Box::new(UpdateOperand::Value(value)));
                    UpdateAction::Set(path, SetValue::Operand(appended))
                }
                _ => return Err(invalid(format_args!("ADD action is not supported for the type {kind}"))),
            },
            _ => UpdateAction::Set(path, SetValue::Operand(UpdateOperand::Value(value))),
        });
    }
    Ok(Some(actions))
}

/// The legacy members of a PutItem, UpdateItem or DeleteItem request, read and translated.
#[derive(Debug, Default)]
pub(crate) struct LegacyWrite {
    /// `Expected`, joined by `ConditionalOperator`.
    pub(crate) condition: Option<Condition>,
    /// `AttributeUpdates` (UpdateItem only).
    pub(crate) updates: Option<Vec<UpdateAction>>,
}

impl LegacyWrite {
    /// Reads the legacy members of a write of kind `kind_name` (`Put`, `Update` or `Delete`).
    pub(crate) fn read(body: &Json<'_>, kind_name: &str) -> Result<LegacyWrite, DynamoError> {
        let updates = match kind_name {
            "Update" => read_attribute_updates(body.get("AttributeUpdates"))?,
            _ => None,
        };
        let expected = read_expected(body.get("Expected"))?;
        check_conditional_operator(body, expected.as_deref())?;
        let condition = expected.as_deref().and_then(|conditions| to_condition(body, conditions));
        Ok(LegacyWrite { condition, updates })
    }
}

/// The message DynamoDB gives when an `AttributeUpdates` action meets an attribute of another
/// type, in place of the expression language's.
pub(crate) fn update_type_mismatch(error: DynamoError) -> DynamoError {
    if error.message == "An operand in the update expression has an incorrect data type" {
        DynamoError::validation("Type mismatch for attribute to update")
    } else {
        error
    }
}

#[cfg(test)]
mod tests {
    use crate::json::test_support::json;

    use super::*;

    fn filter_error(json: Json<'_>) -> String {
        read_filter(Some(&json)).unwrap_err().message
    }

    #[test]
    fn filters_check_counts_types_and_bounds() {
        assert_eq!(
            filter_error(json!({"a": {"ComparisonOperator": "EQ"}})),
            "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"
        );
        assert_eq!(
            filter_error(json!({"a": {"ComparisonOperator": "IN", "AttributeValueList": [{"S": "b"}, {"N": "1"}]}})),
            "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"
        );
        assert_eq!(
            filter_error(json!({"a": {"ComparisonOperator": "LT", "AttributeValueList": [{"BOOL": true}]}})),
            "One or more parameter values were invalid: ComparisonOperator LT is not valid for BOOL AttributeValue type"
        );
        assert_eq!(
            filter_error(
                json!({"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"S": "b"}, {"S": "a"}]}})
            ),
            "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
        );
    }

    #[test]
    fn expected_forms_become_conditions() {
        let conditions = read_expected(Some(&json!({
            "a": {"Value": {"S": "x"}},
            "b": {"Exists": false},
            "c": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "y"}]},
        })))
        .unwrap()
        .unwrap();
        let ops: Vec<Operator> = conditions.iter().map(|c| c.operator).collect();
        assert_eq!(ops, [Operator::Eq, Operator::Null, Operator::NotContains]);
        let error = read_expected(Some(&json!({"a": {}}))).unwrap_err();
        assert_eq!(
            error.message,
            "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"
        );
        let error = read_expected(Some(&json!({"a": {"Exists": false, "Value": {"S": "x"}}}))).unwrap_err();
        assert_eq!(
            error.message,
            "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a"
        );
    }

    #[test]
    fn attribute_updates_check_their_actions() {
        let error = read_attribute_updates(Some(&json!({"a": {"Action": "ADD", "Value": {"S": "x"}}}))).unwrap_err();
        assert_eq!(
            error.message,
            "One or more parameter values were invalid: ADD action is not supported for the type S"
        );
        let error = read_attribute_updates(Some(&json!({"a": {"Action": "PUT"}}))).unwrap_err();
        assert_eq!(
            error.message,
            "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"
        );
        let actions = read_attribute_updates(Some(&json!({"a": {"Value": {"S": "x"}}, "b": {"Action": "DELETE"}})))
            .unwrap()
            .unwrap();
        assert!(matches!(actions[0], UpdateAction::Set(..)));
        assert!(matches!(actions[1], UpdateAction::Remove(..)));
    }
}
