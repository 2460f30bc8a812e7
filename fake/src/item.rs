//! [`Item`]: an item's attributes, names to values in name order, held in as few bytes as the
//! tables keep them.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use foldhash::fast::FixedState;

use crate::value::Value;

/// An attribute name as items hold it: one copy of each name read on a thread, shared by every
/// item that has it (a table's items mostly share their names).
type Name = Arc<str>;

/// The names read on this thread, and how many it holds before it forgets those no item holds.
struct Names {
    known: HashSet<Name, FixedState>,
    limit: usize,
}

/// The fewest names a thread keeps before it looks for unused ones.
const NAMES_KEPT: usize = 1024;

thread_local! {
    static NAMES: RefCell<Names> =
        RefCell::new(Names { known: HashSet::with_hasher(FixedState::default()), limit: NAMES_KEPT });
}

/// The shared copy of the name `name`. A thread that reads ever new names (a test that makes
/// them up) drops those no item holds any more whenever it knows twice as many as were held.
fn name(name: &str) -> Name {
    NAMES.with_borrow_mut(|names| {
        if let Some(known) = names.known.get(name) {
            return Arc::clone(known);
        }
        if names.known.len() >= names.limit {
            names.known.retain(|known| Arc::strong_count(known) > 1);
            names.limit = (2 * names.known.len()).max(NAMES_KEPT);
        }
        let new = Name::from(name);
        names.known.insert(Arc::clone(&new));
        new
    })
}

/// An item: attribute names to values, in name order.
///
/// Held as a boxed slice of exactly its attributes, sorted by name, rather than as a
/// `BTreeMap`: a map's node has room for eleven entries however few an item has, and most items
/// have a handful (`docs/performance.md`, "Where the bytes of an item go"). Finding an attribute
/// is a binary search; adding or removing one moves the attributes after it into a block of the
/// new size, which an item of a few attributes does in about the time a map finds its place.
/// Names are shared ([`Name`]), so an item's own blocks are that slice and its values'.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Item {
    attributes: Box<[(Name, Value)]>,
}

impl Item {
    /// An item without attributes.
    pub fn new() -> Item {
        Item::default()
    }

    /// How many attributes the item has.
    pub fn len(&self) -> usize {
        self.attributes.len()
    }

    /// Whether the item has no attribute.
    pub fn is_empty(&self) -> bool {
        self.attributes.is_empty()
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.attributes.binary_search_by(|(held, _)| (**held).cmp(name))
    }

    /// The value of the attribute `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.position(name).ok().map(|at| &self.attributes[at].1)
    }

    /// The value of the attribute `name`, to change.
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Value> {
        self.position(name).ok().map(|at| &mut self.attributes[at].1)
    }

    /// Whether the item has the attribute `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.position(name).is_ok()
    }

    /// Sets the attribute `name` to `value`; returns the value it had.
    pub fn insert(&mut self, given: impl AsRef<str>, value: Value) -> Option<Value> {
        match self.position(given.as_ref()) {
            Ok(at) => Some(std::mem::replace(&mut self.attributes[at].1, value)),
            Err(at) => {
                let mut attributes = std::mem::take(&mut self.attributes).into_vec();
                attributes.reserve_exact(1);
                attributes.insert(at, (name(given.as_ref()), value));
                self.attributes = attributes.into_boxed_slice();
                None
            }
        }
    }

    /// Takes the attribute `name` out of the item; returns its value.
    pub fn remove(&mut self, name: &str) -> Option<Value> {
        let at = self.position(name).ok()?;
        let mut attributes = std::mem::take(&mut self.attributes).into_vec();
        let (_, value) = attributes.remove(at);
        self.attributes = attributes.into_boxed_slice();
        Some(value)
    }

    /// The attributes, in name order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.attributes.iter())
    }

    /// The attribute names, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        self.attributes.iter().map(|(name, _)| &**name)
    }

    /// An item of these attributes in any order; of two with one name, the later is kept, as
    /// inserting them one by one would.
    fn from_attributes(mut attributes: Vec<(Name, Value)>) -> Item {
        if !attributes.is_sorted_by(|(a, _), (b, _)| a < b) {
            // Reversed, a stable sort puts the later of two equal names first, which `dedup_by`
            // keeps.
            attributes.reverse();
            attributes.sort_by(|(a, _), (b, _)| a.cmp(b));
            attributes.dedup_by(|(later, _), (kept, _)| later == kept);
        }
        Item { attributes: attributes.into_boxed_slice() }
    }
}

