//! The key condition of a Query, from a `KeyConditionExpression` or the legacy `KeyConditions`.
//!
//! - [`from_expression`]: checks that a parsed condition is a key condition (one comparison
//!   per key attribute, joined by AND, on top-level attributes, with operands a key can have)
//!   and turns it into [`LegacyCondition`]s, with DynamoDB's messages in DynamoDB's order;
//! - [`check_count`]: no more conditions than key attributes (two, but eight for a multi-attribute key);
//! - [`RangeCondition`]: the sort key's condition, as bounds on the items read.

use std::cmp::Ordering;

use crate::error::DynamoError;
use crate::expr::ast::{CmpOp, Condition, Operand};
use crate::legacy::{LegacyCondition, Operator};
use crate::table::{KeyAttr, KeyValue};
use crate::value::Value;

/// DynamoDB's answer to two conditions on one key attribute.
pub(crate) const ONE_CONDITION_PER_KEY: &str = "KeyConditionExpressions must only contain one condition per key";

fn invalid_operator(name: &str) -> DynamoError {
    DynamoError::validation(format!("Invalid operator used in KeyConditionExpression: {name}"))
}

fn invalid_condition(detail: &str) -> DynamoError {
    DynamoError::validation(format!("Invalid condition in KeyConditionExpression: {detail}"))
}

/// The key conditions a `KeyConditionExpression` states, in the order it states them.
pub(crate) fn from_expression(condition: &Condition) -> Result<Vec<LegacyCondition>, DynamoError> {
    let mut out = Vec::new();
    walk(condition, &mut out)?;
    Ok(out)
}

fn walk(condition: &Condition, out: &mut Vec<LegacyCondition>) -> Result<(), DynamoError> {
    let (symbol, operands): (&str, Vec<&Operand>) = match condition {
        Condition::And(a, b) => {
            walk(a, out)?;
            return walk(b, out);
        }
        Condition::Or(..) => return Err(invalid_operator("OR")),
        Condition::Not(..) => return Err(invalid_operator("NOT")),
        Condition::In(..) => return Err(invalid_operator("IN")),
        Condition::Compare(CmpOp::Ne, ..) => return Err(invalid_operator("<>")),
        Condition::Exists(..) => return Err(invalid_operator("attribute_exists")),
        Condition::NotExists(..) => return Err(invalid_operator("attribute_not_exists")),
        Condition::AttributeType(..) => return Err(invalid_operator("attribute_type")),
        Condition::Contains(..) => return Err(invalid_operator("contains")),
        Condition::Between(x, low, high) => {
            if !matches!(x, Operand::Path(_)) {
                return Err(invalid_condition("BETWEEN operator must have the key attribute as its first operand"));
            }
            ("BETWEEN", vec![x, low, high])
        }
        Condition::BeginsWith(x, prefix) => {
            if !matches!(x, Operand::Path(_)) {
                return Err(invalid_condition("begins_with operator must have the key attribute as its first operand"));
            }
            ("begins_with", vec![x, prefix])
        }
        Condition::Compare(op, a, b) => (op.symbol(), vec![a, b]),
    };
    let mut attribute: Option<(usize, &str)> = None;
    let mut values = Vec::with_capacity(2);
    for (i, operand) in operands.iter().enumerate() {
        match operand {
            Operand::Path(path) => {
                if attribute.is_some() {
                    return Err(invalid_condition("Multiple attribute names used in one condition"));
                }
                if path.0.len() > 1 {
                    return Err(DynamoError::validation(
                        "KeyConditionExpressions cannot have conditions on nested attributes",
                    ));
                }
                attribute = Some((i, path.head()));
            }
            Operand::Size(_) => {
                return Err(DynamoError::validation("KeyConditionExpressions cannot contain nested operations"));
            }
            Operand::Value(value) => values.push(value.clone()),
            // Key conditions are parsed afresh for each request and hold their values.
            Operand::Slot(_) => return Err(invalid_condition("No key attribute specified")),
        }
    }
    let Some((position, name)) = attribute else {
        return Err(invalid_condition("No key attribute specified"));
    };
    if out.iter().any(|c| c.attribute == name) {
        return Err(DynamoError::validation(ONE_CONDITION_PER_KEY));
    }
    let operator = match condition {
        Condition::Between(..) => Operator::Between,
        Condition::BeginsWith(..) => Operator::BeginsWith,
        Condition::Compare(op, ..) => {
            // `:v < key` is `key > :v`.
            let op = if position == 0 { *op } else { mirrored(*op) };
            match op {
                CmpOp::Eq => Operator::Eq,
                CmpOp::Lt => Operator::Lt,
                CmpOp::Le => Operator::Le,
                CmpOp::Gt => Operator::Gt,
                CmpOp::Ge => Operator::Ge,
                CmpOp::Ne => Operator::Ne,
            }
        }
        _ => Operator::Eq,
    };
    // No key is ever of another type than S, N or B; an ordering against anything else is
    // refused before the table is looked at. Equality waits for the schema check.
    if operator != Operator::Eq
        && let Some(bad) = values.iter().find(|v| !matches!(v, Value::S(_) | Value::N(_) | Value::B(_)))
    {
        return Err(DynamoError::validation(format!(
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: {symbol}, operand type: {}",
            bad.type_name()
        )));
    }
    out.push(LegacyCondition { attribute: name.to_owned(), operator, values });
    Ok(())
}

