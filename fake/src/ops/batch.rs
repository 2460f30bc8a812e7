//! BatchGetItem and BatchWriteItem.
//!
//! Both check every table and every key before they read or write anything, in DynamoDB's order:
//! the values, the expressions, duplicate keys, then each table and each key against its schema.
//! A batch that a fault ([`crate::Fault::Unprocessed`]) throttles in part processes its first
//! requests and returns the others as `UnprocessedKeys`/`UnprocessedItems`, ready to be sent again.
//! Writes go through [`WritePlan`], like every other write, so indexes follow.

use serde_json::{Map, json};

use crate::json::{Answer, Json};

use super::capacity::{self, Consumed, Halves, describe};
use super::items::index_write_units;
use super::items::read_projection;
use super::read::schema_mismatch;
use super::write::{MAX_ITEM_BYTES, WriteKind, WritePlan};
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::expr::ast::Path;
use crate::expr::project::project;
use crate::limits::check_item_depth;
use crate::request::{choice, names_context};
use crate::table::PrimaryKey;
use crate::validate;
use crate::value::{Item, item_from_json, item_size, item_to_json};

/// The most data one BatchGetItem returns; keys past it are returned unprocessed.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

fn request_items<'a>(body: &Json<'a>) -> impl Iterator<Item = (&'a str, &'a Json<'a>)> {
    body.get("RequestItems").and_then(Json::as_object).into_iter().flatten()
}

/// DynamoDB's answer to a key that appears twice in one batch.
fn duplicates() -> DynamoError {
    DynamoError::validation("Provided list of item keys contains duplicates")
}

/// The answer when a fault leaves nothing of a batch processed.
fn all_throttled() -> DynamoError {
    DynamoError::provisioned_throughput_exceeded()
}

/// Checks that the tables of a BatchGetItem project in one style: DynamoDB refuses a batch that
/// projects one table with `ProjectionExpression` and another with the legacy `AttributesToGet`,
/// though each table alone is consistent, as it refuses both in one table.
fn projection_styles_agree(body: &Json<'_>) -> Result<(), DynamoError> {
    let used = |member: &str| request_items(body).any(|(_, request)| request.get(member).is_some());
    if used("ProjectionExpression") && used("AttributesToGet") {
        return Err(DynamoError::validation(
            "Can not use both expression and non-expression parameters in the same request: \
             Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
        ));
    }
    Ok(())
}

/// One table of a BatchGetItem, read and checked.
struct GetTable<'b> {
    name: &'b str,
    request: &'b Json<'b>,
    keys: Vec<Item>,
    projection: Option<Vec<Path>>,
    consistent: bool,
}

/// BatchGetItem.
pub(crate) fn batch_get_item(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let budget = engine.batch_budget.take();
    projection_styles_agree(body)?;
    let mut tables = Vec::new();
    for (name, request) in request_items(body) {
        let mut keys = Vec::new();
        for key in request.get("Keys").and_then(Json::as_array).into_iter().flatten() {
            keys.push(item_from_json(key)?);
        }
        let consistent = request.get("ConsistentRead").and_then(validate::as_bool).unwrap_or(false);
        tables.push(GetTable { name, request, keys, projection: None, consistent });
    }
    validate::check_after_values(crate::operation::Operation::BatchGetItem, body)?;
    for table in &mut tables {
        validate::check_expression_names(table.request)?;
        let mut ctx = names_context(table.request)?;
        table.projection = read_projection(table.request, &mut ctx)?;
        ctx.check_unused()?;
    }
    for table in &tables {
        if table.keys.iter().enumerate().any(|(i, key)| table.keys[..i].contains(key)) {
            return Err(duplicates());
        }
    }
    let mut resolved = Vec::with_capacity(tables.len());
    for request in &tables {
        let table = engine.table(request.name)?;
        let mut keys = Vec::with_capacity(request.keys.len());
        for key in &request.keys {
            let primary = table.primary_key(key)?;
            keys.push(primary);
        }
        if let Some(paths) = &request.projection {
            crate::ops::read::check_key_paths(table, paths)?;
        }
        resolved.push(keys);
    }
    let total: usize = resolved.iter().map(Vec::len).sum();
    if budget == Some(0) && total > 0 {
        return Err(all_throttled());
    }
    let mut processed = 0usize;
    let mut response_bytes = 0usize;
    let mut responses = Map::new();
    let mut unprocessed = Map::new();
    let mut capacities = Vec::new();
    for (request, keys) in tables.iter().zip(&resolved) {
        let table = engine.table(request.name)?;
        let at = crate::stale::instant(engine, table, request.consistent);
        let mut items = Vec::new();
        let mut left = Vec::new();
        let mut units = Halves::default();
        for (key, key_item) in keys.iter().zip(&request.keys) {
            if budget.is_some_and(|budget| processed >= budget) || response_bytes > MAX_RESPONSE_BYTES {
                left.push(item_to_json(key_item));
                continue;
            }
            processed += 1;
            let found = match at {
                Some(at) => crate::stale::item_at(table, key, at),
                None => table.items.get(key),
            };
            units = units.plus(Halves::read(found.map_or(0, item_size), request.consistent));
            if let Some(found) = found {
                let shown = match &request.projection {
                    Some(paths) => project(found, paths),
                    None => found.clone(),
                };
                response_bytes += item_size(&shown);
                items.push(item_to_json(&shown));
            }
        }
        responses.insert(request.name.to_owned(), Answer::Array(items));
        if !left.is_empty() {
            let mut again = match request.request.to_value() {
                Answer::Object(map) => map,
                _ => Map::new(),
            };
            again.insert("Keys".into(), Answer::Array(left));
            unprocessed.insert(request.name.to_owned(), Answer::Object(again));
        }
        if let Some(capacity) = describe(body, request.name, units) {
            capacities.push(capacity);
        }
    }
    let mut out = json!({"Responses": responses, "UnprocessedKeys": unprocessed});
    if choice(body, "ReturnConsumedCapacity", "NONE") != "NONE" {
        out["ConsumedCapacity"] = Answer::Array(capacities);
    }
    Ok(out)
}

