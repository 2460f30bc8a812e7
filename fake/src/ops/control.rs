//! The control plane: tables, time to live, limits.

use std::collections::{BTreeMap, BTreeSet};
use std::time::SystemTime;

use serde_json::json;

use crate::json::{Answer, Json};

use crate::engine::Engine;
use crate::error::DynamoError;
use crate::index::{Index, IndexKind, Projection};
use crate::request::{string, table_name};
use crate::stream::{Stream, ViewType};
use crate::table::{Billing, Indexes, KeyAttr, KeySchema, KeyType, Table, TtlSetting};
use crate::validate;
use crate::warm::{ON_DEMAND, Warm};

fn key_schema(json: Option<&Json<'_>>, definitions: &[(String, KeyType)]) -> Result<KeySchema, DynamoError> {
    let elements = json.and_then(Json::as_array).unwrap_or_default();
    let (mut hash, mut range) = (Vec::with_capacity(1), Vec::with_capacity(1));
    for element in elements {
        let name = element.get("AttributeName").and_then(Json::as_str).unwrap_or_default();
        let kind =
            definitions.iter().find(|(n, _)| n == name).map(|(_, k)| *k).ok_or_else(|| {
                DynamoError::validation("Invalid KeySchema: Some index key attribute have no definition")
            })?;
        let part = if string(element, "KeyType") == Some("RANGE") { &mut range } else { &mut hash };
        part.push(KeyAttr { name: name.to_owned(), kind });
    }
    let mut hash = hash.into_iter();
    let mut range = range.into_iter();
    let first = hash.next().ok_or_else(|| {
        DynamoError::validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    })?;
    let mut schema = KeySchema::simple(first, range.next());
    schema.hash_rest.extend(hash);
    schema.range_rest.extend(range);
    Ok(schema)
}

