//! The key condition of a Query on a global index with a multi-attribute key.
//!
//! DynamoDB's rules for such a key (developer guide, "Multi-attribute key schema"):
//! - every partition key attribute is given, each with `=`;
//! - sort key attributes are given left to right in key schema order, none skipped, and only the
//!   last one given may have another operator than `=` (`<`, `<=`, `>`, `>=`, `BETWEEN`,
//!   `begins_with`);
//! - only a `KeyConditionExpression` can say this; the legacy `KeyConditions` cannot.
//!
//! DynamoDB's messages for these mistakes have not been captured; where a rule is one DynamoDB
//! already had for single-attribute keys, its message is reused (`Query condition missed key
//! schema element`, `Query key condition not supported`).

use super::key_condition::RangeCondition;
use crate::error::DynamoError;
use crate::legacy::{LegacyCondition, Operator};
use crate::table::{KeyAttr, KeySchema, KeyType, KeyValue};

/// The refusal of the legacy `KeyConditions` on an index with a multi-attribute key.
pub(crate) fn legacy_refused(index: &str) -> DynamoError {
    DynamoError::validation(format!(
        "KeyConditions cannot be used with an index whose key has multiple attributes; use KeyConditionExpression. \
         IndexName: {index}"
    ))
}

fn missed(attr: &KeyAttr) -> DynamoError {
    DynamoError::validation(format!("Query condition missed key schema element: {}", attr.name))
}

fn not_supported() -> DynamoError {
    DynamoError::validation("Query key condition not supported")
}

/// The value of one key attribute's condition, checked against the attribute's type.
fn checked<'c>(attr: &KeyAttr, condition: &'c LegacyCondition) -> Result<&'c LegacyCondition, DynamoError> {
    if condition.operator == Operator::BeginsWith && attr.kind == KeyType::N {
        return Err(DynamoError::validation(format!(
            "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or \
             function: begins_with, operand type: {}",
            attr.kind.name()
        )));
    }
    if !matches!(
        condition.operator,
        Operator::Eq
            | Operator::Lt
            | Operator::Le
            | Operator::Gt
            | Operator::Ge
            | Operator::Between
            | Operator::BeginsWith
    ) {
        return Err(DynamoError::validation("Attempted conditional constraint is not an indexable operation"));
    }
    if condition.values.iter().any(|v| !attr.kind.matches(v)) {
        return Err(DynamoError::invalid_parameter("Condition parameter type does not match schema type"));
    }
    Ok(condition)
}

