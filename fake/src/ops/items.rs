//! PutItem, GetItem, UpdateItem and DeleteItem.

use crate::json::{Answer, Body, Json};

use super::capacity::{self, Consumed, Halves, write_units};
use super::write::WritePlan;
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::expr::ast::Path;
use crate::expr::parse_projection;
use crate::expr::project::project;
use crate::request::{choice, flag, item, names_context, string, table_name};
use crate::table::Table;
use crate::value::{Item, ItemJson, item_size};

/// The answer of an item operation: the attributes it returns, and its consumed capacity.
#[derive(serde::Serialize)]
struct ItemAnswer<'a> {
    #[serde(rename = "Attributes", skip_serializing_if = "Option::is_none")]
    attributes: Option<ItemJson<'a, Item>>,
    #[serde(rename = "Item", skip_serializing_if = "Option::is_none")]
    item: Option<ItemJson<'a, Item>>,
    #[serde(rename = "ConsumedCapacity", skip_serializing_if = "Option::is_none")]
    consumed: Option<Answer>,
}

impl ItemAnswer<'_> {
    /// The answer's body, with the write's `ItemCollectionMetrics` if it has them (a rare
    /// answer, written through a value tree so that the common one stays as it was).
    fn with_metrics(&self, metrics: Option<Answer>) -> Body {
        let Some(metrics) = metrics else { return Body::write(self) };
        let mut value = serde_json::to_value(self).unwrap_or_default();
        value["ItemCollectionMetrics"] = metrics;
        Body::Value(value)
    }
}

/// The `ItemCollectionMetrics` of a single-item write to a table with a local secondary index
/// (`plan.in_collection`, which the caller tests first), if the request asked for them.
fn collection_metrics(engine: &Engine, body: &Json<'_>, plan: &WritePlan<'_>) -> Option<Answer> {
    if !super::collection_metrics::asked(body) {
        return None;
    }
    let table = engine.tables.get(engine.plain_name(plan.table))?;
    super::collection_metrics::of_key(table, &plan.key)
}

/// The attributes a write returns: none for an empty item, as DynamoDB leaves `Attributes` out.
fn attributes(item: Option<&Item>) -> Option<ItemJson<'_, Item>> {
    item.filter(|item| !item.is_empty()).map(ItemJson)
}

/// PutItem.
pub(crate) fn put_item(engine: &mut Engine, body: &Json<'_>) -> Result<Body, DynamoError> {
    let mut plan = WritePlan::prepare_request(engine, "Put", body)?;
    let outcome = plan.execute(engine)?;
    let all_old = choice(body, "ReturnValues", "NONE") == "ALL_OLD";
    Ok(ItemAnswer {
        attributes: attributes(outcome.old.as_ref().filter(|_| all_old)),
        item: None,
        consumed: write_capacity(engine, body, plan.table, outcome.old.as_ref(), || plan.current(engine)),
    }
    .with_metrics(if plan.in_collection { collection_metrics(engine, body, &plan) } else { None }))
}

/// DeleteItem.
pub(crate) fn delete_item(engine: &mut Engine, body: &Json<'_>) -> Result<Body, DynamoError> {
    let mut plan = WritePlan::prepare_request(engine, "Delete", body)?;
    let outcome = plan.execute(engine)?;
    let all_old = choice(body, "ReturnValues", "NONE") == "ALL_OLD";
    Ok(ItemAnswer {
        attributes: attributes(outcome.old.as_ref().filter(|_| all_old)),
        item: None,
        consumed: write_capacity(engine, body, plan.table, outcome.old.as_ref(), || None),
    }
    .with_metrics(if plan.in_collection { collection_metrics(engine, body, &plan) } else { None }))
}

/// UpdateItem.
pub(crate) fn update_item(engine: &mut Engine, body: &Json<'_>) -> Result<Body, DynamoError> {
    let mut plan = WritePlan::prepare_request(engine, "Update", body)?;
    let return_values = choice(body, "ReturnValues", "NONE");
    // Only the old values and the consumed capacity need the item as it was.
    let needs_old = matches!(return_values, "ALL_OLD" | "UPDATED_OLD") || capacity::asked(body).is_some();
    let in_place = if needs_old { None } else { plan.update_in_place(engine) };
    let outcome = match in_place {
        Some(outcome) => outcome?,
        None => plan.execute(engine)?,
    };
    let empty = Item::new();
    let old = outcome.old.as_ref().unwrap_or(&empty);
    let new = || plan.current(engine).unwrap_or(&empty);
    let updated_paths = || -> Vec<Path> {
        match &plan.kind {
            super::write::WriteKind::Update(actions) => actions.iter().map(|a| a.path().clone()).collect(),
            _ => Vec::new(),
        }
    };
    let projected;
    let shown = match return_values {
        "ALL_OLD" => Some(old),
        "ALL_NEW" => Some(new()),
        "UPDATED_OLD" => {
            projected = project(old, &updated_paths());
            Some(&projected)
        }
        "UPDATED_NEW" => {
            projected = project(new(), &updated_paths());
            Some(&projected)
        }
        _ => None,
    };
    Ok(ItemAnswer {
        attributes: attributes(shown),
        item: None,
        consumed: write_capacity(engine, body, plan.table, outcome.old.as_ref(), || plan.current(engine)),
    }
    .with_metrics(if plan.in_collection { collection_metrics(engine, body, &plan) } else { None }))
}

