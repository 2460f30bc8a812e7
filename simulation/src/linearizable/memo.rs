//! The configurations the search has visited, so that it explores none twice (Lowe's
//! improvement of Wing and Gong's search).
//!
//! A configuration is the set of operations linearized so far and the state of the model after
//! them. Whether the rest of the history can follow depends on nothing else, so a configuration
//! reached a second time, by another order of the same operations, has nothing new to show.

use std::collections::HashSet;
use std::hash::Hash;

use foldhash::fast::FixedState;

/// The set of linearized operations, one bit each.
#[derive(Debug, Clone)]
pub(super) struct Linearized {
    words: Vec<u64>,
}

impl Linearized {
    /// The empty set, of room for bits `0..bits`.
    pub(super) fn new(bits: usize) -> Self {
        Linearized { words: vec![0; bits.div_ceil(64)] }
    }

    pub(super) fn insert(&mut self, bit: usize) {
        self.words[bit / 64] |= 1 << (bit % 64);
    }

    pub(super) fn remove(&mut self, bit: usize) {
        self.words[bit / 64] &= !(1 << (bit % 64));
    }

    /// The set in the memo's compact form. The search numbers the operations in the order of
    /// their calls, and linearizes them roughly in that order, so a long history's set is mostly
    /// whole words of ones, then a few words of mixed bits, then words of zeros: the key keeps
    /// the count of the first and the second as they are.
    fn key(&self) -> Key {
        let full = self.words.iter().take_while(|&&word| word == u64::MAX).count();
        let end = self.words.iter().rposition(|&word| word != 0).map_or(0, |last| last + 1).max(full);
        Key { full_words: full as u32, rest: self.words[full..end].into() }
    }
}

/// A set of linearized operations in the memo: `full_words` words of ones, then `rest`, then
/// zeros. The form is unique for a set of a given size, so equal keys are equal sets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    full_words: u32,
    rest: Box<[u64]>,
}

/// The configurations visited: looked up, never iterated, so its order cannot leak into a result.
#[derive(Debug)]
pub(super) struct Memo<S> {
    seen: HashSet<(Key, S), FixedState>,
}

impl<S: Clone + Eq + Hash> Memo<S> {
    pub(super) fn new() -> Self {
        Memo { seen: HashSet::with_hasher(FixedState::default()) }
    }

    /// Records the configuration (`linearized`, `state`); false if it was visited before.
    pub(super) fn insert(&mut self, linearized: &Linearized, state: &S) -> bool {
        self.seen.insert((linearized.key(), state.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_of(bits: usize, members: impl IntoIterator<Item = usize>) -> Linearized {
        let mut set = Linearized::new(bits);
        members.into_iter().for_each(|bit| set.insert(bit));
        set
    }

    #[test]
    fn a_configuration_is_new_once_and_only_for_the_same_set_and_state() {
        let mut memo = Memo::new();
        assert!(memo.insert(&set_of(200, [0, 1, 2]), &7));
        assert!(!memo.insert(&set_of(200, [2, 1, 0]), &7), "the same set, reached in another order");
        assert!(memo.insert(&set_of(200, [0, 1, 2]), &8), "the same set, another state");
        assert!(memo.insert(&set_of(200, [0, 1, 3]), &7), "another set, the same state");
    }

    #[test]
    fn the_compact_key_tells_apart_sets_that_differ_in_any_word() {
        let whole_first_word = set_of(200, 0..64);
        let sets = [
            set_of(200, []),
            whole_first_word.clone(),
            set_of(200, (0..64).chain([64])),
            set_of(200, (0..128).chain([199])),
            set_of(200, [199]),
            set_of(200, [63]),
            set_of(200, (1..64).chain([64])),
        ];
        for (i, a) in sets.iter().enumerate() {
            for (j, b) in sets.iter().enumerate() {
                assert_eq!(a.key() == b.key(), i == j, "sets {i} and {j}");
            }
        }
        let mut removed = set_of(200, (0..64).chain([150]));
        removed.remove(150);
        assert_eq!(removed.key(), whole_first_word.key(), "a removed bit leaves no trace in the key");
        assert_eq!(whole_first_word.key().rest.len(), 0, "a word of ones is counted, not stored");
    }
}
