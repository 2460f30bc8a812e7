//! `CreateTable`: billing mode against throughput, the key schema against the attribute
//! definitions, and the rules and limits of secondary indexes.

use crate::json::Json;

use super::{Object, field, first_duplicate, invalid, list, object, objects, refuse, text, throughput};
use crate::error::DynamoError;

/// The most local secondary indexes a table may have.
const MAX_LOCAL_INDEXES: usize = 5;
/// The most global secondary indexes a table may have.
const MAX_GLOBAL_INDEXES: usize = 20;

/// The rules of `CreateTable`, in DynamoDB's order.
pub(crate) fn check(request: &Object<'_>) -> Result<(), DynamoError> {
    super::table_class(request)?;
    let on_demand = text(request, "BillingMode") == Some("PAY_PER_REQUEST");
    let table_throughput = object(request, "ProvisionedThroughput");
    match (on_demand, table_throughput) {
        (true, Some(_)) => {
            return invalid(
                "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
            );
        }
        (false, None) => {
            return invalid(
                "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED",
            );
        }
        (false, Some(t)) => throughput::check_bounds(t, None)?,
        (true, None) => {}
    }

    let definitions = list(request, "AttributeDefinitions").unwrap_or_default();
    // Two definitions of one name are refused before the key schema is compared with them
    // (scylladb/scylladb issue 13870 quotes DynamoDB's answer).
    let names: Vec<Json<'_>> =
        definitions.iter().map(|d| d.get("AttributeName").cloned().unwrap_or_default()).collect();
    if let Some(name) = first_duplicate(&names) {
        return refuse(format!("Attribute Name is duplicated: {name}"));
    }
    let table_keys = KeySchema::of(request);
    check_table_keys(&table_keys, definitions)?;
    let local = list(request, "LocalSecondaryIndexes");
    let global = list(request, "GlobalSecondaryIndexes");
    if local.is_none() && global.is_none() && table_keys.len() != definitions.len() {
        return invalid(
            "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions",
        );
    }
    if let Some(local) = local {
        check_local_indexes(local, &table_keys, definitions)?;
    }
    if let Some(global) = global {
        check_global_indexes(global, local.unwrap_or_default(), definitions, on_demand)?;
    }
    if local.is_some() || global.is_some() {
        check_all_definitions_used(request, definitions)?;
    }
    check_stream(request)
}

/// A stream created enabled names its view type; one created disabled names none.
fn check_stream(request: &Object<'_>) -> Result<(), DynamoError> {
    let Some(stream) = object(request, "StreamSpecification") else { return Ok(()) };
    let enabled = field(stream, "StreamEnabled").and_then(crate::validate::as_bool);
    let view = field(stream, "StreamViewType").is_some();
    match (enabled, view) {
        (Some(false), true) => {
            invalid("Table is being created with a stream disabled, UpdateViewType should not be specified")
        }
        (Some(true), false) => invalid("Table is being created with a stream enabled, UpdateViewType is required"),
        _ => Ok(()),
    }
}

/// The most attributes a part (partition or sort) of a global index's multi-attribute key may have.
pub(crate) const MAX_KEY_PART_ATTRIBUTES: usize = 4;

/// The elements of a key schema, as (attribute name, key type).
#[derive(Debug, Default)]
pub(crate) struct KeySchema<'a> {
    elements: Vec<(&'a str, &'a str)>,
}

