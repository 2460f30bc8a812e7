//! The key condition of a Query on a global index with a multi-attribute key.
//!
//! DynamoDB's rules for such a key (developer guide, "Multi-attribute key schema"):
//! - every partition (HASH) key attribute is given, each with `=`;
//! - sort (RANGE) key attributes are given left to right in key schema order, none skipped, and
//!   only the last one given may have another operator than `=` (`<`, `<=`, `>`, `>=`,
//!   `BETWEEN`, `begins_with`).
//!
//! The legacy `KeyConditions` state the same conditions and are held to the same rules.
//!
//! DynamoDB's messages for these mistakes have not been captured whole. ScyllaDB's Alternator
//! suite, written against DynamoDB, matches them with `HASH.*equality` and `RANGE.*equality`;
//! the messages here are worded to say the rule in those terms.

use super::key_condition::{RangeCondition, check_indexable};
use crate::error::DynamoError;
use crate::legacy::{LegacyCondition, Operator};
use crate::table::{KeyAttr, KeySchema, KeyType, KeyValue};

/// A partition key attribute without an equality condition.
fn hash_rule(attr: &KeyAttr) -> DynamoError {
    DynamoError::validation(format!(
        "Query key condition not supported: every HASH key attribute of the index needs an equality condition. \
         Key attribute: {}",
        attr.name
    ))
}

/// A sort key attribute skipped, or an inequality before the last sort key condition.
fn range_rule(attr: &KeyAttr) -> DynamoError {
    DynamoError::validation(format!(
        "Query key condition not supported: RANGE key attributes are given left to right in key schema order, \
         each with an equality condition except the last one given. Key attribute: {}",
        attr.name
    ))
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
    check_indexable(attr, condition)?;
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
        let condition = checked(attr, find(attr).ok_or_else(|| hash_rule(attr))?)?;
        if condition.operator != Operator::Eq {
            return Err(hash_rule(attr));
        }
        hash.extend(condition.values.first().and_then(KeyValue::from_value));
    }
    let hash = KeyValue::of_part(hash).ok_or_else(|| hash_rule(&key.hash))?;

    // The sort key attributes given, from the first up to the first left out.
    let range_attrs: Vec<&KeyAttr> = key.range_attrs().collect();
    let given: Vec<(&KeyAttr, &LegacyCondition)> =
        range_attrs.iter().map_while(|attr| Some((*attr, find(attr)?))).collect();
    let left_out = range_attrs.get(given.len());
    if let Some(skipped) = left_out
        && range_attrs[given.len()..].iter().any(|attr| find(attr).is_some())
    {
        return Err(range_rule(skipped));
    }
    if let Some(stray) = conditions.iter().find(|c| !key.is_key(&c.attribute)) {
        // A condition on an attribute outside the key names the first sort key attribute left
        // out, as a condition on a later one would.
        return Err(match left_out {
            Some(left_out) => range_rule(left_out),
            None => DynamoError::validation(format!("Query condition missed key schema element: {}", stray.attribute)),
        });
    }
    let Some(((last_attr, last), leading_given)) = given.split_last() else { return Ok((hash, None)) };
    let mut leading = Vec::with_capacity(leading_given.len());
    for (attr, condition) in leading_given {
        if checked(attr, condition)?.operator != Operator::Eq {
            return Err(range_rule(attr));
        }
        leading.extend(condition.values.first().and_then(KeyValue::from_value));
    }
    let last = checked(last_attr, last)?;
    let range = match range_attrs.len() {
        1 => RangeCondition::new(last),
        _ => RangeCondition::on_parts(leading, last),
    };
    Ok((hash, Some(range)))
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
        assert_eq!(hash, KeyValue::Tuple(Box::new([KeyValue::S("a".into()), KeyValue::S("b".into())])));
        assert!(range.is_none());
    }

    #[test]
    fn sort_attributes_are_given_left_to_right_with_the_inequality_last() {
        let (_, range) = conditions(&key(), &[eq("h1", s("a")), eq("h2", s("b")), eq("r1", s("x"))]).unwrap();
        let range = range.unwrap();
        let number = |n: &str| KeyValue::N(crate::number::Number::parse(n).unwrap());
        let tuple = |r1: &str, r2: &str| KeyValue::Tuple(Box::new([KeyValue::S(r1.into()), number(r2)]));
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
        let hash_rule = "Query key condition not supported: every HASH key attribute of the index needs an equality \
                         condition. Key attribute: h2";
        let range_rule = |name: &str| {
            format!(
                "Query key condition not supported: RANGE key attributes are given left to right in key schema \
                 order, each with an equality condition except the last one given. Key attribute: {name}"
            )
        };
        assert_eq!(message(&[eq("h1", s("a"))]), hash_rule);
        let skipped = [eq("h1", s("a")), eq("h2", s("b")), eq("r2", Value::N(crate::number::Number::zero()))];
        assert_eq!(message(&skipped), range_rule("r1"));
        let mut unequal = eq("h2", s("b"));
        unequal.operator = Operator::Gt;
        assert_eq!(message(&[eq("h1", s("a")), unequal]), hash_rule);
        let mut early = eq("r1", s("x"));
        early.operator = Operator::BeginsWith;
        let not_last = [eq("h1", s("a")), eq("h2", s("b")), early, eq("r2", Value::N(crate::number::Number::zero()))];
        assert_eq!(message(&not_last), range_rule("r1"));
        assert_eq!(
            message(&[eq("h1", Value::N(crate::number::Number::zero())), eq("h2", s("b"))]),
            "One or more parameter values were invalid: Condition parameter type does not match schema type"
        );
    }
}
