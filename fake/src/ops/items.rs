//! PutItem, GetItem, UpdateItem and DeleteItem.

use serde_json::{Map, json};

use crate::json::{Answer, Json};

use super::capacity::{self, Halves};
use super::write::WritePlan;
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::expr::ast::{Path, PathElem, UpdateAction};
use crate::expr::parse_projection;
use crate::expr::project::project;
use crate::request::{choice, expression_context, flag, item, string, table_name};
use crate::value::{Item, item_size, item_to_json};

fn attributes(out: &mut Answer, item: &Item) {
    if !item.is_empty() {
        out["Attributes"] = item_to_json(item);
    }
}

/// PutItem.
pub(crate) fn put_item(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let mut plan = WritePlan::prepare_request(engine, "Put", body)?;
    let outcome = plan.execute(engine)?;
    let mut out = Answer::Object(Map::new());
    if choice(body, "ReturnValues", "NONE") == "ALL_OLD"
        && let Some(old) = &outcome.old
    {
        attributes(&mut out, old);
    }
    let size = outcome.new_size.max(outcome.old.as_ref().map_or(0, item_size));
    capacity::attach(body, &mut out, &plan.table, Halves::write(size));
    Ok(out)
}

/// DeleteItem.
pub(crate) fn delete_item(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let mut plan = WritePlan::prepare_request(engine, "Delete", body)?;
    let outcome = plan.execute(engine)?;
    let mut out = Answer::Object(Map::new());
    if choice(body, "ReturnValues", "NONE") == "ALL_OLD"
        && let Some(old) = &outcome.old
    {
        attributes(&mut out, old);
    }
    capacity::attach(body, &mut out, &plan.table, Halves::write(outcome.old.as_ref().map_or(0, item_size)));
    Ok(out)
}

/// UpdateItem.
pub(crate) fn update_item(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let mut plan = WritePlan::prepare_request(engine, "Update", body)?;
    let outcome = plan.execute(engine)?;
    let mut out = Answer::Object(Map::new());
    let paths: Vec<Path> = match &plan.kind {
        super::write::WriteKind::Update(actions) => actions
            .iter()
            .map(|a| match a {
                UpdateAction::Set(p, _)
                | UpdateAction::Remove(p)
                | UpdateAction::Add(p, _)
                | UpdateAction::Delete(p, _) => p.clone(),
            })
            .collect(),
        _ => Vec::new(),
    };
    let empty = Item::new();
    let old = outcome.old.as_ref().unwrap_or(&empty);
    let new = plan.current(engine).unwrap_or(&empty);
    match choice(body, "ReturnValues", "NONE") {
        "ALL_OLD" => attributes(&mut out, old),
        "ALL_NEW" => attributes(&mut out, new),
        "UPDATED_OLD" => attributes(&mut out, &project(old, &paths)),
        "UPDATED_NEW" => attributes(&mut out, &project(new, &paths)),
        _ => {}
    }
    capacity::attach(body, &mut out, &plan.table, Halves::write(item_size(new).max(item_size(old))));
    Ok(out)
}

/// GetItem.
pub(crate) fn get_item(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body)?;
    let key_item = item(body, "Key")?;
    crate::validate::check_after_values("GetItem", body)?;
    crate::validate::check_expression_maps(body)?;
    let mut ctx = expression_context(body)?;
    let projection = read_projection(body, &mut ctx)?;
    ctx.check_unused()?;
    let table = engine.table(name)?;
    let key = table.primary_key(&key_item)?;
    let mut out = json!({});
    let found = table.items.get(&key);
    if let Some(found) = found {
        let shown = match &projection {
            Some(paths) => project(found, paths),
            None => found.clone(),
        };
        out["Item"] = item_to_json(&shown);
    }
    let consistent = flag(body, "ConsistentRead");
    capacity::attach(body, &mut out, name, Halves::read(found.map_or(0, item_size), consistent));
    Ok(out)
}

/// The paths a read projects: `ProjectionExpression`, or the legacy `AttributesToGet`.
pub(crate) fn read_projection(
    body: &Json<'_>,
    ctx: &mut crate::expr::context::ExprContext,
) -> Result<Option<Vec<Path>>, DynamoError> {
    if let Some(text) = string(body, "ProjectionExpression") {
        return parse_projection(text, ctx).map(Some);
    }
    if let Some(Json::Array(names)) = body.get("AttributesToGet") {
        let mut seen = std::collections::BTreeSet::new();
        let mut paths = Vec::with_capacity(names.len());
        for name in names.iter().filter_map(Json::as_str) {
            if !seen.insert(name) {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: Duplicate value in attribute name: {name}"
                )));
            }
            paths.push(Path(vec![PathElem::Name(name.to_owned())]));
        }
        return Ok(Some(paths));
    }
    Ok(None)
}
