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

use super::entries::{Entries, Entry};
use super::memo::{Linearized, Memo};
use super::unknown::Interchangeable;
use super::{Budget, Call, Completion, Model};

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
}

/// Searches an order of `ops` (in the order of their calls: by invoke time, ties in the caller's
/// order) that `model` explains, exploring at most `budget` states.
pub(super) fn search<M: Model>(model: &M, ops: &[&Call<'_, M::Op, M::Ret>], budget: Budget) -> Outcome<M::State> {
    debug_assert!(ops.is_sorted_by_key(|call| call.invoked), "the operations come in the order of their calls");
    let is_known: Vec<bool> = ops.iter().map(|call| call.completed().is_some()).collect();
    let known_total = is_known.iter().filter(|&&known| known).count();
    if known_total == 0 {
        // Every operation's answer is unknown: none need take effect.
        return Outcome::Linearizable { states_explored: 0 };
    }
    // The operations with known answers take the first bits, in the order of their calls, which
    // is roughly the order they are linearized in: the memo's keys stay short (see memo.rs).
    let mut bit = vec![0; ops.len()];
    let mut next_bit = 0;
    for known in [true, false] {
        for op in (0..ops.len()).filter(|&op| is_known[op] == known) {
            bit[op] = next_bit;
            next_bit += 1;
        }
    }
    let spans: Vec<(u64, Option<u64>)> = ops.iter().map(|call| (call.invoked, call.completed())).collect();
    let mut entries = Entries::new(&spans);
    let mut classes = Interchangeable::new(ops.iter().zip(&is_known).map(|(call, &known)| (call.op, !known)));
    let mut linearized = Linearized::new(ops.len());
    let mut memo = Memo::new();
    let mut state = model.init();
    let mut order: Vec<Taken<M::State>> = Vec::new();
    let mut known_taken = 0;
    let mut states_explored = 0;
    let mut deepest: Option<Deepest<M::State>> = None;

    let mut at = entries.first();
    loop {
        match entries.get(at) {
            Entry::Call(op) => {
                if classes.is_tried(op) {
                    if states_explored == budget.states_max() {
                        return Outcome::TooLarge { states_explored };
                    }
                    states_explored += 1;
                    let (next, expected) = model.step(&state, ops[op].op);
                    let fits = match ops[op].completion {
                        Completion::Returned { ret, .. } => model.accepts(&expected, ret),
                        // An unknown answer fits anything; an effect that changes nothing is left
                        // for the end (unknown.rs).
                        Completion::Unknown => next != state,
                    };
                    if fits {
                        linearized.insert(bit[op]);
                        if memo.insert(&linearized, &next) {
                            order.push(Taken { op, state_before: std::mem::replace(&mut state, next) });
                            entries.lift(op);
                            classes.take(op);
                            if is_known[op] {
                                known_taken += 1;
                                if known_taken == known_total {
                                    return Outcome::Linearizable { states_explored };
                                }
                            }
                            at = entries.first();
                            continue;
                        }
                        linearized.remove(bit[op]);
                    }
                }
                at = entries.next(at);
            }
            Entry::Return => {
                if deepest.as_ref().is_none_or(|deepest| known_taken > deepest.known) {
                    deepest = Some(Deepest {
                        order: order.iter().map(|taken| taken.op).collect(),
                        state: state.clone(),
                        next: candidates(&entries, at).filter(|&op| is_known[op]).collect(),
                        known: known_taken,
                    });
                }
                let Some(Taken { op, state_before }) = order.pop() else {
                    let deepest = deepest.expect("the first return met records the deepest point");
                    return Outcome::Violation { states_explored, deepest };
                };
                entries.unlift(op);
                classes.put_back(op);
                linearized.remove(bit[op]);
                if is_known[op] {
                    known_taken -= 1;
                }
                state = state_before;
                at = entries.next(entries.call_of(op));
            }
            Entry::End => unreachable!("the return of an operation not yet linearized is still in the list"),
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
