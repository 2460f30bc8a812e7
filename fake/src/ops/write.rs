//! A write prepared from a request and checked against the table before it is applied: the one
//! path that PutItem, UpdateItem, DeleteItem, BatchWriteItem and every action of a transaction take.

use crate::json::Json;

use crate::engine::Engine;
use crate::error::DynamoError;
use crate::expr::ast::{Path, PathElem, SetValue, UpdateAction, UpdateOperand};
use crate::expr::cache::BoundCondition;
use crate::expr::context::ExprContext;
use crate::expr::{parse_condition_bound, parse_update, update};
use crate::operation::Operation;
use crate::request::{expression_context, item, string};
use crate::table::{Indexes, PrimaryKey, Table};
use crate::value::{Item, Value, item_size};

/// The largest item DynamoDB stores, in bytes.
pub(crate) const MAX_ITEM_BYTES: usize = 400 * 1024;

/// What a write does to its item.
#[derive(Debug, Clone)]
pub(crate) enum WriteKind {
    /// The item and its size ([`item_size`]).
    Put(Item, usize),
    Update(Vec<UpdateAction>),
    Delete,
    /// Only the condition: a transaction's ConditionCheck.
    Check,
}

/// A write that passed every check that does not depend on the item's current state.
#[derive(Debug, Clone)]
pub(crate) struct WritePlan<'r> {
    /// The table, named as the request names it.
    pub(crate) table: &'r str,
    pub(crate) key: PrimaryKey,
    /// The key attributes an update starts from when there is no item; empty for other writes,
    /// which never read it.
    pub(crate) key_item: Item,
    pub(crate) kind: WriteKind,
    pub(crate) condition: Option<BoundCondition>,
    pub(crate) return_old_on_failure: bool,
    /// The actions came from the legacy `AttributeUpdates`, whose type errors DynamoDB words differently.
    pub(crate) legacy_updates: bool,
    /// The table has a local secondary index, so its items form item collections (whose sizes
    /// `ReturnItemCollectionMetrics` asks for); known here so that other writes never look.
    pub(crate) in_collection: bool,
}

/// Why a prepared write did not happen.
#[derive(Debug, Clone)]
pub(crate) enum Failure {
    /// The condition was false; the current item, when the request asked for it.
    Condition(Option<Item>),
    /// The write is invalid for the item as it is (a wrong type in an update, a size limit, ...).
    Invalid(DynamoError),
}

/// What a write did: the item it replaced or removed, and the size of the item it left.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) old: Option<Item>,
    pub(crate) new_size: usize,
}

/// A write that passed its condition and is ready to apply: for an update, the item it computed
/// and its size.
#[derive(Debug, Clone)]
pub(crate) struct Staged(Option<(Item, usize)>);

/// Reads the condition of a write request (ConditionExpression).
pub(crate) fn read_condition(
    body: &Json<'_>,
    ctx: &mut ExprContext<'_>,
) -> Result<Option<BoundCondition>, DynamoError> {
    match string(body, "ConditionExpression") {
        Some(text) => parse_condition_bound(text, "ConditionExpression", ctx).map(Some),
        None => Ok(None),
    }
}

