//! Item changes as an in-process observer sees them ([`crate::FakeDynamoDb::observe_item_changes`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::SystemTime;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::item::Attributes;
use crate::value::{Item, Value};

/// What a change did to its item, as a stream record's `eventName` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// `INSERT`: the item is new.
    Insert,
    /// `MODIFY`: an item was replaced or updated and is now different.
    Modify,
    /// `REMOVE`: the item was deleted.
    Remove,
}

impl ChangeKind {
    /// The name a stream record gives it: `INSERT`, `MODIFY` or `REMOVE`.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Insert => "INSERT",
            ChangeKind::Modify => "MODIFY",
            ChangeKind::Remove => "REMOVE",
        }
    }
}

/// One change to one item, as the fake applied it: what a stream record of the view type
/// `NEW_AND_OLD_IMAGES` says, whether or not the table has a stream.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use std::sync::{Arc, Mutex};
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynalease_fake::{ChangeKind, FakeDynamoDb};
///
/// let fake = FakeDynamoDb::new();
/// fake.create_table("Locks", "pk", None);
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = seen.clone();
/// fake.observe_item_changes("Locks", move |change| log.lock().unwrap().push(change.kind));
/// let client = fake.client();
/// let put = client.put_item().table_name("Locks").item("pk", AttributeValue::S("a".into()));
/// put.clone().send().await.unwrap();
/// put.send().await.unwrap(); // the same item again: no change
/// client.delete_item().table_name("Locks").key("pk", AttributeValue::S("a".into())).send().await.unwrap();
/// assert_eq!(*seen.lock().unwrap(), [ChangeKind::Insert, ChangeKind::Remove]);
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ItemChange {
    /// The table's name.
    pub table: String,
    /// What the change did.
    pub kind: ChangeKind,
    /// The item's key attributes.
    pub keys: HashMap<String, AttributeValue>,
    /// The item before the change; `None` for an insert.
    pub old_image: Option<HashMap<String, AttributeValue>>,
    /// The item after the change; `None` for a removal.
    pub new_image: Option<HashMap<String, AttributeValue>>,
    /// When the fake applied it, on its clock.
    pub at: SystemTime,
    /// Whether a time-to-live sweep deleted the item.
    pub by_time_to_live: bool,
}

impl ItemChange {
    pub(crate) fn new(
        table: &str,
        kind: ChangeKind,
        keys: &Item,
        old: Option<&Item>,
        new: Option<&Item>,
        at: SystemTime,
        by_time_to_live: bool,
    ) -> ItemChange {
        ItemChange {
            table: table.to_owned(),
            kind,
            keys: to_sdk_item(keys),
            old_image: old.map(to_sdk_item),
            new_image: new.map(to_sdk_item),
            at,
            by_time_to_live,
        }
    }
}

pub(crate) fn to_sdk_item(item: &(impl Attributes + ?Sized)) -> HashMap<String, AttributeValue> {
    item.attributes().map(|(name, value)| (name.to_owned(), to_sdk(value))).collect()
}

pub(crate) fn to_sdk(value: &Value) -> AttributeValue {
    match value {
        Value::S(s) => AttributeValue::S(s.clone()),
        Value::N(n) => AttributeValue::N(n.to_string()),
        Value::B(b) => AttributeValue::B(Blob::new(b.clone())),
        Value::Bool(b) => AttributeValue::Bool(*b),
        Value::Null => AttributeValue::Null(true),
        Value::M(m) => AttributeValue::M(to_sdk_item(m)),
        Value::L(l) => AttributeValue::L(l.iter().map(to_sdk).collect()),
        Value::SS(s) => AttributeValue::Ss(s.iter().cloned().collect()),
        Value::NS(s) => AttributeValue::Ns(s.iter().map(ToString::to_string).collect()),
        Value::BS(s) => AttributeValue::Bs(s.iter().map(|b| Blob::new(b.clone())).collect()),
    }
}

/// A key given in the SDK's types, as the engine holds it; `None` for a value no key can be.
pub(crate) fn from_sdk_key(key: &HashMap<String, AttributeValue>) -> Option<Item> {
    key.iter()
        .map(|(name, value)| {
            let value = match value {
                AttributeValue::S(s) => Value::S(s.clone()),
                AttributeValue::N(n) => Value::N(crate::number::Number::parse(n).ok()?),
                AttributeValue::B(b) => Value::B(b.as_ref().to_vec()),
                _ => return None,
            };
            Some((name.clone(), value))
        })
        .collect()
}

/// An observer of a table's item changes.
#[derive(Clone)]
pub(crate) struct Observer(pub(crate) Arc<dyn Fn(&ItemChange) + Send + Sync>);

impl Observer {
    pub(crate) fn call(&self, change: &ItemChange) {
        (self.0)(change)
    }
}

impl fmt::Debug for Observer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Observer")
    }
}
