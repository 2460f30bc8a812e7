//! Every write DynamoDB applied to a lock item, held against the item as it was at that
//! instant: a takeover comes after the lease it replaces ran out on its holder's clock, a
//! renewal or a release comes from the holder of the lease it changes, and a client's retry
//! finds what its own first attempt wrote.

use std::collections::BTreeMap;
use std::time::Duration;

use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Event, LockState, Outcome, Value, WriteEffect};

/// How far apart two clocks may drift over `lease`, in the contender's favour, and the
/// millisecond a timer may fire late.
pub(super) fn drift_allowance(checked: &Checked<'_>, holder: u16, contender: u16, lease: Duration) -> Duration {
    let machines = &checked.machines;
    let faster = i64::from(machines.drift(contender)) - i64::from(machines.drift(holder));
    let drift = Duration::from_nanos((lease.as_nanos() as u64).saturating_mul(faster.max(0) as u64) / 1_000_000);
    drift + Duration::from_millis(1)
}

/// DynamoDB gives a lock to a new owner only once the previous lease has run out on its
/// holder's clock, counted from the send of the record version the item holds (with the
/// duration written with it), unless the holder's machine was suspended since (its clock stood
/// still while the contender's ran).
pub(super) fn takeovers(checked: &Checked<'_>, report: &mut CheckReport) {
    let mut last_good: BTreeMap<crate::locks::history::LockId, usize> = BTreeMap::new();
    for (idx, entry) in checked.index.entries.iter().enumerate() {
        let Event::Applied { lock, by, before: LockState::Held(old), after: LockState::Held(new), .. } = &entry.event
        else {
            continue;
        };
        if old.owner == new.owner {
            continue;
        }
        let Some(previous) = checked.truth.lease_of_owner(*lock, old.owner) else { continue };
        let Some((left, version)) = previous.left_at(&checked.machines, idx, old.version, entry.at) else { continue };
        let holder = version.by;
        let allowance = drift_allowance(checked, holder.id, by.id, version.lease);
        if left <= allowance || checked.machines.suspended_within(holder.id, version.sent, entry.at) {
            last_good.insert(*lock, idx);
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::TakeoverBeforeExpiry,
            *lock,
            format!(
                "{by} took the lock over from {holder} with {} of {holder}'s lease left on its clock: its write \
                 of that record version left it at {} and was applied at {}, and the lease is {}",
                seconds(left),
                seconds(version.sent),
                seconds(version.applied),
                seconds(version.lease)
            ),
            std::iter::once(version.idx).chain(checked.grant_entries(previous.granted_idx())).collect(),
            checked.grant_entries(idx),
            last_good.get(lock).map(|&g| checked.grant_entries(g)).unwrap_or_default(),
        ));
    }
}

/// A renewal or a release that DynamoDB applied comes from an incarnation that holds the
/// lease it changes: the one it was granted to, or one it was handed over to.
pub(super) fn own_writes(checked: &Checked<'_>, report: &mut CheckReport) {
    for (idx, entry) in checked.index.entries.iter().enumerate() {
        let Event::Applied { lock, by, before: before @ LockState::Held(old), after, .. } = &entry.event else {
            continue;
        };
        let effect = WriteEffect::of(before, after);
        let what = match effect {
            WriteEffect::Renewal => "renewed",
            WriteEffect::Release => "released",
            WriteEffect::Grant if after.owner() == Some(old.owner) => "raised the token of",
            _ => continue,
        };
        let Some(lease) = checked.truth.lease_of_owner(*lock, old.owner) else { continue };
        if lease.held_by(*by, idx) {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::ForeignWrite,
            *lock,
            format!("{by} {what} the lease of {} (token {})", lease.to, old.fence),
            checked.grant_entries(lease.granted_idx()),
            vec![idx],
            Vec::new(),
        ));
    }
}

/// An item at a lock's key that is no lock is never turned into one: no write of a process is
/// applied to it; and an acquire made while it is there answers that it is no lock, neither a
/// lease nor a holder.
pub(super) fn foreign_items(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    for (lock, spans) in &checked.truth.foreign {
        for &(from, to) in spans {
            let to = to.unwrap_or(usize::MAX);
            let written = index
                .entries
                .iter()
                .enumerate()
                .skip(from)
                .take_while(|(idx, _)| *idx < to)
                .find(|(_, e)| matches!(&e.event, Event::Applied { lock: l, .. } if l == lock));
            if let Some((idx, entry)) = written {
                let by = match entry.event {
                    Event::Applied { by, .. } => by.to_string(),
                    _ => String::from("a process"),
                };
                report.violations.push(checked.violation(
                    ViolationKind::ForeignItem,
                    *lock,
                    format!("{by}'s write was applied to an item at the lock's key that is no lock"),
                    vec![from],
                    vec![idx],
                    Vec::new(),
                ));
                continue;
            }
            for (&op, acquire) in &index.ops {
                if acquire.call.acquires() != Some(*lock) {
                    continue;
                }
                let Some(complete) = acquire.complete.filter(|&c| acquire.invoke > from && c < to) else { continue };
                let answer = match &index.entries[complete].event {
                    Event::Complete { outcome: Outcome::Ok, .. } => "a lease",
                    Event::Complete { outcome: Outcome::Fail, value: Value::Text(text), .. } if text == "held" => {
                        "that another process holds it"
                    }
                    _ => continue,
                };
                report.violations.push(checked.violation(
                    ViolationKind::ForeignItem,
                    *lock,
                    format!(
                        "{}'s acquire, made while an item that is no lock was at the lock's key, answered {answer}",
                        acquire.process
                    ),
                    vec![from],
                    index.op_entries(op),
                    Vec::new(),
                ));
            }
        }
    }
}

/// A client's retry of a write that DynamoDB applied is not refused for what that very write
/// wrote: an acquire retried after its answer was lost finds its own owner and keeps the lease.
pub(super) fn retries(checked: &Checked<'_>, report: &mut CheckReport) {
    // The item each applied request left behind: request -> (entry, state).
    let mut left: BTreeMap<u32, (usize, LockState)> = BTreeMap::new();
    for (idx, entry) in checked.index.entries.iter().enumerate() {
        match &entry.event {
            Event::Applied { request, before, after, .. } => {
                if matches!(WriteEffect::of(before, after), WriteEffect::Grant | WriteEffect::Renewal) {
                    left.insert(*request, (idx, *after));
                }
            }
            Event::Refused { lock, by, request, state, .. } => {
                let Some(&(first, wrote)) = left.get(request) else { continue };
                if wrote != *state {
                    continue;
                }
                report.violations.push(checked.violation(
                    ViolationKind::RetryRefusedByItself,
                    *lock,
                    format!(
                        "{by}'s retry of a write was refused, though the item held just what its first attempt \
                         had written (token {}): a lease nobody uses",
                        state.fence()
                    ),
                    vec![first],
                    vec![idx],
                    Vec::new(),
                ));
            }
            _ => {}
        }
    }
}
