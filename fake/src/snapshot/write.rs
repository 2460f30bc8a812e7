//! A fake's tables as a snapshot document: each table as the CreateTable input that makes it as
//! it is now, with its time-to-live setting, what identifies it, and its items; the tables (and
//! backups) of the account and region the document is taken for in `Tables` (and `Backups`), those
//! of every other account and region that has any in `Regions`.

use std::time::SystemTime;

use serde_json::{Value, json};

use super::VERSION;
use crate::accounts::Accounts;
use crate::backup::{Backup, Recovery};
use crate::clock::epoch_timestamp;
use crate::definition::{create_input, raised};
use crate::place::PlaceFilter;
use crate::table::{KeySchema, Table};
use crate::value::item_to_json;
use crate::warm::Warm;

/// The document of every table and backup of the places of `accounts` that `filter` covers,
/// taken at `now`: those of the filter's [target](PlaceFilter::target) in `Tables` and `Backups`
/// (so that the document loads back there as it is), those of every other place in `Regions`.
pub(super) fn document(accounts: &Accounts, filter: &PlaceFilter, now: SystemTime) -> Value {
    let mut tables = Vec::new();
    let mut backups = Vec::new();
    let mut regions = Vec::new();
    let target = filter.target();
    for (place, engine) in accounts.engines().filter(|(place, _)| filter.covers(*place)) {
        if place == target {
            tables = engine.tables.values().map(table).collect();
            backups = engine.backups.all().map(backup).collect();
        } else if !engine.tables.is_empty() || !engine.backups.is_empty() {
            let tables: Vec<Value> = engine.tables.values().map(table).collect();
            let mut region = json!({"Account": place.account, "Region": place.region, "Tables": tables});
            if !engine.backups.is_empty() {
                region["Backups"] = engine.backups.all().map(backup).collect();
            }
            regions.push(region);
        }
    }
    let mut out = json!({
        "Version": VERSION,
        "Time": humantime::format_rfc3339_millis(now).to_string(),
        "Tables": tables,
    });
    if !backups.is_empty() {
        out["Backups"] = Value::Array(backups);
    }
    if !regions.is_empty() {
        out["Regions"] = Value::Array(regions);
    }
    out
}

/// One backup: what describes it, and the table it holds as a table of `Tables` is written.
fn backup(backup: &Backup) -> Value {
    let mut table = backup.definition.clone();
    let items: Vec<Value> = backup.items.values().map(item_to_json).collect();
    table.insert("Items".into(), Value::Array(items));
    let mut out = json!({
        "BackupArn": backup.arn,
        "BackupName": backup.name,
        "BackupType": backup.kind.name(),
        "BackupCreationDateTime": epoch_timestamp(backup.created),
        "AvailableDateTime": epoch_timestamp(backup.available_at),
        "SourceTableDetails": backup.source,
        "SourceTableFeatureDetails": backup.features,
        "Table": table,
    });
    if let Some(expires) = backup.expires {
        out["BackupExpiryDateTime"] = epoch_timestamp(expires);
    }
    out
}

/// A table's point-in-time recovery: its setting and its change log, each change as the key of
/// the item and the item before it (none for an item that did not exist).
fn recovery(schema: &KeySchema, recovery: &Recovery) -> Value {
    let changes: Vec<Value> = recovery
        .log()
        .map(|undo| {
            let mut change =
                json!({"Time": epoch_timestamp(undo.at), "Key": item_to_json(&schema.attributes_of(&undo.key))});
            if let Some(before) = &undo.before {
                change["Before"] = item_to_json(before);
            }
            change
        })
        .collect();
    json!({
        "RecoveryPeriodInDays": recovery.period_days,
        "EnabledDateTime": epoch_timestamp(recovery.enabled_at),
        "Changes": changes,
    })
}

/// One table: its CreateTable input, what a snapshot adds, and its items.
pub(crate) fn table(table: &Table) -> Value {
    let mut out = create_input(table);
    if let Some(stream) = table.stream() {
        out.insert("StreamSpecification".into(), json!({"StreamEnabled": true, "StreamViewType": stream.view.name()}));
    }
    if !table.tags.is_empty() {
        let tags: Vec<Value> = table.tags.iter().map(|(key, value)| json!({"Key": key, "Value": value})).collect();
        out.insert("Tags".into(), Value::Array(tags));
    }
    if table.deletion_protection {
        out.insert("DeletionProtectionEnabled".into(), json!(true));
    }
    if let Some(warm) = raised(table.warm, Warm::initial(table.billing.units())) {
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
    if let Some(setting) = table.recovery() {
        out.insert("PointInTimeRecovery".into(), recovery(&table.key, setting));
    }
    if !table.policies.is_empty() {
        let policies: Vec<Value> = table
            .policies
            .iter()
            .map(|(arn, policy)| json!({"ResourceArn": arn, "Policy": policy.document, "RevisionId": policy.revision}))
            .collect();
        out.insert("ResourcePolicies".into(), Value::Array(policies));
    }
    let items: Vec<Value> = table.items.values().map(item_to_json).collect();
    out.insert("Items".into(), Value::Array(items));
    Value::Object(out)
}
