//! Applying update actions to an item.

use super::ast::{Path, PathElem, SetValue, UpdateAction, UpdateOperand};
use super::eval::resolve;
use crate::error::DynamoError;
use crate::item::Attributes;
use crate::value::{Item, Value};

fn missing_attribute() -> DynamoError {
    DynamoError::validation("The provided expression refers to an attribute that does not exist in the item")
}

fn wrong_type() -> DynamoError {
    DynamoError::validation("An operand in the update expression has an incorrect data type")
}

fn invalid_path() -> DynamoError {
    DynamoError::validation("The document path provided in the update expression is invalid for update")
}

fn operand_value(old: &Item, operand: &UpdateOperand) -> Result<Value, DynamoError> {
    match operand {
        UpdateOperand::Value(v) => Ok(v.clone()),
        UpdateOperand::Path(p) => resolve(old, p).cloned().ok_or_else(missing_attribute),
        UpdateOperand::IfNotExists(p, fallback) => match resolve(old, p) {
            Some(v) => Ok(v.clone()),
            None => operand_value(old, fallback),
        },
        UpdateOperand::ListAppend(a, b) => {
            let (a, b) = (operand_value(old, a)?, operand_value(old, b)?);
            match (a, b) {
                (Value::L(mut a), Value::L(b)) => {
                    a.extend(b);
                    Ok(Value::L(a))
                }
                _ => Err(wrong_type()),
            }
        }
    }
}

fn set_value(old: &Item, value: &SetValue) -> Result<Value, DynamoError> {
    match value {
        SetValue::Operand(o) => operand_value(old, o),
        SetValue::Plus(a, b) | SetValue::Minus(a, b) => {
            let (a, b) = (operand_value(old, a)?, operand_value(old, b)?);
            let (Value::N(a), Value::N(b)) = (a, b) else { return Err(wrong_type()) };
            let result = if matches!(value, SetValue::Plus(..)) { a.add(&b)? } else { a.sub(&b)? };
            Ok(Value::N(result))
        }
    }
}

/// One write an update makes, computed from the item as it was.
enum Change<'a> {
    Put(&'a Path, Value),
    Remove(&'a Path),
}

/// Applies `actions` to `item` (the item as it was before the update, or empty).
/// Every target path is checked first, then every value is computed from the old item, then
/// all are written, as DynamoDB does: a path invalid for update is reported before an operand
/// the item lacks (differential runs against DynamoDB Local).
pub(crate) fn apply(item: Item, actions: &[UpdateAction]) -> Result<Item, DynamoError> {
    for action in actions {
        check_parent(&item, action.path())?;
    }
    let changes = changes(&item, actions)?;
    let mut out = item;
    // Writes go in path order, so that elements set past the end of a list are appended in the
    // order of their indexes, whatever the order of the actions. List elements are removed from
    // the highest index down, so earlier removals do not shift later ones.
    let mut puts: Vec<(&Path, Value)> = Vec::with_capacity(changes.len());
    let mut removals: Vec<&Path> = Vec::new();
    for change in changes {
        match change {
            Change::Put(path, value) => puts.push((path, value)),
            Change::Remove(path) => removals.push(path),
        }
    }
    puts.sort_by(|a, b| a.0.cmp(b.0));
    for (path, value) in puts {
        put_at(&mut out, path, value)?;
    }
    removals.sort_by(|a, b| b.cmp(a));
    for path in removals {
        remove_at(&mut out, path)?;
    }
    Ok(out)
}

/// What an update in place replaced, to put back if a later check refuses the update: each
/// top-level attribute it wrote or removed, with its value before (`None`: it had none).
#[derive(Debug)]
pub(crate) struct Undo<'a>(Vec<(&'a str, Option<Value>)>);

impl Undo<'_> {
    /// The size ([`item_size`](crate::value::item_size)) of `item`, updated, given its size
    /// `before` the update: only the attributes the update wrote are counted again. Each is
    /// written once (DynamoDB refuses overlapping paths).
    pub(crate) fn size_after(&self, item: &Item, before: usize) -> usize {
        let attribute = |name: &str, value: Option<&Value>| value.map_or(0, |v| name.len() + v.size_bytes());
        self.0.iter().fold(before, |size, (name, old)| {
            (size + attribute(name, item.get(name))).saturating_sub(attribute(name, old.as_ref()))
        })
    }

    /// Puts `item` back as it was before the update.
    pub(crate) fn revert(self, item: &mut Item) {
        for (name, before) in self.0.into_iter().rev() {
            match before {
                Some(value) => drop(set_attribute(item, name, value)),
                None => drop(item.remove(name)),
            }
        }
    }
}

