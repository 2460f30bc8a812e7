//! A snapshot document read into tables: each table through the engine's own CreateTable and
//! each item through its PutItem, so that a fixture meets DynamoDB's checks and messages; then
//! what a snapshot adds (ids, times, the time-to-live setting, the stream's ARN) laid on top.
//! The tables of `Tables` go to one place (the default account and region, or the place a load
//! names); each member of `Regions` holds the tables of the account and region it names.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime};

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{Snapshot, SnapshotError, VERSION};
use crate::accounts::Accounts;
use crate::engine::Engine;
use crate::operation::Operation;
use crate::place::{OwnedPlace, Place, PlaceFilter, is_account_id, is_region};
use crate::stream::Stream;
use crate::table::{Table, TtlSetting};

/// The members of CreateTable's input, which a table of a snapshot is made from.
const CREATE_TABLE_MEMBERS: [&str; 15] = [
    "TableName",
    "AttributeDefinitions",
    "KeySchema",
    "LocalSecondaryIndexes",
    "GlobalSecondaryIndexes",
    "BillingMode",
    "ProvisionedThroughput",
    "StreamSpecification",
    "SSESpecification",
    "Tags",
    "TableClass",
    "DeletionProtectionEnabled",
    "WarmThroughput",
    "ResourcePolicy",
    "OnDemandThroughput",
];

/// The members a snapshot adds to a table's CreateTable input.
const SNAPSHOT_MEMBERS: [&str; 6] =
    ["TimeToLiveSpecification", "Items", "TableId", "CreationDateTime", "TableClassUpdated", "LatestStreamLabel"];

/// The time a document is checked at, when nothing in it gives one: what a check finds does not
/// depend on it.
fn check_time() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)
}

/// Reads and checks a document.
pub(super) fn check(text: &str) -> Result<Snapshot, SnapshotError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let document = deserializer
        .deserialize_map(DocumentVisitor)
        .and_then(|document| deserializer.end().map(|()| document))
        .map_err(|error| positioned(&error))?;
    Ok(Snapshot { document })
}

/// A serde_json error as a [`SnapshotError`], its position apart from its text.
fn positioned(error: &serde_json::Error) -> SnapshotError {
    let text = error.to_string();
    let suffix = format!(" at line {} column {}", error.line(), error.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text).to_owned();
    SnapshotError { file: None, line: error.line(), column: error.column(), message }
}

/// The tables of a document.
pub(super) fn tables(document: &Value) -> impl Iterator<Item = &Map<String, Value>> {
    document.get("Tables").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object)
}

/// The account and region each member of a document's `Regions` names, in order.
pub(super) fn regions(document: &Value) -> impl Iterator<Item = (&str, &str, &Map<String, Value>)> {
    document.get("Regions").and_then(Value::as_array).into_iter().flatten().filter_map(|group| {
        let account = group.get("Account")?.as_str()?;
        let region = group.get("Region")?.as_str()?;
        Some((account, region, group.as_object()?))
    })
}

/// The top of a document: `Version`, `Time`, `Tables` and `Regions`, each table built in a
/// scratch engine as it is read, so that an error points at the table (or the member) it is about.
struct DocumentVisitor;

impl<'de> Visitor<'de> for DocumentVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a snapshot: an object with Tables, and Regions")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        let mut scratch = Engine::new(0);
        while let Some(key) = map.next_key::<String>()? {
            let value = match key.as_str() {
                "Version" => {
                    let version: u64 = map.next_value()?;
                    if version != VERSION {
                        return Err(de::Error::custom(format!(
                            "this is a snapshot of version {version}; this dynalease-fake reads version {VERSION}"
                        )));
                    }
                    Value::from(version)
                }
                "Time" => {
                    let time: String = map.next_value()?;
                    humantime::parse_rfc3339_weak(&time).map_err(|error| {
                        de::Error::custom(format!("Time `{time}` is not an RFC 3339 time: {error}"))
                    })?;
                    Value::String(time)
                }
                "Tables" => Value::Array(map.next_value_seed(TablesSeed { engine: &mut scratch })?),
                "Regions" => Value::Array(map.next_value_seed(RegionsSeed)?),
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown member `{other}`: a snapshot has Version, Time, Tables and Regions"
                    )));
                }
            };
            if out.insert(key.clone(), value).is_some() {
                return Err(de::Error::custom(format!("`{key}` is given twice")));
            }
        }
        Ok(Value::Object(out))
    }
}

