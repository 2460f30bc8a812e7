//! A table: its definition, its items in key order, and its time-to-live setting.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::time::SystemTime;

use serde_json::{Map, json};

use crate::json::Answer;

use crate::clock::epoch_timestamp;
use crate::error::DynamoError;
use crate::index::{Index, IndexKind};
use crate::partition::Placements;
use crate::place::Place;
use crate::stream::{Changes, Origin};
use crate::value::{Item, Value, item_size};

/// The table name inside a table's ARN (`arn:<partition>:dynamodb:<region>:<account>:table/<name>`),
/// if `text` is one; DynamoDB takes a table's ARN wherever it takes its name.
pub(crate) fn name_in_arn(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("arn:")?;
    let mut parts = rest.splitn(5, ':');
    let (_partition, service, _region, _account, resource) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let name = resource.strip_prefix("table/")?;
    let valid = service == "dynamodb" && (3..=255).contains(&name.len()) && is_name(name);
    valid.then_some(name)
}

/// Whether `text` is made of the characters a table or index name may have: `[a-zA-Z0-9_.-]+`.
pub(crate) fn is_name(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The name of the table a request names: its ARN stands for it when the ARN is of `region` and
/// `account`; anything else is taken as a name (and an ARN of elsewhere names no table).
pub(crate) fn plain_name<'n>(given: &'n str, place: Place<'_>) -> &'n str {
    let Some(name) = name_in_arn(given) else { return given };
    let ours = given
        .strip_prefix("arn:aws:dynamodb:")
        .and_then(|rest| rest.strip_prefix(place.region))
        .and_then(|rest| rest.strip_prefix(':'))
        .and_then(|rest| rest.strip_prefix(place.account))
        .and_then(|rest| rest.strip_prefix(":table/"));
    if ours == Some(name) { name } else { given }
}

/// The scalar types a key attribute may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyType {
    S,
    N,
    B,
}

impl KeyType {
    pub(crate) fn parse(text: &str) -> Option<KeyType> {
        match text {
            "S" => Some(KeyType::S),
            "N" => Some(KeyType::N),
            "B" => Some(KeyType::B),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            KeyType::S => "S",
            KeyType::N => "N",
            KeyType::B => "B",
        }
    }

    pub(crate) fn matches(self, value: &Value) -> bool {
        matches!((self, value), (KeyType::S, Value::S(_)) | (KeyType::N, Value::N(_)) | (KeyType::B, Value::B(_)))
    }
}

/// One key attribute: its name and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeyAttr {
    pub(crate) name: String,
    pub(crate) kind: KeyType,
}

/// The partition key and the optional sort key of a table or index.
///
/// A global secondary index may have a multi-attribute key: up to four partition key attributes
/// and up to four sort key attributes. Its further attributes are in `hash_rest` and
/// `range_rest`; a key with more than one attribute in a part holds that part's values as one
/// [`KeyValue::Tuple`], in key schema order, so that the index orders entries by the first
/// attribute, then the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeySchema {
    pub(crate) hash: KeyAttr,
    pub(crate) range: Option<KeyAttr>,
    pub(crate) hash_rest: Vec<KeyAttr>,
    pub(crate) range_rest: Vec<KeyAttr>,
}

impl KeySchema {
    /// A key of one partition key attribute and at most one sort key attribute.
    pub(crate) fn simple(hash: KeyAttr, range: Option<KeyAttr>) -> KeySchema {
        KeySchema { hash, range, hash_rest: Vec::new(), range_rest: Vec::new() }
    }

    /// Every key attribute: the partition key's, then the sort key's, in key schema order.
    pub(crate) fn attrs(&self) -> impl Iterator<Item = &KeyAttr> {
        self.hash_attrs().chain(self.range_attrs())
    }

    /// The partition key attributes, in key schema order.
    pub(crate) fn hash_attrs(&self) -> impl Iterator<Item = &KeyAttr> {
        std::iter::once(&self.hash).chain(&self.hash_rest)
    }

    /// The sort key attributes, in key schema order.
    pub(crate) fn range_attrs(&self) -> impl Iterator<Item = &KeyAttr> {
        self.range.iter().chain(&self.range_rest)
    }

