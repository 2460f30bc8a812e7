//! A service's history held to a model: the operations of the model's types, as the world
//! recorded them, checked and reported as violations that name the operations.

use std::cell::RefCell;
use std::fmt::Debug;

use super::{Budget, Call, Model, Verdict, check};
use crate::history::{History, OpId, Outcome};
use crate::verdict::{Inconclusive, Invariant, NOT_DETERMINISTIC, Verdict as Found, Violation};

/// The invariant.
pub fn invariant() -> Invariant {
    Invariant::safety("linearizable", "no order of the operations explains what they returned")
}

/// Holds the operations of `history` whose calls are `M::Op` and results `M::Ret` to `model`,
/// within `budget`, and adds what it finds to `found`: a violation naming the operations no order
/// explains, or a check that could not finish (a history too large for the budget, which is no
/// pass). Operations that certainly failed are left out; those whose answer is unknown (lost,
/// timed out, cut short by a crash) may have taken effect at any time after their invoke.
///
/// # Panics
///
/// If the model is not deterministic (the same step, asked twice, answers differently): with a
/// message that starts with [`NOT_DETERMINISTIC`](crate::verdict::NOT_DETERMINISTIC), which the
/// world reports as a service that is not deterministic, never as a violation.
pub fn check_history<M>(model: &M, history: &History, budget: Budget, found: &mut Found)
where
    M: Model,
    M::Op: 'static,
    M::Ret: 'static,
{
    let operations = history.operations::<M::Op, M::Ret>();
    let calls: Vec<Call<'_, M::Op, M::Ret>> = operations
        .iter()
        .filter(|o| o.outcome != Outcome::Fail)
        .map(|o| match (o.outcome, o.ret, o.complete) {
            (Outcome::Ok, Some(ret), Some(complete)) => {
                Call::returned(o.op.0, o.invoke as u64, o.call, complete as u64, ret)
            }
            _ => Call::unknown(o.op.0, o.invoke as u64, o.call),
        })
        .collect();
    found.count("operations checked for linearizability", calls.len() as u64);
    let twice = Twice { model, disagreed: RefCell::new(None) };
    let verdict = check(&twice, &calls, budget);
    if let Some(why) = twice.disagreed.take() {
        panic!("{NOT_DETERMINISTIC} {why}");
    }
    match verdict {
        Err(err) => found.inconclusive.push(Inconclusive { check: String::from("linearizable"), why: err.to_string() }),
        Ok(Verdict::Violation(v)) => {
            let ids = |list: &[u32]| -> Vec<OpId> { list.iter().map(|id| OpId(*id)).collect() };
            let last: Vec<u32> = v.longest_order.iter().rev().take(3).rev().copied().collect();
            let violation = Violation::new(invariant(), v.partition.clone().unwrap_or_default(), v.message.clone())
                .ops(history, &ids(&v.unexplained), &[], &ids(&last));
            found.violations.push(violation);
        }
        Ok(Verdict::TooLarge(t)) => found.inconclusive.push(Inconclusive {
            check: String::from("linearizable"),
            why: format!(
                "{} operations{} are too many for the search: it explored {} states, its budget, without an answer",
                t.operations,
                t.partition.map(|k| format!(" on key `{k}`")).unwrap_or_default(),
                t.states_explored
            ),
        }),
        Ok(_) => {}
    }
}

/// The model, asked every step twice: a model whose two answers differ depends on something
/// outside its arguments, and no verdict of it can be trusted.
struct Twice<'m, M: Model> {
    model: &'m M,
    disagreed: RefCell<Option<String>>,
}

impl<M: Model> Model for Twice<'_, M> {
    type State = M::State;
    type Op = M::Op;
    type Ret = M::Ret;

    fn init(&self) -> M::State {
        self.model.init()
    }

    fn step(&self, state: &M::State, op: &M::Op) -> (M::State, M::Ret) {
        let first = self.model.step(state, op);
        let second = self.model.step(state, op);
        if (first.0 != second.0 || first.1 != second.1) && self.disagreed.borrow().is_none() {
            *self.disagreed.borrow_mut() = Some(describe(state, op, &first, &second));
        }
        first
    }

    fn accepts(&self, expected: &M::Ret, observed: &M::Ret) -> bool {
        self.model.accepts(expected, observed)
    }

    fn partition(&self, op: &M::Op) -> Option<String> {
        self.model.partition(op)
    }

    fn is_read_only(&self, op: &M::Op) -> bool {
        self.model.is_read_only(op)
    }
}

/// The two answers of a step, in words.
fn describe<S: Debug, O: Debug, R: Debug>(state: &S, op: &O, first: &(S, R), second: &(S, R)) -> String {
    format!(
        "the model's step from {state:?} by {op:?} gave {:?} -> {:?} once and {:?} -> {:?} the next time",
        first.0, first.1, second.0, second.1
    )
}