/// True if every action of the update writes a top-level attribute: such an update can be made
/// in place ([`apply_in_place`]), with no list whose indexes shift and no parent to look for.
pub(crate) fn is_top_level(actions: &[UpdateAction]) -> bool {
    actions.iter().all(|action| matches!(&action.path().0[..], [PathElem::Name(_)]))
}

/// Applies `actions`, all of them on top-level attributes ([`is_top_level`]), to `item` where it
/// is, without a copy: every value is computed first, as [`apply`] computes them, so an error
/// leaves `item` untouched; what the writes replaced is returned to undo them.
pub(crate) fn apply_in_place<'a>(item: &mut Item, actions: &'a [UpdateAction]) -> Result<Undo<'a>, DynamoError> {
    let changes = changes(item, actions)?;
    let mut undo = Vec::with_capacity(changes.len());
    for change in changes {
        let (path, value) = match change {
            Change::Put(path, value) => (path, Some(value)),
            Change::Remove(path) => (path, None),
        };
        let [PathElem::Name(name)] = &path.0[..] else { return Err(invalid_path()) };
        let before = match value {
            Some(value) => set_attribute(item, name, value),
            None => item.remove(name.as_str()),
        };
        undo.push((name.as_str(), before));
    }
    Ok(Undo(undo))
}

/// The writes `actions` make to `item`, every value computed from the item as it is.
fn changes<'a>(item: &Item, actions: &'a [UpdateAction]) -> Result<Vec<Change<'a>>, DynamoError> {
    let mut changes = Vec::with_capacity(actions.len());
    for action in actions {
        match action {
            UpdateAction::Set(path, value) => changes.push(Change::Put(path, set_value(item, value)?)),
            UpdateAction::Remove(path) => changes.push(Change::Remove(path)),
            UpdateAction::Add(path, value) => {
                let merged = match (resolve(item, path), value) {
                    (None, v @ (Value::N(_) | Value::SS(_) | Value::NS(_) | Value::BS(_))) => v.clone(),
                    (Some(Value::N(a)), Value::N(b)) => Value::N(a.add(b)?),
                    (Some(Value::SS(a)), Value::SS(b)) => Value::SS(a.union(b).cloned().collect()),
                    (Some(Value::NS(a)), Value::NS(b)) => Value::NS(a.union(b).cloned().collect()),
                    (Some(Value::BS(a)), Value::BS(b)) => Value::BS(a.union(b).cloned().collect()),
                    _ => return Err(wrong_type()),
                };
                changes.push(Change::Put(path, merged));
            }
            UpdateAction::Delete(path, value) => {
                let remaining = match (resolve(item, path), value) {
                    // A missing set is left alone, but only where its parent exists.
                    (None, Value::SS(_) | Value::NS(_) | Value::BS(_)) => {
                        check_parent(item, path)?;
                        continue;
                    }
                    (Some(Value::SS(a)), Value::SS(b)) => {
                        let rest: std::collections::BTreeSet<_> = a.difference(b).cloned().collect();
                        (!rest.is_empty()).then_some(Value::SS(rest))
                    }
                    (Some(Value::NS(a)), Value::NS(b)) => {
                        let rest: std::collections::BTreeSet<_> = a.difference(b).cloned().collect();
                        (!rest.is_empty()).then_some(Value::NS(rest))
                    }
                    (Some(Value::BS(a)), Value::BS(b)) => {
                        let rest: std::collections::BTreeSet<_> = a.difference(b).cloned().collect();
                        (!rest.is_empty()).then_some(Value::BS(rest))
                    }
                    _ => return Err(wrong_type()),
                };
                changes.push(match remaining {
                    Some(v) => Change::Put(path, v),
                    None => Change::Remove(path),
                });
            }
        }
    }
    Ok(changes)
}

/// Sets attribute `name` of `map` (an item or a map value) to `value`; returns the value it
/// replaced. A name already there keeps its key: only a new name is copied.
fn set_attribute(map: &mut impl Attributes, name: &str, value: Value) -> Option<Value> {
    map.set(name, value)
}