    /// Every key attribute with whether it belongs to the partition key, in key schema order.
    pub(crate) fn attrs_by_part(&self) -> impl Iterator<Item = (&KeyAttr, bool)> {
        self.hash_attrs().map(|attr| (attr, true)).chain(self.range_attrs().map(|attr| (attr, false)))
    }

    /// True for a multi-attribute key (a global secondary index's only).
    pub(crate) fn is_multi_attribute(&self) -> bool {
        !self.hash_rest.is_empty() || !self.range_rest.is_empty()
    }

    /// The key attributes of an item's key under this schema (of a table: one partition key
    /// attribute and at most one sort key attribute).
    pub(crate) fn attributes_of(&self, key: &PrimaryKey) -> Item {
        let value = |key: &KeyValue| match key {
            KeyValue::S(s) => Some(Value::S(s.to_string())),
            KeyValue::N(n) => Some(Value::N(n.clone())),
            KeyValue::B(b) => Some(Value::B(b.to_vec())),
            KeyValue::Tuple(_) => None,
        };
        let hash = value(&key.hash).map(|value| (self.hash.name.clone(), value));
        let range =
            self.range.as_ref().zip(key.range.as_ref().and_then(value)).map(|(attr, value)| (attr.name.clone(), value));
        hash.into_iter().chain(range).collect()
    }

    pub(crate) fn is_key(&self, name: &str) -> bool {
        self.attrs().any(|a| a.name == name)
    }

    pub(crate) fn to_json(&self) -> Answer {
        let hash = self.hash_attrs().map(|attr| json!({"AttributeName": attr.name, "KeyType": "HASH"}));
        let range = self.range_attrs().map(|attr| json!({"AttributeName": attr.name, "KeyType": "RANGE"}));
        Answer::Array(hash.chain(range).collect())
    }

    /// The key of an item under this schema, if the item has both key attributes, of the right
    /// types and not empty.
    pub(crate) fn key_of(&self, item: &Item) -> Option<PrimaryKey> {
        self.key_within(item, false)
    }

    /// [`key_of`](Self::key_of) for an index, which also leaves out a key over the size limits
    /// (the table refuses such a key with an error instead). A global index added to a table
    /// with items leaves out those whose key attribute has another type, is empty or is too
    /// long (ScyllaDB's Alternator suite, against DynamoDB).
    pub(crate) fn index_key_of(&self, item: &Item) -> Option<PrimaryKey> {
        self.key_within(item, true)
    }

    fn key_within(&self, item: &Item, size_limited: bool) -> Option<PrimaryKey> {
        let value_of = |attr: &KeyAttr, is_hash: bool| {
            let value = item.get(&attr.name).filter(|value| attr.kind.matches(value))?;
            KeyValue::from_value(value).filter(|key| {
                let empty =
                    matches!(key, KeyValue::S(s) if s.is_empty()) || matches!(key, KeyValue::B(b) if b.is_empty());
                let too_long = size_limited && crate::limits::key_size_error(key, is_hash).is_some();
                !empty && !too_long
            })
        };
        if self.is_multi_attribute() {
            let part = |attrs: &[&KeyAttr], is_hash: bool| -> Option<Option<KeyValue>> {
                let values = attrs.iter().map(|attr| value_of(attr, is_hash)).collect::<Option<Vec<_>>>()?;
                Some(KeyValue::of_part(values))
            };
            let hash = part(&self.hash_attrs().collect::<Vec<_>>(), true)??;
            let range = part(&self.range_attrs().collect::<Vec<_>>(), false)?;
            return Some(PrimaryKey::new(hash, range));
        }
        let hash = value_of(&self.hash, true)?;
        let range = match &self.range {
            Some(r) => Some(value_of(r, false)?),
            None => None,
        };
        Some(PrimaryKey::new(hash, range))
    }
}

/// A key attribute's value, ordered as DynamoDB orders sort keys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum KeyValue {
    N(crate::number::Number),
    S(Box<str>),
    B(Box<[u8]>),
    /// The values of a multi-attribute key part, in key schema order: ordered by the first
    /// value, then the next.
    Tuple(Box<[KeyValue]>),
}