fn mirrored(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// Checks that a key condition can read an index: an operator a sort order can answer, and
/// values of the key attribute's type.
pub(crate) fn check_indexable(attr: &KeyAttr, condition: &LegacyCondition) -> Result<(), DynamoError> {
    if matches!(
        condition.operator,
        Operator::Null | Operator::NotNull | Operator::Ne | Operator::Contains | Operator::NotContains | Operator::In
    ) {
        return Err(DynamoError::validation("Attempted conditional constraint is not an indexable operation"));
    }
    if condition.values.iter().any(|v| !attr.kind.matches(v)) {
        return Err(DynamoError::invalid_parameter("Condition parameter type does not match schema type"));
    }
    Ok(())
}

/// DynamoDB's answer to a key condition on no attribute or on more than two, before the table
/// is known (`None`), or on more than the key schema of the table or index read has.
pub(crate) fn check_count(count: usize, key_attributes: Option<usize>) -> Result<(), DynamoError> {
    match key_attributes {
        _ if count == 0 => Err(DynamoError::validation("Conditions can be of length 1 or 2 only")),
        None if count > 2 => Err(DynamoError::validation("Conditions can be of length 1 or 2 only")),
        // A multi-attribute key has up to eight attributes, and as many conditions.
        Some(keys) if count > 2 && count > keys => Err(DynamoError::validation(format!(
            "The number of query conditions ({count}) exceeds the number of key attributes defined in the schema ({keys})"
        ))),
        _ => Ok(()),
    }
}

/// The condition on the sort key of a Query, as a region of the sort order.
#[derive(Debug, Clone)]
pub(crate) struct RangeCondition {
    pub(crate) operator: Operator,
    pub(crate) values: Vec<KeyValue>,
    /// On a multi-attribute sort key: the values its leading attributes equal, the operator
    /// applying to the attribute after them; `None` on a sort key of one attribute.
    leading: Option<Vec<KeyValue>>,
}

impl RangeCondition {
    /// The condition of a key condition on the sort key; its values were checked to have the key's type.
    pub(crate) fn new(condition: &LegacyCondition) -> RangeCondition {
        RangeCondition {
            operator: condition.operator,
            values: condition.values.iter().filter_map(KeyValue::from_value).collect(),
            leading: None,
        }
    }

    /// The condition on a multi-attribute sort key whose first attributes equal `leading` and
    /// whose next attribute meets `last`. It bounds nothing: a read goes through the partition.
    pub(crate) fn on_parts(leading: Vec<KeyValue>, last: &LegacyCondition) -> RangeCondition {
        RangeCondition { leading: Some(leading), ..RangeCondition::new(last) }
    }

    fn first(&self) -> Option<&KeyValue> {
        self.values.first()
    }

    /// The smallest sort key value that can match, if the condition has one.
    pub(crate) fn low(&self) -> Option<&KeyValue> {
        if self.leading.is_some() {
            return None;
        }
        match self.operator {
            Operator::Eq | Operator::Gt | Operator::Ge | Operator::Between | Operator::BeginsWith => self.first(),
            _ => None,
        }
    }

    /// The greatest sort key value that can match, and whether it is included.
    pub(crate) fn high(&self) -> Option<(&KeyValue, bool)> {
        if self.leading.is_some() {
            return None;
        }
        match self.operator {
            Operator::Eq | Operator::Le => self.first().map(|v| (v, true)),
            Operator::Lt => self.first().map(|v| (v, false)),
            Operator::Between => self.values.get(1).map(|v| (v, true)),
            _ => None,
        }
    }

    /// True if the sort key value matches.
    pub(crate) fn matches(&self, value: &KeyValue) -> bool {
        match (&self.leading, value) {
            (None, _) => self.matches_one(value),
            (Some(leading), KeyValue::Tuple(parts)) => {
                parts.get(leading.len()).is_some_and(|next| parts.starts_with(leading) && self.matches_one(next))
            }
            (Some(_), _) => false,
        }
    }

    /// True if the value of the one attribute the operator applies to matches.
    fn matches_one(&self, value: &KeyValue) -> bool {
        let Some(first) = self.first() else { return false };
        let order = value.cmp(first);
        match self.operator {
            Operator::Eq => order == Ordering::Equal,
            Operator::Lt => order == Ordering::Less,
            Operator::Le => order != Ordering::Greater,
            Operator::Gt => order == Ordering::Greater,
            Operator::Ge => order != Ordering::Less,
            Operator::Between => order != Ordering::Less && self.values.get(1).is_some_and(|high| value <= high),
            Operator::BeginsWith => match (value, first) {
                (KeyValue::S(v), KeyValue::S(p)) => v.starts_with(&**p),
                (KeyValue::B(v), KeyValue::B(p)) => v.starts_with(p),
                _ => false,
            },
            _ => false,
        }
    }

    /// True if no value at or after `value` in sort order can match.
    pub(crate) fn past(&self, value: &KeyValue) -> bool {
        if self.leading.is_some() {
            return false;
        }
        match (self.operator, self.high()) {
            (Operator::BeginsWith, _) => self.first().is_some_and(|p| value > p) && !self.matches(value),
            (_, Some((high, true))) => value > high,
            (_, Some((high, false))) => value >= high,
            _ => false,
        }
    }

    /// True if no value at or before `value` in sort order can match.
    pub(crate) fn before(&self, value: &KeyValue) -> bool {
        if self.leading.is_some() {
            return false;
        }
        match self.operator {
            Operator::Gt => self.first().is_some_and(|low| value <= low),
            Operator::BeginsWith => self.first().is_some_and(|p| value < p),
            _ => self.low().is_some_and(|low| value < low),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::context::ExprContext;
    use crate::expr::parse_key_condition;

    fn convert(text: &str) -> Result<Vec<LegacyCondition>, String> {
        let values = [(":a", Value::S("1".into())), (":b", Value::S("1".into())), (":t", Value::Bool(true))];
        let mut ctx = ExprContext::new([], values);
        let condition = parse_key_condition(text, &mut ctx).map_err(|e| e.message)?;
        from_expression(&condition).map_err(|e| e.message)
    }

    #[test]
    fn key_conditions_are_refused_with_dynamodb_messages() {
        let cases = [
            ("a > :a and size(b) > :a or a > :b", "Invalid operator used in KeyConditionExpression: OR"),
            ("not a > :a", "Invalid operator used in KeyConditionExpression: NOT"),
            ("a <> :a", "Invalid operator used in KeyConditionExpression: <>"),
            ("attribute_exists(a)", "Invalid operator used in KeyConditionExpression: attribute_exists"),
            (
                ":a between :a and :b and b > :b",
                "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand",
            ),
            ("a > size(b.d)", "KeyConditionExpressions cannot contain nested operations"),
            ("b > a.b", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
            ("b[0] > :a", "KeyConditionExpressions cannot have conditions on nested attributes"),
            (":b > :a AND a < :b", "Invalid condition in KeyConditionExpression: No key attribute specified"),
            ("b > :a AND b < :a", "KeyConditionExpressions must only contain one condition per key"),
            (
                "a = :a AND :t >= b",
                "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: >=, operand type: BOOL",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(convert(text).unwrap_err(), message, "{text}");
        }
    }

    #[test]
    fn values_on_the_left_mirror_the_operator() {
        let conditions = convert(":a <= a AND b = :b").unwrap();
        assert_eq!(conditions[0].operator, Operator::Ge);
        assert_eq!(conditions[1].operator, Operator::Eq);
    }
}
