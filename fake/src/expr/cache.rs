//! Parsed expressions, kept by their text so that a request repeating an expression with other
//! values skips the parse.
//!
//! A parse depends on the text, on the names its placeholders stand for, and on the values only
//! through their types, except for two checks that read a value's content (the bounds of a
//! BETWEEN of two constants, the type name given to `attribute_type`). So a parse that succeeded
//! and read no content is kept with the names and value types it was made for, and with the
//! placeholder behind each value of its tree. A later request with the same text, names and
//! value types gets a copy of the tree with its own values put in, and its placeholders are
//! marked used as the parse would have marked them. Everything else (failed parses, content
//! checks, other names or types) is parsed afresh, so errors come out exactly as before.
//!
//! Debug builds parse every hit afresh as well and assert the two trees equal, so the whole test
//! suite checks the cache.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::LocalKey;

use super::ast::{Condition, Operand, SetValue, UpdateAction, UpdateOperand};
use super::context::ExprContext;
use super::parser::Language;
use crate::error::DynamoError;
use crate::value::Value;

/// How many parses a thread keeps; when full, it starts again empty.
const CAPACITY: usize = 512;

/// A parsed tree whose values can be visited, in the order the text has them.
pub(crate) trait Tree: Clone + PartialEq + std::fmt::Debug {
    fn values_mut(&mut self, visit: &mut dyn FnMut(&mut Value));

    /// The tree with a slot in place of each value, the `k`th value (in the order of the text)
    /// becoming slot `k`, for a tree that requests may share instead of copying; `None` where
    /// the tree has no slots.
    fn slotted(&self) -> Option<Self> {
        None
    }
}

/// The parses one thread keeps, by text.
pub(crate) struct Cache<T> {
    by_text: BTreeMap<String, Vec<Template<T>>>,
    kept: usize,
}

impl<T> Default for Cache<T> {
    fn default() -> Self {
        Cache { by_text: BTreeMap::new(), kept: 0 }
    }
}

