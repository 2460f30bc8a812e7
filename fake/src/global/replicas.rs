//! `UpdateTable` with `ReplicaUpdates`: a replica of a table created in another region of the
//! same account, updated, or deleted, with DynamoDB's rules and words (captured against the
//! service in 2026-10): the replica modification is the only operation of the request, one
//! create or delete at a time, never of the table's own region, of a region a replica is in or
//! not in as the action needs, and of a table billed per request (the fake has no auto scaling).

use std::time::SystemTime;

use serde_json::{Value, json};

use super::membership::{Membership, ReplicaEntry};
use crate::accounts::{Account, EngineSettings};
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Json};
use crate::operation::Operation;
use crate::place::{Place, is_region};
use crate::stream::Replicated;
use crate::table::Billing;

/// The members of UpdateTable besides `TableName` that a replica modification may not come with.
const OTHER_OPERATIONS: [&str; 12] = [
    "AttributeDefinitions",
    "BillingMode",
    "ProvisionedThroughput",
    "GlobalSecondaryIndexUpdates",
    "StreamSpecification",
    "SSESpecification",
    "TableClass",
    "DeletionProtectionEnabled",
    "OnDemandThroughput",
    "WarmThroughput",
    "MultiRegionConsistency",
    "GlobalTableWitnessUpdates",
];

/// The overrides of a replica's Create and Update the fake applies.
const BUILT_OVERRIDES: [&str; 4] = ["RegionName", "TableClassOverride", "KMSMasterKeyId", "OnDemandThroughputOverride"];

fn invalid(message: impl Into<String>) -> DynamoError {
    DynamoError::validation(message)
}

fn not_members(region: &str) -> DynamoError {
    invalid(format!(
        "Update global table operation failed because one or more replicas were not part of the global table. \
         Please retry the request without these replicas: [{region}]."
    ))
}

/// A replica action of the request.
enum Action<'a> {
    Create(&'a Json<'a>),
    Update(&'a Json<'a>),
    Delete(&'a str),
}

/// Answers an UpdateTable with `ReplicaUpdates` for the table of `body` in `place`, whose
/// account is `account`, at `now`.
pub(crate) fn update_replicas(
    account: &mut Account,
    settings: &EngineSettings,
    place: Place<'_>,
    body: &Json<'_>,
    now: SystemTime,
) -> Result<Answer, DynamoError> {
    if let Some(other) = OTHER_OPERATIONS.iter().find(|member| body.get(member).is_some_and(|v| !v.is_null())) {
        if matches!(*other, "MultiRegionConsistency" | "GlobalTableWitnessUpdates") {
            return Err(invalid(format!(
                "dynalease-fake does not support multi-Region strong consistency: {other} is not served"
            )));
        }
        return Err(DynamoError::invalid_parameter("Replica modification must be the only operation in the request"));
    }
    let actions = actions(body)?;
    let engine = account.regions.get_mut(place.region).expect("the request's engine was made before it");
    let name = engine.plain_name(crate::request::string(body, "TableName").unwrap_or_default()).to_owned();
    engine.now = now;
    let engine = account.regions.get(place.region).expect("the request's engine was made before it");
    let table = engine.table(&name)?;
    if table.is_creating(now) {
        return Err(DynamoError::resource_in_use("The resource which you are attempting to change is in use."));
    }
    for action in &actions {
        let region = match action {
            Action::Create(create) => crate::request::string(create, "RegionName").unwrap_or_default(),
            Action::Update(update) => crate::request::string(update, "RegionName").unwrap_or_default(),
            Action::Delete(region) => region,
        };
        if !is_region(region) {
            return Err(invalid(format!(
                "Region {region} is not supported. The latest version of global tables are only supported in \
                 regions named with lowercase letters, digits and hyphens, such as eu-west-1."
            )));
        }
        if region == place.region && !matches!(action, Action::Update(_)) {
            return Err(invalid(
                "Cannot add or delete the local region through ReplicaUpdates. Use CreateTable, DeleteTable, or \
                 UpdateTable as required.",
            ));
        }
    }
    let is_member = |region: &str| table.global.as_ref().is_some_and(|global| global.entry(region).is_some());
    for action in &actions {
        match action {
            Action::Update(update) => {
                let region = crate::request::string(update, "RegionName").unwrap_or_default();
                if !is_member(region) {
                    return Err(not_members(region));
                }
            }
            Action::Delete(region) if !is_member(region) => return Err(not_members(region)),
            Action::Create(create) => {
                let region = crate::request::string(create, "RegionName").unwrap_or_default();
                let exists_there = account.regions.get(region).is_some_and(|engine| engine.tables.contains_key(&name));
                if is_member(region) || exists_there {
                    return Err(invalid(format!(
                        "Failed to create a the new replica of table with name: \u{2018}{name}\u{2019} because one or \
                         more replicas already existed as tables."
                    )));
                }
                if matches!(table.billing, Billing::Provisioned { .. }) {
                    return Err(invalid("Table write capacity should either be Pay-Per-Request or AutoScaled."));
                }
                if table.sse_key_arn.is_some() && crate::request::string(create, "KMSMasterKeyId").is_none() {
                    return Err(DynamoError::invalid_parameter("KMSMasterKeyId must be specified for each replica."));
                }
            }
            Action::Delete(_) => {}
        }
    }
    for action in actions {
        match action {
            Action::Create(create) => create_replica(account, settings, place, &name, create, now)?,
            Action::Update(update) => update_replica(account, place, &name, update)?,
            Action::Delete(region) => delete_replica(account, place, &name, region, now),
        }
    }
    let engine = account.regions.get(place.region).expect("the request's engine is there");
    let table = engine.table(&name)?;
    Ok(json!({ "TableDescription": table.describe("UPDATING") }))
}

