//! A table, or one of its indexes, as an eventually consistent read sees it at an instant of the
//! past: the items now, but those changed since as they were then.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use itertools::Itertools;

use crate::index::{Index, IndexEntry};
use crate::table::PrimaryKey;
use crate::value::Item;

/// The items a read at an instant finds changed since, as they were then, and the entries they
/// had then in the index it reads (if it reads one).
#[derive(Debug)]
pub(crate) struct Past<'h> {
    /// Each item changed since the instant, as it was then (`None`: there was none).
    changed: BTreeMap<&'h PrimaryKey, Option<&'h Item>>,
    /// The entries of the index read that the changed items had at the instant.
    entries: BTreeSet<IndexEntry>,
}

impl<'h> Past<'h> {
    pub(super) fn new(changed: BTreeMap<&'h PrimaryKey, Option<&'h Item>>, entries: BTreeSet<IndexEntry>) -> Self {
        Past { changed, entries }
    }

    /// The item at `key` then, of a table whose items now are `items`.
    pub(crate) fn item<'a>(&'a self, items: &'a BTreeMap<PrimaryKey, Item>, key: &PrimaryKey) -> Option<&'a Item> {
        match self.changed.get(key) {
            Some(then) => *then,
            None => items.get(key),
        }
    }

    /// The keys of the items then between `bounds` (which do not cross), forward or backward,
    /// of a table whose items now are `items`.
    pub(crate) fn table_keys<'a>(
        &'a self,
        items: &'a BTreeMap<PrimaryKey, Item>,
        bounds: (Bound<PrimaryKey>, Bound<PrimaryKey>),
        forward: bool,
    ) -> Box<dyn Iterator<Item = &'a PrimaryKey> + 'a> {
        let then = self.changed.range::<PrimaryKey, _>((bounds.0.as_ref(), bounds.1.as_ref()));
        let then = then.filter_map(|(key, item)| item.map(|_| *key));
        let unchanged = items.range(bounds).map(|(key, _)| key).filter(|key| !self.changed.contains_key(key));
        merged(unchanged, then, forward)
    }

    /// The entries of `index` then between `bounds` (which do not cross), forward or backward;
    /// `index` is the index this view was made for.
    pub(crate) fn index_entries<'a>(
        &'a self,
        index: &'a Index,
        bounds: (Bound<IndexEntry>, Bound<IndexEntry>),
        forward: bool,
    ) -> Box<dyn Iterator<Item = &'a IndexEntry> + 'a> {
        let then = self.entries.range((bounds.0.as_ref(), bounds.1.as_ref()));
        let unchanged = index.entries.range(bounds).filter(|entry| !self.changed.contains_key(&entry.table_key));
        merged(unchanged, then, forward)
    }
}

/// Two ordered runs of distinct values as one, in ascending order or, backward, in descending.
fn merged<'a, T: Ord + 'a>(
    one: impl DoubleEndedIterator<Item = &'a T> + 'a,
    other: impl DoubleEndedIterator<Item = &'a T> + 'a,
    forward: bool,
) -> Box<dyn Iterator<Item = &'a T> + 'a> {
    if forward {
        Box::new(one.merge_by(other, |a, b| a < b))
    } else {
        Box::new(one.rev().merge_by(other.rev(), |a, b| a > b))
    }
}