impl<'a> KeySchema<'a> {
    pub(crate) fn of(object: &'a Object<'_>) -> KeySchema<'a> {
        let elements = list(object, "KeySchema").unwrap_or_default().iter().map(|element| {
            let element = element.as_object();
            let name = element.and_then(|e| text(e, "AttributeName")).unwrap_or_default();
            let key_type = element.and_then(|e| text(e, "KeyType")).unwrap_or_default();
            (name, key_type)
        });
        KeySchema { elements: elements.collect() }
    }

    fn len(&self) -> usize {
        self.elements.len()
    }

    fn names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.elements.iter().map(|(name, _)| *name)
    }

    fn hash(&self) -> &'a str {
        self.elements.first().map(|(name, _)| *name).unwrap_or_default()
    }

    fn range(&self) -> Option<&'a str> {
        self.elements.get(1).map(|(name, _)| *name)
    }

    fn key_type(&self, at: usize) -> Option<&'a str> {
        self.elements.get(at).map(|(_, key_type)| *key_type)
    }

    /// The rules every key schema shares: distinct names, a HASH first, a RANGE second.
    fn check_types(&self) -> Result<(), DynamoError> {
        if self.range() == Some(self.hash()) {
            return refuse("Both the Hash Key and the Range Key element in the KeySchema have the same name");
        }
        if self.key_type(0).is_some_and(|key_type| key_type != "HASH") {
            return refuse("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
        }
        if self.key_type(1).is_some_and(|key_type| key_type != "RANGE") {
            return refuse("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type");
        }
        Ok(())
    }

    /// The rules of a global index's key, which may have up to four HASH attributes followed by
    /// up to four RANGE attributes, all distinct. A key of one HASH and one RANGE attribute keeps
    /// the messages of [`check_types`](Self::check_types).
    pub(crate) fn check_global_types(&self) -> Result<(), DynamoError> {
        let single = self.len() <= 2 && self.key_type(1) != Some("HASH");
        if single {
            return self.check_types();
        }
        if self.key_type(0) != Some("HASH") {
            return refuse("Invalid KeySchema: The first KeySchemaElement is not a HASH key type");
        }
        let mut seen_range = false;
        for (at, (name, key_type)) in self.elements.iter().enumerate() {
            match *key_type {
                "HASH" if seen_range => {
                    return refuse(
                        "Invalid KeySchema: All HASH KeySchemaElements must precede the RANGE KeySchemaElements",
                    );
                }
                "HASH" => {}
                "RANGE" => seen_range = true,
                // The key type's enum was checked as a constraint.
                _ => {}
            }
            if self.elements[..at].iter().any(|(earlier, _)| earlier == name) {
                // DynamoDB's words for a repeated key attribute, whatever the key types.
                return refuse("Both the Hash Key and the Range Key element in the KeySchema have the same name");
            }
        }
        for part in ["HASH", "RANGE"] {
            if self.elements.iter().filter(|(_, key_type)| *key_type == part).count() > MAX_KEY_PART_ATTRIBUTES {
                return refuse(format!(
                    "Invalid KeySchema: A KeySchema can have at most {MAX_KEY_PART_ATTRIBUTES} {part} KeySchemaElements"
                ));
            }
        }
        Ok(())
    }
}

fn definition_names<'a>(definitions: &'a [Json<'a>]) -> impl Iterator<Item = &'a str> {
    definitions.iter().map(|d| d.as_object().and_then(|d| text(d, "AttributeName")).unwrap_or_default())
}

fn is_defined(definitions: &[Json<'_>], name: &str) -> bool {
    definition_names(definitions).any(|defined| defined == name)
}

fn list_names<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.collect::<Vec<_>>().join(", ")
}

fn undefined_keys(keys: &KeySchema<'_>, definitions: &[Json<'_>]) -> Result<(), DynamoError> {
    invalid(format_args!(
        "Some index key attributes are not defined in AttributeDefinitions. Keys: [{}], AttributeDefinitions: [{}]",
        list_names(keys.names()),
        list_names(definition_names(definitions)),
    ))
}

fn check_table_keys(keys: &KeySchema<'_>, definitions: &[Json<'_>]) -> Result<(), DynamoError> {
    let all_defined = keys.names().all(|name| is_defined(definitions, name));
    let no_definition = definitions.is_empty()
        || (keys.len() == 2 && (!all_defined || (keys.range() == Some(keys.hash()) && definitions.len() == 1)));
    if no_definition {
        return refuse("Invalid KeySchema: Some index key attribute have no definition");
    }
    if !all_defined {
        return undefined_keys(keys, definitions);
    }
    keys.check_types()
}

fn index_name<'a>(index: &'a Object<'a>) -> &'a str {
    text(index, "IndexName").unwrap_or_default()
}

/// The rules both kinds of index share, up to the projection.
fn check_index_keys(keys: &KeySchema<'_>, definitions: &[Json<'_>]) -> Result<(), DynamoError> {
    check_defined(keys, definitions)?;
    keys.check_types()
}

/// Every key attribute of an index has its definition.
fn check_defined(keys: &KeySchema<'_>, definitions: &[Json<'_>]) -> Result<(), DynamoError> {
    if keys.names().all(|name| is_defined(definitions, name)) { Ok(()) } else { undefined_keys(keys, definitions) }
}

