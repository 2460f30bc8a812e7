//! The search for an order of one partition's operations that the model explains: Wing and
//! Gong's backtracking search, with Lowe's memo of visited configurations.
//!
//! The search walks the [list](super::entries) of the operations not yet linearized. Any call
//! before the first return in it is a candidate to come next: its operation was invoked before
//! every operation not yet linearized had returned, so no real-time order forbids it. The search
//! steps the model with the first candidate whose result the model gives, and whose new
//! configuration it has not visited, and starts again at the head of the list; when it meets a
//! return, the operation of that return can no longer be placed, so it takes the last operation
//! back out of the order and tries the candidates after it. It ends when every operation with a
//! known answer is in the order (those with unknown answers that are not take effect after all of
//! them, or never), or when it has nothing left to take back.
//!
//! An operation the model says only reads ([`Model::is_read_only`]) is placed as soon as it
//! returns what the model gives, and the search tries nothing else in that configuration: any
//! order that goes on from there could as well have placed it first, since it changes nothing for
//! the others and no real-time order keeps it from coming first (it is a candidate). Without
//! this, n concurrent reads of a value make 2^n configurations of which ones came first.

use super::entries::{Entries, Entry};
use super::memo::{Linearized, Memo};
use super::unknown::Interchangeable;
use super::{Budget, Call, CheckError, Completion, Model};

/// What the search of one partition found.
#[derive(Debug)]
pub(super) enum Outcome<S> {
    /// An order explains every operation.
    Linearizable { states_explored: u64 },
    /// No order does; `deepest` is where the search came closest.
    Violation { states_explored: u64, deepest: Deepest<S> },
    /// The budget ran out first.
    TooLarge { states_explored: u64 },
}

/// The deepest point the search reached: the configuration with the most operations of known
/// answer in its order, the first found of those.
#[derive(Debug)]
pub(super) struct Deepest<S> {
    /// The operations of the order, first to last.
    pub(super) order: Vec<usize>,
    /// The state the order leaves.
    pub(super) state: S,
    /// The operations of known answer that could come next in real time; none of them fits.
    pub(super) next: Vec<usize>,
    /// How many operations of known answer the order holds.
    known: usize,
}

/// An operation in the order, and the state before it.
struct Taken<S> {
    op: usize,
    state_before: S,
    /// Whether it was the only operation worth trying in its configuration (see [`Tried`]).
    forced: bool,
}

/// What trying a candidate did.
enum Tried {
    /// It joined the order.
    Taken,
    /// It does not fit here, or leads to a configuration visited before: try the next candidate.
    Passed,
    /// Its configuration has no future: a read that returned what the model gives leads to a
    /// configuration visited before, and any order that goes on from here could have taken it
    /// first.
    Abandoned,
    /// The model said the operation only reads, and its step changed the state.
    NotReadOnly(CheckError),
    /// The budget ran out.
    OutOfBudget,
}