/// The actions of `ReplicaUpdates`, checked as DynamoDB checks them before it looks at the table.
fn actions<'a>(body: &'a Json<'a>) -> Result<Vec<Action<'a>>, DynamoError> {
    let mut actions = Vec::new();
    let mut creates_and_deletes: Vec<(&str, &str)> = Vec::new();
    for element in body.get("ReplicaUpdates").and_then(Json::as_array).into_iter().flatten() {
        let present = |member: &str| element.get(member).filter(|v| !v.is_null());
        let given: Vec<&str> = ["Create", "Update", "Delete"].into_iter().filter(|m| present(m).is_some()).collect();
        match given.as_slice() {
            [] => return Err(invalid("There are no actions specified in the Replica Update Action of the request.")),
            [_] => {}
            _ => return Err(invalid("Update table operation with more than one type of replica actions not allowed.")),
        }
        if let Some(create) = present("Create") {
            let region = crate::request::string(create, "RegionName").unwrap_or_default();
            if let Some(member) = create.as_object().and_then(|o| o.keys().find(|k| !BUILT_OVERRIDES.contains(k))) {
                // Throughput overrides change nothing of a table billed per request, which is all
                // a replica can be made of here.
                if !matches!(member, "ProvisionedThroughputOverride" | "GlobalSecondaryIndexes") {
                    return Err(invalid(format!("dynalease-fake does not support {member} in a replica's Create")));
                }
            }
            if !creates_and_deletes.contains(&("Create", region)) {
                creates_and_deletes.push(("Create", region));
                actions.push(Action::Create(create));
            }
        } else if let Some(delete) = present("Delete") {
            let region = crate::request::string(delete, "RegionName").unwrap_or_default();
            creates_and_deletes.push(("Delete", region));
            actions.push(Action::Delete(region));
        } else if let Some(update) = present("Update") {
            let fields: Vec<&str> =
                update.as_object().into_iter().flat_map(|o| o.keys()).filter(|k| *k != "RegionName").collect();
            if fields.is_empty() {
                return Err(invalid("There are no actions specified in the Replica Update Action of the request."));
            }
            if let Some(member) = fields.iter().find(|k| **k != "TableClassOverride") {
                return Err(invalid(format!("dynalease-fake does not support {member} in a replica's Update")));
            }
            actions.push(Action::Update(update));
        }
    }
    if creates_and_deletes.len() > 1 {
        return Err(invalid("Update table operation with more than one create or delete replica actions not allowed"));
    }
    Ok(actions)
}