impl<'r> WritePlan<'r> {
    /// Prepares a write from the members of one transaction action.
    /// `kind_name` is `Put`, `Update`, `Delete` or `ConditionCheck`.
    pub(crate) fn prepare(engine: &Engine, kind_name: &str, body: &'r Json<'_>) -> Result<WritePlan<'r>, DynamoError> {
        Self::prepare_with(engine, kind_name, body, false)
    }

    /// Prepares a PutItem, UpdateItem or DeleteItem request (`kind_name` `Put`, `Update` or
    /// `Delete`), which may also use the legacy `Expected` and `AttributeUpdates`.
    pub(crate) fn prepare_request(
        engine: &Engine,
        kind_name: &str,
        body: &'r Json<'_>,
    ) -> Result<WritePlan<'r>, DynamoError> {
        Self::prepare_with(engine, kind_name, body, true)
    }

    fn prepare_with(
        engine: &Engine,
        kind_name: &str,
        body: &'r Json<'_>,
        legacy: bool,
    ) -> Result<WritePlan<'r>, DynamoError> {
        let table_name = crate::request::table_name(body, engine.place())?;
        let put_item = if kind_name == "Put" { Some(item(body, "Item")?) } else { None };
        let put_size = put_item.as_ref().map_or(0, item_size);
        if let Some(put) = &put_item {
            crate::limits::check_item_depth(put)?;
            // The size of a put is known from the request alone: DynamoDB refuses it before it
            // reads the conditions or looks the table up.
            if put_size > MAX_ITEM_BYTES {
                return Err(DynamoError::validation("Item size has exceeded the maximum allowed size"));
            }
        }
        let key_item = if kind_name == "Put" { Item::new() } else { item(body, "Key")? };
        if legacy {
            let operation = match kind_name {
                "Put" => Operation::PutItem,
                "Update" => Operation::UpdateItem,
                _ => Operation::DeleteItem,
            };
            crate::validate::check_after_values(operation, body)?;
        }
        let legacy = if legacy { crate::legacy::LegacyWrite::read(body, kind_name)? } else { Default::default() };
        crate::validate::check_expression_maps(body)?;
        let mut ctx = expression_context(body)?;
        let actions = match (kind_name, string(body, "UpdateExpression")) {
            ("Update", Some(text)) => Some(parse_update(text, &mut ctx)?),
            _ => legacy.updates.clone(),
        };
        let condition = match legacy.condition {
            Some(condition) => Some(BoundCondition::Own(condition)),
            None => read_condition(body, &mut ctx)?,
        };
        ctx.check_unused()?;
        let table = engine.table(table_name)?;
        let return_old_on_failure =
            engine.item_on_condition_failure && string(body, "ReturnValuesOnConditionCheckFailure") == Some("ALL_OLD");
        let (key, key_item, kind) = match put_item {
            Some(put) => {
                let key = table.item_key(&put)?;
                (key, Item::new(), WriteKind::Put(put, put_size))
            }
            None => {
                let key = table.primary_key(&key_item)?;
                let kind = match (kind_name, actions) {
                    ("Update", Some(actions)) => {
                        for action in &actions {
                            if let Some(PathElem::Name(head)) = action.path().0.first()
                                && table.key.is_key(head)
                            {
                                return Err(DynamoError::validation(format!(
                                    "One or more parameter values were invalid: Cannot update attribute {head}. This attribute is part of the key"
                                )));
                            }
                        }
                        if string(body, "UpdateExpression").is_some() {
                            check_index_updates(table, &actions)?;
                        }
                        WriteKind::Update(actions)
                    }
                    ("Update", None) => WriteKind::Update(Vec::new()),
                    ("Delete", _) => WriteKind::Delete,
                    _ => WriteKind::Check,
                };
                (key, key_item, kind)
            }
        };
        Ok(WritePlan {
            table: table_name,
            key,
            key_item,
            kind,
            condition,
            return_old_on_failure,
            legacy_updates: legacy.updates.is_some(),
            in_collection: table.has_local_index(),
        })
    }

    /// Evaluates the write against the current item, without changing anything.
    pub(crate) fn evaluate(&self, engine: &Engine) -> Result<Staged, Failure> {
        let table = engine.table(self.table).map_err(Failure::Invalid)?;
        let old = table.items.get(&self.key);
        if let Some(condition) = &self.condition {
            let empty = Item::new();
            if !condition.eval(old.unwrap_or(&empty)) {
                let shown = if self.return_old_on_failure { old.cloned() } else { None };
                return Err(Failure::Condition(shown));
            }
        }
        let WriteKind::Update(actions) = &self.kind else { return Ok(Staged(None)) };
        // An update creates a missing item, even an empty update, unless all it does is remove:
        // REMOVE and DELETE on no item leave no item.
        let only_removes = |actions: &[UpdateAction]| {
            !actions.is_empty()
                && actions.iter().all(|a| matches!(a, UpdateAction::Remove(_) | UpdateAction::Delete(..)))
        };
        let refused = |error| match self.legacy_updates {
            true => Failure::Invalid(crate::legacy::update_type_mismatch(error)),
            false => Failure::Invalid(error),
        };
        if old.is_none() && only_removes(actions) {
            // Nothing is created, but each path is still checked against the item the update
            // would start from (its key alone): a nested path whose parent is missing is
            // refused, as DynamoDB refuses it on an item that exists.
            update::apply(self.key_item.clone(), actions).map_err(refused)?;
            return Ok(Staged(None));
        }
        let base = old.cloned().unwrap_or_else(|| self.key_item.clone());
        let updated = update::apply(base, actions).map_err(refused)?;
        let size = item_size(&updated);
        check_updated(&table.indexes, actions, &updated, size, self.legacy_updates).map_err(Failure::Invalid)?;
        Ok(Staged(Some((updated, size))))
    }

    /// Applies an evaluated write, moving its item into the table; returns what it replaced.
    pub(crate) fn apply(&mut self, engine: &mut Engine, staged: Staged) -> Outcome {
        let now = engine.now;
        let Ok(table) = engine.table_mut(self.table) else { return Outcome { old: None, new_size: 0 } };
        let new = match (&mut self.kind, staged.0) {
            (WriteKind::Check, _) => return Outcome { old: None, new_size: 0 },
            (WriteKind::Delete, _) => None,
            (WriteKind::Put(item, size), _) => Some((std::mem::take(item), *size)),
            (WriteKind::Update(_), updated) => updated,
        };
        match new {
            Some((item, new_size)) => {
                let old = table.put(self.key.clone(), item, new_size, now);
                Outcome { old, new_size }
            }
            None => Outcome { old: table.remove(&self.key, now), new_size: 0 },
        }
    }

    /// Evaluates and applies a single write, turning a failure into DynamoDB's error.
    pub(crate) fn execute(&mut self, engine: &mut Engine) -> Result<Outcome, DynamoError> {
        if let WriteKind::Put(item, new_size) = &mut self.kind {
            // A put reads the item it replaces only for its condition: checked and stored with
            // one search of the table, as `evaluate` and `apply` would do with two.
            let (item, new_size) = (std::mem::take(item), *new_size);
            let (condition, show_old, now) = (&self.condition, self.return_old_on_failure, engine.now);
            let old = engine.table_mut(self.table)?.put_if(&self.key, item, new_size, now, |old| match condition {
                Some(condition) if !condition.eval(old.unwrap_or(&Item::new())) => {
                    Err(condition_failed(old.filter(|_| show_old).cloned()))
                }
                _ => Ok(()),
            })?;
            return Ok(Outcome { old, new_size });
        }
        match self.evaluate(engine) {
            Ok(staged) => Ok(self.apply(engine, staged)),
            Err(Failure::Invalid(error)) => Err(error),
            Err(Failure::Condition(item)) => Err(condition_failed(item)),
        }
    }

    /// Applies a lone update to its item where the table keeps it, for a caller that needs
    /// nothing of the item as it was: no copy of the item is made, and an update that a check
    /// refuses after the writes is undone. `None` if the update does not qualify (no item yet,
    /// a nested path, the legacy `AttributeUpdates`); the caller then runs
    /// [`execute`](Self::execute), which answers exactly as this does.
    pub(crate) fn update_in_place(&self, engine: &mut Engine) -> Option<Result<Outcome, DynamoError>> {
        let WriteKind::Update(actions) = &self.kind else { return None };
        if self.legacy_updates || actions.is_empty() || !update::is_top_level(actions) {
            return None;
        }
        let now = engine.now;
        let table = engine.table_mut(self.table).ok()?;
        table.change_in_place(&self.key, now, |item, indexes| {
            let old_size = item_size(item);
            if let Some(condition) = &self.condition
                && !condition.eval(item)
            {
                let shown = self.return_old_on_failure.then(|| item.clone());
                return (Err(condition_failed(shown)), None);
            }
            #[cfg(debug_assertions)]
            let (before, expected) = (item.clone(), update::apply(item.clone(), actions));
            let applied = update::apply_in_place(item, actions).and_then(|undo| {
                let new_size = undo.size_after(item, old_size);
                debug_assert_eq!(new_size, item_size(item), "the size of an update in place");
                let checked = check_updated(indexes, actions, item, new_size, false);
                if checked.is_err() {
                    undo.revert(item);
                }
                checked.map(|()| new_size)
            });
            #[cfg(debug_assertions)]
            match &applied {
                Ok(_) => {
                    debug_assert_eq!(expected.as_ref().ok(), Some(&*item), "an update in place differs from a copy")
                }
                Err(_) => debug_assert_eq!(&before, &*item, "a refused update in place was not undone"),
            }
            match applied {
                Ok(new_size) => (Ok(Outcome { old: None, new_size }), Some((old_size, new_size))),
                Err(error) => (Err(error), None),
            }
        })
    }

    /// The item at this write's key now.
    pub(crate) fn current<'e>(&self, engine: &'e Engine) -> Option<&'e Item> {
        engine.tables.get(self.table)?.items.get(&self.key)
    }
}

