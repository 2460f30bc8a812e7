//! Projections: the parts of an item that a list of document paths selects.

use std::collections::BTreeMap;

use super::ast::{Path, PathElem};
use crate::value::{Item, Value};

/// A tree of the selected parts, merged over all paths.
enum Pick {
    All,
    Fields(BTreeMap<String, Pick>),
    Elements(BTreeMap<usize, Pick>),
}

fn insert(tree: &mut Pick, elems: &[PathElem]) {
    let Some((first, rest)) = elems.split_first() else {
        *tree = Pick::All;
        return;
    };
    match (first, &mut *tree) {
        (_, Pick::All) => {}
        (PathElem::Name(n), Pick::Fields(map)) => {
            insert(map.entry(n.clone()).or_insert_with(|| Pick::Fields(BTreeMap::new())), rest)
        }
        (PathElem::Index(i), Pick::Elements(map)) => {
            insert(map.entry(*i).or_insert_with(|| Pick::Fields(BTreeMap::new())), rest)
        }
        (PathElem::Name(n), slot) => {
            let mut map = BTreeMap::new();
            map.insert(n.clone(), Pick::Fields(BTreeMap::new()));
            *slot = Pick::Fields(map);
            if let Pick::Fields(map) = slot
                && let Some(child) = map.get_mut(n)
            {
                insert(child, rest);
            }
        }
        (PathElem::Index(i), slot) => {
            let mut map = BTreeMap::new();
            map.insert(*i, Pick::Fields(BTreeMap::new()));
            *slot = Pick::Elements(map);
            if let Pick::Elements(map) = slot
                && let Some(child) = map.get_mut(i)
            {
                insert(child, rest);
            }
        }
    }
}

fn select(value: &Value, pick: &Pick) -> Option<Value> {
    match (pick, value) {
        (Pick::All, v) => Some(v.clone()),
        (Pick::Fields(fields), Value::M(map)) => {
            let out: BTreeMap<String, Value> = fields
                .iter()
                .filter_map(|(name, p)| map.get(name).and_then(|v| select(v, p)).map(|v| (name.clone(), v)))
                .collect();
            (!out.is_empty()).then_some(Value::M(out))
        }
        (Pick::Elements(elements), Value::L(list)) => {
            let out: Vec<Value> =
                elements.iter().filter_map(|(ix, p)| list.get(*ix).and_then(|v| select(v, p))).collect();
            (!out.is_empty()).then_some(Value::L(out))
        }
        _ => None,
    }
}

/// The parts of `item` that `paths` select, keeping their nesting.
pub(crate) fn project(item: &Item, paths: &[Path]) -> Item {
    let mut root: BTreeMap<String, Pick> = BTreeMap::new();
    for path in paths {
        if let Some((PathElem::Name(head), rest)) = path.0.split_first() {
            insert(root.entry(head.clone()).or_insert_with(|| Pick::Fields(BTreeMap::new())), rest);
        }
    }
    root.iter()
        .filter_map(|(name, pick)| item.get(name).and_then(|v| select(v, pick)).map(|v| (name.clone(), v)))
        .collect()
}