impl KeyValue {
    /// The value of a key part of these attribute values: none for no attribute, the value
    /// itself for one, a [`KeyValue::Tuple`] for more.
    pub(crate) fn of_part(mut values: Vec<KeyValue>) -> Option<KeyValue> {
        match values.len() {
            0 => None,
            1 => values.pop(),
            _ => Some(KeyValue::Tuple(values.into_boxed_slice())),
        }
    }

    pub(crate) fn from_value(value: &Value) -> Option<KeyValue> {
        match value {
            Value::S(s) => Some(KeyValue::S(s.as_str().into())),
            Value::N(n) => Some(KeyValue::N(n.clone())),
            Value::B(b) => Some(KeyValue::B(b.as_slice().into())),
            _ => None,
        }
    }
}

/// The full primary key of an item. Keys order as DynamoDB stores items: by the placement hash
/// of the partition key first (see [`crate::partition`]), so a table's map iterates in scan order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct PrimaryKey {
    pub(crate) partition: u32,
    pub(crate) hash: KeyValue,
    pub(crate) range: Option<KeyValue>,
}

impl PrimaryKey {
    /// The key of these values, with its placement hash.
    pub(crate) fn new(hash: KeyValue, range: Option<KeyValue>) -> PrimaryKey {
        PrimaryKey { partition: crate::partition::partition_of(&hash), hash, range }
    }
}

/// How a table is billed, as described back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Billing {
    PayPerRequest,
    Provisioned { read: i64, write: i64 },
}

impl Billing {
    /// The provisioned read and write units; `None` on demand.
    pub(crate) fn units(&self) -> Option<(i64, i64)> {
        match *self {
            Billing::PayPerRequest => None,
            Billing::Provisioned { read, write } => Some((read, write)),
        }
    }
}

/// The time-to-live setting of a table.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TtlSetting {
    pub(crate) attribute: Option<String>,
    pub(crate) enabled: bool,
}

/// A table and its items.
/// A table's secondary indexes, kept in the order they were created (DescribeTable's order) and
/// known in the order of their names (the order in which items are checked against them).
#[derive(Debug, Default)]
pub(crate) struct Indexes {
    list: Vec<Index>,
    /// Positions in `list`, in the order of the index names.
    by_name: Vec<usize>,
}

impl Indexes {
    /// The indexes, in the order they were created.
    pub(crate) fn list(&self) -> &[Index] {
        &self.list
    }

    /// The indexes in the order of their names.
    pub(crate) fn by_name(&self) -> impl Iterator<Item = &Index> {
        self.by_name.iter().filter_map(|&at| self.list.get(at))
    }

    /// Checks the index key attributes of an item against every index, in the order of their
    /// names (so that a key attribute several indexes share is reported for the first of them).
    pub(crate) fn check_item_keys(&self, item: &Item) -> Result<(), DynamoError> {
        self.by_name().try_for_each(|index| index.check_item(item))
    }

    fn order(&mut self) {
        let mut by_name: Vec<usize> = (0..self.list.len()).collect();
        by_name.sort_by(|&a, &b| self.list[a].name.cmp(&self.list[b].name));
        self.by_name = by_name;
    }
}