fn check_projection(index: &Object<'_>) -> Result<(), DynamoError> {
    let projection = object(index, "Projection");
    let Some(projection_type) = projection.and_then(|p| text(p, "ProjectionType")) else {
        return invalid("Unknown ProjectionType: null");
    };
    let non_key = projection.is_some_and(|p| field(p, "NonKeyAttributes").is_some());
    if non_key && projection_type != "INCLUDE" {
        return invalid(format_args!("ProjectionType is {projection_type}, but NonKeyAttributes is specified"));
    }
    if !non_key && projection_type == "INCLUDE" {
        return invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified");
    }
    match projection.and_then(|p| list(p, "NonKeyAttributes")).and_then(first_duplicate) {
        Some(name) => invalid(format_args!("Duplicate element in NonKeyAttributes: {name}")),
        None => Ok(()),
    }
}

fn check_local_indexes(
    local: &[Json<'_>],
    table_keys: &KeySchema<'_>,
    definitions: &[Json<'_>],
) -> Result<(), DynamoError> {
    if local.is_empty() {
        return invalid("List of LocalSecondaryIndexes is empty");
    }
    if table_keys.len() != 2 {
        return invalid(
            "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
        );
    }
    for (i, index) in local.iter().enumerate() {
        let Some(index) = index.as_object() else {
            continue;
        };
        let name = index_name(index);
        let keys = KeySchema::of(index);
        check_index_keys(&keys, definitions)?;
        if keys.len() != 2 {
            return invalid(format_args!("Index KeySchema does not have a range key for index: {name}"));
        }
        if keys.hash() != table_keys.hash() {
            return invalid(format_args!(
                "Index KeySchema does not have the same leading hash key as table KeySchema for index: {name}. \
                 index hash key: {}, table hash key: {}",
                keys.hash(),
                table_keys.hash()
            ));
        }
        check_projection(index)?;
        if names_before(local, i).any(|earlier| earlier == name) {
            return invalid(format_args!("Duplicate index name: {name}"));
        }
    }
    if local.len() > MAX_LOCAL_INDEXES {
        return invalid(format_args!("Number of LocalSecondaryIndexes exceeds per-table limit of {MAX_LOCAL_INDEXES}"));
    }
    Ok(())
}

fn check_global_indexes(
    global: &[Json<'_>],
    local: &[Json<'_>],
    definitions: &[Json<'_>],
    on_demand: bool,
) -> Result<(), DynamoError> {
    if global.is_empty() {
        return invalid("List of GlobalSecondaryIndexes is empty");
    }
    for (i, index) in global.iter().enumerate() {
        let Some(index) = index.as_object() else {
            continue;
        };
        let name = index_name(index);
        let keys = KeySchema::of(index);
        check_defined(&keys, definitions)?;
        keys.check_global_types()?;
        check_projection(index)?;
        match (on_demand, object(index, "ProvisionedThroughput")) {
            (true, Some(_)) => {
                return invalid(format_args!(
                    "ProvisionedThroughput should not be specified for index: {name} when BillingMode is PAY_PER_REQUEST"
                ));
            }
            (false, None) => {
                return invalid(format_args!("ProvisionedThroughput is not specified for index: {name}"));
            }
            (false, Some(t)) => throughput::check_bounds(t, Some(name))?,
            (true, None) => {}
        }
        if names_before(local, local.len()).chain(names_before(global, i)).any(|earlier| earlier == name) {
            return invalid(format_args!("Duplicate index name: {name}"));
        }
    }
    if global.len() > MAX_GLOBAL_INDEXES {
        return invalid(format_args!("GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GLOBAL_INDEXES}"));
    }
    Ok(())
}

/// The names of the first `count` indexes of a list.
fn names_before<'a>(indexes: &'a [Json<'a>], count: usize) -> impl Iterator<Item = &'a str> {
    indexes[..count.min(indexes.len())].iter().filter_map(Json::as_object).map(index_name)
}

/// With secondary indexes, every attribute definition must be a key of the table or an index.
fn check_all_definitions_used(request: &Object<'_>, definitions: &[Json<'_>]) -> Result<(), DynamoError> {
    let key_names = || {
        let table = objects(request, "KeySchema");
        let indexes = objects(request, "LocalSecondaryIndexes")
            .chain(objects(request, "GlobalSecondaryIndexes"))
            .flat_map(|index| objects(index, "KeySchema"));
        table.chain(indexes).filter_map(|element| text(element, "AttributeName"))
    };
    if definition_names(definitions).all(|defined| key_names().any(|used| used == defined)) {
        return Ok(());
    }
    let mut used: Vec<&str> = Vec::new();
    for name in key_names() {
        if !used.contains(&name) {
            used.push(name);
        }
    }
    invalid(format_args!(
        "Some AttributeDefinitions are not used. AttributeDefinitions: [{}], keys used: [{}]",
        list_names(definition_names(definitions)),
        used.join(", ")
    ))
}
