//! The one place a table hands its item changes to: its stream, any in-process observers, its
//! point-in-time recovery, the other replicas of its global table, and the history of its items
//! that stale reads look into.

use std::time::SystemTime;

use super::{ChangeKind, ItemChange, Observer, Stream};
use crate::backup::Recovery;
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
    /// A write made in another region of a global table, replicated here.
    Replication,
}

/// The writes of a replica of a global table on their way to the other replicas, and the version
/// (time and region of the write) of each item it holds, by which concurrent writes in two
/// regions resolve: the last writer wins.
#[derive(Debug, Default)]
pub(crate) struct Replicated {
    /// The region of this replica.
    pub(crate) region: String,
    /// The writes made here since the last were collected.
    pub(crate) outbox: Vec<Outgoing>,
    /// The version of the latest write of each key, deletions included.
    pub(crate) versions: std::collections::BTreeMap<PrimaryKey, Version>,
}

/// When and where an item was last written: later wins, and of two writes at the same time, the
/// region whose name sorts last.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    pub(crate) at: SystemTime,
    pub(crate) region: String,
}

/// One write of a replica, for the others: the item as it is now (`None`: deleted).
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    pub(crate) key: PrimaryKey,
    pub(crate) item: Option<Item>,
    pub(crate) version: Version,
}

/// Where a table's item changes go. A table has one only while it has a stream, an observer,
/// point-in-time recovery, replicas or a history.
///
/// Point-in-time recovery and the history of stale reads keep the same kind of log (each change
/// with the item before it) but apart: recovery's spans days, starts when it is enabled and goes
/// into snapshots; the history spans at most the bound of the stale-read rules in force, starts
/// when the first is added and goes with the last. Sharing one log would tie each to the other's
/// lifetime for the little memory a table with both saves.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    /// The table's enabled stream.
    pub(crate) stream: Option<Stream>,
    /// The observers of the table's changes, called in the order they were added.
    pub(crate) observers: Vec<Observer>,
    /// The table's point-in-time recovery, which keeps each change in its log.
    pub(crate) recovery: Option<Recovery>,
    /// The replication of the table's writes to the other replicas of its global table.
    pub(crate) replicated: Option<Replicated>,
    /// The table's recent changes, kept while a [`crate::Fault::StaleRead`] rule is in force.
    pub(crate) history: Option<History>,
}

impl Changes {
    /// Whether nothing wants the changes any more.
    pub(crate) fn is_empty(&self) -> bool {
        self.stream.is_none()
            && self.observers.is_empty()
            && self.recovery.is_none()
            && self.replicated.is_none()
            && self.history.is_none()
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
        if let Some(recovery) = &mut self.recovery {
            recovery.record(now, primary, old);
        }
        if let Some(history) = &mut self.history {
            history.record(now, primary, old);
        }
        if let Some(replicated) = &mut self.replicated
            && origin != Origin::Replication
        {
            let version = Version { at: now, region: replicated.region.clone() };
            replicated.versions.insert(primary.clone(), version.clone());
            replicated.outbox.push(Outgoing { key: primary.clone(), item: new.cloned(), version });
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
