//! A statement, its parameters bound, as the item operation that does the same: a SELECT with
//! the whole key as GetItem, with the partition key as Query, otherwise as Scan; INSERT as a
//! PutItem that the key must not exist for; UPDATE and DELETE as UpdateItem and DeleteItem of
//! the one item their `WHERE` names by its whole key; EXISTS as a transaction's ConditionCheck of
//! that item. The request is then answered by the item
//! operation itself, through the engine: the same checks, the same write path, the same streams.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value as Json, json};

use super::ast::{Action, Cond, Elem, Expr, Path, Statement};
use super::selected::Selected;
use crate::error::DynamoError;
use crate::expr::ast::CmpOp;
use crate::number::Number;
use crate::operation::Operation;
use crate::table::Table;
use crate::value::{Item, Value};

/// An item operation that answers a statement.
#[derive(Debug, Clone)]
pub(crate) struct Lowered {
    pub(crate) operation: Operation,
    pub(crate) body: Json,
    /// An INSERT: the item operation's failed condition means the key exists.
    pub(crate) insert: bool,
    /// A scan's items sorted by these attributes (descending where true): the `ORDER BY` of a
    /// SELECT that names several partition keys.
    pub(crate) order: Vec<(String, bool)>,
    /// An EXISTS: the body is a ConditionCheck of a transaction.
    pub(crate) condition_check: bool,
    /// A SELECT that names a nested path: the item operation reads whole items, and each is
    /// answered as this says.
    pub(crate) selected: Option<Selected>,
}

impl Lowered {
    /// An item the item operation read, as the statement answers it.
    pub(crate) fn present(&self, item: &Json) -> Json {
        match &self.selected {
            Some(selected) => selected.present(item),
            None => item.clone(),
        }
    }
}

/// The placeholders of the expressions being written: `#n0`, `:v0`, ...
#[derive(Default)]
struct Placeholders {
    names: BTreeMap<String, String>,
    values: Vec<Value>,
}

impl Placeholders {
    fn name(&mut self, name: &str) -> String {
        let next = self.names.len();
        self.names.entry(name.to_owned()).or_insert_with(|| format!("#n{next}")).clone()
    }

    fn value(&mut self, value: Value) -> String {
        self.values.push(value);
        format!(":v{}", self.values.len() - 1)
    }

    fn path(&mut self, path: &Path) -> String {
        let mut text = String::new();
        for elem in &path.0 {
            match elem {
                Elem::Name(name) => {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(&self.name(name));
                }
                Elem::Index(index) => text.push_str(&format!("[{index}]")),
            }
        }
        text
    }

    /// Adds `ExpressionAttributeNames` and `ExpressionAttributeValues` to a request.
    fn into_request(self, request: &mut Map<String, Json>) {
        if !self.names.is_empty() {
            let names = self.names.into_iter().map(|(name, placeholder)| (placeholder, json!(name))).collect();
            request.insert("ExpressionAttributeNames".into(), Json::Object(names));
        }
        if !self.values.is_empty() {
            let values = self.values.iter().enumerate().map(|(i, value)| (format!(":v{i}"), value.to_json())).collect();
            request.insert("ExpressionAttributeValues".into(), Json::Object(values));
        }
    }
}

/// The value of an operand that is a value: a literal, or a parameter.
pub(crate) fn value_of(expr: &Expr, params: &[Value]) -> Result<Value, DynamoError> {
    Ok(match expr {
        Expr::Str(text) => Value::S(text.clone()),
        Expr::Num(text) => Value::N(
            Number::parse(text).map_err(|_| DynamoError::validation(format!("Invalid number literal: {text}")))?,
        ),
        Expr::Bool(b) => Value::Bool(*b),
        Expr::Null => Value::Null,
        Expr::Param(at) => params.get(*at).cloned().ok_or_else(parameter_count)?,
        Expr::Map(entries) => {
            let mut map = BTreeMap::new();
            for (key, value) in entries {
                map.insert(key.clone(), value_of(value, params)?);
            }
            Value::M(map)
        }
        Expr::List(elements) => Value::L(elements.iter().map(|e| value_of(e, params)).collect::<Result<_, _>>()?),
        Expr::Bag(elements) => {
            let values = elements.iter().map(|e| value_of(e, params)).collect::<Result<Vec<_>, _>>()?;
            set_of(values)?
        }
        Expr::Path(_) | Expr::Call(..) | Expr::Add(..) | Expr::Sub(..) => {
            return Err(DynamoError::validation("Unsupported operand: a value was expected"));
        }
    })
}

