//! What Query and Scan share.
//!
//! - [`Target`]: the table or index a request reads, now or as a stale read sees it, its keys in
//!   order, and the attributes of its `ExclusiveStartKey`/`LastEvaluatedKey`;
//! - [`read_start_key`] and [`check_start_key_piece`]: the starting key, with DynamoDB's messages;
//! - [`Shown`] and [`read_page`]: one page of items in storage order, cut by `Limit` or by the
//!   1 MB DynamoDB reads per request, filtered, then shown as `Select` and the projection ask;
//! - [`page_response`]: `Items`, `Count`, `ScannedCount`, `LastEvaluatedKey`, `ConsumedCapacity`;
//! - [`check_key_paths`] and [`condition_paths`]: the rules on document paths into key attributes;
//! - [`bounded`]: a range of a map or set that is empty rather than a panic when its ends cross.

use std::collections::BTreeSet;
use std::ops::Bound;

use serde_json::{Map, json};

use crate::json::{Answer, Json};

use super::capacity::{self, Consumed, Halves};
use crate::error::DynamoError;
use crate::expr::ast::{Condition, Operand, Path};
use crate::expr::project::project;
use crate::index::{Index, IndexEntry, Projection};
use crate::legacy::{self, LegacyCondition};
use crate::limits::key_size_error;
use crate::number::Number;
use crate::request::item;
use crate::stale::Past;
use crate::table::{KeyAttr, KeySchema, KeyValue, PrimaryKey, Table};
use crate::validate;
use crate::value::{Item, item_size, item_to_json};

/// The most a Query or Scan reads before it stops and returns a `LastEvaluatedKey`.
pub(crate) const PAGE_BYTES: usize = 1024 * 1024;

/// The table or index a Query or Scan reads, now or at an instant of the past.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    pub(crate) table: &'a Table,
    pub(crate) index: Option<&'a Index>,
    /// The items changed since the instant a stale read sees; `None` for the present.
    pub(crate) past: Option<&'a Past<'a>>,
}

impl<'a> Target<'a> {
    /// The table itself, or its index of this name.
    pub(crate) fn resolve(table: &'a Table, index_name: Option<&str>) -> Result<Target<'a>, DynamoError> {
        let index = match index_name {
            None => None,
            Some(name) => Some(table.indexes().iter().find(|i| i.name == name).ok_or_else(|| {
                DynamoError::validation(format!("The table does not have the specified index: {name}"))
            })?),
        };
        Ok(Target { table, index, past: None })
    }

    /// The same target, seen as `past` says (the present for `None`).
    pub(crate) fn seeing(self, past: Option<&'a Past<'a>>) -> Target<'a> {
        Target { past, ..self }
    }