/// The checks an updated item of `size` bytes passes before it is stored: the types its update
/// gave index keys (not for the legacy `AttributeUpdates`, which DynamoDB checks otherwise), the
/// size limit, and the keys of the indexes.
fn check_updated(
    indexes: &Indexes,
    actions: &[UpdateAction],
    updated: &Item,
    size: usize,
    legacy: bool,
) -> Result<(), DynamoError> {
    if !legacy {
        check_index_sets(indexes, actions, updated)?;
    }
    if size > MAX_ITEM_BYTES {
        return Err(DynamoError::validation("Item size to update has exceeded the maximum allowed size"));
    }
    indexes.check_item_keys(updated)
}

/// DynamoDB's error for a failed condition, with the item where the request asked for it.
fn condition_failed(item: Option<Item>) -> DynamoError {
    let error = DynamoError::conditional_check_failed();
    match item {
        Some(item) => error.with("Item", crate::value::item_to_json(&item)),
        None => error,
    }
}

/// The checks of an update expression against the table's index keys that DynamoDB makes before
/// it reads the item: an index key given a value whose type is known from the expression alone
/// (a value, arithmetic, `list_append`, `ADD`) must have the index's key type, and no path may
/// look inside a key or index key attribute.
fn check_index_updates(table: &Table, actions: &[UpdateAction]) -> Result<(), DynamoError> {
    for action in actions {
        let (path, known) = match action {
            UpdateAction::Set(path, value) => (path, set_value_type(value)),
            UpdateAction::Add(path, value) => (path, Some(value.type_name())),
            UpdateAction::Remove(_) | UpdateAction::Delete(..) => continue,
        };
        let ([PathElem::Name(name)], Some(actual)) = (&path.0[..], known) else { continue };
        for index in table.indexes_by_name() {
            if let Some(attr) = index.key.attrs().find(|a| &a.name == name && a.kind.name() != actual) {
                return Err(DynamoError::invalid_parameter(format!(
                    "Type mismatch for Index Key {name} Expected: {} Actual: {actual} IndexName: {}",
                    attr.kind.name(),
                    index.name
                )));
            }
        }
    }
    for action in actions {
        let UpdateAction::Set(path, SetValue::Operand(UpdateOperand::Value(value))) = action else { continue };
        let [PathElem::Name(name)] = &path.0[..] else { continue };
        let kind = match value {
            Value::S(s) if s.is_empty() => "string",
            Value::B(b) if b.is_empty() => "binary",
            _ => continue,
        };
        if table.indexes().iter().any(|index| index.key.is_key(name)) {
            return Err(DynamoError::validation(format!(
                "One or more parameter values are not valid. The update expression attempted to update a secondary \
                 index key to a value that is not supported. The AttributeValue for a key attribute cannot contain an \
                 empty {kind} value."
            )));
        }
    }
    let mut paths = Vec::new();
    for action in actions {
        match action {
            UpdateAction::Set(path, value) => {
                paths.push(path);
                match value {
                    SetValue::Operand(o) => operand_paths(o, &mut paths),
                    SetValue::Plus(a, b) | SetValue::Minus(a, b) => {
                        operand_paths(a, &mut paths);
                        operand_paths(b, &mut paths);
                    }
                }
            }
            UpdateAction::Remove(path) | UpdateAction::Add(path, _) | UpdateAction::Delete(path, _) => paths.push(path),
        }
    }
    crate::ops::read::check_key_paths(table, paths)
}