/// A set of these values: all strings, all numbers or all binaries.
fn set_of(values: Vec<Value>) -> Result<Value, DynamoError> {
    let refused = || DynamoError::validation("A set must contain values of one type: strings, numbers or binaries");
    match values.first() {
        Some(Value::S(_)) => values
            .into_iter()
            .map(|v| if let Value::S(s) = v { Ok(s) } else { Err(refused()) })
            .collect::<Result<BTreeSet<_>, _>>()
            .map(Value::SS),
        Some(Value::N(_)) => values
            .into_iter()
            .map(|v| if let Value::N(n) = v { Ok(n) } else { Err(refused()) })
            .collect::<Result<BTreeSet<_>, _>>()
            .map(Value::NS),
        Some(Value::B(_)) => values
            .into_iter()
            .map(|v| if let Value::B(b) = v { Ok(b) } else { Err(refused()) })
            .collect::<Result<BTreeSet<_>, _>>()
            .map(Value::BS),
        _ => Err(refused()),
    }
}

/// DynamoDB's error for parameters that do not match the statement's `?`s.
pub(crate) fn parameter_count() -> DynamoError {
    DynamoError::validation("Number of parameters in request and statement don't match.")
}

fn operand(expr: &Expr, params: &[Value], ph: &mut Placeholders) -> Result<String, DynamoError> {
    match expr {
        Expr::Path(path) => Ok(ph.path(path)),
        Expr::Call(name, args) => {
            let args = args.iter().map(|a| operand(a, params, ph)).collect::<Result<Vec<_>, _>>()?;
            Ok(format!("{name}({})", args.join(", ")))
        }
        Expr::Add(a, b) => Ok(format!("{} + {}", operand(a, params, ph)?, operand(b, params, ph)?)),
        Expr::Sub(a, b) => Ok(format!("{} - {}", operand(a, params, ph)?, operand(b, params, ph)?)),
        value => Ok(ph.value(value_of(value, params)?)),
    }
}

/// How tightly a condition binds, for writing it with the parentheses it needs and no more
/// (DynamoDB refuses redundant ones).
fn binding(cond: &Cond) -> u8 {
    match cond {
        Cond::Or(..) => 1,
        Cond::And(..) => 2,
        Cond::Not(..) => 3,
        _ => 4,
    }
}

/// `cond` as expression text, in parentheses if it binds less tightly than `context`.
fn condition_in(cond: &Cond, context: u8, params: &[Value], ph: &mut Placeholders) -> Result<String, DynamoError> {
    let text = condition(cond, params, ph)?;
    Ok(if binding(cond) < context { format!("({text})") } else { text })
}

fn condition(cond: &Cond, params: &[Value], ph: &mut Placeholders) -> Result<String, DynamoError> {
    Ok(match cond {
        Cond::Compare(a, cmp, b) => format!("{} {} {}", operand(a, params, ph)?, cmp.symbol(), operand(b, params, ph)?),
        Cond::Between(a, low, high) => format!(
            "{} BETWEEN {} AND {}",
            operand(a, params, ph)?,
            operand(low, params, ph)?,
            operand(high, params, ph)?
        ),
        Cond::In(a, values) => {
            let values = values.iter().map(|v| operand(v, params, ph)).collect::<Result<Vec<_>, _>>()?;
            format!("{} IN ({})", operand(a, params, ph)?, values.join(", "))
        }
        Cond::Call(name, args) => operand(&Expr::Call(name.clone(), args.clone()), params, ph)?,
        Cond::Missing(path, false) => format!("attribute_not_exists({})", ph.path(path)),
        Cond::Missing(path, true) => format!("attribute_exists({})", ph.path(path)),
        Cond::Null(path, negated) => {
            let test = format!("attribute_type({}, {})", ph.path(path), ph.value(Value::S("NULL".into())));
            if *negated { format!("NOT {test}") } else { test }
        }
        Cond::And(a, b) => format!("{} AND {}", condition_in(a, 2, params, ph)?, condition_in(b, 2, params, ph)?),
        Cond::Or(a, b) => format!("{} OR {}", condition_in(a, 1, params, ph)?, condition_in(b, 1, params, ph)?),
        Cond::Not(a) => format!("NOT {}", condition_in(a, 3, params, ph)?),
    })
}

/// The conditions joined by `AND`.
fn all_of(conds: &[&Cond], params: &[Value], ph: &mut Placeholders) -> Result<Option<String>, DynamoError> {
    let parts = conds.iter().map(|c| condition_in(c, 2, params, ph)).collect::<Result<Vec<_>, _>>()?;
    Ok((!parts.is_empty()).then(|| parts.join(" AND ")))
}