/// One successful parse and what it was made for.
struct Template<T> {
    language: Language,
    label: &'static str,
    /// The request's names, sorted by placeholder.
    names: Vec<(String, String)>,
    /// The request's value placeholders and the types of their values.
    value_types: Vec<(String, &'static str)>,
    /// The tree, each value replaced by `Null`.
    tree: T,
    /// The tree with slots for its values ([`Tree::slotted`]), shared by the requests that
    /// only evaluate it.
    shared: Option<Arc<T>>,
    /// The names the parse resolved, as indices into `names`.
    used_names: Vec<usize>,
    /// The index (into the request's values) of the value behind each value of `tree`.
    slots: Vec<usize>,
}

impl<T> Template<T> {
    fn fits(&self, language: Language, label: &str, ctx: &ExprContext<'_>) -> bool {
        self.language == language
            && self.label == label
            && self.names.len() == ctx.names().len()
            && self.names.iter().zip(ctx.names()).all(|((p, n), (q, m))| p == q && n == m)
            && self.value_types.len() == ctx.values().len()
            && self.value_types.iter().zip(ctx.values()).all(|((p, t), (q, v))| p == q && *t == v.type_name())
    }
}

thread_local! {
    pub(crate) static CONDITIONS: RefCell<Cache<Condition>> = RefCell::default();
    pub(crate) static UPDATES: RefCell<Cache<Vec<UpdateAction>>> = RefCell::default();
}

/// Parses `text` with `parse`, or takes the tree from `cache` when an earlier parse of the same
/// text in the same `language`, under the same `label`, with the same names and value types, can
/// be reused.
pub(crate) fn parse_through<T: Tree + 'static>(
    cache: &'static LocalKey<RefCell<Cache<T>>>,
    text: &str,
    language: Language,
    label: &'static str,
    ctx: &mut ExprContext<'_>,
    parse: impl Fn(&mut ExprContext<'_>) -> Result<T, DynamoError>,
) -> Result<T, DynamoError> {
    let hit = cache.with_borrow(|cache| {
        let template = cache.by_text.get(text)?.iter().find(|t| t.fits(language, label, ctx))?;
        let mut tree = template.tree.clone();
        let mut slots = template.slots.iter();
        tree.values_mut(&mut |value| {
            if let Some((_, given)) = slots.next().and_then(|&at| ctx.values().get(at)) {
                *value = given.clone();
            }
        });
        template.used_names.iter().for_each(|&at| ctx.use_name(at));
        template.slots.iter().for_each(|&at| ctx.use_value(at));
        Some(tree)
    });
    if let Some(tree) = hit {
        debug_assert_eq!(parse(ctx).as_ref().ok(), Some(&tree), "a kept parse of {text:?} differs from a fresh one");
        return Ok(tree);
    }
    ctx.record();
    let parsed = parse(ctx);
    let recording = ctx.take_recording();
    let mut tree = parsed?;
    if !recording.read_content && places_values(&mut tree, &recording.values, ctx) {
        // A hit puts its own value in every place, so the kept tree holds none of its own.
        let mut kept = tree.clone();
        kept.values_mut(&mut |value| *value = Value::Null);
        let shared = tree.slotted().map(Arc::new);
        cache.with_borrow_mut(|cache| {
            if cache.kept >= CAPACITY {
                *cache = Cache::default();
            }
            cache.kept += 1;
            cache.by_text.entry(text.to_owned()).or_default().push(Template {
                language,
                label,
                names: ctx.names().iter().map(|(p, n)| (p.to_string(), n.to_string())).collect(),
                value_types: ctx.values().iter().map(|(p, v)| (p.to_string(), v.type_name())).collect(),
                tree: kept,
                shared,
                used_names: recording.names,
                slots: recording.values,
            });
        });
    }
    Ok(tree)
}

/// True if the values of `tree`, in order, are the request's values at `slots`: the parse took
/// each value once and put them in the tree in the order it took them.
fn places_values<T: Tree>(tree: &mut T, slots: &[usize], ctx: &ExprContext<'_>) -> bool {
    let mut slots = slots.iter();
    let mut placed = true;
    tree.values_mut(&mut |value| {
        placed &= slots.next().is_some_and(|&at| ctx.values().get(at).is_some_and(|(_, v)| v == value));
    });
    placed && slots.next().is_none()
}

impl Tree for Condition {
    fn values_mut(&mut self, visit: &mut dyn FnMut(&mut Value)) {
        self.value_operands_mut(&mut |operand| {
            if let Operand::Value(value) = operand {
                visit(value);
            }
        });
    }

    fn slotted(&self) -> Option<Self> {
        let mut tree = self.clone();
        let mut next = 0;
        tree.value_operands_mut(&mut |operand| {
            if let Operand::Value(_) = operand {
                *operand = Operand::Slot(next);
                next += 1;
            }
        });
        Some(tree)
    }
}

impl Condition {
    /// Visits the operands that hold a value or a slot, in the order of the text.
    fn value_operands_mut(&mut self, visit: &mut dyn FnMut(&mut Operand)) {
        match self {
            Condition::Or(a, b) | Condition::And(a, b) => {
                a.value_operands_mut(visit);
                b.value_operands_mut(visit);
            }
            Condition::Not(a) => a.value_operands_mut(visit),
            Condition::Compare(_, a, b)
            | Condition::AttributeType(a, b)
            | Condition::BeginsWith(a, b)
            | Condition::Contains(a, b) => {
                leaf_operands(a, visit);
                leaf_operands(b, visit);
            }
            Condition::Between(a, b, c) => {
                leaf_operands(a, visit);
                leaf_operands(b, visit);
                leaf_operands(c, visit);
            }
            Condition::In(a, list) => {
                leaf_operands(a, visit);
                list.iter_mut().for_each(|b| leaf_operands(b, visit));
            }
            Condition::Exists(_) | Condition::NotExists(_) => {}
        }
    }
}

fn leaf_operands(operand: &mut Operand, visit: &mut dyn FnMut(&mut Operand)) {
    match operand {
        Operand::Path(_) => {}
        Operand::Size(inner) => leaf_operands(inner, visit),
        Operand::Value(_) | Operand::Slot(_) => visit(operand),
    }
}

/// A condition ready to evaluate: a tree of its own, or a kept parse shared with every request
/// that repeats its text, names and value types, with this request's values for its slots.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BoundCondition {
    Own(Condition),
    Shared(Arc<Condition>, Vec<Value>),
}