/// The `ConsumedCapacity` of a write that turned `old` into what `new` finds (`None` for no item),
/// if the request asked for it: a request that did not ask pays no second lookup of the item.
/// The table pays for the larger of the two items; an index pays only when the write changes
/// what it stores: an entry inserted or deleted costs its projection's units, a moved key both,
/// a changed projection once, and an unchanged one nothing. `TOTAL` sums them; `INDEXES` also
/// gives the table's share and each index that paid, an index that paid nothing left out, as
/// DynamoDB reports them.
fn write_capacity<'e>(
    engine: &'e Engine,
    body: &Json<'_>,
    table_name: &str,
    old: Option<&Item>,
    new: impl FnOnce() -> Option<&'e Item>,
) -> Option<Answer> {
    let detail = capacity::asked(body)?;
    let new = new();
    let table = engine.tables.get(table_name)?;
    let table_units = write_units(old.map_or(0, item_size).max(new.map_or(0, item_size)));
    let mut consumed = Consumed::table(table_name, Halves(2 * table_units));
    for (index, units) in table.indexes().iter().zip(index_write_units(table, old, new)) {
        if units > 0 {
            consumed.index(&index.name, index.is_global(), Halves(2 * units));
        }
    }
    Some(consumed.describe(detail))
}

/// The write units each index of `table` pays for a write that turned `old` into `new`, in the
/// order of [`Table::indexes`]: an entry inserted or deleted costs its view's units, a moved key
/// both, a changed view once (the larger), an unchanged view or no entry nothing.
pub(crate) fn index_write_units<'t>(
    table: &'t Table,
    old: Option<&'t Item>,
    new: Option<&'t Item>,
) -> impl Iterator<Item = u64> + 't {
    table.indexes().iter().map(move |index| {
        let entry = |item: Option<&Item>| {
            let item = item?;
            index.key.index_key_of(item).map(|key| (key, index.project(&table.key, item)))
        };
        match (entry(old), entry(new)) {
            (Some((old_key, old_view)), Some((new_key, new_view))) if old_key != new_key => {
                write_units(item_size(&old_view)) + write_units(item_size(&new_view))
            }
            (Some((_, old_view)), Some((_, new_view))) if old_view != new_view => {
                write_units(item_size(&old_view).max(item_size(&new_view)))
            }
            (Some(_), Some(_)) | (None, None) => 0,
            (Some((_, view)), None) | (None, Some((_, view))) => write_units(item_size(&view)),
        }
    })
}

/// GetItem.
pub(crate) fn get_item(engine: &mut Engine, body: &Json<'_>) -> Result<Body, DynamoError> {
    let name = table_name(body, engine.place())?;
    let key_item = item(body, "Key")?;
    crate::validate::check_after_values(crate::operation::Operation::GetItem, body)?;
    crate::validate::check_expression_names(body)?;
    let mut ctx = names_context(body)?;
    let projection = read_projection(body, &mut ctx)?;
    ctx.check_unused()?;
    let table = engine.table(name)?;
    let key = table.primary_key(&key_item)?;
    if let Some(paths) = &projection {
        crate::ops::read::check_key_paths(table, paths)?;
    }
    let consistent = flag(body, "ConsistentRead");
    let found = match crate::stale::instant(engine, table, consistent) {
        Some(at) => crate::stale::item_at(table, &key, at),
        None => table.items.get(&key),
    };
    let projected = match (found, &projection) {
        (Some(found), Some(paths)) => Some(project(found, paths)),
        _ => None,
    };
    Ok(Body::write(&ItemAnswer {
        attributes: None,
        // A found item is answered even when the projection leaves nothing of it.
        item: projected.as_ref().or(found).map(ItemJson),
        consumed: capacity::describe(body, name, Halves::read(found.map_or(0, item_size), consistent)),
    }))
}

/// The paths a read projects: `ProjectionExpression`, or the legacy `AttributesToGet`.
pub(crate) fn read_projection(
    body: &Json<'_>,
    ctx: &mut crate::expr::context::ExprContext<'_>,
) -> Result<Option<Vec<Path>>, DynamoError> {
    if let Some(text) = string(body, "ProjectionExpression") {
        return parse_projection(text, ctx).map(Some);
    }
    if let Some(Json::Array(names)) = body.get("AttributesToGet") {
        let mut seen = std::collections::BTreeSet::new();
        let mut paths = Vec::with_capacity(names.len());
        for name in names.iter().filter_map(Json::as_str) {
            crate::limits::check_attribute_name(name)?;
            if !seen.insert(name) {
                return Err(DynamoError::validation(format!(
                    "One or more parameter values were invalid: Duplicate value in attribute name: {name}"
                )));
            }
            paths.push(Path::attribute(name));
        }
        return Ok(Some(paths));
    }
    Ok(None)
}