fn projection(json: Option<&Json<'_>>) -> Projection {
    let kind = json.and_then(|p| p.get("ProjectionType")).and_then(Json::as_str).unwrap_or("ALL");
    match kind {
        "KEYS_ONLY" => Projection::KeysOnly,
        "INCLUDE" => Projection::Include(
            json.and_then(|p| p.get("NonKeyAttributes"))
                .and_then(Json::as_array)
                .map(|a| a.iter().filter_map(Json::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
        ),
        _ => Projection::All,
    }
}

fn throughput(json: Option<&Json<'_>>) -> Option<(i64, i64)> {
    let t = json?;
    Some((
        crate::validate::as_integer(t.get("ReadCapacityUnits")?)?,
        crate::validate::as_integer(t.get("WriteCapacityUnits")?)?,
    ))
}

pub(crate) fn build_index(
    json: &Json<'_>,
    kind: IndexKind,
    definitions: &[(String, KeyType)],
) -> Result<Index, DynamoError> {
    let key = key_schema(json.get("KeySchema"), definitions)?;
    let name = string(json, "IndexName").unwrap_or_default().to_owned();
    let provisioned = throughput(json.get("ProvisionedThroughput"));
    let mut warm = Warm::initial(provisioned);
    if let Some(requested) = json.get("WarmThroughput").filter(|_| kind == IndexKind::Global) {
        warm = warm.created(requested, provisioned.is_some(), &format!("index {name}"))?;
    }
    Ok(Index {
        key,
        name,
        kind,
        projection: projection(json.get("Projection")),
        throughput: provisioned,
        warm,
        entries: BTreeSet::new(),
        by_table_key: BTreeMap::new(),
    })
}

/// CreateTable.
pub(crate) fn create_table(engine: &mut Engine, body: &Json<'_>, now: SystemTime) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?.to_owned();
    let mut definitions = Vec::new();
    for def in body.get("AttributeDefinitions").and_then(Json::as_array).into_iter().flatten() {
        let attr = string(def, "AttributeName").unwrap_or_default().to_owned();
        let kind = string(def, "AttributeType").and_then(KeyType::parse).unwrap_or(KeyType::S);
        definitions.push((attr, kind));
    }
    let key = key_schema(body.get("KeySchema"), &definitions)?;
    let billing = match string(body, "BillingMode") {
        Some("PAY_PER_REQUEST") => Billing::PayPerRequest,
        _ => match throughput(body.get("ProvisionedThroughput")) {
            Some((read, write)) => Billing::Provisioned { read, write },
            None => Billing::PayPerRequest,
        },
    };
    let mut indexes = Vec::new();
    for (member, kind) in [("LocalSecondaryIndexes", IndexKind::Local), ("GlobalSecondaryIndexes", IndexKind::Global)] {
        for json in body.get(member).and_then(Json::as_array).into_iter().flatten() {
            indexes.push(build_index(json, kind, &definitions)?);
        }
    }
    let tags = super::tags::read(body.get("Tags"))?;
    super::tags::check_count(tags.len())?;
    let policy = string(body, "ResourcePolicy");
    if let Some(policy) = policy {
        crate::policy::check(policy)?;
    }
    let provisioned = billing.units();
    let requested_warm = body.get("WarmThroughput");
    let warm = match requested_warm {
        Some(requested) => Warm::initial(provisioned).created(requested, provisioned.is_some(), "table")?,
        None => Warm::initial(provisioned),
    };
    if engine.tables.contains_key(&name) {
        return Err(DynamoError::resource_in_use(format!("Table already exists: {name}")));
    }
    engine.next_table_id += 1;
    let id = engine.next_table_id ^ engine.seed.rotate_left(17);
    let mut table = Table {
        name: name.clone(),
        key,
        attribute_definitions: definitions,
        billing,
        created: now,
        table_id: format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            (id >> 32) as u32,
            (id >> 16) as u16,
            id & 0xfff,
            (id >> 12) & 0xfff,
            id & 0xffff_ffff_ffff
        ),
        region: engine.region.clone(),
        account: engine.account.clone(),
        indexes: Indexes::default(),
        items: BTreeMap::new(),
        placements: Default::default(),
        bytes: 0,
        ttl: TtlSetting::default(),
        tags,
        deletion_protection: body.get("DeletionProtectionEnabled").and_then(crate::validate::as_bool).unwrap_or(false),
        changes: None,
        latest_stream: None,
        table_class: string(body, "TableClass").map(str::to_owned),
        table_class_updated: None,
        on_demand_max: on_demand_max(body),
        sse_key_arn: None,
        warm,
        creating_until: (!engine.table_creation.is_zero()).then(|| now + engine.table_creation),
        restored: None,
        policies: BTreeMap::new(),
        global: None,
    };
    if let Some(policy) = policy {
        table.policies.insert(table.arn(), crate::policy::Policy::new(policy, now, None));
    }
    for index in indexes {
        table.add_index(index);
    }
    if let Some((enabled, key)) = sse(body) {
        table.set_sse(enabled, key);
    }
    if let Some(Some(view)) = stream_request(body) {
        // A stream created with its table is ENABLING while the table is CREATING.
        let transition = engine.stream_transition.max(engine.table_creation);
        let created = crate::stream::stream_label_after(now, engine.latest_stream_created(&name));
        table.start_stream(Stream::new(&table, view, created, transition, engine.seed));
    }
    for observer in engine.observers.get(&name).into_iter().flatten() {
        table.add_observer(observer.clone());
    }
    // Until its creation time has passed, the table is refused to reads and writes as missing,
    // and to changes as in use.
    let mut description = table.describe("CREATING");
    if requested_warm.is_some() {
        description["WarmThroughput"]["Status"] = json!("UPDATING");
    }
    crate::stale::fit(&mut table, engine.history);
    engine.tables.insert(name, table);
    Ok(json!({ "TableDescription": description }))
}

/// What a request's `StreamSpecification` asks for: `Some(Some(view))` to enable a stream of that
/// view type, `Some(None)` to disable it, `None` if the request has none. (The rules have
/// checked that an enabled stream names a view type and a disabled one none.)
fn stream_request(body: &Json<'_>) -> Option<Option<ViewType>> {
    let spec = body.get("StreamSpecification").filter(|s| !s.is_null())?;
    let enabled = spec.get("StreamEnabled").and_then(validate::as_bool).unwrap_or(false);
    Some(enabled.then(|| string(spec, "StreamViewType").and_then(ViewType::parse)).flatten())
}

/// The maxima of an `OnDemandThroughput` member, if the request has one.
fn on_demand_max(body: &Json<'_>) -> Option<(Option<i64>, Option<i64>)> {
    let limits = body.get("OnDemandThroughput").filter(|o| !o.is_null())?;
    let units = |member| limits.get(member).and_then(validate::as_integer);
    Some((units("MaxReadRequestUnits"), units("MaxWriteRequestUnits")))
}

/// Whether an `SSESpecification` member enables encryption with a KMS key, and the key it names.
fn sse<'b>(body: &'b Json<'_>) -> Option<(bool, Option<&'b str>)> {
    let spec = body.get("SSESpecification").filter(|s| !s.is_null())?;
    let enabled = spec.get("Enabled").and_then(validate::as_bool).unwrap_or(false);
    let kms = string(spec, "SSEType").is_none_or(|kind| kind == "KMS");
    Some((enabled && kms, string(spec, "KMSMasterKeyId")))
}