#[derive(Debug)]
pub(crate) struct Table {
    pub(crate) name: String,
    pub(crate) key: KeySchema,
    pub(crate) attribute_definitions: Vec<(String, KeyType)>,
    pub(crate) billing: Billing,
    pub(crate) created: SystemTime,
    pub(crate) table_id: String,
    pub(crate) region: String,
    pub(crate) account: String,
    pub(crate) indexes: Indexes,
    pub(crate) items: BTreeMap<PrimaryKey, Item>,
    /// The placement hashes of the partition keys stored, so that a point read or write of an
    /// item already here finds it without hashing its key.
    pub(crate) placements: Placements,
    pub(crate) bytes: usize,
    pub(crate) ttl: TtlSetting,
    pub(crate) tags: BTreeMap<String, String>,
    pub(crate) deletion_protection: bool,
    /// Where changes to its items go: its stream, its observers (`None` while it has neither,
    /// which costs a write one branch).
    pub(crate) changes: Option<Box<crate::stream::Changes>>,
    /// The ARN, label and creation time of the latest stream the table had, enabled or not.
    pub(crate) latest_stream: Option<(String, String, SystemTime)>,
    pub(crate) table_class: Option<String>,
    /// When UpdateTable last changed the table class, which DescribeTable then reports.
    pub(crate) table_class_updated: Option<SystemTime>,
    /// The most read and write request units of an on-demand table, as `OnDemandThroughput`
    /// set them; `None` for a member never set, which DynamoDB describes as `-1`.
    pub(crate) on_demand_max: Option<(Option<i64>, Option<i64>)>,
    /// The KMS key that encrypts the table, when `SSESpecification` enabled a KMS key of the
    /// account rather than the key DynamoDB owns.
    pub(crate) sse_key_arn: Option<String>,
    /// The table's warm throughput.
    pub(crate) warm: crate::warm::Warm,
    /// Until when the table is still being created; `None` once it is active.
    pub(crate) creating_until: Option<SystemTime>,
    /// Where the table was restored from, if it was.
    pub(crate) restored: Option<Box<crate::backup::RestoreSummary>>,
    /// The resource policies of the table and of its stream, by the ARN they are attached to.
    pub(crate) policies: BTreeMap<String, crate::policy::Policy>,
    /// The global table it is a replica of, if any (version 2019.11.21).
    pub(crate) global: Option<Box<crate::global::membership::Membership>>,
}

impl Table {
    /// Whether the table is still being created at `now`.
    pub(crate) fn is_creating(&self, now: SystemTime) -> bool {
        self.creating_until.is_some_and(|until| now < until)
    }

    /// The ARN of the table.
    pub(crate) fn arn(&self) -> String {
        format!("arn:aws:dynamodb:{}:{}:table/{}", self.region, self.account, self.name)
    }

    /// Applies an `SSESpecification`: enabled, the table is encrypted with the KMS key it names
    /// (an ARN as given, a key id or alias within the table's account and region) or else with
    /// the account's DynamoDB key; disabled, with the key DynamoDB owns, which is not described.
    pub(crate) fn set_sse(&mut self, enabled: bool, key: Option<&str>) {
        self.sse_key_arn = enabled.then(|| match key {
            Some(arn) if arn.starts_with("arn:") => arn.to_owned(),
            Some(id) if id.starts_with("alias/") => format!("arn:aws:kms:{}:{}:{id}", self.region, self.account),
            Some(id) => format!("arn:aws:kms:{}:{}:key/{id}", self.region, self.account),
            None => format!("arn:aws:kms:{}:{}:key/{}", self.region, self.account, self.table_id),
        });
    }

    /// Checks that `key` holds exactly the key attributes of the table, with their types, and
    /// returns the primary key.
    pub(crate) fn primary_key(&self, key: &Item) -> Result<PrimaryKey, DynamoError> {
        let count = 1 + usize::from(self.key.range.is_some());
        let mismatch = || DynamoError::validation("The provided key element does not match the schema");
        if key.len() != count {
            return Err(mismatch());
        }
        let hash = key.get(&self.key.hash.name).ok_or_else(mismatch)?;
        if !self.key.hash.kind.matches(hash) {
            return Err(mismatch());
        }
        check_key_not_empty(&self.key.hash.name, hash)?;
        let range = match &self.key.range {
            Some(r) => {
                let value = key.get(&r.name).ok_or_else(mismatch)?;
                if !r.kind.matches(value) {
                    return Err(mismatch());
                }
                check_key_not_empty(&r.name, value)?;
                KeyValue::from_value(value)
            }
            None => None,
        };
        let hash = KeyValue::from_value(hash).ok_or_else(mismatch)?;
        let key = self.placements.key(hash, range);
        crate::limits::check_key_size(&key)?;
        Ok(key)
    }