    /// The table's item at `key`, as the read sees it.
    pub(crate) fn item(&self, key: &PrimaryKey) -> Option<&'a Item> {
        match self.past {
            Some(past) => past.item(&self.table.items, key),
            None => self.table.items.get(key),
        }
    }

    /// The keys of the table's items between the bounds, forward or backward, as the read sees
    /// them; none when the bounds cross.
    pub(crate) fn table_keys(
        &self,
        low: Bound<PrimaryKey>,
        high: Bound<PrimaryKey>,
        forward: bool,
    ) -> Box<dyn Iterator<Item = &'a PrimaryKey> + 'a> {
        let Some(bounds) = bounded(low, high) else { return Box::new(std::iter::empty()) };
        if let Some(past) = self.past {
            return past.table_keys(&self.table.items, bounds, forward);
        }
        let keys = self.table.items.range(bounds).map(|(key, _)| key);
        if forward { Box::new(keys) } else { Box::new(keys.rev()) }
    }

    /// The entries of `index` (the target's index) between the bounds, forward or backward, as
    /// the read sees them; none when the bounds cross.
    pub(crate) fn index_entries(
        &self,
        index: &'a Index,
        low: Bound<IndexEntry>,
        high: Bound<IndexEntry>,
        forward: bool,
    ) -> Box<dyn Iterator<Item = &'a IndexEntry> + 'a> {
        let Some(bounds) = bounded(low, high) else { return Box::new(std::iter::empty()) };
        if let Some(past) = self.past {
            return past.index_entries(index, bounds, forward);
        }
        let entries = index.entries.range(bounds);
        if forward { Box::new(entries) } else { Box::new(entries.rev()) }
    }

    /// The key schema the reads are ordered by.
    pub(crate) fn key(&self) -> &'a KeySchema {
        self.index.map_or(&self.table.key, |index| &index.key)
    }

    /// True when reading a global secondary index.
    pub(crate) fn is_global(&self) -> bool {
        self.index.is_some_and(Index::is_global)
    }

    /// The attributes of a starting key: the table's key, then the index's other key attributes.
    pub(crate) fn start_key_attrs(&self) -> Vec<&'a KeyAttr> {
        let mut attrs: Vec<&KeyAttr> = self.table.key.attrs().collect();
        if let Some(index) = self.index {
            for attr in index.key.attrs() {
                if !attrs.iter().any(|a| a.name == attr.name) {
                    attrs.push(attr);
                }
            }
        }
        attrs
    }

    /// The position just after which a read that starts at `start` continues.
    pub(crate) fn start_position(&self, start: &Item) -> Option<Position> {
        let table_key = self.table.key.key_of(start)?;
        match self.index {
            None => Some(Position::Table(table_key)),
            Some(index) => {
                let key = index.key.key_of(start)?;
                Some(Position::Index(IndexEntry::new(key.hash, key.range, table_key)))
            }
        }
    }

    /// The item as the target holds it: the table's item, or the index's projection of it.
    fn view(&self, item: &Item) -> Item {
        match self.index {
            Some(index) => index.project(&self.table.key, item),
            None => item.clone(),
        }
    }
}

/// A position in a table or in an index.
#[derive(Debug, Clone)]
pub(crate) enum Position {
    Table(PrimaryKey),
    Index(IndexEntry),
}

impl Position {
    /// The placement hash the position lies in.
    pub(crate) fn partition(&self) -> u32 {
        match self {
            Position::Table(key) => key.partition,
            Position::Index(entry) => entry.partition,
        }
    }
}

/// A key value below every key value: the most negative number DynamoDB stores.
pub(crate) fn min_key_value() -> KeyValue {
    KeyValue::N(Number::parse("-9.9999999999999999999999999999999999999e125").unwrap_or_else(|_| Number::zero()))
}

/// A key value above every key value DynamoDB accepts: the values of multi-attribute key parts
/// are the greatest kind, binary values the greatest scalars, and no key is longer than 2048 bytes.
pub(crate) fn max_key_value() -> KeyValue {
    KeyValue::Tuple(Box::new([KeyValue::B(vec![0xFF; 2049].into())]))
}

/// A primary key below every primary key.
pub(crate) fn min_primary_key() -> PrimaryKey {
    PrimaryKey { partition: 0, hash: min_key_value(), range: None }
}

/// A primary key above every primary key.
pub(crate) fn max_primary_key() -> PrimaryKey {
    PrimaryKey { partition: u32::MAX, hash: max_key_value(), range: Some(max_key_value()) }
}

/// The first index position of a partition hash.
pub(crate) fn index_floor(partition: u32) -> IndexEntry {
    IndexEntry { partition, hash: min_key_value(), range: None, tie: 0, table_key: min_primary_key() }
}

fn bound_value<K>(bound: &Bound<K>) -> Option<&K> {
    match bound {
        Bound::Included(k) | Bound::Excluded(k) => Some(k),
        Bound::Unbounded => None,
    }
}

/// The bounds, unless they describe an empty range (which `BTreeMap::range` would panic on).
pub(crate) fn bounded<K: Ord>(low: Bound<K>, high: Bound<K>) -> Option<(Bound<K>, Bound<K>)> {
    if let (Some(a), Some(b)) = (bound_value(&low), bound_value(&high)) {
        match a.cmp(b) {
            std::cmp::Ordering::Greater => return None,
            std::cmp::Ordering::Equal if matches!(low, Bound::Excluded(_)) || matches!(high, Bound::Excluded(_)) => {
                return None;
            }
            _ => {}
        }
    }
    Some((low, high))
}

