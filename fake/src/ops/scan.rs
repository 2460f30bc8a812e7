//! Scan: every item of a table or an index, in DynamoDB's storage order, one page at a time,
//! optionally one segment of a parallel scan.
//!
//! Items are stored by the placement hash of their partition key ([`crate::partition`]), so a
//! scan returns them in the order DynamoDB does, and segment `s` of `t` reads the hashes whose
//! first 12 bits fall in its share: every item is in exactly one segment, whatever `t` is.

use std::ops::Bound;

use crate::json::{Answer, Json};

use super::items::read_projection;
use super::query::{check_select_on_global, flag_or};
use super::read::{
    PagePlan, Position, Shown, Target, check_key_paths, check_start_key_piece, check_start_table_key, condition_paths,
    filter_of, index_floor, invalid_start_key, min_key_value, page_response, read_page, read_start_key,
};
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::expr::parse_condition;
use crate::legacy;
use crate::partition::{SEGMENT_SPACE, segment_bounds, segment_of};
use crate::request::{expression_context, string, table_name};
use crate::table::PrimaryKey;
use crate::validate;

/// Scan.
pub(crate) fn scan(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?;
    let scan_filter = legacy::read_filter(body.get("ScanFilter"))?;
    legacy::check_conditional_operator(body, scan_filter.as_deref())?;
    let start = read_start_key(body)?;
    validate::check_after_values(crate::operation::Operation::Scan, body)?;
    validate::check_expression_maps(body)?;
    let mut ctx = expression_context(body)?;
    let filter_expression =
        string(body, "FilterExpression").map(|t| parse_condition(t, "FilterExpression", &mut ctx)).transpose()?;
    let projection = read_projection(body, &mut ctx)?;
    ctx.check_unused()?;

    let table = engine.table(name)?;
    let target = Target::resolve(table, string(body, "IndexName"))?;
    let consistent = flag_or(body, "ConsistentRead", false);
    if target.is_global() && consistent {
        return Err(DynamoError::validation("Consistent reads are not supported on global secondary indexes"));
    }
    if let Some(start) = &start
        && start.len() != target.start_key_attrs().len()
    {
        return Err(match target.index {
            Some(_) => invalid_start_key(),
            None => DynamoError::validation(
                "The provided starting key is invalid: The provided key element does not match the schema",
            ),
        });
    }
    if let (Some(start), Some(index)) = (&start, target.index) {
        for (attr, is_hash) in index.key.attrs_by_part() {
            check_start_key_piece(start, attr, is_hash)?;
        }
    }
    check_select_on_global(body, target, projection.as_deref())?;
    if let Some(start) = &start {
        check_start_table_key(table, start)?;
    }

    let segment = body.get("Segment").and_then(validate::as_integer).map(|n| n.max(0) as u64);
    let total = body.get("TotalSegments").and_then(validate::as_integer).map(|n| n.max(1) as u64);
    let share = match (segment, total) {
        (Some(segment), Some(total)) => segment_bounds(segment, total),
        _ => 0..SEGMENT_SPACE,
    };
    let position = start.as_ref().and_then(|start| target.start_position(start));
    if let (Some(position), Some(segment), Some(total)) = (&position, segment, total)
        && total > 1
        && !share.contains(&segment_of(position.partition()))
    {
        return Err(DynamoError::validation(format!(
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: {total} Segment: {segment}"
        )));
    }
    if let Some(paths) = &projection {
        check_key_paths(table, paths)?;
    }
    if let Some(filter) = &filter_expression {
        check_key_paths(table, condition_paths(filter))?;
    }

    let then = crate::stale::past(engine, table, target.index, consistent);
    let target = target.seeing(then.as_ref());
    let filter = filter_of(body, filter_expression, scan_filter.as_deref());
    let shown = Shown::read(body, projection, target.index.is_some());
    let plan = PagePlan::new(body, target, filter.as_ref(), &shown);
    // The first placement hash of the share, and the first one past it.
    let (first, past) = ((share.start << 12) as u32, (share.end << 12) as u32);
    let page = match (target.index, position) {
        (None, position) => {
            let floor = |partition| PrimaryKey { partition, hash: min_key_value(), range: None };
            let low = match position {
                Some(Position::Table(start)) => Bound::Excluded(start),
                _ => Bound::Included(floor(first)),
            };
            read_page(&plan, target.table_keys(low, Bound::Excluded(floor(past)), true))
        }
        (Some(index), position) => {
            let low = match position {
                Some(Position::Index(start)) => Bound::Excluded(start),
                _ => Bound::Included(index_floor(first)),
            };
            let entries = target.index_entries(index, low, Bound::Excluded(index_floor(past)), true);
            read_page(&plan, entries.map(|entry| &entry.table_key))
        }
    };
    Ok(page_response(body, target, page, &shown, consistent))
}