/// Searches an order of `ops` (in the order of their calls: by invoke time, ties in the caller's
/// order) that `model` explains, exploring at most `budget` states.
pub(super) fn search<M: Model>(
    model: &M,
    ops: &[&Call<'_, M::Op, M::Ret>],
    budget: Budget,
) -> Result<Outcome<M::State>, CheckError> {
    debug_assert!(ops.is_sorted_by_key(|call| call.invoked), "the operations come in the order of their calls");
    let mut search = Search::new(model, ops, budget);
    if search.known_total == 0 {
        // Every operation's answer is unknown: none need take effect.
        return Ok(Outcome::Linearizable { states_explored: 0 });
    }
    let mut at = search.entries.first();
    loop {
        match search.entries.get(at) {
            Entry::Call(op) => match search.try_op(op) {
                Tried::Taken if search.known_taken == search.known_total => {
                    return Ok(Outcome::Linearizable { states_explored: search.states_explored });
                }
                Tried::Taken => {
                    at = search.entries.first();
                    continue;
                }
                Tried::Passed => {
                    at = search.entries.next(at);
                    continue;
                }
                Tried::Abandoned => {}
                Tried::OutOfBudget => return Ok(Outcome::TooLarge { states_explored: search.states_explored }),
                Tried::NotReadOnly(error) => return Err(error),
            },
            // The operation of this return can no longer be placed.
            Entry::Return => search.record_if_deepest(at),
            Entry::End => unreachable!("the return of an operation not yet linearized is still in the list"),
        }
        match search.back_out() {
            Some(op) => at = search.entries.next(search.entries.call_of(op)),
            None => {
                let deepest = search.deepest.expect("the search met a return before it ran out of orders");
                return Ok(Outcome::Violation { states_explored: search.states_explored, deepest });
            }
        }
    }
}

/// The search of one partition, between its steps.
struct Search<'s, 'c, M: Model> {
    model: &'s M,
    ops: &'s [&'s Call<'c, M::Op, M::Ret>],
    budget: Budget,
    is_known: Vec<bool>,
    known_total: usize,
    /// Whether the model says each operation only reads.
    read_only: Vec<bool>,
    /// Each operation's bit in [`Linearized`].
    bit: Vec<usize>,
    entries: Entries,
    classes: Interchangeable,
    linearized: Linearized,
    memo: Memo<M::State>,
    /// The state after the order.
    state: M::State,
    order: Vec<Taken<M::State>>,
    known_taken: usize,
    states_explored: u64,
    deepest: Option<Deepest<M::State>>,
}

impl<'s, 'c, M: Model> Search<'s, 'c, M> {
    fn new(model: &'s M, ops: &'s [&'s Call<'c, M::Op, M::Ret>], budget: Budget) -> Self {
        let is_known: Vec<bool> = ops.iter().map(|call| call.completed().is_some()).collect();
        // The operations with known answers take the first bits, in the order of their calls,
        // which is roughly the order they are linearized in: the memo's keys stay short (memo.rs).
        let mut bit = vec![0; ops.len()];
        let by_known_first =
            (0..ops.len()).filter(|&op| is_known[op]).chain((0..ops.len()).filter(|&op| !is_known[op]));
        for (next_bit, op) in by_known_first.enumerate() {
            bit[op] = next_bit;
        }
        let spans: Vec<(u64, Option<u64>)> = ops.iter().map(|call| (call.invoked, call.completed())).collect();
        Search {
            model,
            ops,
            budget,
            known_total: is_known.iter().filter(|&&known| known).count(),
            bit,
            entries: Entries::new(&spans),
            classes: Interchangeable::new(ops.iter().zip(&is_known).map(|(call, &known)| (call.op, !known))),
            is_known,
            read_only: ops.iter().map(|call| model.is_read_only(call.op)).collect(),
            linearized: Linearized::new(ops.len()),
            memo: Memo::new(),
            state: model.init(),
            order: Vec::new(),
            known_taken: 0,
            states_explored: 0,
            deepest: None,
        }
    }

    /// Tries operation `op`, a candidate, as the next of the order.
    fn try_op(&mut self, op: usize) -> Tried {
        // Of unknown operations, those that only read are never placed (unknown.rs), and of
        // interchangeable ones only the first not yet placed is tried.
        if !self.classes.is_tried(op) || (self.read_only[op] && !self.is_known[op]) {
            return Tried::Passed;
        }
        if self.states_explored == self.budget.states_max() {
            return Tried::OutOfBudget;
        }
        self.states_explored += 1;
        let call = self.ops[op];
        let (next, expected) = self.model.step(&self.state, call.op);
        let forced = self.read_only[op];
        if forced && next != self.state {
            return Tried::NotReadOnly(CheckError::NotReadOnly {
                id: call.id,
                op: format!("{:?}", call.op),
                before: format!("{:?}", self.state),
                after: format!("{next:?}"),
            });
        }
        let fits = match call.completion {
            Completion::Returned { ret, .. } => self.model.accepts(&expected, ret),
            // An unknown answer fits anything; an effect that changes nothing is left for the end
            // (unknown.rs).
            Completion::Unknown => next != self.state,
        };
        if !fits {
            return Tried::Passed;
        }
        self.linearized.insert(self.bit[op]);
        if !self.memo.insert(&self.linearized, &next) {
            self.linearized.remove(self.bit[op]);
            return if forced { Tried::Abandoned } else { Tried::Passed };
        }
        self.order.push(Taken { op, state_before: std::mem::replace(&mut self.state, next), forced });
        self.entries.lift(op);
        self.classes.take(op);
        self.known_taken += usize::from(self.is_known[op]);
        Tried::Taken
    }

    /// Takes operations back out of the order, up to and including the first that was not the
    /// only one worth trying in its configuration; that one, or `None` if the order is empty.
    fn back_out(&mut self) -> Option<usize> {
        loop {
            let Taken { op, state_before, forced } = self.order.pop()?;
            self.entries.unlift(op);
            self.classes.put_back(op);
            self.linearized.remove(self.bit[op]);
            self.known_taken -= usize::from(self.is_known[op]);
            self.state = state_before;
            if !forced {
                return Some(op);
            }
        }
    }

    /// Records the configuration as the deepest point if it holds more operations of known answer
    /// than the deepest so far; `end` is the return that ended the scan of its candidates.
    fn record_if_deepest(&mut self, end: u32) {
        if self.deepest.as_ref().is_none_or(|deepest| self.known_taken > deepest.known) {
            self.deepest = Some(Deepest {
                order: self.order.iter().map(|taken| taken.op).collect(),
                state: self.state.clone(),
                next: candidates(&self.entries, end).filter(|&op| self.is_known[op]).collect(),
                known: self.known_taken,
            });
        }
    }
}

/// The operations whose calls come before the entry `end` of the list.
fn candidates(entries: &Entries, end: u32) -> impl Iterator<Item = usize> + '_ {
    let mut at = entries.first();
    std::iter::from_fn(move || {
        while at != end {
            let entry = entries.get(at);
            at = entries.next(at);
            if let Entry::Call(op) = entry {
                return Some(op);
            }
        }
        None
    })
}