/// Reads `ExclusiveStartKey`. Most mistakes in its values are reported as an invalid starting
/// key; a few (numbers, duplicates in sets) the way DynamoDB reports them anywhere else.
pub(crate) fn read_start_key(body: &Json<'_>) -> Result<Option<Item>, DynamoError> {
    if body.get("ExclusiveStartKey").is_none_or(Json::is_null) {
        return Ok(None);
    }
    item(body, "ExclusiveStartKey").map(Some).map_err(|error| {
        let bare = error.code() != "ValidationException"
            || error.message.starts_with("The parameter cannot be converted")
            || error.message.starts_with("Attempting to store")
            || error.message.starts_with("Number overflow")
            || error.message.starts_with("Number underflow")
            || error.message.contains("contains duplicates")
            || error.message.contains("An number set  may not be empty");
        if bare {
            error
        } else {
            DynamoError::validation(format!("The provided starting key is invalid: {}", error.message))
        }
    })
}

/// DynamoDB's answer to a starting key without the attributes it needs.
pub(crate) fn invalid_start_key() -> DynamoError {
    DynamoError::validation("The provided starting key is invalid")
}

/// DynamoDB's answer to a key value of the wrong type.
pub(crate) fn schema_mismatch() -> DynamoError {
    DynamoError::validation("The provided key element does not match the schema")
}

/// Checks one key attribute of a starting key: present (else the key is invalid), of the key's
/// type (else it does not match the schema), within the key size limits.
pub(crate) fn check_start_key_piece(start: &Item, attr: &KeyAttr, is_hash: bool) -> Result<(), DynamoError> {
    let value = start.get(&attr.name).ok_or_else(invalid_start_key)?;
    if !attr.kind.matches(value) {
        return Err(schema_mismatch());
    }
    match KeyValue::from_value(value).and_then(|v| key_size_error(&v, is_hash)) {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// Checks the table's key in a starting key; mistakes are reported as an invalid starting key.
pub(crate) fn check_start_table_key(table: &Table, start: &Item) -> Result<(), DynamoError> {
    for (i, attr) in table.key.attrs().enumerate() {
        let value = start.get(&attr.name).filter(|v| attr.kind.matches(v)).ok_or_else(|| {
            DynamoError::validation(
                "The provided starting key is invalid: The provided key element does not match the schema",
            )
        })?;
        if let Some(error) = KeyValue::from_value(value).and_then(|v| key_size_error(&v, i == 0)) {
            return Err(DynamoError::validation(format!("The provided starting key is invalid: {}", error.message)));
        }
    }
    Ok(())
}

/// Every document path a condition reads.
pub(crate) fn condition_paths(condition: &Condition) -> Vec<&Path> {
    fn operand<'c>(op: &'c Operand, out: &mut Vec<&'c Path>) {
        match op {
            Operand::Path(p) => out.push(p),
            Operand::Size(inner) => operand(inner, out),
            Operand::Value(_) | Operand::Slot(_) => {}
        }
    }
    fn walk<'c>(c: &'c Condition, out: &mut Vec<&'c Path>) {
        match c {
            Condition::Or(a, b) | Condition::And(a, b) => {
                walk(a, out);
                walk(b, out);
            }
            Condition::Not(a) => walk(a, out),
            Condition::Compare(_, a, b)
            | Condition::AttributeType(a, b)
            | Condition::BeginsWith(a, b)
            | Condition::Contains(a, b) => {
                operand(a, out);
                operand(b, out);
            }
            Condition::Between(a, b, c) => {
                operand(a, out);
                operand(b, out);
                operand(c, out);
            }
            Condition::In(a, list) => {
                operand(a, out);
                list.iter().for_each(|o| operand(o, out));
            }
            Condition::Exists(p) | Condition::NotExists(p) => out.push(p),
        }
    }
    let mut out = Vec::new();
    walk(condition, &mut out);
    out
}