impl BoundCondition {
    /// True if the item satisfies the condition. A missing item is an empty one.
    pub(crate) fn eval(&self, item: &crate::value::Item) -> bool {
        match self {
            BoundCondition::Own(tree) => tree.eval(item),
            BoundCondition::Shared(tree, values) => tree.eval_with(item, values),
        }
    }

    /// The tree with the values in place of its slots, as a fresh parse makes it.
    pub(crate) fn to_tree(&self) -> Condition {
        match self {
            BoundCondition::Own(tree) => tree.clone(),
            BoundCondition::Shared(tree, values) => {
                let mut tree = (**tree).clone();
                tree.value_operands_mut(&mut |operand| {
                    if let Operand::Slot(at) = *operand {
                        *operand = Operand::Value(values.get(at).cloned().unwrap_or(Value::Null));
                    }
                });
                tree
            }
        }
    }
}

/// [`parse_through`] for a condition that is only evaluated: a hit binds this request's values
/// to the slots of the kept tree and shares the tree instead of copying it.
pub(crate) fn parse_bound(
    text: &str,
    label: &'static str,
    ctx: &mut ExprContext<'_>,
    parse: impl Fn(&mut ExprContext<'_>) -> Result<Condition, DynamoError>,
) -> Result<BoundCondition, DynamoError> {
    let hit = CONDITIONS.with_borrow(|cache| {
        let template = cache.by_text.get(text)?.iter().find(|t| t.fits(Language::Condition, label, ctx))?;
        let tree = template.shared.clone()?;
        let values: Vec<Value> = template
            .slots
            .iter()
            .map(|&at| ctx.values().get(at).map(|(_, value)| value.clone()))
            .collect::<Option<_>>()?;
        template.used_names.iter().for_each(|&at| ctx.use_name(at));
        template.slots.iter().for_each(|&at| ctx.use_value(at));
        Some(BoundCondition::Shared(tree, values))
    });
    if let Some(bound) = hit {
        debug_assert_eq!(
            parse(ctx).as_ref().ok(),
            Some(&bound.to_tree()),
            "a shared parse of {text:?} differs from a fresh one"
        );
        return Ok(bound);
    }
    parse_through(&CONDITIONS, text, Language::Condition, label, ctx, parse).map(BoundCondition::Own)
}

impl Tree for Vec<UpdateAction> {
    fn values_mut(&mut self, visit: &mut dyn FnMut(&mut Value)) {
        for action in self {
            match action {
                UpdateAction::Set(_, SetValue::Operand(a)) => update_operand_values(a, visit),
                UpdateAction::Set(_, SetValue::Plus(a, b) | SetValue::Minus(a, b)) => {
                    update_operand_values(a, visit);
                    update_operand_values(b, visit);
                }
                UpdateAction::Remove(_) => {}
                UpdateAction::Add(_, value) | UpdateAction::Delete(_, value) => visit(value),
            }
        }
    }
}

fn update_operand_values(operand: &mut UpdateOperand, visit: &mut dyn FnMut(&mut Value)) {
    match operand {
        UpdateOperand::Path(_) => {}
        UpdateOperand::Value(value) => visit(value),
        UpdateOperand::IfNotExists(_, inner) => update_operand_values(inner, visit),
        UpdateOperand::ListAppend(a, b) => {
            update_operand_values(a, visit);
            update_operand_values(b, visit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parser::Parser;
    use super::*;
    use crate::expr::{parse_condition, parse_update};
    use crate::number::Number;

    fn ctx<'r>(names: &[(&'r str, &'r str)], values: &[(&'r str, Value)]) -> ExprContext<'r> {
        ExprContext::new(names.iter().copied(), values.iter().cloned())
    }

    fn n(value: i64) -> Value {
        Value::N(Number::from_i64(value))
    }

    fn kept<T>(cache: &'static LocalKey<RefCell<Cache<T>>>) -> usize {
        cache.with_borrow(|cache| cache.kept)
    }

    /// A write's condition met again with other values shares the kept tree, with its own
    /// values bound to the tree's slots: it evaluates as a fresh parse of it does.
    #[test]
    fn a_repeated_write_condition_shares_the_tree_and_binds_its_own_values() {
        let text = "attribute_not_exists(pk) OR (#o = :me AND size(#l) < :max) OR #o IN (:x, :y)";
        let names = [("#o", "owner"), ("#l", "list")];
        let values = |me: &str, max: i64, x: &str, y: &str| {
            [(":me", Value::S(me.into())), (":max", n(max)), (":x", Value::S(x.into())), (":y", Value::S(y.into()))]
        };
        let requests = [values("a", 3, "p", "q"), values("b", 7, "c", "d"), values("b", 1, "d", "e")];
        let bound: Vec<BoundCondition> = requests
            .iter()
            .map(|values| {
                let mut request = ctx(&names, values);
                let bound = crate::expr::parse_condition_bound(text, "ConditionExpression", &mut request).unwrap();
                request.check_unused().unwrap();
                bound
            })
            .collect();
        let (BoundCondition::Shared(second, _), BoundCondition::Shared(third, _)) = (&bound[1], &bound[2]) else {
            panic!("a repeated condition was not shared: {:?}", bound[1])
        };
        assert!(Arc::ptr_eq(second, third), "the requests share one tree");
        let item = |owner: &str, list: usize| -> crate::value::Item {
            [
                ("pk".to_string(), Value::S("k".into())),
                ("owner".to_string(), Value::S(owner.into())),
                ("list".to_string(), Value::L(vec![Value::Null; list])),
            ]
            .into()
        };
        let items = [item("b", 2), item("b", 9), item("c", 0), item("d", 0), item("e", 0), item("a", 0)];
        let mut outcomes = Vec::new();
        for (condition, values) in bound.iter().zip(&requests) {
            let mut fresh = ctx(&names, values);
            let fresh =
                Parser::new(text, "ConditionExpression", Language::Condition, &mut fresh).parse_condition().unwrap();
            assert_eq!(condition.to_tree(), fresh);
            for item in &items {
                assert_eq!(condition.eval(item), fresh.eval(item), "{condition:?} on {item:?}");
                outcomes.push(condition.eval(item));
            }
        }
        // Each value decides some item: the second request holds (b, 7, c, d), the third (b, 1, d, e).
        assert_eq!(
            outcomes,
            [
                [false, false, false, false, false, true],
                [true, false, true, true, false, false],
                [false, false, false, true, true, false]
            ]
            .concat()
        );
    }

    /// A condition parsed once and met again with other values: the second request gets its own
    /// values and its placeholders count as used, without a second template.
    #[test]
    fn a_repeated_condition_gets_the_new_values() {
        let text = "attribute_not_exists(pk) OR (#o = :me AND size(#l) < :max)";
        let mut first = ctx(&[("#o", "owner"), ("#l", "list")], &[(":me", Value::S("a".into())), (":max", n(3))]);
        let before = kept(&CONDITIONS);
        let parsed = parse_condition(text, "ConditionExpression", &mut first).unwrap();
        first.check_unused().unwrap();
        assert_eq!(kept(&CONDITIONS), before + 1, "the first parse was kept");
        let mut second = ctx(&[("#o", "owner"), ("#l", "list")], &[(":me", Value::S("b".into())), (":max", n(7))]);
        let reused = parse_condition(text, "ConditionExpression", &mut second).unwrap();
        second.check_unused().unwrap();
        assert_eq!(kept(&CONDITIONS), before + 1, "the second parse was taken from the cache");
        assert_ne!(parsed, reused);
        let mut fresh = ctx(&[("#o", "owner"), ("#l", "list")], &[(":me", Value::S("b".into())), (":max", n(7))]);
        let fresh =
            Parser::new(text, "ConditionExpression", Language::Condition, &mut fresh).parse_condition().unwrap();
        assert_eq!(reused, fresh);
    }

    /// Other names make another parse: the paths resolve to the new attributes.
    #[test]
    fn other_names_are_parsed_afresh() {
        let text = "#a = :v";
        let mut first = ctx(&[("#a", "x")], &[(":v", n(1))]);
        let one = parse_condition(text, "ConditionExpression", &mut first).unwrap();
        let mut second = ctx(&[("#a", "y")], &[(":v", n(1))]);
        let two = parse_condition(text, "ConditionExpression", &mut second).unwrap();
        assert_ne!(one, two);
        assert_eq!(
            two,
            Condition::Compare(super::super::ast::CmpOp::Eq, Operand::Path(path("y")), Operand::Value(n(1)))
        );
    }

    fn path(name: &str) -> super::super::ast::Path {
        super::super::ast::Path::attribute(name)
    }

    /// A value of another type, a BETWEEN whose bounds turn around, an unknown type name: the
    /// errors a parse gives still come, after the same text parsed well.
    #[test]
    fn value_checks_still_refuse_after_a_good_parse() {
        let mut good = ctx(&[], &[(":v", n(1))]);
        parse_update("ADD n :v", &mut good).unwrap();
        let mut bad = ctx(&[], &[(":v", Value::S("x".into()))]);
        let error = parse_update("ADD n :v", &mut bad).unwrap_err();
        assert_eq!(
            error.message,
            "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"
        );

        let between = "a BETWEEN :lo AND :hi";
        let mut good = ctx(&[], &[(":lo", n(1)), (":hi", n(2))]);
        parse_condition(between, "ConditionExpression", &mut good).unwrap();
        let mut bad = ctx(&[], &[(":lo", n(2)), (":hi", n(1))]);
        let error = parse_condition(between, "ConditionExpression", &mut bad).unwrap_err();
        assert!(error.message.contains("requires upper bound to be greater than or equal to lower bound"), "{error:?}");

        let typed = "attribute_type(a, :t)";
        let mut good = ctx(&[], &[(":t", Value::S("N".into()))]);
        parse_condition(typed, "ConditionExpression", &mut good).unwrap();
        let mut bad = ctx(&[], &[(":t", Value::S("Q".into()))]);
        let error = parse_condition(typed, "ConditionExpression", &mut bad).unwrap_err();
        assert!(error.message.contains("Invalid attribute type name found; type: Q"), "{error:?}");
    }

    /// A value the expression does not use is still reported when the parse is reused, and an
    /// update's values land in their own actions.
    #[test]
    fn reused_updates_place_each_value_and_leave_unused_ones_unused() {
        let text = "SET a = :x, b = if_not_exists(b, :y) + :x ADD c :z";
        let values = |x, y, z| vec![(":x", n(x)), (":y", n(y)), (":z", n(z))];
        let before = kept(&UPDATES);
        parse_update(text, &mut ctx(&[], &values(1, 2, 3))).unwrap();
        let mut second = ctx(&[], &values(4, 5, 6));
        let reused = parse_update(text, &mut second).unwrap();
        assert_eq!(kept(&UPDATES), before + 1, "one parse kept, and taken again");
        let mut fresh = ctx(&[], &values(4, 5, 6));
        assert_eq!(reused, Parser::new(text, "UpdateExpression", Language::Update, &mut fresh).parse_update().unwrap());
        second.check_unused().unwrap();

        let mut extra = ctx(&[], &[(":x", n(1)), (":y", n(2)), (":z", n(3)), (":w", n(4))]);
        parse_update(text, &mut extra).unwrap();
        assert_eq!(
            extra.check_unused().unwrap_err().message,
            "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"
        );
    }
}
