//! [`ItemRef`]: an item of a table, as the world names it: the table and the values of its key.
//!
//! Triggers and races are timed by the items requests read and write, whatever the service keeps
//! in them: a write to `Accounts[alice]`, a read of `Jobs[42/PENDING]`. The key is the text of
//! the partition key's value, and of the sort key's after a `/` if the table has one.

use std::fmt;
use std::sync::Arc;

/// An item of a table: the table's name and the text of its key.
///
/// # Examples
///
/// ```
/// use dynalease_sim::ItemRef;
///
/// let item = ItemRef::new("Accounts", "alice");
/// assert_eq!(item.to_string(), "Accounts[alice]");
/// assert_eq!("Accounts[alice]".parse::<ItemRef>(), Ok(item));
/// assert_eq!(ItemRef::new("Jobs", "42/PENDING").to_string(), "Jobs[42/PENDING]");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemRef {
    table: Arc<str>,
    key: Arc<str>,
}

impl ItemRef {
    /// The item of `table` whose key reads `key` (`partition` or `partition/sort`).
    pub fn new(table: &str, key: &str) -> Self {
        ItemRef { table: Arc::from(table), key: Arc::from(key) }
    }

    /// The item of `table` with the partition key value `partition` and, if the table has one,
    /// the sort key value `sort`.
    pub fn of(table: &str, partition: &str, sort: Option<&str>) -> Self {
        match sort {
            Some(sort) => ItemRef::new(table, &format!("{partition}/{sort}")),
            None => ItemRef::new(table, partition),
        }
    }

    /// The table.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The key, as text.
    pub fn key(&self) -> &str {
        &self.key
    }
}

impl fmt::Display for ItemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.table, self.key)
    }
}

impl fmt::Debug for ItemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::str::FromStr for ItemRef {
    type Err = String;

    /// Reads `Table[key]`.
    fn from_str(text: &str) -> Result<Self, String> {
        let (table, rest) =
            text.split_once('[').ok_or_else(|| format!("`{text}` is not an item: write it as Table[key]"))?;
        let key = rest.strip_suffix(']').ok_or_else(|| format!("`{text}` is not an item: write it as Table[key]"))?;
        if table.is_empty() || key.is_empty() {
            return Err(format!("`{text}` names no table or no key: write it as Table[key]"));
        }
        Ok(ItemRef::new(table, key))
    }
}

impl serde::Serialize for ItemRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ItemRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