/// `Tables`: each table is built into `engine` when its object ends.
struct TablesSeed<'e> {
    engine: &'e mut Engine,
}

impl<'de> DeserializeSeed<'de> for TablesSeed<'_> {
    type Value = Vec<Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Value>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TablesSeed<'_> {
    type Value = Vec<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of tables")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Value>, A::Error> {
        let mut tables = Vec::new();
        while let Some(table) = seq.next_element::<Map<String, Value>>()? {
            build_table(self.engine, &table, check_time())
                .map_err(|error| de::Error::custom(format!("table {} of Tables: {error}", tables.len() + 1)))?;
            tables.push(Value::Object(table));
        }
        Ok(tables)
    }
}

/// `Regions`: a list of `{"Account": ..., "Region": ..., "Tables": [...]}`, each account and
/// region once, their tables built in a scratch engine of their own.
struct RegionsSeed;

impl<'de> DeserializeSeed<'de> for RegionsSeed {
    type Value = Vec<Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Value>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RegionsSeed {
    type Value = Vec<Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of regions, each {\"Account\": ..., \"Region\": ..., \"Tables\": [...]}")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Value>, A::Error> {
        let mut groups: Vec<Value> = Vec::new();
        while let Some(group) = seq.next_element_seed(RegionSeed { at: groups.len() + 1 })? {
            let place = |group: &Value| (group["Account"].clone(), group["Region"].clone());
            if groups.iter().any(|seen| place(seen) == place(&group)) {
                return Err(de::Error::custom(format!(
                    "region {} of Regions: account {} in {} is given twice",
                    groups.len() + 1,
                    group["Account"],
                    group["Region"]
                )));
            }
            groups.push(group);
        }
        Ok(groups)
    }
}

/// One member of `Regions`.
struct RegionSeed {
    /// Its position, from 1, for messages.
    at: usize,
}

impl<'de> DeserializeSeed<'de> for RegionSeed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RegionSeed {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a region: {\"Account\": ..., \"Region\": ..., \"Tables\": [...]}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let at = self.at;
        let mut out = Map::new();
        let mut scratch = Engine::new(0);
        while let Some(key) = map.next_key::<String>()? {
            let value = match key.as_str() {
                "Account" => {
                    let account: String = map.next_value()?;
                    if !is_account_id(&account) {
                        return Err(de::Error::custom(format!(
                            "region {at} of Regions: Account `{account}` is not an account id of twelve digits"
                        )));
                    }
                    Value::String(account)
                }
                "Region" => {
                    let region: String = map.next_value()?;
                    if !is_region(&region) {
                        return Err(de::Error::custom(format!(
                            "region {at} of Regions: Region `{region}` is not a region's name, such as eu-west-1"
                        )));
                    }
                    Value::String(region)
                }
                "Tables" => Value::Array(map.next_value_seed(TablesSeed { engine: &mut scratch })?),
                other => {
                    return Err(de::Error::custom(format!(
                        "region {at} of Regions: unknown member `{other}`: a region has Account, Region and Tables"
                    )));
                }
            };
            if out.insert(key.clone(), value).is_some() {
                return Err(de::Error::custom(format!("region {at} of Regions: `{key}` is given twice")));
            }
        }
        for member in ["Account", "Region"] {
            if !out.contains_key(member) {
                return Err(de::Error::custom(format!("region {at} of Regions needs {member}")));
            }
        }
        Ok(Value::Object(out))
    }
}

/// Tables built from a document, ready to replace a fake's.
#[derive(Debug, Default)]
pub(super) struct Built {
    tables: BTreeMap<String, Table>,
    next_table_id: Option<u64>,
}

/// Builds the tables of a checked document for the places of `accounts` that `filter` covers,
/// at `now`: those of `Tables` for the filter's [target](PlaceFilter::target), those of each
/// member of `Regions` for its account and region, which the filter must cover.
pub(super) fn build(
    document: &Value,
    accounts: &Accounts,
    filter: &PlaceFilter,
    now: SystemTime,
) -> Result<Vec<(OwnedPlace, Built)>, String> {
    let groups = regions(document).map(|(account, region, group)| (Place { account, region }, group.get("Tables")));
    let mut built: Vec<(OwnedPlace, Built)> = Vec::new();
    for (place, tables) in std::iter::once((filter.target(), document.get("Tables"))).chain(groups) {
        if built.iter().any(|(seen, _)| seen.as_place() == place) {
            return Err(format!(
                "the snapshot's Regions name account {} in {}, whose tables this load takes from Tables",
                place.account, place.region
            ));
        }
        if !filter.covers(place) {
            return Err(format!(
                "the snapshot has tables of account {} in {}, which this load is not for",
                place.account, place.region
            ));
        }
        let mut scratch = accounts.settings.engine(place);
        if let Some(engine) = accounts.engine(place) {
            scratch.next_table_id = engine.next_table_id;
        }
        for table in tables.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object) {
            build_table(&mut scratch, table, now)?;
        }
        built.push((place.to_owned(), Built { tables: scratch.tables, next_table_id: Some(scratch.next_table_id) }));
    }
    Ok(built)
}

