//! Evaluating conditions against an item.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::ast::{CmpOp, Condition, Operand, Path, PathElem};
use crate::number::Number;
use crate::value::{Item, Value};

/// The value at `path` in `item`, if there is one.
pub(crate) fn resolve<'a>(item: &'a Item, path: &Path) -> Option<&'a Value> {
    let mut elems = path.0.iter();
    let mut current = match elems.next()? {
        PathElem::Name(name) => item.get(name)?,
        PathElem::Index(_) => return None,
    };
    for elem in elems {
        current = match (elem, current) {
            (PathElem::Name(name), Value::M(map)) => map.get(name)?,
            (PathElem::Index(ix), Value::L(list)) => list.get(*ix)?,
            _ => return None,
        };
    }
    Some(current)
}

/// An operand's value for an item, borrowed where it can be; `size` yields a number. A slot
/// stands for one of `values`.
fn operand_value<'a>(item: &'a Item, operand: &'a Operand, values: &'a [Value]) -> Option<Cow<'a, Value>> {
    match operand {
        Operand::Path(p) => resolve(item, p).map(Cow::Borrowed),
        Operand::Value(v) => Some(Cow::Borrowed(v)),
        Operand::Slot(at) => values.get(*at).map(Cow::Borrowed),
        Operand::Size(inner) => {
            size_of(operand_value(item, inner, values)?.as_ref()).map(|n| Cow::Owned(Value::N(Number::from_i64(n))))
        }
    }
}

/// DynamoDB's `size`: string length, binary length, element counts; nothing for other types.
pub(crate) fn size_of(value: &Value) -> Option<i64> {
    let n = match value {
        // Java counts UTF-16 units, and so does the service.
        Value::S(s) => s.encode_utf16().count(),
        Value::B(b) => b.len(),
        Value::SS(s) => s.len(),
        Value::NS(s) => s.len(),
        Value::BS(s) => s.len(),
        Value::L(l) => l.len(),
        Value::M(m) => m.len(),
        _ => return None,
    };
    Some(n as i64)
}

impl Condition {
    /// True if the item satisfies the condition. A missing item is an empty one.
    pub(crate) fn eval(&self, item: &Item) -> bool {
        self.eval_with(item, &[])
    }

    /// [`eval`](Self::eval) for a tree whose slots ([`Operand::Slot`]) stand for `values`.
    pub(crate) fn eval_with(&self, item: &Item, values: &[Value]) -> bool {
        match self {
            Condition::Or(a, b) => a.eval_with(item, values) || b.eval_with(item, values),
            Condition::And(a, b) => a.eval_with(item, values) && b.eval_with(item, values),
            Condition::Not(a) => !a.eval_with(item, values),
            Condition::Compare(op, a, b) => {
                let (left, right) = (operand_value(item, a, values), operand_value(item, b, values));
                match op {
                    CmpOp::Eq => matches!((&left, &right), (Some(l), Some(r)) if l == r),
                    CmpOp::Ne => !matches!((&left, &right), (Some(l), Some(r)) if l == r),
                    _ => {
                        let (Some(l), Some(r)) = (left, right) else { return false };
                        let Some(order) = l.compare(&r) else { return false };
                        match op {
                            CmpOp::Lt => order == Ordering::Less,
                            CmpOp::Le => order != Ordering::Greater,
                            CmpOp::Gt => order == Ordering::Greater,
                            _ => order != Ordering::Less,
                        }
                    }
                }
            }
            Condition::Between(x, lo, hi) => {
                let (Some(x), Some(lo), Some(hi)) =
                    (operand_value(item, x, values), operand_value(item, lo, values), operand_value(item, hi, values))
                else {
                    return false;
                };
                matches!(x.compare(&lo), Some(Ordering::Greater | Ordering::Equal))
                    && matches!(x.compare(&hi), Some(Ordering::Less | Ordering::Equal))
            }
            Condition::In(x, list) => {
                let Some(x) = operand_value(item, x, values) else { return false };
                list.iter().any(|candidate| operand_value(item, candidate, values).as_ref() == Some(&x))
            }
            Condition::Exists(path) => resolve(item, path).is_some(),
            Condition::NotExists(path) => resolve(item, path).is_none(),
            Condition::AttributeType(x, t) => {
                let (Some(x), Some(t)) = (operand_value(item, x, values), operand_value(item, t, values)) else {
                    return false;
                };
                matches!(t.as_ref(), Value::S(t) if x.type_name() == t)
            }
            Condition::BeginsWith(x, prefix) => {
                match (operand_value(item, x, values).as_deref(), operand_value(item, prefix, values).as_deref()) {
                    (Some(Value::S(s)), Some(Value::S(p))) => s.starts_with(p.as_str()),
                    (Some(Value::B(s)), Some(Value::B(p))) => s.starts_with(p),
                    _ => false,
                }
            }
            Condition::Contains(x, needle) => {
                let (Some(hay), Some(needle)) = (operand_value(item, x, values), operand_value(item, needle, values))
                else {
                    return false;
                };
                match (hay.as_ref(), needle.as_ref()) {
                    (Value::S(s), Value::S(n)) => s.contains(n.as_str()),
                    (Value::B(s), Value::B(n)) => n.is_empty() || s.windows(n.len()).any(|w| w == n.as_slice()),
                    (Value::SS(set), Value::S(n)) => set.contains(n),
                    (Value::NS(set), Value::N(n)) => set.contains(n),
                    (Value::BS(set), Value::B(n)) => set.contains(n),
                    (Value::L(list), n) => list.contains(n),
                    _ => false,
                }
            }
        }
    }
}