/// Key attributes are scalars: a path that looks inside one (`key.x`, `key[0]`) is refused,
/// naming a table key first, then the keys of the global indexes (newest first), then the sort
/// keys of the local ones.
pub(crate) fn check_key_paths<'p>(table: &Table, paths: impl IntoIterator<Item = &'p Path>) -> Result<(), DynamoError> {
    let nested: BTreeSet<&str> = paths.into_iter().filter(|p| p.0.len() > 1).map(Path::head).collect();
    if nested.is_empty() {
        return Ok(());
    }
    let refuse = |kind: &str, name: &str| {
        Err(DynamoError::validation(format!(
            "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: {kind}: {name}"
        )))
    };
    if let Some(attr) = table.key.attrs().find(|a| nested.contains(a.name.as_str())) {
        return refuse("Key", &attr.name);
    }
    for index in table.indexes().iter().rev().filter(|i| i.is_global()) {
        if let Some(attr) = index.key.attrs().find(|a| nested.contains(a.name.as_str())) {
            return refuse("IndexKey", &attr.name);
        }
    }
    for index in table.indexes().iter().rev().filter(|i| !i.is_global()) {
        if let Some(attr) = index.key.range.as_ref().filter(|a| nested.contains(a.name.as_str())) {
            return refuse("IndexKey", &attr.name);
        }
    }
    Ok(())
}

/// What a Query or Scan returns of each item that passes its filter.
#[derive(Debug, Clone)]
pub(crate) enum Shown {
    /// Every attribute (of the table's item).
    All,
    /// The attributes the index projects (`ALL_PROJECTED_ATTRIBUTES`).
    Projected,
    /// The attributes the projection selects.
    Paths(Vec<Path>),
    /// Nothing: only the count (`COUNT`).
    Count,
}

impl Shown {
    /// Reads `Select` with the projection; the combinations were checked by `validate`.
    pub(crate) fn read(body: &Json<'_>, projection: Option<Vec<Path>>, on_index: bool) -> Shown {
        match (body.get("Select").and_then(Json::as_str), projection) {
            (Some("COUNT"), _) => Shown::Count,
            (_, Some(paths)) => Shown::Paths(paths),
            (Some("ALL_ATTRIBUTES"), None) => Shown::All,
            (Some("ALL_PROJECTED_ATTRIBUTES"), None) => Shown::Projected,
            (_, None) if on_index => Shown::Projected,
            (_, None) => Shown::All,
        }
    }
}

/// The filter of a Query or Scan: its `FilterExpression`, or else its legacy `QueryFilter` or
/// `ScanFilter` as one condition.
pub(crate) fn filter_of(
    body: &Json<'_>,
    expression: Option<Condition>,
    legacy: Option<&[LegacyCondition]>,
) -> Option<Condition> {
    match (expression, legacy) {
        (Some(filter), _) => Some(filter),
        (None, Some(conditions)) => legacy::to_condition(body, conditions),
        (None, None) => None,
    }
}

/// How to read one page.
#[derive(Debug)]
pub(crate) struct PagePlan<'a> {
    pub(crate) target: Target<'a>,
    pub(crate) limit: Option<usize>,
    pub(crate) filter: Option<&'a Condition>,
    pub(crate) shown: &'a Shown,
    /// Whether each item is also read from the table (a local index asked for attributes it
    /// does not project); filter and projection then see the whole item.
    pub(crate) fetch: bool,
}

impl<'a> PagePlan<'a> {
    /// The plan of a page of `target` under the request's `Limit`, with `filter` and `shown`.
    pub(crate) fn new(body: &Json<'_>, target: Target<'a>, filter: Option<&'a Condition>, shown: &'a Shown) -> Self {
        let limit =
            body.get("Limit").and_then(validate::as_integer).map(|n| usize::try_from(n.max(1)).unwrap_or(usize::MAX));
        PagePlan { target, limit, filter, shown, fetch: Self::needs_fetch(target, shown, filter) }
    }

    /// Whether a read of a local index must also read the table, for `Select` or for the
    /// attributes the filter and the projection name.
    pub(crate) fn needs_fetch(target: Target<'_>, shown: &Shown, filter: Option<&Condition>) -> bool {
        let Some(index) = target.index.filter(|i| !i.is_global() && i.projection != Projection::All) else {
            return false;
        };
        let projected = |p: &Path| index.projects(&target.table.key, p.head());
        match shown {
            Shown::All => return true,
            Shown::Paths(paths) if !paths.iter().all(projected) => return true,
            _ => {}
        }
        filter.is_some_and(|f| !condition_paths(f).into_iter().all(projected))
    }
}

