//! The changes of a table's items over the last while, kept backwards.
//!
//! Each change of an item keeps the item as it was before the change, with when it was made.
//! The table at an instant of the while is then the table now with every change after that
//! instant undone, newest first; for one item, its state before the first change after the
//! instant. Changes older than the horizon are dropped as new ones come. Because the log is
//! dropped from its oldest end only, undoing the changes after any instant, even one older than
//! the log reaches, gives a state the table really had: at worst that of the oldest change kept.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::{Duration, SystemTime};

use super::Past;
use crate::index::Index;
use crate::table::PrimaryKey;
use crate::value::Item;

/// One change of an item.
#[derive(Debug)]
struct Undo {
    /// When it was made: never before the change kept before it.
    at: SystemTime,
    key: PrimaryKey,
    /// The item before the change; `None` when there was none.
    before: Option<Item>,
}

/// A table's changes over the last `horizon`, oldest first.
#[derive(Debug)]
pub(crate) struct History {
    horizon: Duration,
    log: VecDeque<Undo>,
}

impl History {
    /// An empty history that keeps changes for `horizon`.
    pub(crate) fn new(horizon: Duration) -> History {
        History { horizon, log: VecDeque::new() }
    }

    /// Keeps changes for `horizon` from now on.
    pub(crate) fn set_horizon(&mut self, horizon: Duration) {
        self.horizon = horizon;
    }

    /// Records that the item at `key` changed at `now` from `before`, and drops the changes
    /// older than the horizon. A change is kept at the time of the one before it if `now` is
    /// earlier (requests answered out of the order of their times, a clock set back), so that
    /// the log stays in the order the changes were made.
    pub(crate) fn record(&mut self, now: SystemTime, key: &PrimaryKey, before: Option<&Item>) {
        let at = self.log.back().map_or(now, |last| last.at.max(now));
        if let Some(cutoff) = at.checked_sub(self.horizon) {
            while self.log.front().is_some_and(|undo| undo.at <= cutoff) {
                self.log.pop_front();
            }
        }
        self.log.push_back(Undo { at, key: key.clone(), before: before.cloned() });
    }

    /// Forgets every change: the table as it is now is the oldest state a read sees.
    pub(crate) fn clear(&mut self) {
        self.log.clear();
    }

    /// How many changes it keeps.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.log.len()
    }

    /// The changes made after `at`, oldest first.
    fn after(&self, at: SystemTime) -> impl Iterator<Item = &Undo> {
        let first = self.log.partition_point(|undo| undo.at <= at);
        self.log.range(first..)
    }

    /// The item at `key` as it was at `at` (`None`: there was none), if it changed since;
    /// `None` if it did not.
    pub(crate) fn item_at(&self, key: &PrimaryKey, at: SystemTime) -> Option<Option<&Item>> {
        self.after(at).find(|undo| undo.key == *key).map(|undo| undo.before.as_ref())
    }

    /// The items changed since `at`, as they were then, and the entries they had then in
    /// `index`; `None` when nothing changed since.
    pub(crate) fn past(&self, at: SystemTime, index: Option<&Index>) -> Option<Past<'_>> {
        let mut changed = BTreeMap::new();
        for undo in self.after(at) {
            // The first change after the instant holds the item as it was then.
            changed.entry(&undo.key).or_insert(undo.before.as_ref());
        }
        if changed.is_empty() {
            return None;
        }
        let entries: BTreeSet<_> = match index {
            Some(index) => changed.iter().filter_map(|(key, item)| index.entry(key, (*item)?)).collect(),
            None => BTreeSet::new(),
        };
        Some(Past::new(changed, entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::KeyValue;
    use crate::value::Value;

    fn at(millis: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000) + Duration::from_millis(millis)
    }

    fn key(name: &str) -> PrimaryKey {
        PrimaryKey::new(KeyValue::S(name.into()), None)
    }

    fn item(name: &str, v: &str) -> Item {
        [("pk".to_owned(), Value::S(name.into())), ("v".to_owned(), Value::S(v.into()))].into_iter().collect()
    }

    #[test]
    fn an_item_at_an_instant_is_its_state_before_the_first_change_after_it() {
        let mut history = History::new(Duration::from_secs(1));
        history.record(at(100), &key("a"), None);
        history.record(at(200), &key("a"), Some(&item("a", "1")));
        history.record(at(300), &key("a"), Some(&item("a", "2")));

        assert_eq!(history.item_at(&key("a"), at(50)), Some(None), "not yet put");
        assert_eq!(history.item_at(&key("a"), at(100)), Some(Some(&item("a", "1"))), "a change at the instant is seen");
        assert_eq!(history.item_at(&key("a"), at(250)), Some(Some(&item("a", "2"))));
        assert_eq!(history.item_at(&key("a"), at(300)), None, "unchanged since: the item now");
        assert_eq!(history.item_at(&key("b"), at(50)), None);
    }

    #[test]
    fn the_past_holds_each_item_changed_since_as_it_was_then() {
        let mut history = History::new(Duration::from_secs(1));
        history.record(at(100), &key("a"), Some(&item("a", "1")));
        history.record(at(200), &key("b"), None);
        history.record(at(300), &key("a"), Some(&item("a", "2")));
        let past = history.past(at(150), None).expect("changes after the instant");
        let items =
            BTreeMap::from([(key("a"), item("a", "3")), (key("b"), item("b", "1")), (key("c"), item("c", "1"))]);
        assert_eq!(past.item(&items, &key("a")), Some(&item("a", "2")));
        assert_eq!(past.item(&items, &key("b")), None);
        assert_eq!(past.item(&items, &key("c")), Some(&item("c", "1")));
        let bounds = (std::ops::Bound::Unbounded, std::ops::Bound::Unbounded);
        let forward: Vec<_> = past.table_keys(&items, bounds.clone(), true).cloned().collect();
        let mut expected = vec![key("a"), key("c")];
        expected.sort();
        assert_eq!(forward, expected);
        let backward: Vec<_> = past.table_keys(&items, bounds, false).cloned().collect();
        expected.reverse();
        assert_eq!(backward, expected);
        assert!(history.past(at(300), None).is_none(), "nothing changed after the last change");
    }

    #[test]
    fn changes_older_than_the_horizon_are_dropped_as_new_ones_come() {
        let mut history = History::new(Duration::from_millis(500));
        for millis in [0, 100, 200, 600, 700] {
            history.record(at(millis), &key("a"), None);
        }
        // A read at 700 looks back to 200 at most: it undoes the changes after that, no others.
        assert_eq!(history.len(), 2, "the changes at 600 and 700 are kept");
        history.set_horizon(Duration::from_millis(50));
        history.record(at(710), &key("a"), None);
        assert_eq!(history.len(), 2, "with 50 ms, the change at 600 is not needed at 710");
    }

    #[test]
    fn a_change_stamped_before_the_last_is_kept_at_the_last_ones_time() {
        let mut history = History::new(Duration::from_secs(1));
        history.record(at(500), &key("a"), None);
        history.record(at(400), &key("a"), Some(&item("a", "1")));
        assert_eq!(history.item_at(&key("a"), at(450)), Some(None), "both changes came after 450");
        assert_eq!(history.item_at(&key("a"), at(500)), None, "both are kept at 500");
    }
}