/// Puts `built` in place of every table of `engine`, and forgets its disabled streams and
/// idempotency tokens. The engine's observers of item changes watch the new tables.
pub(super) fn install(engine: &mut Engine, built: Built) {
    engine.tables = built.tables;
    for table in engine.tables.values_mut() {
        crate::stale::fit(table, engine.history);
    }
    if let Some(next) = built.next_table_id {
        engine.next_table_id = next;
    }
    engine.streams.clear();
    engine.tokens.clear();
    for (name, table) in &mut engine.tables {
        for observer in engine.observers.get(name).into_iter().flatten() {
            table.add_observer(observer.clone());
        }
    }
}

/// Builds one table of a document into `engine`.
fn build_table(engine: &mut Engine, entry: &Map<String, Value>, now: SystemTime) -> Result<(), String> {
    let name = entry.get("TableName").and_then(Value::as_str).ok_or("a table needs a TableName")?.to_owned();
    let in_table = |error: String| format!("{name}: {error}");
    if let Some(unknown) = entry
        .keys()
        .find(|key| !CREATE_TABLE_MEMBERS.contains(&key.as_str()) && !SNAPSHOT_MEMBERS.contains(&key.as_str()))
    {
        return Err(in_table(format!(
            "unknown member `{unknown}`: a table has CreateTable's members, TimeToLiveSpecification and Items"
        )));
    }
    let definition: Map<String, Value> = entry
        .iter()
        .filter(|(key, _)| CREATE_TABLE_MEMBERS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    call(engine, Operation::CreateTable, &Value::Object(definition), now).map_err(in_table)?;
    let ttl = time_to_live(entry.get("TimeToLiveSpecification")).map_err(in_table)?;
    let items = match entry.get("Items") {
        None => &[][..],
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => return Err(in_table("Items must be a list of items".into())),
    };
    for (at, item) in items.iter().enumerate() {
        let before = engine.tables.get(&name).map_or(0, |table| table.items.len());
        let put = serde_json::json!({"TableName": name, "Item": item});
        call(engine, Operation::PutItem, &put, now).map_err(|error| in_table(format!("item {}: {error}", at + 1)))?;
        if engine.tables.get(&name).map_or(0, |table| table.items.len()) == before {
            return Err(in_table(format!("item {} has the key of an earlier item", at + 1)));
        }
    }
    let table = engine.tables.get_mut(&name).ok_or_else(|| in_table("was not created".into()))?;
    table.creating_until = None;
    table.ttl = ttl;
    if let Some(id) = entry.get("TableId") {
        table.table_id =
            id.as_str().filter(|id| !id.is_empty()).ok_or_else(|| in_table("TableId must be text".into()))?.to_owned();
    }
    if let Some(created) = entry.get("CreationDateTime") {
        table.created = epoch_time(created).ok_or_else(|| in_table("CreationDateTime must be epoch seconds".into()))?;
    }
    if let Some(updated) = entry.get("TableClassUpdated") {
        let updated = epoch_time(updated).ok_or_else(|| in_table("TableClassUpdated must be epoch seconds".into()))?;
        table.table_class_updated = Some(updated);
    }
    let label = match entry.get("LatestStreamLabel") {
        None => None,
        Some(label) => Some(stream_label(label).ok_or_else(|| {
            in_table("LatestStreamLabel must be a stream label, such as 2026-01-01T00:00:00.000".into())
        })?),
    };
    // The stream CreateTable started has the records of the items put above: it starts again,
    // empty, under the ARN the snapshot names.
    let view = table.stream().map(|stream| stream.view);
    let created = label.as_ref().map_or(now, |(_, created)| *created);
    match (view, label) {
        (Some(view), _) => {
            let stream = Stream::new(table, view, created, engine.stream_transition, engine.seed);
            table.start_stream(stream);
        }
        (None, Some((label, created))) => {
            table.latest_stream = Some((format!("{}/stream/{label}", table.arn()), label, created));
        }
        (None, None) => {}
    }
    Ok(())
}

/// One request answered by `engine`; an error as DynamoDB words it.
fn call(engine: &mut Engine, operation: Operation, body: &Value, now: SystemTime) -> Result<(), String> {
    let text = body.to_string();
    crate::json::with_arena(|arena| {
        let json = crate::json::from_slice(text.as_bytes(), arena).ok_or("the JSON cannot be read")?;
        engine.handle(operation, &json, now).map(drop).map_err(|error| error.to_string())
    })
}

/// A `TimeToLiveSpecification`: `AttributeName` (1 to 255 characters) and `Enabled`.
fn time_to_live(spec: Option<&Value>) -> Result<TtlSetting, String> {
    let Some(spec) = spec else { return Ok(TtlSetting::default()) };
    let attribute = spec.get("AttributeName").and_then(Value::as_str).filter(|name| (1..=255).contains(&name.len()));
    let enabled = spec.get("Enabled").and_then(Value::as_bool);
    match (attribute, enabled, spec.as_object().map(Map::len)) {
        (Some(attribute), Some(enabled), Some(2)) => Ok(TtlSetting { attribute: Some(attribute.to_owned()), enabled }),
        _ => Err(
            "TimeToLiveSpecification must be {\"AttributeName\": <1 to 255 characters>, \"Enabled\": true or false}"
                .into(),
        ),
    }
}

/// A time given as epoch seconds, as DynamoDB writes them (`1717200000.123`).
fn epoch_time(value: &Value) -> Option<SystemTime> {
    let secs = value.as_f64().filter(|secs| secs.is_finite() && *secs >= 0.0)?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_millis((secs * 1000.0).round() as u64))
}

/// A stream label (`2026-01-01T00:00:00.000`) and the time it names.
fn stream_label(value: &Value) -> Option<(String, SystemTime)> {
    let label = value.as_str()?;
    let time = humantime::parse_rfc3339(&format!("{label}Z")).ok()?;
    (crate::clock::stream_label(time) == label).then(|| (label.to_owned(), time))
}
