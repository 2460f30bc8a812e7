//! What a renewal that answered true says: its lease held the lock item.

use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Call, Event, LockState, Outcome, Value};

/// A renewal that answered true (`Lease::renew`, a scope's, or `ProcessLocks::renew` by token,
/// whether it wrote or found enough of its window left) found its lease on the lock item: at
/// some instant between its call and its answer, the item held the grant of its fencing token.
/// A token kept after its release, or after a renewal that found the lock taken over or deleted,
/// renews nothing.
pub(super) fn renewals_answer_truly(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    for (&op, renewal) in &index.ops {
        let Call::Renew { lock, token } = renewal.call else { continue };
        let Some(complete) = renewal.complete else { continue };
        let renewed = matches!(
            &index.entries[complete].event,
            Event::Complete { outcome: Outcome::Ok, value, .. } if *value != Value::Bool(false)
        );
        if !renewed {
            continue;
        }
        // The lease the process renewed, granted to it or handed over: a token number alone may
        // be carried again by another owner after the item was deleted.
        let owner = checked.truth.lease_held(*lock, renewal.process, *token, renewal.invoke).map(|lease| lease.owner);
        let states = checked.truth.states_between(*lock, renewal.invoke, complete);
        let held = states.iter().any(|state| match state {
            LockState::Held(record) => record.fence == *token && owner.is_none_or(|owner| owner == record.owner),
            _ => false,
        });
        if held {
            continue;
        }
        let seen: Vec<String> = states.iter().map(described).collect();
        report.violations.push(checked.violation(
            ViolationKind::RenewedUnheld,
            *lock,
            format!(
                "{} renewed token {token} at {} and was told it holds the lock, while the item held {}",
                renewal.process,
                seconds(index.entries[renewal.invoke].at),
                seen.join(", then ")
            ),
            index.op_entries(op),
            Vec::new(),
            Vec::new(),
        ));
    }
}

/// A lock item's state in a few words.
fn described(state: &LockState) -> String {
    match state {
        LockState::Absent => String::from("no item"),
        LockState::Free { fence } => format!("no owner (token {fence})"),
        LockState::Held(record) => format!("the lease of token {}", record.fence),
    }
}
