//! What `describe` and a listing of the locks tell, held against the lock items as DynamoDB held
//! them during the call: each lock as its item was at some instant of the call (no item, free
//! with its fencing token, or held with its token and its lease), and a listing leaves out only
//! a lock that had no item, or an item that was no lock, at some instant of it.

use super::{CheckReport, Checked, ViolationKind};
use crate::locks::history::{Call, Event, LockId, LockState, OpId, Outcome, Seen, Value};

/// Every answer of `describe` and of a listing fits the items at some instant of its call.
pub(super) fn descriptions_agree(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    for (&op, asked) in &index.ops {
        let Some(complete) = asked.complete else { continue };
        let Event::Complete { outcome: Outcome::Ok, value, .. } = &index.entries[complete].event else { continue };
        match (asked.call, value) {
            (Call::Describe { lock }, Value::Described(seen)) => {
                told(checked, report, op, *lock, seen.as_ref(), asked.invoke, complete);
            }
            (Call::List, Value::Listed(locks)) => {
                for seen in locks {
                    told(checked, report, op, seen.lock, Some(seen), asked.invoke, complete);
                }
                for lock in checked.truth.locks() {
                    if !locks.iter().any(|seen| seen.lock == lock) {
                        told(checked, report, op, lock, None, asked.invoke, complete);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Holds what the call `op` told of `lock` (`None`: no item, or left out of a listing) to the
/// item between entries `invoke` and `complete`.
fn told(
    checked: &Checked<'_>,
    report: &mut CheckReport,
    op: OpId,
    lock: LockId,
    seen: Option<&Seen>,
    invoke: usize,
    complete: usize,
) {
    let states = checked.truth.states_between(lock, invoke, complete);
    if states.iter().any(|state| fits(state, seen)) {
        return;
    }
    // An item that was no lock reads as none: `describe` fails on it, a listing leaves it out.
    if seen.is_none() && checked.truth.foreign_between(lock, invoke, complete) {
        return;
    }
    let index = &checked.index;
    let process = index.ops.get(&op).map(|o| o.process.to_string()).unwrap_or_default();
    let what = seen.map_or_else(
        || String::from("no lock"),
        |seen| match seen.lease_ms {
            Some(ms) => format!("held with token {} for {ms} ms", seen.fence),
            None => format!("free with token {}", seen.fence),
        },
    );
    let items: Vec<String> = states.iter().map(described).collect();
    report.violations.push(checked.violation(
        ViolationKind::WrongDescription,
        lock,
        format!("{process} was told {what}, while the item held {}", items.join(", then ")),
        index.op_entries(op),
        Vec::new(),
        Vec::new(),
    ));
}

/// Whether what was told of a lock is what its item held in `state`.
fn fits(state: &LockState, seen: Option<&Seen>) -> bool {
    match (state, seen) {
        (LockState::Absent, None) => true,
        (LockState::Free { fence }, Some(seen)) => seen.lease_ms.is_none() && seen.fence == *fence,
        (LockState::Held(record), Some(seen)) => seen.fence == record.fence && seen.lease_ms == Some(record.lease_ms),
        _ => false,
    }
}

/// A lock item's state in a few words.
fn described(state: &LockState) -> String {
    match state {
        LockState::Absent => String::from("no item"),
        LockState::Free { fence } => format!("no owner (token {fence})"),
        LockState::Held(record) => format!("the lease of token {} for {} ms", record.fence, record.lease_ms),
    }
}
