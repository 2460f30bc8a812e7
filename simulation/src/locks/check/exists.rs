//! What `exists` answers, held against the lock item as DynamoDB held it during the call: a lock
//! is held while its item has an owner whose lease has not run out, and a table that has seen
//! the same holder unchanged for a whole lease no longer counts it.

use std::collections::BTreeMap;

use super::beliefs::LATE;
use super::writes::drift_allowance;
use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Call, LockId, LockState, Outcome, ProcessRef, Value};

/// One answered `exists`.
#[derive(Clone, Copy, Debug)]
struct Asked {
    invoke: usize,
    complete: usize,
    held: bool,
}

/// Every answer agrees with the item at some instant of its call: `true` while it had an owner,
/// `false` while it had none, or while its owner's lease had run out on the holder's clock.
pub(super) fn answers_agree(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    for (&op, asked_op) in &index.ops {
        let Call::Exists { lock } = asked_op.call else { continue };
        let Some(asked) = answered(checked, asked_op.invoke, asked_op.complete) else { continue };
        let states = checked.truth.states_between(*lock, asked.invoke, asked.complete);
        let fits = if asked.held {
            states.iter().any(|s| s.held().is_some())
        } else {
            states.iter().any(|s| ran_out(checked, *lock, asked_op.process, s, asked.complete))
        };
        if fits {
            continue;
        }
        let holder = states.iter().find_map(|s| s.held()).and_then(|r| checked.truth.lease_of_owner(*lock, r.owner));
        let message = if asked.held {
            format!("{} was told the lock is held, but its item had no owner during the call", asked_op.process)
        } else {
            format!(
                "{} was told the lock is free, but {} held it during the whole call with time left on its clock",
                asked_op.process,
                holder.map_or_else(|| String::from("a lease"), |l| l.to.to_string())
            )
        };
        report.violations.push(checked.violation(
            ViolationKind::WrongExists,
            *lock,
            message,
            index.op_entries(op),
            holder.map(|l| checked.grant_entries(l.granted_idx())).unwrap_or_default(),
            Vec::new(),
        ));
    }
}

/// Whether the item's state `state` is free, or its lease had run out by entry `idx` on the
/// holder's clock (within the drift between holder and `asker`), or its holder was suspended.
fn ran_out(checked: &Checked<'_>, lock: LockId, asker: ProcessRef, state: &LockState, idx: usize) -> bool {
    let LockState::Held(record) = state else { return true };
    let Some(lease) = checked.truth.lease_of_owner(lock, record.owner) else { return true };
    let at = checked.index.entries[idx].at;
    let Some((left, version)) = lease.left_at(&checked.machines, idx, record.version, at) else { return true };
    left <= drift_allowance(checked, version.by.id, asker.id, version.lease)
        || checked.machines.suspended_within(version.by.id, version.sent, at)
}

/// A table that saw the same holder unchanged for a whole lease on its own clock, over two calls,
/// answers `false` from then on: a holder that stopped renewing no longer counts.
pub(super) fn stale_holders_drop(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let mut by_asker: BTreeMap<(ProcessRef, LockId), Vec<(crate::locks::history::OpId, Asked)>> = BTreeMap::new();
    for (&op, asked_op) in &index.ops {
        let Call::Exists { lock } = asked_op.call else { continue };
        if let Some(asked) = answered(checked, asked_op.invoke, asked_op.complete) {
            by_asker.entry((asked_op.process, *lock)).or_default().push((op, asked));
        }
    }
    for ((asker, lock), asks) in by_asker {
        let mut first: Option<(crate::locks::history::OpId, Asked, crate::locks::history::LockRecord)> = None;
        for (op, asked) in asks {
            let states = checked.truth.states_between(lock, asked.invoke, asked.complete);
            let [LockState::Held(record)] = states.as_slice() else {
                first = None;
                continue;
            };
            let same = first.filter(|(_, earlier, seen)| {
                *seen == *record && checked.truth.states_between(lock, earlier.invoke, asked.complete).len() == 1
            });
            let Some((first_op, earlier, _)) = same else {
                first = Some((op, asked, *record));
                continue;
            };
            // An acquire of the same table that won forgets what the table had seen of the lock.
            let won = index.ops.values().any(|o| {
                o.process == asker
                    && o.call.acquires() == Some(lock)
                    && o.complete.is_some_and(|c| c > earlier.complete && c < asked.complete)
                    && o.complete.is_some_and(|c| {
                        matches!(
                            index.entries[c].event,
                            crate::locks::history::Event::Complete { outcome: Outcome::Ok, .. }
                        )
                    })
            });
            if won {
                first = Some((op, asked, *record));
                continue;
            }
            let machines = &checked.machines;
            let seen_at = machines.monotonic(asker.id, index.entries[earlier.complete].at);
            let asked_at = machines.monotonic(asker.id, index.entries[asked.invoke].at);
            let lease = std::time::Duration::from_millis(record.lease_ms);
            if !asked.held || asked_at < seen_at + lease + LATE {
                continue;
            }
            report.violations.push(checked.violation(
                ViolationKind::StaleExists,
                lock,
                format!(
                    "{asker} was told the lock is held at {}, though it had seen the same holder unchanged since {}, \
                     more than its {} lease before on its clock",
                    seconds(index.entries[asked.complete].at),
                    seconds(index.entries[earlier.complete].at),
                    seconds(lease)
                ),
                index.op_entries(first_op),
                index.op_entries(op),
                Vec::new(),
            ));
            break;
        }
    }
}

/// The entries and the answer of an `exists` that completed `Ok` with a yes or a no.
fn answered(checked: &Checked<'_>, invoke: usize, complete: Option<usize>) -> Option<Asked> {
    let complete = complete?;
    match &checked.index.entries[complete].event {
        crate::locks::history::Event::Complete { outcome: Outcome::Ok, value: Value::Bool(held), .. } => {
            Some(Asked { invoke, complete, held: *held })
        }
        _ => None,
    }
}