/// Makes the replica of `name` in the region `create` names: a table of the same definition,
/// with every item the table holds now, a stream of its own, and the table's time to live;
/// the table gets a NEW_AND_OLD_IMAGES stream if it has none. Every replica learns of it.
fn create_replica(
    account: &mut Account,
    settings: &EngineSettings,
    place: Place<'_>,
    name: &str,
    create: &Json<'_>,
    now: SystemTime,
) -> Result<(), DynamoError> {
    let region = crate::request::string(create, "RegionName").unwrap_or_default().to_owned();
    let engine = account.regions.get_mut(place.region).expect("the request's engine is there");
    if engine.tables.get(name).is_some_and(|table| table.stream().is_none()) {
        request(
            engine,
            Operation::UpdateTable,
            &json!({"TableName": name, "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}),
            now,
        )?;
    }
    let table = engine.tables.get_mut(name).expect("the table was found");
    let mut document = match crate::snapshot::table_document(table) {
        Value::Object(document) => document,
        _ => unreachable!("a table's document is an object"),
    };
    for member in
        ["TableId", "CreationDateTime", "LatestStreamLabel", "Tags", "DeletionProtectionEnabled", "TableClassUpdated"]
    {
        document.remove(member);
    }
    if let Some(class) = crate::request::string(create, "TableClassOverride") {
        document.insert("TableClass".into(), json!(class));
    }
    if let Some(key) = crate::request::string(create, "KMSMasterKeyId") {
        document.insert("SSESpecification".into(), json!({"Enabled": true, "SSEType": "KMS", "KMSMasterKeyId": key}));
    }
    if let Some(units) = create.get("OnDemandThroughputOverride").and_then(|o| o.get("MaxReadRequestUnits")) {
        let units = crate::validate::as_integer(units).unwrap_or_default();
        document.insert("OnDemandThroughput".into(), json!({"MaxReadRequestUnits": units}));
    }
    let versions = table.changes.as_deref().and_then(|c| c.replicated.as_ref()).map(|r| r.versions.clone());
    let others: Vec<String> = table.global.iter().flat_map(|g| g.replicas.iter().map(|e| e.region.clone())).collect();
    let active_from = now + settings.table_creation;
    // The table itself replicates from now on.
    enable_replication(table, place.region, versions.clone());
    let entry = |region: &str| ReplicaEntry {
        region: region.to_owned(),
        active_from,
        creating: active_from > now,
        table_class: None,
    };
    let mut class_entry = entry(&region);
    class_entry.table_class = crate::request::string(create, "TableClassOverride").map(str::to_owned);
    table.global.get_or_insert_with(Default::default).replicas.push(class_entry);

    account.replicating = true;
    let target = account.account_engine(settings, Place { account: place.account, region: &region });
    target.now = now;
    crate::snapshot::build_table(target, &document, now).map_err(DynamoError::validation)?;
    let replica = target.tables.get_mut(name).expect("the replica was just built");
    replica.creating_until = (active_from > now).then_some(active_from);
    enable_replication(replica, &region, versions);
    let mut membership = Membership::default();
    membership.replicas.push(entry(place.region));
    membership.replicas.extend(others.iter().map(|other| entry(other)));
    replica.global = Some(Box::new(membership));
    for other in &others {
        if let Some(table) = account.regions.get_mut(other).and_then(|engine| engine.tables.get_mut(name))
            && let Some(global) = table.global.as_mut()
        {
            global.replicas.push(entry(&region));
        }
    }
    Ok(())
}

/// Applies a replica's Update: its table class.
fn update_replica(account: &mut Account, place: Place<'_>, name: &str, update: &Json<'_>) -> Result<(), DynamoError> {
    let region = crate::request::string(update, "RegionName").unwrap_or_default().to_owned();
    let Some(class) = crate::request::string(update, "TableClassOverride") else { return Ok(()) };
    let now = account.regions.get(place.region).map_or(SystemTime::UNIX_EPOCH, |engine| engine.now);
    if let Some(replica) = account.regions.get_mut(&region).and_then(|engine| engine.tables.get_mut(name)) {
        replica.table_class = Some(class.to_owned());
        replica.table_class_updated = Some(now);
    }
    for engine in account.regions.values_mut() {
        if let Some(entry) = engine
            .tables
            .get_mut(name)
            .and_then(|table| table.global.as_mut())
            .and_then(|global| global.replicas.iter_mut().find(|entry| entry.region == region))
        {
            entry.table_class = Some(class.to_owned());
        }
    }
    Ok(())
}

/// Deletes the replica of `name` in `region`: its table (its stream kept readable, disabled, for
/// a day), the writes on their way to it, and its entry in every other replica; a table left
/// without replicas is a regional table again.
fn delete_replica(account: &mut Account, place: Place<'_>, name: &str, region: &str, now: SystemTime) {
    if let Some(engine) = account.regions.get_mut(region) {
        engine.now = now;
        engine.retire_stream(name);
        engine.tables.remove(name);
    }
    account.replication.forget(region, name);
    leave(account, name, region);
    let _ = place;
}

/// Removes `region` from the replicas of `name` everywhere in `account`.
pub(crate) fn leave(account: &mut Account, name: &str, region: &str) {
    for engine in account.regions.values_mut() {
        let Some(table) = engine.tables.get_mut(name) else { continue };
        let Some(global) = table.global.as_mut() else { continue };
        global.replicas.retain(|entry| entry.region != region);
        if global.replicas.is_empty() {
            table.global = None;
            if let Some(changes) = table.changes.as_deref_mut() {
                changes.replicated = None;
            }
        }
    }
}

/// The parts of an UpdateTable (without `ReplicaUpdates`) of a replica of a global table that
/// are refused: disabling its stream, as DynamoDB refuses it, and the settings DynamoDB would
/// carry to every replica, which the fake does not (yet).
pub(crate) fn check_regional_update(body: &Json<'_>, disables_stream: bool) -> Result<(), DynamoError> {
    if disables_stream {
        return Err(DynamoError::invalid_parameter("Disabling Stream is not allowed for a Global Table replica."));
    }
    let shared =
        ["GlobalSecondaryIndexUpdates", "SSESpecification", "BillingMode", "ProvisionedThroughput", "TableClass"];
    if let Some(member) = shared.iter().find(|member| body.get(member).is_some_and(|v| !v.is_null())) {
        return Err(invalid(format!(
            "dynalease-fake does not carry {member} to the replicas of a global table: change it before the table \
             has replicas"
        )));
    }
    Ok(())
}

/// Gives every other replica of the table an UpdateTimeToLive of `body` made in `region` sets
/// (time to live is a setting of the global table, whichever region changes it).
pub(crate) fn share_time_to_live(account: &mut Account, region: &str, body: &Json<'_>) {
    let Some(engine) = account.regions.get(region) else { return };
    let name = engine.plain_name(crate::request::string(body, "TableName").unwrap_or_default()).to_owned();
    let Some(table) = engine.tables.get(&name).filter(|table| table.global.is_some()) else { return };
    let setting = table.ttl.clone();
    let others: Vec<String> = table.global.iter().flat_map(|g| g.replicas.iter().map(|e| e.region.clone())).collect();
    for other in others {
        if let Some(replica) = account.regions.get_mut(&other).and_then(|engine| engine.tables.get_mut(&name)) {
            replica.ttl = setting.clone();
        }
    }
}

/// Makes `table` (of `region`) keep the versions of its items and send its writes out.
fn enable_replication(
    table: &mut crate::table::Table,
    region: &str,
    versions: Option<std::collections::BTreeMap<crate::table::PrimaryKey, crate::stream::Version>>,
) {
    let changes = table.changes.get_or_insert_with(Default::default);
    if changes.replicated.is_none() {
        changes.replicated =
            Some(Replicated { region: region.to_owned(), outbox: Vec::new(), versions: versions.unwrap_or_default() });
    }
}

/// One request answered by `engine` at `now`.
fn request(engine: &mut Engine, operation: Operation, body: &Value, now: SystemTime) -> Result<(), DynamoError> {
    let text = body.to_string();
    let arena = crate::json::Arena::new();
    let json = crate::json::from_slice(text.as_bytes(), &arena).unwrap_or_default();
    engine.handle(operation, &json, now).map(drop)
}
