//! Query: the items of one partition key value, in sort key order, of a table or an index.
//!
//! The checks come in DynamoDB's order: the legacy values, the starting key's values, the
//! expressions and the shape of the key condition (all before the table is looked up); then the
//! index, the starting key against the key schema interleaved with the key condition against it,
//! the starting key against the condition's bounds, the projection and the filter.

use std::ops::Bound;

use crate::json::{Answer, Json};

use super::items::read_projection;
use super::key_condition::{ONE_CONDITION_PER_KEY, RangeCondition, check_count, check_indexable, from_expression};
use super::read::{
    PagePlan, Position, Shown, Target, check_key_paths, check_start_key_piece, check_start_table_key, condition_paths,
    filter_of, invalid_start_key, max_key_value, max_primary_key, min_primary_key, page_response, read_page,
    read_start_key,
};
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::expr::ast::Path;
use crate::expr::{parse_condition, parse_key_condition};
use crate::index::{IndexEntry, Projection};
use crate::legacy::{self, LegacyCondition, Operator};
use crate::partition::partition_of;
use crate::request::{expression_context, string, table_name};
use crate::table::{KeyAttr, KeySchema, KeyValue, PrimaryKey};
use crate::validate;
use crate::value::Item;

/// A boolean member as DynamoDB reads it, or its default.
pub(crate) fn flag_or(body: &Json<'_>, key: &str, default: bool) -> bool {
    body.get(key).and_then(validate::as_bool).unwrap_or(default)
}