    /// Checks that an item to be written carries the table's key attributes with their types,
    /// and the keys of its indexes with theirs; returns its primary key.
    pub(crate) fn item_key(&self, item: &Item) -> Result<PrimaryKey, DynamoError> {
        let value_of = |attr: &KeyAttr| {
            let Some(value) = item.get(&attr.name) else {
                return Err(DynamoError::invalid_parameter(format!("Missing the key {} in the item", attr.name)));
            };
            if !attr.kind.matches(value) {
                return Err(DynamoError::invalid_parameter(format!(
                    "Type mismatch for key {} expected: {} actual: {}",
                    attr.name,
                    attr.kind.name(),
                    value.type_name()
                )));
            }
            check_key_not_empty(&attr.name, value)?;
            KeyValue::from_value(value)
                .ok_or_else(|| DynamoError::validation("The provided key element does not match the schema"))
        };
        let hash = value_of(&self.key.hash)?;
        let range = self.key.range.as_ref().map(value_of).transpose()?;
        self.check_index_keys(item)?;
        let key = self.placements.key(hash, range);
        crate::limits::check_key_size(&key)?;
        Ok(key)
    }

    /// Checks the index key attributes of an item (the table's own keys are checked where the
    /// item's key is read).
    pub(crate) fn check_index_keys(&self, item: &Item) -> Result<(), DynamoError> {
        self.indexes.check_item_keys(item)
    }

    /// The secondary indexes, local and global together, in the order of their names: the order
    /// in which DynamoDB checks an item against them, so that a key attribute several indexes
    /// share is reported for the first of them by name.
    pub(crate) fn indexes_by_name(&self) -> impl Iterator<Item = &Index> {
        self.indexes.by_name()
    }

    /// Whether the table has a local secondary index: then its items form item collections.
    pub(crate) fn has_local_index(&self) -> bool {
        self.indexes.list.iter().any(|index| index.kind == IndexKind::Local)
    }

    /// The secondary indexes, in the order they were created.
    pub(crate) fn indexes(&self) -> &[Index] {
        &self.indexes.list
    }

    /// The secondary indexes, in the order they were created, to change.
    pub(crate) fn indexes_mut(&mut self) -> impl Iterator<Item = &mut Index> {
        self.indexes.list.iter_mut()
    }

    /// The secondary index named `name`.
    pub(crate) fn index_mut(&mut self, name: &str) -> Option<&mut Index> {
        self.indexes.list.iter_mut().find(|i| i.name == name)
    }

    /// Adds a secondary index after the others.
    pub(crate) fn add_index(&mut self, index: Index) {
        self.indexes.list.push(index);
        self.indexes.order();
    }

    /// Removes the global secondary index named `name`.
    pub(crate) fn remove_global_index(&mut self, name: &str) {
        self.indexes.list.retain(|i| !(i.kind == IndexKind::Global && i.name == name));
        self.indexes.order();
    }

    /// Stores an item of `size` bytes (its [`item_size`]) at `now`, keeping indexes, the size
    /// count and the table's changes up to date; returns the old item.
    pub(crate) fn put(&mut self, key: PrimaryKey, item: Item, size: usize, now: SystemTime) -> Option<Item> {
        self.count_in(&key, &item, size);
        let stored = self.items.len();
        match self.items.entry(key) {
            Entry::Occupied(mut slot) => {
                let old = std::mem::replace(slot.get_mut(), item);
                if let Some(changes) = self.changes.as_deref_mut() {
                    changes.record(
                        &self.name,
                        &self.key,
                        slot.key(),
                        Some(&old),
                        Some(slot.get()),
                        now,
                        Origin::Request,
                    );
                }
                self.count_out(item_size(&old));
                Some(old)
            }
            Entry::Vacant(slot) => {
                self.placements.remember(slot.key(), stored);
                let Some(changes) = self.changes.as_deref_mut() else {
                    slot.insert(item);
                    return None;
                };
                let key = slot.key().clone();
                let new = slot.insert(item);
                changes.record(&self.name, &self.key, &key, None, Some(new), now, Origin::Request);
                None
            }
        }
    }

