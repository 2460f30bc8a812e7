//! A snapshot document read into tables: each table through the engine's own CreateTable and
//! each item through its PutItem, so that a fixture meets DynamoDB's checks and messages; then
//! what a snapshot adds (ids, times, the time-to-live setting, the stream's ARN) laid on top.
//! The tables of `Tables` go to one place (the default account and region, or the place a load
//! names); each member of `Regions` holds the tables of the account and region it names.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::{Snapshot, SnapshotError, VERSION};
use crate::accounts::Accounts;
use crate::backup::{Backup, BackupKind, Backups, Recovery, Undo};
use crate::clock::FakeClock;
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
const SNAPSHOT_MEMBERS: [&str; 8] = [
    "TimeToLiveSpecification",
    "Items",
    "TableId",
    "CreationDateTime",
    "TableClassUpdated",
    "LatestStreamLabel",
    "PointInTimeRecovery",
    "ResourcePolicies",
];

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
                "Backups" => Value::Array(map.next_value_seed(BackupsSeed)?),
                "Regions" => Value::Array(map.next_value_seed(RegionsSeed)?),
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown member `{other}`: a snapshot has Version, Time, Tables, Backups and Regions"
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
                "Backups" => Value::Array(map.next_value_seed(BackupsSeed)?),
                other => {
                    return Err(de::Error::custom(format!(
                        "region {at} of Regions: unknown member `{other}`: a region has Account, Region, Tables and Backups"
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

/// `Backups`: each backup checked as it is read.
struct BackupsSeed;

impl<'de> DeserializeSeed<'de> for BackupsSeed {
    type Value = Vec<Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<Value>, D::Error> {
        let backups: Vec<Map<String, Value>> = Deserialize::deserialize(deserializer)?;
        for (at, entry) in backups.iter().enumerate() {
            build_backup(entry).map_err(|error| de::Error::custom(format!("backup {} of Backups: {error}", at + 1)))?;
        }
        Ok(backups.into_iter().map(Value::Object).collect())
    }
}

/// Tables and backups built from a document, ready to replace a fake's.
#[derive(Debug, Default)]
pub(super) struct Built {
    tables: BTreeMap<String, Table>,
    next_table_id: Option<u64>,
    backups: Backups,
}

/// Builds the tables of a checked document for the places of `accounts` that `filter` covers,
/// each at its account's time (`base`, the fake's clock, for an account without a clock of its
/// own): those of `Tables` for the filter's [target](PlaceFilter::target), those of each
/// member of `Regions` for its account and region, which the filter must cover.
pub(super) fn build(
    document: &Value,
    accounts: &Accounts,
    filter: &PlaceFilter,
    base: &dyn FakeClock,
) -> Result<Vec<(OwnedPlace, Built)>, String> {
    let groups = regions(document).map(|(account, region, group)| (Place { account, region }, group));
    let top = document.as_object().ok_or("a snapshot is an object")?;
    let mut built: Vec<(OwnedPlace, Built)> = Vec::new();
    for (place, group) in std::iter::once((filter.target(), top)).chain(groups) {
        let tables = group.get("Tables");
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
        let now = accounts.now_of(place.account, base);
        let mut scratch = accounts.settings.engine(place);
        if let Some(engine) = accounts.engine(place) {
            scratch.next_table_id = engine.next_table_id;
        }
        for table in tables.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object) {
            build_table(&mut scratch, table, now)?;
        }
        let mut backups = Backups::default();
        for entry in group.get("Backups").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_object) {
            backups.insert(build_backup(entry)?);
        }
        let tables = scratch.tables;
        built.push((place.to_owned(), Built { tables, next_table_id: Some(scratch.next_table_id), backups }));
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
    engine.backups = built.backups;
    engine.transfers.forget();
    for (name, table) in &mut engine.tables {
        for observer in engine.observers.get(name).into_iter().flatten() {
            table.add_observer(observer.clone());
        }
    }
}

/// Builds one table of a document into `engine`.
pub(crate) fn build_table(engine: &mut Engine, entry: &Map<String, Value>, now: SystemTime) -> Result<(), String> {
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
    crate::stale::start_from_now(table);
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
    if let Some(setting) = entry.get("PointInTimeRecovery") {
        let recovery = recovery(table, setting).map_err(|error| in_table(format!("PointInTimeRecovery: {error}")))?;
        table.set_recovery(Some(recovery));
    }
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
    if let Some(policies) = entry.get("ResourcePolicies") {
        table.policies =
            resource_policies(table, policies).map_err(|error| in_table(format!("ResourcePolicies: {error}")))?;
    }
    Ok(())
}

/// A table's `PointInTimeRecovery`: `RecoveryPeriodInDays` (1 to 35), `EnabledDateTime` and the
/// `Changes` of its log, oldest first, each a `Time`, the item's `Key` and the item `Before`.
fn recovery(table: &Table, setting: &Value) -> Result<Recovery, String> {
    let days = setting
        .get("RecoveryPeriodInDays")
        .and_then(Value::as_u64)
        .filter(|days| (1..=35).contains(days))
        .ok_or("RecoveryPeriodInDays must be a whole number of days from 1 to 35")?;
    let enabled = setting.get("EnabledDateTime").and_then(epoch_time).ok_or("EnabledDateTime must be epoch seconds")?;
    let mut log = Vec::new();
    for (at, change) in setting.get("Changes").and_then(Value::as_array).into_iter().flatten().enumerate() {
        let in_change = |error: &str| format!("change {}: {error}", at + 1);
        let time = change.get("Time").and_then(epoch_time).ok_or_else(|| in_change("Time must be epoch seconds"))?;
        if log.last().is_some_and(|last: &Undo| last.at > time) {
            return Err(in_change("the changes must be in the order of their times"));
        }
        let key = change.get("Key").ok_or_else(|| in_change("a change needs the Key of its item"))?;
        let key = crate::value::item_from_value(key)
            .and_then(|key| table.primary_key(&key))
            .map_err(|error| error.to_string());
        let key = key.map_err(|error| in_change(&format!("Key: {error}")))?;
        let before = match change.get("Before") {
            None => None,
            Some(before) => {
                Some(crate::value::item_from_value(before).map_err(|error| in_change(&format!("Before: {error}")))?)
            }
        };
        log.push(Undo { at: time, key, before });
    }
    Ok(Recovery::with_log(enabled, days as u32, log))
}

/// A table's `ResourcePolicies`: for the table's ARN or its stream's, a `Policy` document and its
/// `RevisionId`.
fn resource_policies(table: &Table, policies: &Value) -> Result<BTreeMap<String, crate::policy::Policy>, String> {
    let mut out = BTreeMap::new();
    for (at, entry) in policies.as_array().ok_or("must be a list")?.iter().enumerate() {
        let in_entry = |error: String| format!("policy {}: {error}", at + 1);
        let text = |member: &str| entry.get(member).and_then(Value::as_str).filter(|text| !text.is_empty());
        let (Some(arn), Some(document), Some(revision)) = (text("ResourceArn"), text("Policy"), text("RevisionId"))
        else {
            return Err(in_entry("a policy has a ResourceArn, a Policy and a RevisionId".into()));
        };
        if arn != table.arn() && table.latest_stream.as_ref().is_none_or(|(stream, _, _)| stream != arn) {
            return Err(in_entry(format!("{arn} is neither the table's ARN nor its stream's")));
        }
        crate::policy::check(document).map_err(|error| in_entry(error.to_string()))?;
        out.insert(
            arn.to_owned(),
            crate::policy::Policy { document: document.to_owned(), revision: revision.to_owned() },
        );
    }
    Ok(out)
}

/// One backup of `Backups`: its ARN, name, type and times, the details DescribeBackup gives, and
/// the `Table` it holds, written as a table of `Tables` is (its CreateTable input and `Items`),
/// checked in a scratch engine of its own.
fn build_backup(entry: &Map<String, Value>) -> Result<Backup, String> {
    let text = |member: &str| entry.get(member).and_then(Value::as_str).filter(|text| !text.is_empty());
    let arn = text("BackupArn").ok_or("a backup needs a BackupArn")?;
    let in_backup = |error: String| format!("{arn}: {error}");
    let name = text("BackupName").ok_or_else(|| in_backup("a backup needs a BackupName".into()))?;
    let kind = text("BackupType")
        .and_then(BackupKind::parse)
        .ok_or_else(|| in_backup("BackupType must be USER or SYSTEM".into()))?;
    let time = |member: &str| match entry.get(member) {
        None => Ok(None),
        Some(value) => epoch_time(value).map(Some).ok_or_else(|| in_backup(format!("{member} must be epoch seconds"))),
    };
    let created =
        time("BackupCreationDateTime")?.ok_or_else(|| in_backup("a backup needs a BackupCreationDateTime".into()))?;
    let available_at = time("AvailableDateTime")?.unwrap_or(created);
    let expires = time("BackupExpiryDateTime")?;
    let details = |member: &str| match entry.get(member) {
        Some(details @ Value::Object(_)) => Ok(details.clone()),
        _ => Err(in_backup(format!("{member} must be an object"))),
    };
    let (source, features) = (details("SourceTableDetails")?, details("SourceTableFeatureDetails")?);
    let table =
        entry.get("Table").and_then(Value::as_object).ok_or_else(|| in_backup("a backup needs its Table".into()))?;
    if let Some(unknown) = table.keys().find(|key| !CREATE_TABLE_MEMBERS.contains(&key.as_str()) && *key != "Items") {
        return Err(in_backup(format!("unknown member `{unknown}` of Table: it has CreateTable's members and Items")));
    }
    let mut scratch = Engine::new(0);
    build_table(&mut scratch, table, created).map_err(|error| in_backup(format!("Table: {error}")))?;
    let items = scratch.tables.into_values().next().map(|table| table.items).unwrap_or_default();
    let mut definition = table.clone();
    definition.remove("Items");
    Ok(Backup {
        arn: arn.to_owned(),
        name: name.to_owned(),
        kind,
        created,
        available_at,
        expires,
        source,
        features,
        definition,
        items,
    })
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