/// The partition key value a Query reads (a [`KeyValue::Tuple`] for more than one attribute)
/// and the condition on the sort key, if any.
pub(crate) fn conditions(
    key: &KeySchema,
    conditions: &[LegacyCondition],
) -> Result<(KeyValue, Option<RangeCondition>), DynamoError> {
    let find = |attr: &KeyAttr| conditions.iter().find(|c| c.attribute == attr.name);
    let mut hash = Vec::new();
    for attr in key.hash_attrs() {
        let condition = checked(attr, find(attr).ok_or_else(|| missed(attr))?)?;
        if condition.operator != Operator::Eq {
            return Err(not_supported());
        }
        hash.extend(condition.values.first().and_then(KeyValue::from_value));
    }
    let hash = KeyValue::of_part(hash).ok_or_else(not_supported)?;

    let range_attrs: Vec<&KeyAttr> = key.range_attrs().collect();
    let given = range_attrs.iter().take_while(|attr| find(attr).is_some()).count();
    if let Some(skipped) = range_attrs.get(given)
        && range_attrs[given..].iter().any(|attr| find(attr).is_some())
    {
        return Err(missed(skipped));
    }
    if let Some(stray) = conditions.iter().find(|c| !key.is_key(&c.attribute)) {
        // A condition on an attribute outside the key names the first key attribute left out.
        let left_out = key.attrs().find(|attr| find(attr).is_none());
        return Err(left_out.map_or_else(
            || DynamoError::validation(format!("Query condition missed key schema element: {}", stray.attribute)),
            missed,
        ));
    }
    let mut leading = Vec::new();
    let mut last = None;
    for (at, attr) in range_attrs[..given].iter().enumerate() {
        let condition = checked(attr, find(attr).ok_or_else(|| missed(attr))?)?;
        if at + 1 < given {
            if condition.operator != Operator::Eq {
                return Err(not_supported());
            }
            leading.extend(condition.values.first().and_then(KeyValue::from_value));
        } else {
            last = Some(condition);
        }
    }
    let range = last.map(|last| match range_attrs.len() {
        1 => RangeCondition::new(last),
        _ => RangeCondition::on_parts(leading, last),
    });
    Ok((hash, range))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    fn attr(name: &str, kind: KeyType) -> KeyAttr {
        KeyAttr { name: name.to_owned(), kind }
    }

    fn key() -> KeySchema {
        let mut key = KeySchema::simple(attr("h1", KeyType::S), Some(attr("r1", KeyType::S)));
        key.hash_rest.push(attr("h2", KeyType::S));
        key.range_rest.push(attr("r2", KeyType::N));
        key
    }

    fn eq(name: &str, value: Value) -> LegacyCondition {
        LegacyCondition { attribute: name.to_owned(), operator: Operator::Eq, values: vec![value] }
    }

    fn s(text: &str) -> Value {
        Value::S(text.to_owned())
    }

    fn message(conditions: &[LegacyCondition]) -> String {
        super::conditions(&key(), conditions).unwrap_err().message
    }

    #[test]
    fn the_partition_key_is_every_hash_attribute_in_schema_order() {
        let (hash, range) = conditions(&key(), &[eq("h2", s("b")), eq("h1", s("a"))]).unwrap();
        assert_eq!(hash, KeyValue::Tuple(vec![KeyValue::S("a".into()), KeyValue::S("b".into())]));
        assert!(range.is_none());
    }

    #[test]
    fn sort_attributes_are_given_left_to_right_with_the_inequality_last() {
        let (_, range) = conditions(&key(), &[eq("h1", s("a")), eq("h2", s("b")), eq("r1", s("x"))]).unwrap();
        let range = range.unwrap();
        let number = |n: &str| KeyValue::N(crate::number::Number::parse(n).unwrap());
        let tuple = |r1: &str, r2: &str| KeyValue::Tuple(vec![KeyValue::S(r1.into()), number(r2)]);
        assert!(range.matches(&tuple("x", "1")));
        assert!(!range.matches(&tuple("y", "1")));

        let gt = LegacyCondition {
            attribute: "r2".into(),
            operator: Operator::Gt,
            values: vec![Value::N(crate::number::Number::parse("5").unwrap())],
        };
        let (_, range) = conditions(&key(), &[eq("h1", s("a")), eq("h2", s("b")), eq("r1", s("x")), gt]).unwrap();
        let range = range.unwrap();
        assert!(range.matches(&tuple("x", "6")));
        assert!(!range.matches(&tuple("x", "5")));
        assert!(!range.matches(&tuple("w", "6")));
    }

    #[test]
    fn mistakes_are_refused() {
        assert_eq!(message(&[eq("h1", s("a"))]), "Query condition missed key schema element: h2");
        let skipped = [eq("h1", s("a")), eq("h2", s("b")), eq("r2", Value::N(crate::number::Number::zero()))];
        assert_eq!(message(&skipped), "Query condition missed key schema element: r1");
        let mut unequal = eq("h2", s("b"));
        unequal.operator = Operator::Gt;
        assert_eq!(message(&[eq("h1", s("a")), unequal]), "Query key condition not supported");
        let mut early = eq("r1", s("x"));
        early.operator = Operator::BeginsWith;
        let not_last = [eq("h1", s("a")), eq("h2", s("b")), early, eq("r2", Value::N(crate::number::Number::zero()))];
        assert_eq!(message(&not_last), "Query key condition not supported");
        assert_eq!(
            message(&[eq("h1", Value::N(crate::number::Number::zero())), eq("h2", s("b"))]),
            "One or more parameter values were invalid: Condition parameter type does not match schema type"
        );
    }
}