    /// Stores an item of `size` bytes at `key` if `allowed`, shown the item there now (`None` if
    /// there is none), lets it: one search of the items where a check followed by
    /// [`put`](Self::put) makes two. Returns the old item, or what `allowed` refused with.
    pub(crate) fn put_if<E>(
        &mut self,
        key: &PrimaryKey,
        item: Item,
        size: usize,
        now: SystemTime,
        allowed: impl FnOnce(Option<&Item>) -> Result<(), E>,
    ) -> Result<Option<Item>, E> {
        let Some(slot) = self.items.get_mut(key) else {
            allowed(None)?;
            return Ok(self.put(key.clone(), item, size, now));
        };
        allowed(Some(slot))?;
        count_in(&mut self.bytes, &mut self.indexes, &self.key, key, &item, size);
        let old = std::mem::replace(slot, item);
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.record(&self.name, &self.key, key, Some(&old), Some(slot), now, Origin::Request);
        }
        self.count_out(item_size(&old));
        Ok(Some(old))
    }

    /// Counts an item of `size` bytes that is being stored at `key` into the table's byte count,
    /// and gives it to the indexes (which replace what they held for `key`).
    fn count_in(&mut self, key: &PrimaryKey, item: &Item, size: usize) {
        count_in(&mut self.bytes, &mut self.indexes, &self.key, key, item, size);
    }

    /// Takes an item of `size` bytes that leaves the table (or is replaced) out of its byte count.
    fn count_out(&mut self, size: usize) {
        self.bytes -= size.min(self.bytes);
    }

    /// Changes the item at `key` where the table keeps it, with one search of the table: `change`
    /// gets the item and the table's indexes (to check the changed item against) and answers with
    /// its result and, if it left the item changed, the item's sizes before and after. The
    /// table's byte count and its indexes then follow the item. `None` if there is no such item.
    pub(crate) fn change_in_place<R>(
        &mut self,
        key: &PrimaryKey,
        now: SystemTime,
        change: impl FnOnce(&mut Item, &Indexes) -> (R, Option<(usize, usize)>),
    ) -> Option<R> {
        let item = self.items.get_mut(key)?;
        // The item as it was, for the table's changes, which need both images.
        let before = self.changes.is_some().then(|| item.clone());
        let (result, sizes) = change(item, &self.indexes);
        if let Some((old_size, new_size)) = sizes {
            count_in(&mut self.bytes, &mut self.indexes, &self.key, key, item, new_size);
            if let (Some(changes), Some(before)) = (self.changes.as_deref_mut(), &before) {
                changes.record(&self.name, &self.key, key, Some(before), Some(item), now, Origin::Request);
            }
            self.count_out(old_size);
        }
        Some(result)
    }

    /// Applies a write made in another region of the global table at `now`: the item stored
    /// (`None`: deleted), with the indexes, the byte count and the stream kept up to date, and
    /// not sent back out.
    pub(crate) fn replicate(&mut self, key: PrimaryKey, item: Option<Item>, now: SystemTime) {
        match item {
            Some(item) => {
                let size = item_size(&item);
                self.count_in(&key, &item, size);
                let stored = self.items.len();
                let old = match self.items.entry(key) {
                    Entry::Occupied(mut slot) => {
                        let old = std::mem::replace(slot.get_mut(), item);
                        if let Some(changes) = self.changes.as_deref_mut() {
                            changes.record(
                                &self.name,
                                &self.key,
                                slot.key(),
                                Some(&old),
                                Some(slot.get()),
                                now,
                                Origin::Replication,
                            );
                        }
                        Some(old)
                    }
                    Entry::Vacant(slot) => {
                        self.placements.remember(slot.key(), stored);
                        let primary = self.changes.is_some().then(|| slot.key().clone());
                        let new = slot.insert(item);
                        if let (Some(changes), Some(primary)) = (self.changes.as_deref_mut(), &primary) {
                            changes.record(&self.name, &self.key, primary, None, Some(new), now, Origin::Replication);
                        }
                        None
                    }
                };
                if let Some(old) = old {
                    self.count_out(item_size(&old));
                }
            }
            None => {
                self.remove_for(&key, now, Origin::Replication);
            }
        }
    }

    /// Removes an item at `now`; returns it.
    pub(crate) fn remove(&mut self, key: &PrimaryKey, now: SystemTime) -> Option<Item> {
        self.remove_for(key, now, Origin::Request)
    }

    /// Removes an item whose time to live has passed, as a sweep at `now` does; returns it.
    pub(crate) fn expire(&mut self, key: &PrimaryKey, now: SystemTime) -> Option<Item> {
        self.remove_for(key, now, Origin::TimeToLive)
    }

    fn remove_for(&mut self, key: &PrimaryKey, now: SystemTime, origin: Origin) -> Option<Item> {
        let old = self.items.remove(key)?;
        if let Some(changes) = self.changes.as_deref_mut() {
            changes.record(&self.name, &self.key, key, Some(&old), None, now, origin);
        }
        self.count_out(item_size(&old));
        for index in &mut self.indexes.list {
            index.remove(key);
        }
        Some(old)
    }

    /// The table's enabled stream, if it has one.
    pub(crate) fn stream(&self) -> Option<&crate::stream::Stream> {
        self.changes.as_deref().and_then(|changes| changes.stream.as_ref())
    }

    /// The table's enabled stream, to change.
    pub(crate) fn stream_mut(&mut self) -> Option<&mut crate::stream::Stream> {
        self.changes.as_deref_mut().and_then(|changes| changes.stream.as_mut())
    }

    /// Gives the table a stream, which it hands its changes to from now on.
    pub(crate) fn start_stream(&mut self, stream: crate::stream::Stream) {
        self.latest_stream = Some((stream.arn.clone(), stream.label.clone(), stream.created));
        self.changes.get_or_insert_with(Box::<Changes>::default).stream = Some(stream);
    }

    /// Takes the table's stream away (to be kept, disabled, with the engine's other streams).
    pub(crate) fn take_stream(&mut self) -> Option<crate::stream::Stream> {
        let changes = self.changes.as_deref_mut()?;
        let stream = changes.stream.take();
        if changes.is_empty() {
            self.changes = None;
        }
        stream
    }

    /// The table's point-in-time recovery, if it is enabled.
    pub(crate) fn recovery(&self) -> Option<&crate::backup::Recovery> {
        self.changes.as_deref().and_then(|changes| changes.recovery.as_ref())
    }

    /// Enables point-in-time recovery (or changes its setting), or disables it with `None`.
    pub(crate) fn set_recovery(&mut self, recovery: Option<crate::backup::Recovery>) {
        match recovery {
            Some(recovery) => self.changes.get_or_insert_with(Box::<Changes>::default).recovery = Some(recovery),
            None => {
                let Some(changes) = self.changes.as_deref_mut() else { return };
                changes.recovery = None;
                if changes.is_empty() {
                    self.changes = None;
                }
            }
        }
    }

    /// The table's point-in-time recovery, to change.
    pub(crate) fn recovery_mut(&mut self) -> Option<&mut crate::backup::Recovery> {
        self.changes.as_deref_mut().and_then(|changes| changes.recovery.as_mut())
    }

    /// Adds an observer of the table's item changes.
    pub(crate) fn add_observer(&mut self, observer: crate::stream::Observer) {
        self.changes.get_or_insert_with(Box::<Changes>::default).observers.push(observer);
    }

    /// The attribute definition of a key attribute.
    pub(crate) fn definition_of(&self, name: &str) -> Option<KeyType> {
        self.attribute_definitions.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }

    /// DescribeTable's `Table`.
    pub(crate) fn describe(&self, status: &str) -> Answer {
        let mut out = Map::new();
        let defs: Vec<Answer> = self
            .attribute_definitions
            .iter()
            .map(|(name, kind)| json!({"AttributeName": name, "AttributeType": kind.name()}))
            .collect();
        out.insert("AttributeDefinitions".into(), Answer::Array(defs));
        out.insert("TableName".into(), json!(self.name));
        out.insert("KeySchema".into(), self.key.to_json());
        out.insert("TableStatus".into(), json!(status));
        out.insert("CreationDateTime".into(), epoch_timestamp(self.created));
        let (read, write) = self.billing.units().unwrap_or((0, 0));
        out.insert(
            "ProvisionedThroughput".into(),
            json!({"NumberOfDecreasesToday": 0, "ReadCapacityUnits": read, "WriteCapacityUnits": write}),
        );
        out.insert("TableSizeBytes".into(), json!(self.bytes));
        out.insert("ItemCount".into(), json!(self.items.len()));
        out.insert("TableArn".into(), json!(self.arn()));
        out.insert("WarmThroughput".into(), self.warm.describe("ACTIVE"));
        out.insert("TableId".into(), json!(self.table_id));
        if let Some(global) = &self.global {
            out.insert("GlobalTableVersion".into(), json!(crate::global::membership::GLOBAL_TABLE_VERSION));
            out.insert("Replicas".into(), global.describe());
        }
        if self.billing == Billing::PayPerRequest {
            out.insert(
                "BillingModeSummary".into(),
                json!({"BillingMode": "PAY_PER_REQUEST", "LastUpdateToPayPerRequestDateTime": epoch_timestamp(self.created)}),
            );
        }
        let lsis: Vec<Answer> =
            self.indexes.list.iter().filter(|i| i.kind == IndexKind::Local).map(|i| i.describe(self, status)).collect();
        if !lsis.is_empty() {
            out.insert("LocalSecondaryIndexes".into(), Answer::Array(lsis));
        }
        let gsis: Vec<Answer> = self
            .indexes
            .list
            .iter()
            .filter(|i| i.kind == IndexKind::Global)
            .map(|i| i.describe(self, status))
            .collect();
        if !gsis.is_empty() {
            out.insert("GlobalSecondaryIndexes".into(), Answer::Array(gsis));
        }
        if let Some(stream) = self.stream() {
            out.insert(
                "StreamSpecification".into(),
                json!({"StreamEnabled": true, "StreamViewType": stream.view.name()}),
            );
        }
        if let Some((arn, label, _)) = &self.latest_stream {
            out.insert("LatestStreamLabel".into(), json!(label));
            out.insert("LatestStreamArn".into(), json!(arn));
        }
        if let Some(class) = &self.table_class {
            let mut summary = json!({"TableClass": class});
            if let Some(updated) = self.table_class_updated {
                summary["LastUpdateDateTime"] = epoch_timestamp(updated);
            }
            out.insert("TableClassSummary".into(), summary);
        }
        if let Some((read, write)) = self.on_demand_max {
            out.insert(
                "OnDemandThroughput".into(),
                json!({"MaxReadRequestUnits": read.unwrap_or(-1), "MaxWriteRequestUnits": write.unwrap_or(-1)}),
            );
        }
        if let Some(key) = &self.sse_key_arn {
            out.insert("SSEDescription".into(), json!({"Status": "ENABLED", "SSEType": "KMS", "KMSMasterKeyArn": key}));
        }
        if let Some(restored) = &self.restored {
            out.insert("RestoreSummary".into(), restored.describe(status == "CREATING"));
        }
        out.insert("DeletionProtectionEnabled".into(), json!(self.deletion_protection));
        Answer::Object(out)
    }
}

/// [`Table::count_in`] on the table's parts, for a caller that holds an item of the table.
fn count_in(bytes: &mut usize, indexes: &mut Indexes, schema: &KeySchema, key: &PrimaryKey, item: &Item, size: usize) {
    *bytes += size;
    for index in &mut indexes.list {
        index.put(schema, key, item);
    }
}

fn check_key_not_empty(name: &str, value: &Value) -> Result<(), DynamoError> {
    let empty = match value {
        Value::S(s) => s.is_empty(),
        Value::B(b) => b.is_empty(),
        _ => false,
    };
    if empty {
        let kind = if matches!(value, Value::S(_)) { "string" } else { "binary" };
        return Err(DynamoError::validation(format!(
            "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty {kind} value. Key: {name}"
        )));
    }
    Ok(())
}
