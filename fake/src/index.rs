//! Secondary indexes: their definition and the keys of the items they hold, in index order.
//! An index stores keys only; its items are the table's items, projected when read.
//!
//! - [`Index`]: one global or local index; [`Table::put`] and [`Table::remove`] keep it up to
//!   date on every write (single writes, batches, transactions, time-to-live deletions);
//! - [`IndexEntry`]: the position of an item in an index, ordered as DynamoDB orders it: by the
//!   placement hash of the index's partition key, the index key, then the hash of the table key
//!   (see [`crate::partition`]);
//! - [`Projection`]: which attributes a read of the index returns.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use crate::json::Answer;

use crate::error::DynamoError;
use crate::limits::key_size_error;
use crate::partition::{partition_of, tie_of};
use crate::table::{Billing, KeySchema, KeyValue, PrimaryKey, Table};
use crate::value::{Item, Value, item_size};

/// Global or local.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IndexKind {
    Global,
    Local,
}

/// Which attributes an index carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Projection {
    All,
    KeysOnly,
    Include(Vec<String>),
}

/// The position of an item in an index: the placement hash of its index partition key, the index
/// key, the hash of its table key (DynamoDB's order among equal index keys), then the table key
/// itself, which makes the entry unique.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct IndexEntry {
    pub(crate) partition: u32,
    pub(crate) hash: KeyValue,
    pub(crate) range: Option<KeyValue>,
    pub(crate) tie: u32,
    pub(crate) table_key: PrimaryKey,
}

impl IndexEntry {
    /// The entry of an item with this index key and this table key.
    pub(crate) fn new(hash: KeyValue, range: Option<KeyValue>, table_key: PrimaryKey) -> IndexEntry {
        IndexEntry {
            partition: partition_of(&hash),
            hash,
            range,
            tie: tie_of(&table_key.hash, table_key.range.as_ref()),
            table_key,
        }
    }
}

/// One secondary index.
#[derive(Debug)]
pub(crate) struct Index {
    pub(crate) name: String,
    pub(crate) kind: IndexKind,
    pub(crate) key: KeySchema,
    pub(crate) projection: Projection,
    pub(crate) throughput: Option<(i64, i64)>,
    /// The warm throughput of a global index (a local one shares its table's).
    pub(crate) warm: crate::warm::Warm,
    pub(crate) entries: BTreeSet<IndexEntry>,
    /// The entry of each table key present, to find an item's entry without a scan.
    pub(crate) by_table_key: BTreeMap<PrimaryKey, IndexEntry>,
}

impl Index {
    /// Checks the index key attributes of an item about to be written.
    pub(crate) fn check_item(&self, item: &Item) -> Result<(), DynamoError> {
        for (attr, is_hash) in self.key.attrs_by_part() {
            let Some(value) = item.get(&attr.name) else { continue };
            if !attr.kind.matches(value) {
                return Err(DynamoError::invalid_parameter(format!(
                    "Type mismatch for Index Key {} Expected: {} Actual: {} IndexName: {}",
                    attr.name,
                    attr.kind.name(),
                    value.type_name(),
                    self.name
                )));
            }
            let empty = matches!(value, Value::S(s) if s.is_empty()) || matches!(value, Value::B(b) if b.is_empty());
            if empty {
                let kind = if matches!(value, Value::S(_)) { "string" } else { "binary" };
                return Err(DynamoError::validation(format!(
                    "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty {kind} value. IndexName: {}, IndexKey: {}",
                    self.name, attr.name
                )));
            }
            // An index key is held to the limits of a table's key: a write that would index an
            // oversized one is refused (ScyllaDB's Alternator suite, against DynamoDB).
            if let Some(error) = KeyValue::from_value(value).and_then(|key| key_size_error(&key, is_hash)) {
                return Err(error);
            }
        }
        Ok(())
    }