fn put_at(item: &mut Item, path: &Path, value: Value) -> Result<(), DynamoError> {
    let (last, parents) = match path.0.split_last() {
        Some(split) => split,
        None => return Err(invalid_path()),
    };
    if parents.is_empty() {
        let PathElem::Name(name) = last else { return Err(invalid_path()) };
        set_attribute(item, name, value);
        return Ok(());
    }
    let container = walk_mut(item, parents)?.ok_or_else(invalid_path)?;
    match (container, last) {
        (Value::M(map), PathElem::Name(name)) => {
            set_attribute(map, name, value);
            Ok(())
        }
        (Value::L(list), PathElem::Index(ix)) => {
            if *ix < list.len() {
                list[*ix] = value;
            } else {
                list.push(value);
            }
            Ok(())
        }
        _ => Err(invalid_path()),
    }
}

fn remove_at(item: &mut Item, path: &Path) -> Result<(), DynamoError> {
    let Some((last, parents)) = path.0.split_last() else { return Err(invalid_path()) };
    if parents.is_empty() {
        if let PathElem::Name(name) = last {
            item.remove(name);
        }
        return Ok(());
    }
    // Removing from a parent that does not exist is refused, as DynamoDB refuses it.
    let container = walk_mut(item, parents)?.ok_or_else(invalid_path)?;
    match (container, last) {
        (Value::M(map), PathElem::Name(name)) => {
            map.remove(name);
        }
        (Value::L(list), PathElem::Index(ix)) => {
            if *ix < list.len() {
                list.remove(*ix);
            }
        }
        _ => return Err(invalid_path()),
    }
    Ok(())
}

/// Refuses a nested path whose parent is missing or cannot hold its last element.
fn check_parent(item: &Item, path: &Path) -> Result<(), DynamoError> {
    let Some((last, parents)) = path.0.split_last() else { return Err(invalid_path()) };
    if parents.is_empty() {
        return Ok(());
    }
    let parent = resolve(item, &Path::new(parents.to_vec())).ok_or_else(invalid_path)?;
    match (parent, last) {
        (Value::M(_), PathElem::Name(_)) | (Value::L(_), PathElem::Index(_)) => Ok(()),
        _ => Err(invalid_path()),
    }
}

/// The value at the parent path; `Ok(None)` where the path runs out, an error where it crosses a
/// value of the wrong kind.
fn walk_mut<'a>(item: &'a mut Item, parents: &[PathElem]) -> Result<Option<&'a mut Value>, DynamoError> {
    let mut elems = parents.iter();
    let first = match elems.next() {
        Some(PathElem::Name(name)) => name,
        _ => return Err(invalid_path()),
    };
    let Some(mut current) = item.get_mut(first) else { return Ok(None) };
    for elem in elems {
        current = match (elem, current) {
            (PathElem::Name(name), Value::M(map)) => match map.get_mut(name) {
                Some(v) => v,
                None => return Ok(None),
            },
            (PathElem::Index(ix), Value::L(list)) => match list.get_mut(*ix) {
                Some(v) => v,
                None => return Ok(None),
            },
            _ => return Err(invalid_path()),
        };
    }
    Ok(Some(current))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::context::ExprContext;
    use crate::expr::parse_update;
    use crate::number::Number;
    use crate::value::item_size;

    fn item(attributes: &[(&str, Value)]) -> Item {
        attributes.iter().map(|(name, value)| (name.to_string(), value.clone())).collect()
    }

    /// Every kind of top-level write, in place: the size counted from what changed is the size
    /// of the item counted afresh, and the undo gives back the item as it was.
    #[test]
    fn an_update_in_place_knows_its_new_size_and_undoes_itself() {
        let text = "SET grown = :long, fresh = :s, shrunk = :n REMOVE gone ADD amount :n, labels :set";
        let values = [
            (":long", Value::S("a value longer than before".into())),
            (":s", Value::S("new".into())),
            (":n", Value::N(Number::from_i64(12345))),
            (":set", Value::SS(["x".to_string(), "y".to_string()].into())),
        ];
        let mut ctx = ExprContext::new(std::iter::empty(), values.iter().cloned());
        let actions = parse_update(text, &mut ctx).unwrap();
        assert!(is_top_level(&actions));
        let before = item(&[
            ("pk", Value::S("k".into())),
            ("grown", Value::S("short".into())),
            ("shrunk", Value::S("a rather long text that goes".into())),
            ("gone", Value::Bool(true)),
            ("amount", Value::N(Number::from_i64(1))),
        ]);
        let mut updated = before.clone();
        let undo = apply_in_place(&mut updated, &actions).unwrap();
        assert_eq!(Ok(&updated), apply(before.clone(), &actions).as_ref(), "the same as a copying update");
        assert_eq!(undo.size_after(&updated, item_size(&before)), item_size(&updated));
        undo.revert(&mut updated);
        assert_eq!(updated, before);
    }
}
