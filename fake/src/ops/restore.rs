//! A restore: a new table made from a table's definition and items, with the overrides that
//! RestoreTableFromBackup and RestoreTableToPointInTime take, through the engine's own
//! CreateTable (so an override meets CreateTable's checks and messages).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, json};

use crate::backup::RestoreSummary;
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Json};
use crate::operation::Operation;
use crate::table::PrimaryKey;
use crate::value::{Item, item_size};

/// Makes the table `target` from `definition` (CreateTable's input of the table restored) with the
/// overrides `request` gives, fills it with `items` at the engine's time, and answers its
/// description, `CREATING` with the restore in progress, as DynamoDB answers a restore. Nothing
/// changes if it is refused.
pub(crate) fn restore(
    engine: &mut Engine,
    target: &str,
    definition: &Map<String, Answer>,
    request: &Json<'_>,
    items: BTreeMap<PrimaryKey, Item>,
    summary: RestoreSummary,
) -> Result<Answer, DynamoError> {
    let input = with_overrides(definition, target, request)?;
    let now = engine.now;
    let text = Answer::Object(input).to_string();
    crate::json::with_arena(|arena| {
        let json = crate::json::from_slice(text.as_bytes(), arena)
            .ok_or_else(|| DynamoError::validation("The restored table's definition cannot be read"))?;
        crate::validate::check(Operation::CreateTable, &json)?;
        crate::ops::control::create_table(engine, &json, now).map(drop)
    })?;
    let table = engine.tables.get_mut(target).ok_or_else(DynamoError::internal_server_error)?;
    for (key, item) in items {
        let size = item_size(&item);
        table.put(key, item, size, now);
    }
    crate::stale::start_from_now(table);
    table.restored = Some(Box::new(summary));
    Ok(table.describe("CREATING"))
}

/// CreateTable's input for the restored table: `definition` renamed `target`, with the indexes,
/// billing, throughput, on-demand limits and encryption the request overrides, and only the
/// attribute definitions its keys still use.
fn with_overrides(
    definition: &Map<String, Answer>,
    target: &str,
    request: &Json<'_>,
) -> Result<Map<String, Answer>, DynamoError> {
    let mut input = definition.clone();
    input.insert("TableName".into(), json!(target));
    for (member, replaced) in [
        ("GlobalSecondaryIndexOverride", "GlobalSecondaryIndexes"),
        ("LocalSecondaryIndexOverride", "LocalSecondaryIndexes"),
    ] {
        let Some(overridden) = request.get(member).filter(|o| !o.is_null()) else { continue };
        let existing: BTreeSet<&str> = definition
            .get(replaced)
            .and_then(Answer::as_array)
            .into_iter()
            .flatten()
            .filter_map(|index| index["IndexName"].as_str())
            .collect();
        let indexes: Vec<Answer> = overridden.as_array().unwrap_or_default().iter().map(Json::to_value).collect();
        for index in &indexes {
            let name = index["IndexName"].as_str().unwrap_or_default();
            if !existing.contains(name) {
                return Err(DynamoError::validation(format!(
                    "{member} may only keep indexes of the table restored; it has no index {name}"
                )));
            }
        }
        if indexes.is_empty() {
            input.remove(replaced);
        } else {
            input.insert(replaced.into(), Answer::Array(indexes));
        }
    }
    let throughput = request.get("ProvisionedThroughputOverride").filter(|t| !t.is_null()).map(Json::to_value);
    match request.get("BillingModeOverride").and_then(Json::as_str) {
        Some("PAY_PER_REQUEST") => {
            input.insert("BillingMode".into(), json!("PAY_PER_REQUEST"));
            input.remove("ProvisionedThroughput");
            for index in global_indexes(&mut input) {
                index.remove("ProvisionedThroughput");
            }
        }
        Some("PROVISIONED") => {
            input.insert("BillingMode".into(), json!("PROVISIONED"));
            if let Some(throughput) = &throughput {
                input.insert("ProvisionedThroughput".into(), throughput.clone());
            }
            if let Some(units) = input.get("ProvisionedThroughput").cloned() {
                for index in global_indexes(&mut input) {
                    index.entry("ProvisionedThroughput").or_insert_with(|| units.clone());
                }
            }
        }
        _ => {
            if let Some(throughput) = throughput {
                input.insert("ProvisionedThroughput".into(), throughput);
            }
        }
    }
    for (member, replaced) in
        [("OnDemandThroughputOverride", "OnDemandThroughput"), ("SSESpecificationOverride", "SSESpecification")]
    {
        if let Some(value) = request.get(member).filter(|v| !v.is_null()) {
            input.insert(replaced.into(), value.to_value());
        }
    }
    let used = key_attributes(&input);
    if let Some(Answer::Array(definitions)) = input.get_mut("AttributeDefinitions") {
        definitions.retain(|definition| definition["AttributeName"].as_str().is_some_and(|name| used.contains(name)));
    }
    Ok(input)
}

/// The global secondary indexes of a CreateTable input, to change.
fn global_indexes(input: &mut Map<String, Answer>) -> impl Iterator<Item = &mut Map<String, Answer>> {
    input
        .get_mut("GlobalSecondaryIndexes")
        .and_then(Answer::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Answer::as_object_mut)
}

/// The names of the attributes that the keys of the table and its indexes use.
fn key_attributes(input: &Map<String, Answer>) -> BTreeSet<String> {
    let schemas = std::iter::once(input.get("KeySchema")).chain(
        ["LocalSecondaryIndexes", "GlobalSecondaryIndexes"]
            .into_iter()
            .flat_map(|member| input.get(member).and_then(Answer::as_array).into_iter().flatten())
            .map(|index| index.get("KeySchema")),
    );
    schemas
        .flatten()
        .filter_map(Answer::as_array)
        .flatten()
        .filter_map(|element| element["AttributeName"].as_str().map(str::to_owned))
        .collect()
}