/// The value a conjunct requires `attribute` to equal, if it is `attribute = value`.
fn equality(cond: &Cond, attribute: &str, params: &[Value]) -> Option<Value> {
    let Cond::Compare(a, CmpOp::Eq, b) = cond else { return None };
    let ((Expr::Path(path), value) | (value, Expr::Path(path))) = (a, b) else { return None };
    (path.attribute() == Some(attribute)).then(|| value_of(value, params).ok()).flatten()
}

/// The key `attributes` take by equalities among `conjuncts`, and the conjuncts left.
fn key_from<'c>(conjuncts: &[&'c Cond], attributes: &[&str], params: &[Value]) -> (Item, Vec<&'c Cond>) {
    let mut key = Item::new();
    let mut rest = Vec::new();
    for &cond in conjuncts {
        let found = attributes
            .iter()
            .filter(|attr| !key.contains_key(attr))
            .find_map(|attr| equality(cond, attr, params).map(|v| (attr.to_string(), v)));
        match found {
            Some((attr, value)) => {
                key.insert(attr, value);
            }
            None => rest.push(cond),
        }
    }
    (key, rest)
}

/// DynamoDB's error for a write whose `WHERE` does not name one item.
pub(crate) fn whole_key_required() -> DynamoError {
    DynamoError::validation("Where clause does not contain a mandatory equality on all key attributes")
}

fn key_json(key: &Item) -> Json {
    crate::value::item_to_json(key)
}

/// The table's key attributes.
fn key_attributes(table: &Table) -> Vec<&str> {
    table.key.hash_attrs().chain(table.key.range_attrs()).map(|a| a.name.as_str()).collect()
}

/// Whether `cond` can be the sort key part of a key condition on `attribute`.
fn is_sort_condition(cond: &Cond, attribute: &str) -> bool {
    let on = |expr: &Expr| matches!(expr, Expr::Path(p) if p.attribute() == Some(attribute));
    let value = |expr: &Expr| !matches!(expr, Expr::Path(_) | Expr::Call(..) | Expr::Add(..) | Expr::Sub(..));
    match cond {
        Cond::Compare(a, cmp, b) => *cmp != CmpOp::Ne && on(a) && value(b),
        Cond::Between(a, low, high) => on(a) && value(low) && value(high),
        Cond::Call(name, args) => name == "begins_with" && args.len() == 2 && on(&args[0]) && value(&args[1]),
        _ => false,
    }
}