/// The attributes of an [`Item`], in name order.
#[derive(Debug, Clone)]
pub(crate) struct Iter<'a>(std::slice::Iter<'a, (Name, Value)>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(name, value)| (&**name, value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(name, value)| (&**name, value))
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Item {
    type Item = (&'a str, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl IntoIterator for Item {
    type Item = (String, Value);
    type IntoIter = std::iter::Map<std::vec::IntoIter<(Name, Value)>, fn((Name, Value)) -> (String, Value)>;

    fn into_iter(self) -> Self::IntoIter {
        self.attributes.into_vec().into_iter().map(|(name, value)| (name.to_string(), value))
    }
}

impl<N: AsRef<str>> FromIterator<(N, Value)> for Item {
    fn from_iter<I: IntoIterator<Item = (N, Value)>>(attributes: I) -> Item {
        Item::from_attributes(attributes.into_iter().map(|(given, value)| (name(given.as_ref()), value)).collect())
    }
}

impl<N: AsRef<str>> Extend<(N, Value)> for Item {
    fn extend<I: IntoIterator<Item = (N, Value)>>(&mut self, attributes: I) {
        let mut all = std::mem::take(&mut self.attributes).into_vec();
        all.extend(attributes.into_iter().map(|(given, value)| (name(given.as_ref()), value)));
        *self = Item::from_attributes(all);
    }
}

impl From<BTreeMap<String, Value>> for Item {
    fn from(map: BTreeMap<String, Value>) -> Item {
        Item { attributes: map.into_iter().map(|(given, value)| (name(&given), value)).collect() }
    }
}

impl std::ops::Index<&str> for Item {
    type Output = Value;

    /// The value of the attribute `name`; panics if the item has none, as a map does.
    fn index(&self, name: &str) -> &Value {
        self.get(name).expect("no attribute of that name in the item")
    }
}

impl<const N: usize> From<[(String, Value); N]> for Item {
    fn from(attributes: [(String, Value); N]) -> Item {
        attributes.into_iter().collect()
    }
}

/// Attributes by name, in name order: an item's, or a map value's.
pub(crate) trait Attributes {
    /// The attributes, in name order, as they are iterated.
    type Iter<'a>: Iterator<Item = (&'a str, &'a Value)> + ExactSizeIterator
    where
        Self: 'a;

    /// The attributes, in name order.
    fn attributes(&self) -> Self::Iter<'_>;

    /// Sets the attribute `name` to `value`; returns the value it had.
    fn set(&mut self, name: &str, value: Value) -> Option<Value>;
}

impl Attributes for Item {
    type Iter<'a> = Iter<'a>;

    fn attributes(&self) -> Iter<'_> {
        self.iter()
    }

    fn set(&mut self, name: &str, value: Value) -> Option<Value> {
        self.insert(name, value)
    }
}

impl Attributes for BTreeMap<String, Value> {
    type Iter<'a> = std::iter::Map<
        std::collections::btree_map::Iter<'a, String, Value>,
        fn((&'a String, &'a Value)) -> (&'a str, &'a Value),
    >;

    fn attributes(&self) -> Self::Iter<'_> {
        self.iter().map(|(name, value)| (name.as_str(), value))
    }

    fn set(&mut self, name: &str, value: Value) -> Option<Value> {
        match self.get_mut(name) {
            Some(slot) => Some(std::mem::replace(slot, value)),
            None => self.insert(name.to_owned(), value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Value {
        Value::S(text.to_owned())
    }

    #[test]
    fn attributes_stay_in_name_order_whatever_order_they_come_in() {
        let mut item: Item = [("b", s("2")), ("c", s("3")), ("a", s("1"))].into_iter().collect();
        item.insert(String::from("aa"), s("4"));
        assert_eq!(item.keys().collect::<Vec<_>>(), ["a", "aa", "b", "c"]);
        assert_eq!(item.remove("b"), Some(s("2")));
        assert_eq!(item.keys().collect::<Vec<_>>(), ["a", "aa", "c"]);
        assert_eq!(item.get("aa"), Some(&s("4")));
        assert_eq!(item.get("b"), None);
    }

    #[test]
    fn a_name_given_twice_keeps_its_later_value_as_a_map_would() {
        let item: Item = [("a", s("1")), ("b", s("2")), ("a", s("3"))].into_iter().collect();
        assert_eq!(item.len(), 2);
        assert_eq!(item.get("a"), Some(&s("3")));
        let mut extended = item.clone();
        extended.extend([("b", s("4"))]);
        assert_eq!(extended.get("b"), Some(&s("4")));
        assert_eq!(extended.insert("a", s("5")), Some(s("3")));
    }

    #[test]
    fn an_item_and_a_map_of_the_same_attributes_convert_into_each_other() {
        let map: BTreeMap<String, Value> = [("x".to_owned(), s("1")), ("y".to_owned(), Value::Null)].into();
        let item = Item::from(map.clone());
        assert_eq!(item.clone().into_iter().collect::<BTreeMap<_, _>>(), map);
        assert!(item.attributes().eq(map.attributes()));
    }

    #[test]
    fn items_share_their_names_and_a_name_no_item_holds_is_let_go() {
        let a: Item = [("shared", s("1"))].into_iter().collect();
        let b: Item = [("shared", s("2"))].into_iter().collect();
        assert!(Arc::ptr_eq(&a.attributes[0].0, &b.attributes[0].0));
        let made_up = name("made-up name");
        let weak = Arc::downgrade(&made_up);
        drop(made_up);
        for n in 0..=2 * NAMES_KEPT {
            name(&format!("name {n}"));
        }
        assert!(weak.upgrade().is_none(), "a name no item holds is let go once the thread knows many");
        assert!(Arc::ptr_eq(&a.attributes[0].0, &name("shared")), "a name items hold is kept");
    }
}