/// Query.
pub(crate) fn query(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?;
    let query_filter = legacy::read_filter(body.get("QueryFilter"))?;
    legacy::check_conditional_operator(body, query_filter.as_deref())?;
    validate::check_after_values(crate::operation::Operation::Query, body)?;
    let start = read_start_key(body)?;
    validate::check_expression_maps(body)?;
    let mut ctx = expression_context(body)?;
    let key_expression =
        string(body, "KeyConditionExpression").map(|t| parse_key_condition(t, &mut ctx)).transpose()?;
    let filter_expression =
        string(body, "FilterExpression").map(|t| parse_condition(t, "FilterExpression", &mut ctx)).transpose()?;
    let projection = read_projection(body, &mut ctx)?;
    ctx.check_unused()?;
    let table_exists = engine.table(name).is_ok();
    let conditions = match &key_expression {
        Some(expression) => from_expression(expression).map_err(|error| match table_exists {
            // Against a table that exists, the service words this one as an expression error.
            true if error.message == ONE_CONDITION_PER_KEY => {
                DynamoError::validation(format!("Invalid KeyConditionExpression: {ONE_CONDITION_PER_KEY}"))
            }
            _ => error,
        })?,
        None => legacy::read_filter(body.get("KeyConditions"))?.unwrap_or_default(),
    };
    if conditions.is_empty() || (conditions.len() > 2 && !table_exists) {
        check_count(conditions.len(), None)?;
    }

    let table = engine.table(name)?;
    let target = Target::resolve(table, string(body, "IndexName"))?;
    let consistent = flag_or(body, "ConsistentRead", false);
    if target.is_global() && consistent {
        return Err(DynamoError::validation("Consistent reads are not supported on global secondary indexes"));
    }
    let key = target.key();
    check_count(conditions.len(), Some(key.attrs().count()))?;
    if let Some(start) = &start
        && start.len() != target.start_key_attrs().len()
    {
        return Err(invalid_start_key());
    }
    let (hash_value, range) = if key.is_multi_attribute() {
        if let Some(start) = &start {
            for (attr, is_hash) in key.attrs_by_part() {
                check_start_key_piece(start, attr, is_hash)?;
            }
        }
        super::multi_attribute_key::conditions(key, &conditions)?
    } else {
        single_attribute_key(key, &conditions, start.as_ref())?
    };

    let mut position = None;
    if let Some(start) = &start {
        check_start_table_key(table, start)?;
        let (start_hash, start_range) = if key.is_multi_attribute() {
            let start_key = key.key_of(start);
            (start_key.as_ref().map(|k| k.hash.clone()), start_key.and_then(|k| k.range))
        } else {
            let value_of = |attr: &KeyAttr| start.get(&attr.name).and_then(KeyValue::from_value);
            (value_of(&key.hash), key.range.as_ref().and_then(value_of))
        };
        let same_hash = start_hash.as_ref() == Some(&hash_value);
        match (&range, key.range.as_ref()) {
            (Some(range), Some(_)) => {
                if !start_range.is_some_and(|v| range.matches(&v)) {
                    return Err(DynamoError::validation(
                        "The provided starting key does not match the range key predicate",
                    ));
                }
                if !same_hash {
                    return Err(DynamoError::validation(
                        "The query can return at most one row and cannot be restarted",
                    ));
                }
            }
            _ if !same_hash => {
                return Err(DynamoError::validation(
                    "The provided starting key is outside query boundaries based on provided conditions",
                ));
            }
            _ => {}
        }
        position = target.start_position(start);
    }

    if let Some(paths) = &projection {
        check_key_paths(table, paths)?;
    }
    let (filter_heads, filter_label): (Vec<&str>, &str) = match (&query_filter, &filter_expression) {
        (Some(conditions), _) => (conditions.iter().map(|c| c.attribute.as_str()).collect(), "QueryFilter"),
        (None, Some(filter)) => (condition_paths(filter).into_iter().map(|p| p.head()).collect(), "Filter Expression"),
        (None, None) => (Vec::new(), ""),
    };
    if let Some(attr) = key.attrs().find(|a| filter_heads.contains(&a.name.as_str())) {
        return Err(DynamoError::validation(format!(
            "{filter_label} can only contain non-primary key attributes: Primary key attribute: {}",
            attr.name
        )));
    }
    check_select_on_global(body, target, projection.as_deref())?;
    if let Some(filter) = &filter_expression {
        check_key_paths(table, condition_paths(filter))?;
    }

    let then = crate::stale::past(engine, table, target.index, consistent);
    let target = target.seeing(then.as_ref());
    let filter = filter_of(body, filter_expression, query_filter.as_deref());
    let shown = Shown::read(body, projection, target.index.is_some());
    let plan = PagePlan::new(body, target, filter.as_ref(), &shown);
    let forward = flag_or(body, "ScanIndexForward", true);
    let partition = partition_of(&hash_value);
    let page = match target.index {
        None => {
            let at = |range: Option<KeyValue>| PrimaryKey { partition, hash: hash_value.clone(), range };
            let mut low = Bound::Included(at(range.as_ref().and_then(|r| r.low().cloned())));
            let mut high = match range.as_ref().and_then(RangeCondition::high) {
                Some((v, true)) => Bound::Included(at(Some(v.clone()))),
                Some((v, false)) => Bound::Excluded(at(Some(v.clone()))),
                None => Bound::Included(at(Some(max_key_value()))),
            };
            if let Some(Position::Table(start)) = position {
                if forward { low = Bound::Excluded(start) } else { high = Bound::Excluded(start) }
            }
            let entries = target.table_keys(low, high, forward);
            read_page(&plan, within(entries, forward, range.as_ref(), |k| k.range.as_ref()))
        }
        Some(index) => {
            let at = |range: Option<KeyValue>, tie: u32, table_key: PrimaryKey| IndexEntry {
                partition,
                hash: hash_value.clone(),
                range,
                tie,
                table_key,
            };
            let floor = |range: Option<KeyValue>| at(range, 0, min_primary_key());
            let ceiling = |range: Option<KeyValue>| at(range, u32::MAX, max_primary_key());
            let mut low = Bound::Included(match range.as_ref().and_then(RangeCondition::low) {
                Some(v) => floor(Some(v.clone())),
                None => floor(None),
            });
            let mut high = match range.as_ref().and_then(RangeCondition::high) {
                Some((v, true)) => Bound::Included(ceiling(Some(v.clone()))),
                Some((v, false)) => Bound::Excluded(floor(Some(v.clone()))),
                None => Bound::Included(ceiling(Some(max_key_value()))),
            };
            if let Some(Position::Index(start)) = position {
                if forward { low = Bound::Excluded(start) } else { high = Bound::Excluded(start) }
            }
            let entries = target.index_entries(index, low, high, forward);
            let entries = within(entries, forward, range.as_ref(), |e| e.range.as_ref());
            read_page(&plan, entries.map(|e| &e.table_key))
        }
    };
    Ok(page_response(body, target, page, &shown, consistent))
}

