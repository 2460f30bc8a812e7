//! A table as the CreateTable input that makes it again as it is now: its name, attribute
//! definitions, key schema, billing, secondary indexes, encryption, class and on-demand limits.
//! A snapshot writes it with what else the table holds; a backup keeps it, to make the table
//! again when it is restored.

use serde_json::{Map, Value, json};

use crate::index::{Index, IndexKind, Projection};
use crate::table::{Billing, Table};
use crate::warm::Warm;

/// CreateTable's input for `table`.
pub(crate) fn create_input(table: &Table) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("TableName".into(), json!(table.name));
    let definitions: Vec<Value> = table
        .attribute_definitions
        .iter()
        .map(|(name, kind)| json!({"AttributeName": name, "AttributeType": kind.name()}))
        .collect();
    out.insert("AttributeDefinitions".into(), Value::Array(definitions));
    out.insert("KeySchema".into(), table.key.to_json());
    match table.billing.units() {
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
    if let Some(key) = &table.sse_key_arn {
        out.insert("SSESpecification".into(), json!({"Enabled": true, "SSEType": "KMS", "KMSMasterKeyId": key}));
    }
    if let Some(class) = &table.table_class {
        out.insert("TableClass".into(), json!(class));
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
    out
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
pub(crate) fn raised(warm: Warm, initial: Warm) -> Option<Value> {
    (warm != initial).then(|| json!({"ReadUnitsPerSecond": warm.read, "WriteUnitsPerSecond": warm.write}))
}
