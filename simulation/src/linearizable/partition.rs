//! The history split by key (P-compositionality): each key's operations searched on their own,
//! and the verdicts of the keys put together.

use std::collections::BTreeMap;

use super::search::{Outcome, search};
use super::verdict::{Linearizable, TooLarge, Verdict};
use super::{Budget, Call, CheckError, Completion, Model, report};

/// Checks whether `calls` is linearizable with respect to `model`: whether, in each partition the
/// model names ([`Model::partition`]), some order of the operations that respects their real-time
/// order (an operation that returned before another was invoked comes first) is one the model
/// explains, each operation returning what the model returns for it in that order.
///
/// An operation whose answer is unknown may take effect at any time after its invoke, or never,
/// and its result is not compared. The search explores at most `budget` states per partition; a
/// partition that needs more makes the verdict [`Verdict::TooLarge`], never a pass. A violation in
/// one partition is reported even if another is too large.
///
/// The verdict depends only on the calls and their order in `calls` (which breaks ties between
/// calls at the same time): the same history always gives the same verdict, down to the ids it
/// names.
///
/// # Errors
///
/// [`CheckError`] if an operation returned before it was invoked, or if the model said an
/// operation only reads and its step changed the state.
pub fn check<M: Model>(model: &M, calls: &[Call<'_, M::Op, M::Ret>], budget: Budget) -> Result<Verdict, CheckError> {
    for call in calls {
        if let Completion::Returned { at, .. } = call.completion {
            if at < call.invoked {
                return Err(CheckError::ReturnedBeforeInvoked { id: call.id, invoked: call.invoked, completed: at });
            }
        }
    }
    let mut partitions = BTreeMap::<Option<String>, Vec<_>>::new();
    for call in calls {
        partitions.entry(model.partition(call.op)).or_default().push(call);
    }
    let partition_count = partitions.len();
    let mut states_explored = 0;
    let mut too_large = None;
    for (key, mut ops) in partitions {
        // Stable: calls at the same time keep the caller's order.
        ops.sort_by_key(|call| call.invoked);
        match search(model, &ops, budget)? {
            Outcome::Linearizable { states_explored: explored } => states_explored += explored,
            Outcome::Violation { states_explored, deepest } => {
                return Ok(Verdict::Violation(report::violation(model, key, &ops, deepest, states_explored)));
            }
            Outcome::TooLarge { states_explored } => {
                too_large.get_or_insert(TooLarge { partition: key, operations: ops.len(), states_explored });
            }
        }
    }
    Ok(match too_large {
        Some(too_large) => Verdict::TooLarge(too_large),
        None => Verdict::Linearizable(Linearizable {
            partitions: partition_count,
            operations: calls.len(),
            states_explored,
        }),
    })
}