/// The partition key value a Query on a key of one partition key attribute (and at most one
/// sort key attribute) reads, and the condition on the sort key, if any; the starting key's
/// pieces are checked in the same pass, as DynamoDB interleaves them.
fn single_attribute_key(
    key: &KeySchema,
    conditions: &[LegacyCondition],
    start: Option<&Item>,
) -> Result<(KeyValue, Option<RangeCondition>), DynamoError> {
    let mut hash_condition: Option<&LegacyCondition> = None;
    let mut range_condition: Option<&LegacyCondition> = None;
    for (attr, is_hash) in key.attrs_by_part() {
        if let Some(start) = start {
            check_start_key_piece(start, attr, is_hash)?;
        }
        if is_hash && key.range.is_none() && conditions.len() > 1 {
            return Err(DynamoError::validation("Query key condition not supported"));
        }
        let Some(condition) = conditions.iter().find(|c| c.attribute == attr.name) else {
            if is_hash || conditions.len() > 1 {
                return Err(DynamoError::validation(format!(
                    "Query condition missed key schema element: {}",
                    attr.name
                )));
            }
            continue;
        };
        check_indexable(attr, condition)?;
        if is_hash && condition.operator != Operator::Eq {
            return Err(DynamoError::validation("Query key condition not supported"));
        }
        if is_hash {
            hash_condition = Some(condition);
        } else {
            range_condition = Some(condition);
        }
    }
    let hash_value = hash_condition
        .and_then(|c| c.values.first())
        .and_then(KeyValue::from_value)
        .ok_or_else(|| DynamoError::validation("Query key condition not supported"))?;
    let range = range_condition.map(RangeCondition::new);
    Ok((hash_value, range))
}

/// The entries whose sort key value meets the range condition, stopping once none further can.
fn within<'k, T: 'k>(
    entries: impl Iterator<Item = &'k T> + 'k,
    forward: bool,
    range: Option<&'k RangeCondition>,
    sort_value: impl Fn(&T) -> Option<&KeyValue> + Copy + 'k,
) -> impl Iterator<Item = &'k T> + 'k {
    entries
        .take_while(move |entry| match (range, sort_value(entry)) {
            (Some(range), Some(value)) if forward => !range.past(value),
            (Some(range), Some(value)) => !range.before(value),
            _ => true,
        })
        .filter(move |entry| range.is_none_or(|range| sort_value(entry).is_some_and(|v| range.matches(v))))
}

/// A read of a global index gives only what the index projects: `Select: ALL_ATTRIBUTES`, and a
/// projection (`ProjectionExpression`, `AttributesToGet`) naming an attribute the index does not
/// project, are refused when the index does not project every attribute.
pub(crate) fn check_select_on_global(
    body: &Json<'_>,
    target: Target<'_>,
    projection: Option<&[Path]>,
) -> Result<(), DynamoError> {
    let Some(index) = target.index.filter(|i| i.is_global() && i.projection != Projection::All) else {
        return Ok(());
    };
    if body.get("Select").and_then(Json::as_str) == Some("ALL_ATTRIBUTES") {
        return Err(DynamoError::invalid_parameter(format!(
            "Select type ALL_ATTRIBUTES is not supported for global secondary index {} because its projection type is not ALL",
            index.name
        )));
    }
    let mut missing: Vec<&str> = Vec::new();
    for head in projection.unwrap_or_default().iter().map(Path::head) {
        if !index.projects(&target.table.key, head) && !missing.contains(&head) {
            missing.push(head);
        }
    }
    if !missing.is_empty() {
        return Err(DynamoError::invalid_parameter(format!(
            "Global secondary index {} does not project [{}]",
            index.name,
            missing.join(", ")
        )));
    }
    Ok(())
}
