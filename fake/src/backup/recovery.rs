//! Point-in-time recovery of one table: the window DynamoDB offers, and the change log that
//! makes the table again at any instant of it.
//!
//! The log is kept backwards: each change of an item records the item as it was before, so the
//! table at an instant is the table now with every change after that instant undone, newest
//! first. A table without point-in-time recovery keeps nothing; one with it keeps the changes
//! since its earliest restorable time and no older (a change at or before that time is never
//! undone), so the log is bounded by what the window holds.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, SystemTime};

use crate::table::PrimaryKey;
use crate::value::Item;

/// How far the latest restorable time lags the present: DynamoDB documents it as typically five
/// minutes before the current time.
pub(crate) const LAG: Duration = Duration::from_secs(5 * 60);

/// The recovery period a table gets unless asked for another, and the longest: 35 days.
pub(crate) const DEFAULT_PERIOD_DAYS: u32 = 35;

/// One change of an item, as a log kept backwards holds it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Undo {
    /// When the change was applied.
    pub(crate) at: SystemTime,
    /// The item's key.
    pub(crate) key: PrimaryKey,
    /// The item before the change; `None` when it did not exist.
    pub(crate) before: Option<Item>,
}

/// A table's point-in-time recovery.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Recovery {
    /// When it was enabled: the earliest restorable time can be no earlier.
    pub(crate) enabled_at: SystemTime,
    /// How many days back the window reaches, 1 to 35.
    pub(crate) period_days: u32,
    /// The changes since the earliest restorable time, oldest first.
    log: VecDeque<Undo>,
}

impl Recovery {
    /// Point-in-time recovery enabled at `now`, with an empty log.
    pub(crate) fn new(now: SystemTime, period_days: u32) -> Recovery {
        Recovery { enabled_at: now, period_days, log: VecDeque::new() }
    }

    /// Recovery as a snapshot kept it: enabled at `enabled_at`, with its log.
    pub(crate) fn with_log(enabled_at: SystemTime, period_days: u32, log: Vec<Undo>) -> Recovery {
        Recovery { enabled_at, period_days, log: log.into() }
    }

    /// The earliest time the table can be restored to at `now`: when recovery was enabled, or
    /// the start of the recovery period, whichever is later.
    pub(crate) fn earliest(&self, now: SystemTime) -> SystemTime {
        let period = Duration::from_secs(u64::from(self.period_days) * 86_400);
        now.checked_sub(period).map_or(self.enabled_at, |start| start.max(self.enabled_at))
    }

    /// The latest time the table can be restored to at `now`: five minutes before it, and never
    /// before the earliest (right after recovery is enabled, the window is that one instant).
    pub(crate) fn latest(&self, now: SystemTime) -> SystemTime {
        now.checked_sub(LAG).map_or(self.enabled_at, |lagged| lagged.max(self.earliest(now)))
    }

    /// Records that the item at `key` changed at `at` from `before`; drops what the window no
    /// longer needs.
    pub(crate) fn record(&mut self, at: SystemTime, key: &PrimaryKey, before: Option<&Item>) {
        let earliest = self.earliest(at);
        while self.log.front().is_some_and(|undo| undo.at <= earliest) {
            self.log.pop_front();
        }
        self.log.push_back(Undo { at, key: key.clone(), before: before.cloned() });
    }

    /// Changes the period of the window.
    pub(crate) fn set_period(&mut self, period_days: u32) {
        self.period_days = period_days;
    }

    /// The changes kept, oldest first.
    pub(crate) fn log(&self) -> impl Iterator<Item = &Undo> {
        self.log.iter()
    }

    /// The items as they were at `at`, the changes made at `at` included, from the items as they
    /// are now.
    pub(crate) fn items_at(&self, now: &BTreeMap<PrimaryKey, Item>, at: SystemTime) -> BTreeMap<PrimaryKey, Item> {
        self.undone(now, |changed| changed > at)
    }

    /// The items as they were just before `at`: the changes made at `at` undone too.
    pub(crate) fn items_before(&self, now: &BTreeMap<PrimaryKey, Item>, at: SystemTime) -> BTreeMap<PrimaryKey, Item> {
        self.undone(now, |changed| changed >= at)
    }

    /// `now` with every change the log holds that `undo` picks (by its time) undone, newest first.
    fn undone(
        &self,
        now: &BTreeMap<PrimaryKey, Item>,
        undo: impl Fn(SystemTime) -> bool,
    ) -> BTreeMap<PrimaryKey, Item> {
        let mut items = now.clone();
        for change in self.log.iter().rev().take_while(|change| undo(change.at)) {
            match &change.before {
                Some(item) => items.insert(change.key.clone(), item.clone()),
                None => items.remove(&change.key),
            };
        }
        items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::KeyValue;
    use crate::value::Value;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn key(name: &str) -> PrimaryKey {
        PrimaryKey::new(KeyValue::S(name.into()), None)
    }

    fn item(name: &str, n: &str) -> Item {
        [("pk".to_owned(), Value::S(name.into())), ("n".to_owned(), Value::S(n.into()))].into_iter().collect()
    }

    #[test]
    fn the_table_at_an_instant_is_the_table_now_with_every_later_change_undone() {
        let start = at(1_000_000);
        let mut recovery = Recovery::new(start, DEFAULT_PERIOD_DAYS);
        let mut now = BTreeMap::new();
        // t+10: a inserted as 1; t+20: a becomes 2, b inserted; t+30: a deleted.
        recovery.record(at(1_000_010), &key("a"), None);
        now.insert(key("a"), item("a", "1"));
        recovery.record(at(1_000_020), &key("a"), Some(&item("a", "1")));
        now.insert(key("a"), item("a", "2"));
        recovery.record(at(1_000_020), &key("b"), None);
        now.insert(key("b"), item("b", "1"));
        recovery.record(at(1_000_030), &key("a"), Some(&item("a", "2")));
        now.remove(&key("a"));

        assert!(recovery.items_at(&now, at(1_000_005)).is_empty());
        assert_eq!(recovery.items_at(&now, at(1_000_010)).get(&key("a")), Some(&item("a", "1")));
        let at_20 = recovery.items_at(&now, at(1_000_020));
        assert_eq!((at_20.get(&key("a")), at_20.len()), (Some(&item("a", "2")), 2));
        assert_eq!(recovery.items_before(&now, at(1_000_020)).get(&key("a")), Some(&item("a", "1")));
        assert_eq!(recovery.items_at(&now, at(1_000_030)), now);
    }

    #[test]
    fn the_window_starts_at_enabling_then_slides_with_the_period_and_lags_five_minutes() {
        let start = at(10 * 86_400);
        let recovery = Recovery::new(start, 1);
        assert_eq!((recovery.earliest(start), recovery.latest(start)), (start, start));
        let later = start + Duration::from_secs(3600);
        assert_eq!((recovery.earliest(later), recovery.latest(later)), (start, later - LAG));
        let days_later = start + Duration::from_secs(3 * 86_400);
        assert_eq!(recovery.earliest(days_later), days_later - Duration::from_secs(86_400));
    }

    #[test]
    fn changes_older_than_the_window_are_dropped_as_new_ones_come() {
        let start = at(10 * 86_400);
        let mut recovery = Recovery::new(start, 1);
        recovery.record(start + Duration::from_secs(60), &key("a"), None);
        recovery.record(start + Duration::from_secs(2 * 86_400), &key("b"), None);
        let kept: Vec<_> = recovery.log().map(|undo| undo.key.clone()).collect();
        assert_eq!(kept, [key("b")]);
    }
}
