//! `ReturnItemCollectionMetrics: SIZE`: the size of the item collection a write touched (the
//! items of one partition key value), for a table with a local secondary index; nothing for a
//! table without one, as DynamoDB answers.

use serde_json::{Map, Value as Answer, json};

use crate::json::Json;
use crate::request::string;
use crate::table::{KeyValue, PrimaryKey, Table};
use crate::value::{Value, item_size};

/// Bytes in a gigabyte, as `SizeEstimateRangeGB` counts them.
const GB: f64 = (1u64 << 30) as f64;

/// Whether the request asked for item collection metrics.
pub(crate) fn asked(body: &Json<'_>) -> bool {
    string(body, "ReturnItemCollectionMetrics") == Some("SIZE")
}

/// The `ItemCollectionMetrics` of the collection of `key` in `table`, if the table has a local
/// secondary index: the collection's partition key, and its size in a range a gigabyte wide.
pub(crate) fn of_key(table: &Table, key: &PrimaryKey) -> Option<Answer> {
    if !table.has_local_index() {
        return None;
    }
    let start = PrimaryKey { partition: key.partition, hash: key.hash.clone(), range: None };
    let bytes: usize = table
        .items
        .range(start..)
        .take_while(|(k, _)| k.partition == key.partition && k.hash == key.hash)
        .map(|(_, item)| item_size(item))
        .sum();
    let low = (bytes as f64 / GB).floor();
    let hash = match &key.hash {
        KeyValue::S(s) => Value::S(s.to_string()),
        KeyValue::N(n) => Value::N(n.clone()),
        KeyValue::B(b) => Value::B(b.to_vec()),
        KeyValue::Tuple(_) => return None,
    };
    let collection_key = json!({ table.key.hash.name.clone(): hash.to_json() });
    Some(json!({ "ItemCollectionKey": collection_key, "SizeEstimateRangeGB": [low, low + 1.0] }))
}

/// The `ItemCollectionMetrics` of a batch or transaction: for each table with a local
/// secondary index, the metrics of each collection written, once each, in the order written.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    tables: Map<String, Answer>,
}

impl Collected {
    /// Adds the collection of `key` in `table` (named `name` in the request).
    pub(crate) fn add(&mut self, name: &str, table: &Table, key: &PrimaryKey) {
        let Some(metrics) = of_key(table, key) else { return };
        let list = self.tables.entry(name.to_owned()).or_insert_with(|| Answer::Array(Vec::new()));
        if let Some(list) = list.as_array_mut() {
            match list.iter_mut().find(|m| m["ItemCollectionKey"] == metrics["ItemCollectionKey"]) {
                Some(seen) => *seen = metrics,
                None => list.push(metrics),
            }
        }
    }

    /// The answer's member.
    pub(crate) fn into_answer(self) -> Answer {
        Answer::Object(self.tables)
    }
}
