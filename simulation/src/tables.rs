//! [`Tables`]: every table as the run left it, read from the fake after the run, past the
//! network and its faults.

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;

/// An item, as the SDK gives it.
pub type Item = HashMap<String, AttributeValue>;

/// Every item of every table as the run left it, each table's items in the order a scan
/// returns them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tables {
    pub(crate) tables: BTreeMap<String, Vec<Item>>,
}

impl Tables {
    /// The items of `table`; none if there is no such table.
    pub fn items(&self, table: &str) -> &[Item] {
        self.tables.get(table).map_or(&[], Vec::as_slice)
    }

    /// The names of the tables.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tables.keys().map(String::as_str)
    }

    /// The string attribute `name` of `item`.
    pub fn s<'a>(item: &'a Item, name: &str) -> Option<&'a str> {
        item.get(name).and_then(|v| v.as_s().ok()).map(String::as_str)
    }

    /// The number attribute `name` of `item`, as an integer.
    pub fn n(item: &Item, name: &str) -> Option<i128> {
        item.get(name).and_then(|v| v.as_n().ok()).and_then(|n| n.parse().ok())
    }
}