/// One page of a Query or Scan.
#[derive(Debug, Default)]
pub(crate) struct Page {
    pub(crate) items: Vec<Item>,
    pub(crate) count: usize,
    pub(crate) scanned: usize,
    pub(crate) last_key: Option<Item>,
    pub(crate) table_bytes: usize,
    pub(crate) index_bytes: usize,
}

/// Reads items at `keys` (in order) until the limit or 1 MB, filters them and shows them.
/// A `LastEvaluatedKey` is given when the page stopped at its limit or its size, even if no item
/// was left, as DynamoDB does.
pub(crate) fn read_page<'k>(plan: &PagePlan<'_>, keys: impl Iterator<Item = &'k PrimaryKey>) -> Page {
    let target = plan.target;
    let mut page = Page::default();
    let mut last: Option<&Item> = None;
    let mut page_bytes = 0usize;
    for key in keys {
        if plan.limit.is_some_and(|limit| page.scanned >= limit) || page_bytes >= PAGE_BYTES {
            break;
        }
        let Some(item) = target.item(key) else { continue };
        let read = target.view(item);
        let read_size = item_size(&read);
        page_bytes += read_size;
        if target.index.is_some() {
            page.index_bytes += read_size;
            if plan.fetch {
                page.table_bytes += item_size(item);
            }
        } else {
            page.table_bytes += read_size;
        }
        page.scanned += 1;
        last = Some(item);
        let seen = if plan.fetch { item } else { &read };
        if plan.filter.is_some_and(|filter| !filter.eval(seen)) {
            continue;
        }
        page.count += 1;
        match plan.shown {
            Shown::Count => {}
            Shown::Paths(paths) => page.items.push(project(seen, paths)),
            Shown::All if plan.fetch => page.items.push(item.clone()),
            Shown::All | Shown::Projected => page.items.push(read),
        }
    }
    let stopped = plan.limit.is_some_and(|limit| page.scanned >= limit) || page_bytes >= PAGE_BYTES;
    if stopped && let Some(item) = last {
        page.last_key = Some(
            target
                .start_key_attrs()
                .into_iter()
                .filter_map(|attr| item.get(&attr.name).map(|v| (attr.name.clone(), v.clone())))
                .collect(),
        );
    }
    page
}

/// The answer to a Query or Scan.
pub(crate) fn page_response(
    body: &Json<'_>,
    target: Target<'_>,
    page: Page,
    shown: &Shown,
    consistent: bool,
) -> Answer {
    let mut out = Map::new();
    if !matches!(shown, Shown::Count) {
        out.insert("Items".into(), Answer::Array(page.items.iter().map(item_to_json).collect()));
    }
    out.insert("Count".into(), json!(page.count));
    out.insert("ScannedCount".into(), json!(page.scanned));
    if let Some(last) = &page.last_key {
        out.insert("LastEvaluatedKey".into(), item_to_json(last));
    }
    let capacity = capacity::asked(body).map(|detail| {
        let table_units = Halves::read_total(page.table_bytes, consistent);
        let consumed = match target.index {
            None => Consumed::table(&target.table.name, minimum(table_units, consistent)),
            Some(index) => {
                let mut consumed = Consumed::table(&target.table.name, table_units);
                let index_units = minimum(Halves::read_total(page.index_bytes, consistent), consistent);
                consumed.index(&index.name, index.is_global(), index_units);
                consumed
            }
        };
        consumed.describe(detail)
    });
    if let Some(capacity) = capacity {
        out.insert("ConsumedCapacity".into(), capacity);
    }
    Answer::Object(out)
}

/// A read costs at least one unit (half of one, eventually consistent), even of nothing.
fn minimum(units: Halves, consistent: bool) -> Halves {
    if units.0 == 0 { Halves::read(0, consistent) } else { units }
}