/// DeleteTable.
pub(crate) fn delete_table(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?;
    let table = engine.tables.get(name).ok_or_else(|| table_not_found(name))?;
    if table.is_creating(engine.now) {
        return Err(being_created(name));
    }
    if table.deletion_protection {
        return Err(DynamoError::validation(format!(
            "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first. Table: {name}"
        )));
    }
    let mut description = table.describe("DELETING");
    // DynamoDB leaves the schema, the indexes and the creation time out of a deleted table's
    // description (ScyllaDB's Alternator suite, which runs against DynamoDB).
    if let Some(description) = description.as_object_mut() {
        for left_out in
            ["CreationDateTime", "KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "LocalSecondaryIndexes"]
        {
            description.remove(left_out);
        }
    }
    engine.drop_table(name);
    Ok(json!({ "TableDescription": description }))
}

/// DescribeTable.
pub(crate) fn describe_table(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?;
    let table = engine.tables.get(name).ok_or_else(|| table_not_found(name))?;
    let status = if table.is_creating(engine.now) { "CREATING" } else { "ACTIVE" };
    Ok(json!({ "Table": table.describe(status) }))
}

/// ResourceInUseException for a change to a table that is still being created.
fn being_created(name: &str) -> DynamoError {
    DynamoError::resource_in_use(format!(
        "Attempt to change a resource which is still in use: Table is being created: {name}"
    ))
}

/// The answer of DescribeTable and DeleteTable for a table that does not exist, which names it.
fn table_not_found(name: &str) -> DynamoError {
    DynamoError::resource_not_found_msg(format!("Requested resource not found: Table: {name} not found"))
}

/// ListTables, with `ExclusiveStartTableName` and `Limit` (at most 100 names a page).
pub(crate) fn list_tables(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let limit = body.get("Limit").and_then(crate::validate::as_integer).unwrap_or(100).clamp(1, 100) as usize;
    let start = string(body, "ExclusiveStartTableName");
    let names: Vec<&String> =
        engine.tables.keys().filter(|name| start.is_none_or(|s| name.as_str() > s)).take(limit + 1).collect();
    let more = names.len() > limit;
    let page: Vec<&String> = names.into_iter().take(limit).collect();
    let mut out = json!({ "TableNames": page });
    if more && let Some(last) = page.last() {
        out["LastEvaluatedTableName"] = json!(last);
    }
    Ok(out)
}

/// One change to the global secondary indexes of a table, checked and ready to apply.
enum IndexChange {
    Create(Index),
    Delete(String),
    /// New provisioned throughput, warm throughput, or both, for an index.
    Throughput(String, Option<(i64, i64)>, Option<Warm>),
}

/// UpdateTable: billing mode, throughput, deletion protection, and global secondary indexes
/// created (and filled from the items already there), deleted, or given new throughput.
/// Every change is checked before any is applied: a refused request changes nothing.
pub(crate) fn update_table(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?;
    let now = engine.now;
    if engine.tables.get(name).is_some_and(|t| t.is_creating(now)) {
        return Err(being_created(name));
    }
    let table = engine.table(name).map_err(|_| table_not_found(name))?;
    check_throughput_change(table, body)?;
    let stream_change = stream_request(body);
    if table.global.is_some() {
        crate::global::replicas::check_regional_update(body, stream_change.is_some_and(|s| s.is_none()))?;
    }
    match stream_change {
        Some(Some(_)) if table.stream().is_some() => {
            return Err(DynamoError::validation(format!("Table already has an enabled stream: TableName: {name}")));
        }
        Some(None) if table.stream().is_none() => {
            return Err(DynamoError::validation(format!("Table has no stream to disable: TableName: {name}")));
        }
        _ => {}
    }
    let new_stream_created = crate::stream::stream_label_after(now, engine.latest_stream_created(name));
    let raised_warm = match body.get("WarmThroughput") {
        Some(requested) => Some(table.warm.raised(requested, "table")?),
        None => None,
    };
    let mut requested: Vec<(String, KeyType)> = Vec::new();
    for def in body.get("AttributeDefinitions").and_then(Json::as_array).into_iter().flatten() {
        let attr = string(def, "AttributeName").unwrap_or_default().to_owned();
        let kind = string(def, "AttributeType").and_then(KeyType::parse).unwrap_or(KeyType::S);
        requested.push((attr, kind));
    }
    let mut changes = Vec::new();
    for update in body.get("GlobalSecondaryIndexUpdates").and_then(Json::as_array).into_iter().flatten() {
        if let Some(create) = update.get("Create").filter(|c| !c.is_null()) {
            let index_name = string(create, "IndexName").unwrap_or_default();
            if table.indexes().iter().any(|i| i.name == index_name) {
                return Err(DynamoError::validation("Attempting to create an index which already exists"));
            }
            let keys: Vec<&str> = create
                .get("KeySchema")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(|k| string(k, "AttributeName"))
                .collect();
            if keys.iter().any(|key| !requested.iter().any(|(n, _)| n == key)) {
                let defined: Vec<&str> = requested.iter().map(|(n, _)| n.as_str()).collect();
                return Err(DynamoError::invalid_parameter(format!(
                    "Some index key attributes are not defined in AttributeDefinitions. Keys: [{}], AttributeDefinitions: [{}]",
                    keys.join(", "),
                    defined.join(", ")
                )));
            }
            for (attr, kind) in &requested {
                if let Some(existing) = table.definition_of(attr).filter(|existing| existing != kind) {
                    // DynamoDB's wording (ScyllaDB's Alternator suite quotes it), each schema
                    // shown with the role the attribute has in the new index's key.
                    let role = create
                        .get("KeySchema")
                        .and_then(Json::as_array)
                        .into_iter()
                        .flatten()
                        .find(|k| string(k, "AttributeName") == Some(attr.as_str()))
                        .and_then(|k| string(k, "KeyType"))
                        .unwrap_or("HASH");
                    return Err(DynamoError::invalid_parameter(format!(
                        "Attributes cannot be redefined. Please check that your attribute has the same type as previously \
                         defined. Existing schema: Schema:[SchemaElement: key{{{attr}:{}:{role}}}] New schema: \
                         Schema:[SchemaElement: key{{{attr}:{}:{role}}}]",
                        existing.name(),
                        kind.name()
                    )));
                }
            }
            changes.push(IndexChange::Create(build_index(create, IndexKind::Global, &requested)?));
        } else if let Some(delete) = update.get("Delete").filter(|d| !d.is_null()) {
            let index_name = string(delete, "IndexName").unwrap_or_default();
            if !table.indexes().iter().any(|i| i.kind == IndexKind::Global && i.name == index_name) {
                return Err(DynamoError::resource_not_found_msg(format!(
                    "Requested resource not found: Index: {index_name} not found"
                )));
            }
            changes.push(IndexChange::Delete(index_name.to_owned()));
        } else if let Some(change) = update.get("Update").filter(|u| !u.is_null()) {
            let index_name = string(change, "IndexName").unwrap_or_default();
            let Some(index) = table.indexes().iter().find(|i| i.kind == IndexKind::Global && i.name == index_name)
            else {
                return Err(DynamoError::resource_not_found_msg(format!(
                    "Requested resource not found: Index: {index_name} not found"
                )));
            };
            let warm = match change.get("WarmThroughput") {
                Some(requested) => Some(index.warm.raised(requested, &format!("index {index_name}"))?),
                None => None,
            };
            changes.push(IndexChange::Throughput(
                index_name.to_owned(),
                throughput(change.get("ProvisionedThroughput")),
                warm,
            ));
        }
    }

    match stream_change {
        Some(Some(view)) => {
            let (transition, seed) = (engine.stream_transition, engine.seed);
            let table = engine.table_mut(name)?;
            let stream = Stream::new(table, view, new_stream_created, transition, seed);
            table.start_stream(stream);
        }
        Some(None) => engine.retire_stream(name),
        None => {}
    }
    let table = engine.table_mut(name)?;
    for (attr, kind) in requested {
        if table.definition_of(&attr).is_none() {
            table.attribute_definitions.push((attr, kind));
        }
    }
    match string(body, "BillingMode") {
        Some("PAY_PER_REQUEST") => table.billing = Billing::PayPerRequest,
        Some("PROVISIONED") | None => {
            if let Some((read, write)) = throughput(body.get("ProvisionedThroughput")) {
                table.billing = Billing::Provisioned { read, write };
            }
        }
        Some(_) => {}
    }
    // Warm throughput follows the highest throughput the table has had, and a raise asked for.
    let old_warm = table.warm;
    table.warm = table.warm.max(Warm::initial(table.billing.units()));
    if let Some(raised) = raised_warm {
        table.warm = table.warm.max(raised);
    }
    if table.billing == Billing::PayPerRequest {
        for index in table.indexes_mut().filter(|index| index.kind == IndexKind::Global) {
            index.warm = index.warm.max(ON_DEMAND);
        }
    }
    if let Some(protect) = body.get("DeletionProtectionEnabled").and_then(validate::as_bool) {
        table.deletion_protection = protect;
    }
    if let Some(class) = string(body, "TableClass") {
        if table.table_class.as_deref().unwrap_or("STANDARD") != class {
            table.table_class_updated = Some(now);
        }
        table.table_class = Some(class.to_owned());
    }
    if let Some((read, write)) = on_demand_max(body) {
        let (old_read, old_write) = table.on_demand_max.unwrap_or_default();
        table.on_demand_max = Some((read.or(old_read), write.or(old_write)));
    }
    if let Some((enabled, key)) = sse(body) {
        table.set_sse(enabled, key);
    }
    let mut indexes_warming = Vec::new();
    for change in changes {
        match change {
            IndexChange::Create(mut index) => {
                let key = table.key.clone();
                for (pk, item) in &table.items {
                    index.put(&key, pk, item);
                }
                table.add_index(index);
            }
            IndexChange::Delete(index_name) => {
                table.remove_global_index(&index_name);
                let used: Vec<String> = table
                    .key
                    .attrs()
                    .chain(table.indexes().iter().flat_map(|i| i.key.attrs()))
                    .map(|a| a.name.clone())
                    .collect();
                table.attribute_definitions.retain(|(attr, _)| used.contains(attr));
            }
            IndexChange::Throughput(index_name, provisioned, warm) => {
                if let Some(index) = table.index_mut(&index_name) {
                    let before = index.warm;
                    if let Some(provisioned) = provisioned {
                        index.throughput = Some(provisioned);
                        index.warm = index.warm.max(Warm::initial(Some(provisioned)));
                    }
                    let raised = warm.map_or(index.warm, |warm| index.warm.max(warm));
                    if raised != index.warm {
                        index.warm = raised;
                        indexes_warming.push((index_name, before));
                    }
                }
            }
        }
    }
    let mut description = table.describe("UPDATING");
    if raised_warm.is_some_and(|_| table.warm != old_warm) {
        description["WarmThroughput"]["Status"] = json!("UPDATING");
    }
    // The answer shows an index's warm throughput as it was, raising; a table's as it will be.
    for index in description["GlobalSecondaryIndexes"].as_array_mut().into_iter().flatten() {
        if let Some((_, before)) = indexes_warming.iter().find(|(name, _)| index["IndexName"] == **name) {
            index["WarmThroughput"] = before.describe("UPDATING");
        }
    }
    Ok(json!({ "TableDescription": description }))
}

/// The rules of an UpdateTable on the table's throughput and its indexes' that need the table:
/// no throughput for an on-demand table, throughput when turning it provisioned, a change to the
/// throughput, one index created or deleted at a time, and the bounds of an index's throughput.
fn check_throughput_change(table: &crate::table::Table, body: &Json<'_>) -> Result<(), DynamoError> {
    let requested = throughput(body.get("ProvisionedThroughput"));
    let billing = string(body, "BillingMode");
    let on_demand = matches!(table.billing, Billing::PayPerRequest);
    let will_be_on_demand = billing.map_or(on_demand, |mode| mode == "PAY_PER_REQUEST");
    if body.get("ProvisionedThroughput").is_some() && will_be_on_demand {
        return Err(DynamoError::invalid_parameter(
            "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
        ));
    }
    if billing == Some("PROVISIONED") && on_demand && requested.is_none() {
        return Err(DynamoError::invalid_parameter(
            "ProvisionedThroughput must be specified when BillingMode is PROVISIONED",
        ));
    }
    if let (Some((read, write)), Billing::Provisioned { read: current_read, write: current_write }) =
        (requested, &table.billing)
        && (read, write) == (*current_read, *current_write)
    {
        return Err(DynamoError::validation(format!(
            "The provisioned throughput for the table will not change. The requested value equals the current value. \
             Current ReadCapacityUnits provisioned for the table: {current_read}. Requested ReadCapacityUnits: {read}. \
             Current WriteCapacityUnits provisioned for the table: {current_write}. Requested WriteCapacityUnits: {write}. \
             Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
        )));
    }
    let updates: Vec<&Json<'_>> =
        body.get("GlobalSecondaryIndexUpdates").and_then(Json::as_array).into_iter().flatten().collect();
    let online =
        updates.iter().filter(|u| ["Create", "Delete"].iter().any(|a| u.get(a).is_some_and(|v| !v.is_null()))).count();
    if online > 1 {
        return Err(DynamoError::custom(
            400,
            "LimitExceededException",
            "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
        ));
    }
    const MAX_UNITS: i64 = 1_000_000_000_000;
    for update in updates.iter().filter_map(|u| u.get("Update")) {
        if throughput(update.get("ProvisionedThroughput")).is_some_and(|(r, w)| r > MAX_UNITS || w > MAX_UNITS) {
            return Err(DynamoError::validation(
                "This operation cannot be performed with given input values. Please contact DynamoDB service team \
                 for more info: Action Blocked: IndexUpdate",
            ));
        }
    }
    Ok(())
}

/// UpdateTimeToLive.
pub(crate) fn update_time_to_live(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?;
    let spec = body.get("TimeToLiveSpecification").cloned().unwrap_or(Json::Null);
    let enabled = spec.get("Enabled").and_then(crate::validate::as_bool).unwrap_or(false);
    let attribute = string(&spec, "AttributeName").unwrap_or_default().to_owned();
    let table = engine.table_mut(name).map_err(|_| table_not_found(name))?;
    if enabled && table.ttl.enabled {
        return Err(DynamoError::validation("TimeToLive is already enabled"));
    }
    if !enabled && !table.ttl.enabled {
        return Err(DynamoError::validation("TimeToLive is already disabled"));
    }
    if !enabled && table.ttl.attribute.as_deref() != Some(attribute.as_str()) {
        return Err(DynamoError::validation(format!(
            "TimeToLive is active on a different AttributeName: current AttributeName is {}",
            table.ttl.attribute.as_deref().unwrap_or_default()
        )));
    }
    table.ttl = TtlSetting { attribute: Some(attribute.clone()), enabled };
    Ok(json!({ "TimeToLiveSpecification": { "AttributeName": attribute, "Enabled": enabled } }))
}

/// DescribeTimeToLive.
pub(crate) fn describe_time_to_live(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let name = table_name(body, engine.place())?;
    let table = engine.table(name).map_err(|_| table_not_found(name))?;
    let description = match (&table.ttl.attribute, table.ttl.enabled) {
        (Some(attr), true) => json!({"TimeToLiveStatus": "ENABLED", "AttributeName": attr}),
        _ => json!({"TimeToLiveStatus": "DISABLED"}),
    };
    Ok(json!({ "TimeToLiveDescription": description }))
}

/// DescribeLimits.
pub(crate) fn describe_limits() -> Answer {
    json!({
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 40000
    })
}

/// DescribeEndpoints.
pub(crate) fn describe_endpoints(engine: &Engine) -> Answer {
    json!({ "Endpoints": [ { "Address": format!("dynamodb.{}.amazonaws.com", engine.region), "CachePeriodInMinutes": 1440 } ] })
}