/// The type a SET gives its path, where the expression alone tells it.
fn set_value_type(value: &SetValue) -> Option<&'static str> {
    match value {
        SetValue::Plus(..) | SetValue::Minus(..) => Some("N"),
        SetValue::Operand(UpdateOperand::Value(v)) => Some(v.type_name()),
        SetValue::Operand(UpdateOperand::ListAppend(..)) => Some("L"),
        SetValue::Operand(UpdateOperand::Path(_) | UpdateOperand::IfNotExists(..)) => None,
    }
}

fn operand_paths<'a>(operand: &'a UpdateOperand, out: &mut Vec<&'a Path>) {
    match operand {
        UpdateOperand::Path(path) => out.push(path),
        UpdateOperand::Value(_) => {}
        UpdateOperand::IfNotExists(path, fallback) => {
            out.push(path);
            operand_paths(fallback, out);
        }
        UpdateOperand::ListAppend(a, b) => {
            operand_paths(a, out);
            operand_paths(b, out);
        }
    }
}

/// An index key that a SET gave a value of another type than the index's, found once the update
/// is applied: DynamoDB words this apart from a put's type mismatch.
fn check_index_sets(indexes: &Indexes, actions: &[UpdateAction], updated: &Item) -> Result<(), DynamoError> {
    for action in actions {
        let UpdateAction::Set(path, _) = action else { continue };
        let [PathElem::Name(name)] = &path.0[..] else { continue };
        let Some(value) = updated.get(name) else { continue };
        let mismatched =
            indexes.list().iter().flat_map(|i| i.key.attrs()).any(|a| &a.name == name && !a.kind.matches(value));
        if mismatched {
            return Err(DynamoError::validation(
                "The update expression attempted to update the secondary index key to unsupported type",
            ));
        }
    }
    Ok(())
}
