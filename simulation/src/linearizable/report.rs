//! A violation in words a user understands.

use std::fmt::Write;

use super::search::Deepest;
use super::verdict::{Violation, on_key};
use super::{Call, Completion, Model};

/// How many operations of the longest order the message lists (the last ones): the ids of all of
/// them are in [`Violation::longest_order`].
const ORDER_SHOWN: usize = 8;

/// The violation of the partition `partition`, whose operations are `ops`, from the deepest point
/// its search reached.
pub(super) fn violation<M: Model>(
    model: &M,
    partition: Option<String>,
    ops: &[&Call<'_, M::Op, M::Ret>],
    deepest: Deepest<M::State>,
    states_explored: u64,
) -> Violation {
    // What the model would return for each operation that could come next. At the deepest point
    // every one of them returned something else (a fitting one would have led deeper); should
    // none be found, all of them are named.
    let mut unexplained: Vec<(usize, Option<M::Ret>)> = deepest
        .next
        .iter()
        .filter_map(|&op| {
            let (_, expected) = model.step(&deepest.state, ops[op].op);
            let observed = ops[op].ret()?;
            (!model.accepts(&expected, observed)).then_some((op, Some(expected)))
        })
        .collect();
    if unexplained.is_empty() {
        unexplained = deepest.next.iter().map(|&op| (op, None)).collect();
    }

    let mut message = format!("no order of the {} operations{} explains ", ops.len(), on_key(partition.as_deref()));
    for (i, (op, _)) in unexplained.iter().enumerate() {
        if i > 0 {
            message.push_str(" or ");
        }
        describe(&mut message, ops[*op]);
    }
    let order = &deepest.order;
    if order.is_empty() {
        let _ = write!(message, ": before any operation the state is {:?}", deepest.state);
    } else {
        if order.len() <= ORDER_SHOWN {
            message.push_str(": the longest order found, ");
        } else {
            let _ = write!(message, ": the longest order found has {} operations, ending ", order.len());
        }
        for (i, &op) in order[order.len().saturating_sub(ORDER_SHOWN)..].iter().enumerate() {
            if i > 0 {
                message.push_str(", ");
            }
            describe(&mut message, ops[op]);
        }
        let _ = write!(message, ", leaves {:?}", deepest.state);
    }
    let answers: Vec<String> = unexplained
        .iter()
        .filter_map(|(op, expected)| Some(format!("#{} with {:?}", ops[*op].id, expected.as_ref()?)))
        .collect();
    if !answers.is_empty() {
        let _ = write!(message, ", where the model answers {}", answers.join(" and "));
    }

    Violation {
        partition,
        operations: ops.len(),
        unexplained: unexplained.iter().map(|(op, _)| ops[*op].id).collect(),
        longest_order: order.iter().map(|&op| ops[op].id).collect(),
        states_explored,
        message,
    }
}

/// `#41 Read -> 120`, or `#5 Increment (answer unknown)`.
fn describe<O: std::fmt::Debug, R: std::fmt::Debug>(out: &mut String, call: &Call<'_, O, R>) {
    let _ = match call.completion {
        Completion::Returned { ret, .. } => write!(out, "#{} {:?} -> {:?}", call.id, call.op, ret),
        Completion::Unknown => write!(out, "#{} {:?} (answer unknown)", call.id, call.op),
    };
}