/// One request of a BatchWriteItem, read.
enum WriteRequest<'b> {
    Put(&'b Json<'b>, Item),
    Delete(&'b Json<'b>, Item),
}

/// BatchWriteItem.
pub(crate) fn batch_write_item(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let budget = engine.batch_budget.take();
    let mut tables: Vec<(&str, Vec<WriteRequest<'_>>)> = Vec::new();
    for (name, requests) in request_items(body) {
        let mut read = Vec::new();
        for request in requests.as_array().into_iter().flatten() {
            if let Some(put) = request.get("PutRequest").filter(|p| !p.is_null()) {
                let item = item_from_json(put.get("Item").unwrap_or(&Json::Null))?;
                check_item_depth(&item)?;
                if item_size(&item) > MAX_ITEM_BYTES {
                    return Err(DynamoError::validation("Item size has exceeded the maximum allowed size"));
                }
                read.push(WriteRequest::Put(request, item));
            } else if let Some(delete) = request.get("DeleteRequest").filter(|d| !d.is_null()) {
                read.push(WriteRequest::Delete(request, item_from_json(delete.get("Key").unwrap_or(&Json::Null))?));
            }
        }
        tables.push((name, read));
    }
    validate::check_after_values(crate::operation::Operation::BatchWriteItem, body)?;
    let mut plans: Vec<(&str, Vec<(&Json<'_>, WritePlan<'_>)>)> = Vec::with_capacity(tables.len());
    for (name, requests) in &tables {
        let table = engine.table(name)?;
        let mut seen: Vec<PrimaryKey> = Vec::with_capacity(requests.len());
        let mut table_plans = Vec::with_capacity(requests.len());
        for request in requests {
            let (json, key, key_item, kind) = match request {
                WriteRequest::Put(json, item) => {
                    let key = table.item_key(item).map_err(|error| {
                        let wrong_key = error.message.contains("Missing the key ")
                            || error.message.contains("Type mismatch for key ");
                        if wrong_key { schema_mismatch() } else { error }
                    })?;
                    (*json, key, Item::new(), WriteKind::Put(item.clone(), item_size(item)))
                }
                WriteRequest::Delete(json, key_item) => {
                    (*json, table.primary_key(key_item)?, Item::new(), WriteKind::Delete)
                }
            };
            if seen.contains(&key) {
                return Err(duplicates());
            }
            seen.push(key.clone());
            let plan = WritePlan {
                table: name,
                key,
                key_item,
                kind,
                condition: None,
                return_old_on_failure: false,
                legacy_updates: false,
                in_collection: table.has_local_index(),
            };
            table_plans.push((json, plan));
        }
        plans.push((name, table_plans));
    }
    let total: usize = plans.iter().map(|(_, p)| p.len()).sum();
    if budget == Some(0) && total > 0 {
        return Err(all_throttled());
    }
    let mut processed = 0usize;
    let mut unprocessed = Map::new();
    let mut capacities = Vec::new();
    let detail = capacity::asked(body);
    let metrics_asked = super::collection_metrics::asked(body);
    let mut metrics = super::collection_metrics::Collected::default();
    for (name, table_plans) in &mut plans {
        let mut left = Vec::new();
        let mut units = Halves::default();
        // What each index of the table paid, in the order of `Table::indexes`: an index pays for
        // the writes of a batch as it does for a lone PutItem or DeleteItem.
        let mut index_units: Vec<u64> = Vec::new();
        for (json, plan) in table_plans.iter_mut() {
            if budget.is_some_and(|budget| processed >= budget) {
                left.push(json.to_value());
                continue;
            }
            processed += 1;
            let outcome = plan.execute(engine)?;
            if metrics_asked && let Some(table) = engine.tables.get(engine.plain_name(name)) {
                metrics.add(name, table, &plan.key);
            }
            let size = outcome.new_size.max(outcome.old.as_ref().map_or(0, item_size));
            units = units.plus(Halves::write(size));
            if detail.is_some()
                && let Some(table) = engine.tables.get(engine.plain_name(name))
                && !table.indexes().is_empty()
            {
                let paid = index_write_units(table, outcome.old.as_ref(), table.items.get(&plan.key));
                index_units.resize(table.indexes().len(), 0);
                index_units.iter_mut().zip(paid).for_each(|(sum, units)| *sum += units);
            }
        }
        if !left.is_empty() {
            unprocessed.insert((*name).to_owned(), Answer::Array(left));
        }
        if let Some(detail) = detail {
            let mut consumed = Consumed::table(name, units);
            if let Some(table) = engine.tables.get(engine.plain_name(name)) {
                for (index, &units) in table.indexes().iter().zip(&index_units) {
                    if units > 0 {
                        consumed.index(&index.name, index.is_global(), Halves(2 * units));
                    }
                }
            }
            capacities.push(consumed.describe(detail));
        }
    }
    let mut out = json!({"UnprocessedItems": unprocessed});
    if choice(body, "ReturnConsumedCapacity", "NONE") != "NONE" {
        out["ConsumedCapacity"] = Answer::Array(capacities);
    }
    let metrics = metrics.into_answer();
    if metrics.as_object().is_some_and(|m| !m.is_empty()) {
        out["ItemCollectionMetrics"] = metrics;
    }
    Ok(out)
}
