//! A fake's tables as a snapshot document: each table as the CreateTable input that makes it as
//! it is now, with its time-to-live setting, what identifies it, and its items; the tables of the
//! default account and region in `Tables`, those of every other account and region that has any
//! in `Regions`.

use std::time::SystemTime;

use serde_json::{Map, Value, json};

use super::VERSION;
use crate::accounts::Accounts;
use crate::clock::epoch_timestamp;
use crate::index::{Index, IndexKind, Projection};
use crate::place::PlaceFilter;
use crate::table::{Billing, Table};
use crate::warm::Warm;

/// The document of every table of the places of `accounts` that `filter` covers, taken at `now`:
/// those of the filter's [target](PlaceFilter::target) in `Tables` (so that the document loads
/// back there as it is), those of every other place in `Regions`.
pub(super) fn document(accounts: &Accounts, filter: &PlaceFilter, now: SystemTime) -> Value {
    let mut tables = Vec::new();
    let mut regions = Vec::new();
    let target = filter.target();
    for (place, engine) in accounts.engines().filter(|(place, _)| filter.covers(*place)) {
        if place == target {
            tables = engine.tables.values().map(table).collect();
        } else if !engine.tables.is_empty() {
            let tables: Vec<Value> = engine.tables.values().map(table).collect();
            regions.push(json!({"Account": place.account, "Region": place.region, "Tables": tables}));
        }
    }
    let mut out = json!({
        "Version": VERSION,
        "Time": humantime::format_rfc3339_millis(now).to_string(),
        "Tables": tables,
    });
    if !regions.is_empty() {
        out["Regions"] = Value::Array(regions);
    }
    out
}

/// One table: its CreateTable input, what a snapshot adds, and its items.
pub(crate) fn table(table: &Table) -> Value {
    let mut out = Map::new();
    out.insert("TableName".into(), json!(table.name));
    let definitions: Vec<Value> = table
        .attribute_definitions
        .iter()
        .map(|(name, kind)| json!({"AttributeName": name, "AttributeType": kind.name()}))
        .collect();
    out.insert("AttributeDefinitions".into(), Value::Array(definitions));
    out.insert("KeySchema".into(), table.key.to_json());
    let provisioned = table.billing.units();
    match provisioned {
        None => out.insert("BillingMode".into(), json!("PAY_PER_REQUEST")),
        Some((read, write)) => {
            out.insert("BillingMode".into(), json!("PROVISIONED"));
            out.insert("ProvisionedThroughput".into(), json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write}))
        }
    };
    for (member, kind) in [("LocalSecondaryIndexes", IndexKind::Local), ("GlobalSecondaryIndexes", IndexKind::Global)] {
        let indexes: Vec<Value> =
            table.indexes().iter().filter(|index| index.kind == kind).map(|index| self::index(table, index)).collect();
        if !indexes.is_empty() {
            out.insert(member.into(), Value::Array(indexes));
        }
    }
    if let Some(stream) = table.stream() {
        out.insert("StreamSpecification".into(), json!({"StreamEnabled": true, "StreamViewType": stream.view.name()}));
    }
    if let Some(key) = &table.sse_key_arn {
        out.insert("SSESpecification".into(), json!({"Enabled": true, "SSEType": "KMS", "KMSMasterKeyId": key}));
    }
    if !table.tags.is_empty() {
        let tags: Vec<Value> = table.tags.iter().map(|(key, value)| json!({"Key": key, "Value": value})).collect();
        out.insert("Tags".into(), Value::Array(tags));
    }
    if let Some(class) = &table.table_class {
        out.insert("TableClass".into(), json!(class));
    }
    if table.deletion_protection {
        out.insert("DeletionProtectionEnabled".into(), json!(true));
    }
    if let Some((read, write)) = table.on_demand_max {
        let mut limits = Map::new();
        if let Some(read) = read {
            limits.insert("MaxReadRequestUnits".into(), json!(read));
        }
        if let Some(write) = write {
            limits.insert("MaxWriteRequestUnits".into(), json!(write));
        }
        out.insert("OnDemandThroughput".into(), Value::Object(limits));
    }
    if let Some(warm) = raised(table.warm, Warm::initial(provisioned)) {
        out.insert("WarmThroughput".into(), warm);
    }
    if let Some(attribute) = &table.ttl.attribute {
        out.insert("TimeToLiveSpecification".into(), json!({"AttributeName": attribute, "Enabled": table.ttl.enabled}));
    }
    out.insert("TableId".into(), json!(table.table_id));
    out.insert("CreationDateTime".into(), epoch_timestamp(table.created));
    if let Some(updated) = table.table_class_updated {
        out.insert("TableClassUpdated".into(), epoch_timestamp(updated));
    }
    if let Some((_, label, _)) = &table.latest_stream {
        out.insert("LatestStreamLabel".into(), json!(label));
    }
    let items: Vec<Value> = table.items.values().map(crate::value::item_to_json).collect();
    out.insert("Items".into(), Value::Array(items));
    Value::Object(out)
}

/// One secondary index, as CreateTable takes it.
fn index(table: &Table, index: &Index) -> Value {
    let projection = match &index.projection {
        Projection::All => json!({"ProjectionType": "ALL"}),
        Projection::KeysOnly => json!({"ProjectionType": "KEYS_ONLY"}),
        Projection::Include(names) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": names}),
    };
    let mut out = json!({"IndexName": index.name, "KeySchema": index.key.to_json(), "Projection": projection});
    if index.kind == IndexKind::Global {
        let provisioned = match (&table.billing, index.throughput) {
            (Billing::Provisioned { .. }, Some(units)) => Some(units),
            _ => None,
        };
        if let Some((read, write)) = provisioned {
            out["ProvisionedThroughput"] = json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write});
        }
        if let Some(warm) = raised(index.warm, Warm::initial(provisioned)) {
            out["WarmThroughput"] = warm;
        }
    }
    out
}

/// A `WarmThroughput` member for `warm`, if it is above where a new table or index starts.
fn raised(warm: Warm, initial: Warm) -> Option<Value> {
    (warm != initial).then(|| json!({"ReadUnitsPerSecond": warm.read, "WriteUnitsPerSecond": warm.write}))
}