    /// True for a global secondary index.
    pub(crate) fn is_global(&self) -> bool {
        self.kind == IndexKind::Global
    }

    /// The entry an item at `table_key` has in the index; `None` when the index leaves it out.
    pub(crate) fn entry(&self, table_key: &PrimaryKey, item: &Item) -> Option<IndexEntry> {
        let key = self.key.index_key_of(item)?;
        Some(IndexEntry::new(key.hash, key.range, table_key.clone()))
    }

    /// Records (or moves) an item in the index; items without the index key (or with a key
    /// attribute of another type) are left out, as DynamoDB leaves them out of a sparse index.
    pub(crate) fn put(&mut self, _table_key_schema: &KeySchema, table_key: &PrimaryKey, item: &Item) {
        let entry = self.entry(table_key, item);
        if entry.is_some() && self.by_table_key.get(table_key) == entry.as_ref() {
            return;
        }
        self.remove(table_key);
        if let Some(entry) = entry {
            self.by_table_key.insert(table_key.clone(), entry.clone());
            self.entries.insert(entry);
        }
    }

    /// Forgets an item.
    pub(crate) fn remove(&mut self, table_key: &PrimaryKey) {
        if let Some(entry) = self.by_table_key.remove(table_key) {
            self.entries.remove(&entry);
        }
    }

    /// True if a read of the index returns attribute `name` (a top-level attribute).
    pub(crate) fn projects(&self, table_key: &KeySchema, name: &str) -> bool {
        match &self.projection {
            Projection::All => true,
            Projection::KeysOnly => table_key.is_key(name) || self.key.is_key(name),
            Projection::Include(list) => {
                table_key.is_key(name) || self.key.is_key(name) || list.iter().any(|n| n == name)
            }
        }
    }

    /// The attributes of `item` this index projects, given the table's key schema.
    pub(crate) fn project(&self, table_key: &KeySchema, item: &Item) -> Item {
        match &self.projection {
            Projection::All => item.clone(),
            Projection::KeysOnly | Projection::Include(_) => {
                item.iter().filter(|(name, _)| self.projects(table_key, name)).map(|(k, v)| (k, v.clone())).collect()
            }
        }
    }

    /// The index's entry in a table description whose table is in `status`.
    pub(crate) fn describe(&self, table: &Table, status: &str) -> Answer {
        let mut projection = serde_json::Map::new();
        match &self.projection {
            Projection::All => {
                projection.insert("ProjectionType".into(), json!("ALL"));
            }
            Projection::KeysOnly => {
                projection.insert("ProjectionType".into(), json!("KEYS_ONLY"));
            }
            Projection::Include(list) => {
                projection.insert("ProjectionType".into(), json!("INCLUDE"));
                projection.insert("NonKeyAttributes".into(), json!(list));
            }
        }
        let size: usize = self
            .entries
            .iter()
            .filter_map(|e| table.items.get(&e.table_key))
            .map(|item| item_size(&self.project(&table.key, item)))
            .sum();
        let mut out = json!({
            "IndexName": self.name,
            "KeySchema": self.key.to_json(),
            "Projection": Answer::Object(projection),
            "IndexSizeBytes": size,
            "ItemCount": self.entries.len(),
            "IndexArn": format!("{}/index/{}", table.arn(), self.name),
        });
        if self.kind == IndexKind::Global {
            let (read, write) = match (&table.billing, self.throughput) {
                (Billing::Provisioned { .. }, Some((r, w))) => (r, w),
                _ => (0, 0),
            };
            // An index is created with its table: CREATING while the table is, ACTIVE after.
            out["IndexStatus"] = json!(if status == "CREATING" { "CREATING" } else { "ACTIVE" });
            out["ProvisionedThroughput"] =
                json!({"NumberOfDecreasesToday": 0, "ReadCapacityUnits": read, "WriteCapacityUnits": write});
            out["WarmThroughput"] = self.warm.describe("ACTIVE");
        }
        out
    }
}