/// What a statement reads or writes, on `table`, with `params` bound: the item operation's
/// request. `options` are members of the request to carry over (`ConsistentRead`, `Limit`,
/// `ExclusiveStartKey`, `ReturnConsumedCapacity`, `ReturnValuesOnConditionCheckFailure`).
pub(crate) fn lower(
    statement: &Statement,
    table: &Table,
    params: &[Value],
    options: &Map<String, Json>,
) -> Result<Lowered, DynamoError> {
    let mut ph = Placeholders::default();
    let mut request = Map::new();
    request.insert("TableName".into(), json!(table.name));
    let carry = |request: &mut Map<String, Json>, members: &[&str]| {
        for member in members {
            if let Some(value) = options.get(*member) {
                request.insert((*member).to_owned(), value.clone());
            }
        }
    };
    let mut order = Vec::new();
    let condition_check = matches!(statement, Statement::Exists(_));
    let mut selected = None;
    let (operation, insert) = match statement {
        Statement::Select { projection, source, filter, order: order_by } => {
            selected = projection.as_deref().and_then(Selected::of);
            if let Some(paths) = projection.as_ref().filter(|_| selected.is_none()) {
                let text = paths.iter().map(|p| ph.path(p)).collect::<Vec<_>>().join(", ");
                request.insert("ProjectionExpression".into(), json!(text));
            }
            let conjuncts = filter.as_ref().map(Cond::conjuncts).unwrap_or_default();
            let index = source.index.as_deref().and_then(|name| table.indexes().iter().find(|i| i.name == name));
            if source.index.is_some() && index.is_none() {
                // A statement's refusal names no index, where Query's names it (moto's test of an
                // unknown index, verified against AWS).
                return Err(DynamoError::validation("The table does not have the specified index"));
            }
            let (hash, range) = match (&source.index, index) {
                (None, _) => (Some(table.key.hash.name.as_str()), table.key.range.as_ref().map(|r| r.name.as_str())),
                (Some(_), Some(index)) if !index.key.is_multi_attribute() => {
                    (Some(index.key.hash.name.as_str()), index.key.range.as_ref().map(|r| r.name.as_str()))
                }
                _ => (None, None),
            };
            if !order_by.is_empty() {
                if filter.is_none() {
                    return Err(DynamoError::validation(
                        "Must have WHERE clause in the statement when using ORDER BY clause.",
                    ));
                }
                if let Some(other) =
                    order_by.iter().find(|o| o.path.attribute().is_none_or(|a| Some(a) != hash && Some(a) != range))
                {
                    return Err(DynamoError::validation(format!(
                        "Order by key is not a key attribute: {}",
                        other.path.attribute().unwrap_or_default()
                    )));
                }
            }
            let descending = |attribute: Option<&str>| {
                order_by
                    .iter()
                    .find(|o| attribute.is_some() && o.path.attribute() == attribute)
                    .is_some_and(|o| o.descending)
            };
            let hash_value = hash.and_then(|h| conjuncts.iter().find_map(|c| equality(c, h, params)).map(|v| (h, v)));
            if let Some(index) = &source.index {
                request.insert("IndexName".into(), json!(index));
            }
            match hash_value {
                Some((hash, value)) => {
                    let (_, after_hash) = key_from(&conjuncts, &[hash], params);
                    let range_value =
                        range.and_then(|r| after_hash.iter().find_map(|c| equality(c, r, params)).map(|v| (r, v)));
                    let only_the_key = source.index.is_none()
                        && range.is_none() == range_value.is_none()
                        && after_hash.len() == usize::from(range_value.is_some());
                    if only_the_key {
                        let mut key = Item::from([(hash.to_owned(), value)]);
                        key.extend(range_value.map(|(r, v)| (r.to_owned(), v)));
                        request.insert("Key".into(), key_json(&key));
                        carry(&mut request, &["ConsistentRead", "ReturnConsumedCapacity"]);
                        (Operation::GetItem, false)
                    } else {
                        let mut key_condition = format!("{} = {}", ph.name(hash), ph.value(value));
                        let mut filters = Vec::new();
                        let mut sort_used = false;
                        for cond in after_hash {
                            if !sort_used && range.is_some_and(|r| is_sort_condition(cond, r)) {
                                key_condition.push_str(&format!(" AND {}", condition(cond, params, &mut ph)?));
                                sort_used = true;
                            } else {
                                filters.push(cond);
                            }
                        }
                        request.insert("KeyConditionExpression".into(), json!(key_condition));
                        if descending(range) {
                            request.insert("ScanIndexForward".into(), json!(false));
                        }
                        if let Some(filter) = all_of(&filters, params, &mut ph)? {
                            request.insert("FilterExpression".into(), json!(filter));
                        }
                        carry(
                            &mut request,
                            &["ConsistentRead", "Limit", "ExclusiveStartKey", "ReturnConsumedCapacity"],
                        );
                        (Operation::Query, false)
                    }
                }
                None => {
                    if let Some(first) = order_by.first() {
                        if first.path.attribute() != hash {
                            return Err(DynamoError::validation(
                                "Must have hash key in ORDER BY clause when more than one hash key condition specified \
                                 in WHERE clause.",
                            ));
                        }
                        order = order_by
                            .iter()
                            .filter_map(|o| o.path.attribute().map(|a| (a.to_owned(), o.descending)))
                            .collect();
                    }
                    if let Some(filter) = all_of(&conjuncts, params, &mut ph)? {
                        request.insert("FilterExpression".into(), json!(filter));
                    }
                    carry(&mut request, &["ConsistentRead", "Limit", "ExclusiveStartKey", "ReturnConsumedCapacity"]);
                    (Operation::Scan, false)
                }
            }
        }
        Statement::Insert { item, .. } => {
            let Value::M(item) = value_of(item, params)? else {
                return Err(super::malformed("Expected a tuple value for INSERT"));
            };
            request.insert("Item".into(), crate::value::item_to_json(&item));
            let hash = ph.name(&table.key.hash.name);
            request.insert("ConditionExpression".into(), json!(format!("attribute_not_exists({hash})")));
            carry(&mut request, &["ReturnConsumedCapacity", "ReturnValuesOnConditionCheckFailure"]);
            (Operation::PutItem, true)
        }
        Statement::Update { actions, filter, returning, .. } => {
            let (key, rest) = whole_key(table, filter.as_ref(), params)?;
            let (mut sets, mut removes, mut adds, mut deletes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for action in actions {
                match action {
                    Action::Set(path, Expr::Call(name, args))
                        if name.eq_ignore_ascii_case("set_add") && args.len() == 2 =>
                    {
                        adds.push(format!("{} {}", ph.path(path), operand(&args[1], params, &mut ph)?));
                    }
                    Action::Set(path, Expr::Call(name, args))
                        if name.eq_ignore_ascii_case("set_delete") && args.len() == 2 =>
                    {
                        deletes.push(format!("{} {}", ph.path(path), operand(&args[1], params, &mut ph)?));
                    }
                    Action::Set(path, value) => {
                        sets.push(format!("{} = {}", ph.path(path), operand(value, params, &mut ph)?))
                    }
                    Action::Remove(path) => removes.push(ph.path(path)),
                }
            }
            let mut update = Vec::new();
            for (section, parts) in [("SET", sets), ("REMOVE", removes), ("ADD", adds), ("DELETE", deletes)] {
                if !parts.is_empty() {
                    update.push(format!("{section} {}", parts.join(", ")));
                }
            }
            request.insert("Key".into(), key_json(&key));
            request.insert("UpdateExpression".into(), json!(update.join(" ")));
            let exists = format!("attribute_exists({})", ph.name(&table.key.hash.name));
            let condition = match all_of(&rest, params, &mut ph)? {
                Some(rest) => format!("{exists} AND {rest}"),
                None => exists,
            };
            request.insert("ConditionExpression".into(), json!(condition));
            if let Some(returning) = returning {
                request.insert("ReturnValues".into(), json!(returning.return_values()));
            }
            carry(&mut request, &["ReturnConsumedCapacity", "ReturnValuesOnConditionCheckFailure"]);
            (Operation::UpdateItem, false)
        }
        Statement::Exists(select) => {
            let Statement::Select { filter, order: order_by, .. } = select.as_ref() else {
                return Err(DynamoError::validation("EXISTS takes a SELECT statement"));
            };
            if !order_by.is_empty() {
                return Err(DynamoError::validation("ORDER BY is not allowed in an EXISTS statement"));
            }
            let (key, rest) = whole_key(table, filter.as_ref(), params)?;
            let hash = ph.name(&table.key.hash.name);
            let mut check = format!("attribute_exists({hash})");
            if let Some(condition) = all_of(&rest, params, &mut ph)? {
                check = format!("{check} AND ({condition})");
            }
            request.insert("Key".into(), key_json(&key));
            request.insert("ConditionExpression".into(), json!(check));
            carry(&mut request, &["ReturnValuesOnConditionCheckFailure"]);
            (Operation::GetItem, false)
        }
        Statement::Delete { filter, returning, .. } => {
            let (key, rest) = whole_key(table, filter.as_ref(), params)?;
            request.insert("Key".into(), key_json(&key));
            if let Some(condition) = all_of(&rest, params, &mut ph)? {
                request.insert("ConditionExpression".into(), json!(condition));
            }
            match returning {
                Some(super::ast::Returning::AllOld) => {
                    request.insert("ReturnValues".into(), json!("ALL_OLD"));
                }
                Some(_) => {
                    return Err(DynamoError::validation("DELETE statements can only return ALL OLD *"));
                }
                None => {}
            }
            carry(&mut request, &["ReturnConsumedCapacity", "ReturnValuesOnConditionCheckFailure"]);
            (Operation::DeleteItem, false)
        }
    };
    ph.into_request(&mut request);
    Ok(Lowered { operation, body: Json::Object(request), insert, order, condition_check, selected })
}

/// The table's whole key, from the equalities of a write's `WHERE`, and the conditions left.
fn whole_key<'c>(
    table: &Table,
    filter: Option<&'c Cond>,
    params: &[Value],
) -> Result<(Item, Vec<&'c Cond>), DynamoError> {
    let conjuncts = filter.map(Cond::conjuncts).unwrap_or_default();
    let attributes = key_attributes(table);
    let (key, rest) = key_from(&conjuncts, &attributes, params);
    if key.len() != attributes.len() {
        return Err(whole_key_required());
    }
    Ok((key, rest))
}

/// Whether a SELECT names one item by its whole key, as BatchExecuteStatement and
/// ExecuteTransaction require of their reads.
pub(crate) fn selects_one_item(statement: &Statement, table: &Table, params: &[Value]) -> bool {
    let Statement::Select { source, filter, .. } = statement else { return false };
    let conjuncts = filter.as_ref().map(Cond::conjuncts).unwrap_or_default();
    let attributes = key_attributes(table);
    source.index.is_none() && key_from(&conjuncts, &attributes, params).0.len() == attributes.len()
}
