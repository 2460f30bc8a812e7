//! The one place a table hands its item changes to: its stream, any in-process observers, and
//! the history of its items that stale reads look into.

use std::time::SystemTime;

use super::{ChangeKind, ItemChange, Observer, Stream};
use crate::stale::History;
use crate::table::{KeySchema, PrimaryKey};
use crate::value::Item;

/// Why an item changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A request: an item operation, a batch, a transaction.
    Request,
    /// A time-to-live sweep deleted an expired item.
    TimeToLive,
}

/// Where a table's item changes go. A table has one only while it has a stream, an observer or a
/// history.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// The table's enabled stream.
    pub(crate) stream: Option<Stream>,
    /// The observers of the table's changes, called in the order they were added.
    pub(crate) observers: Vec<Observer>,
    /// The table's recent changes, kept while a [`crate::Fault::StaleRead`] rule is in force.
    pub(crate) history: Option<History>,
}

impl Changes {
    /// Whether nothing wants the changes any more.
    pub(crate) fn is_empty(&self) -> bool {
        self.stream.is_none() && self.observers.is_empty() && self.history.is_none()
    }

    /// Hands on the change of the item at `primary` of `table` (whose key schema is `key`) from
    /// `old` to `new` (`None`: no item), made at `now`. A write that leaves the item as it was (an
    /// identical put, a delete of a missing item, an update that sets what is there) is no change,
    /// as DynamoDB's streams show it.
    // Kept out of line: the write paths inline only the test that calls it.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record(
        &mut self,
        table: &str,
        key: &KeySchema,
        primary: &PrimaryKey,
        old: Option<&Item>,
        new: Option<&Item>,
        now: SystemTime,
        origin: Origin,
    ) {
        let (kind, either) = match (old, new) {
            (Some(old), Some(new)) if old == new => return,
            (Some(_), Some(new)) => (ChangeKind::Modify, new),
            (None, Some(new)) => (ChangeKind::Insert, new),
            (Some(old), None) => (ChangeKind::Remove, old),
            (None, None) => return,
        };
        if let Some(history) = &mut self.history {
            history.record(now, primary, old);
        }
        if self.observers.is_empty() && self.stream.is_none() {
            return;
        }
        let keys: Item = key
            .hash_attrs()
            .chain(key.range_attrs())
            .filter_map(|attr| either.get(&attr.name).map(|value| (attr.name.clone(), value.clone())))
            .collect();
        let by_ttl = origin == Origin::TimeToLive;
        if !self.observers.is_empty() {
            let change = ItemChange::new(table, kind, &keys, old, new, now, by_ttl);
            for observer in &self.observers {
                observer.call(&change);
            }
        }
        if let Some(stream) = &mut self.stream {
            stream.push(kind, keys, old, new, now, by_ttl);
        }
    }
}
