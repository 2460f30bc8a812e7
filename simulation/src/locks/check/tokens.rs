//! Fencing tokens: they rise, fenced writes commit only under the writer's lease, and the
//! external store never goes back.

use std::collections::{BTreeMap, BTreeSet};

use super::{CheckReport, Checked, ViolationKind};
use crate::locks::history::{Call, Event, LockId, LockState, Nemesis, WriteEffect};

impl Checked<'_> {
    /// The entries that show a grant: the write, and the acquire that returned its token.
    pub(super) fn grant_entries(&self, idx: usize) -> Vec<usize> {
        let mut out = vec![idx];
        if let Some((lock, token, to)) = self.index.entries.get(idx).and_then(|e| e.event.grant())
            && let Some(op) = self.index.acquire_returning(lock, token, to)
        {
            out.extend(self.index.op_entries(op));
        }
        out.sort_unstable();
        out
    }
}

/// Granted tokens strictly rise, and no write by a process lowers the token of an item, until
/// the nemesis deletes it.
pub(super) fn tokens_rise(checked: &Checked<'_>, report: &mut CheckReport) {
    // Per lock: the last grant (token, entry) and the one before it.
    let mut last: BTreeMap<LockId, (u64, usize, Option<usize>)> = BTreeMap::new();
    for (idx, entry) in checked.index.entries.iter().enumerate() {
        match &entry.event {
            Event::Nemesis(Nemesis::DeleteItem(lock)) => {
                last.remove(lock);
            }
            Event::Applied { lock, by, before, after, .. } => {
                if after.fence() < before.fence() {
                    let message = match after {
                        LockState::Absent => format!(
                            "{by}'s write deleted the lock item, whose token was {}: the next acquire gets token 1",
                            before.fence()
                        ),
                        _ => format!(
                            "{by}'s write lowered the token of the lock item from {} to {}",
                            before.fence(),
                            after.fence()
                        ),
                    };
                    let granted = last.get(lock).map(|&(_, i, _)| checked.grant_entries(i)).unwrap_or_default();
                    report.violations.push(checked.violation(
                        ViolationKind::TokenNotRising,
                        *lock,
                        message,
                        granted,
                        vec![idx],
                        Vec::new(),
                    ));
                }
                if WriteEffect::of(before, after) != WriteEffect::Grant {
                    continue;
                }
                report.stats.grants += 1;
                let token = after.fence();
                let fallen = last.get(lock).copied().filter(|&(before, _, _)| token <= before);
                if let Some((before, before_idx, good)) = fallen {
                    report.violations.push(checked.violation(
                        ViolationKind::TokenNotRising,
                        *lock,
                        format!("DynamoDB granted token {token} after token {before}, with no deletion in between"),
                        checked.grant_entries(before_idx),
                        checked.grant_entries(idx),
                        good.map(|g| checked.grant_entries(g)).unwrap_or_default(),
                    ));
                }
                let previous = last.get(lock).map(|&(_, i, _)| i);
                last.insert(*lock, (token, idx, previous));
            }
            _ => {}
        }
    }
}

/// Every fenced write that committed did so while the lock item held the writer's lease: its
/// owner, granted to the writer, and its token.
pub(super) fn fencing(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let mut last_good: BTreeMap<LockId, Vec<usize>> = BTreeMap::new();
    let mut committed = BTreeSet::new();
    for (idx, entry) in index.entries.iter().enumerate() {
        let Event::Committed { op } = &entry.event else { continue };
        if !committed.insert(*op) {
            continue; // a retry of a transaction that had committed already
        }
        let Some(write) = index.ops.get(op) else { continue };
        let Call::FencedWrite { lock, token } = write.call else { continue };
        report.stats.commits += 1;
        let mut entries = index.op_entries(*op);
        entries.push(idx);
        let state = checked.truth.state_at(*lock, idx);
        let lease = state.held().and_then(|record| checked.truth.lease_of_owner(*lock, record.owner));
        let holder = lease.map(|l| l.to);
        if state.fence() == *token && lease.is_some_and(|l| l.held_by(write.process, idx)) {
            last_good.insert(*lock, entries);
            continue;
        }
        let message = match (state, holder) {
            (LockState::Held(record), Some(holder)) if record.fence != *token => format!(
                "{}'s write with token {token} committed while the lock item held token {} of {holder}",
                write.process, record.fence
            ),
            (LockState::Held(_), holder) => format!(
                "{}'s write with token {token} committed while that token belonged to a lease of {}",
                write.process,
                holder.map_or_else(|| String::from("nobody known"), |h| h.to_string())
            ),
            (LockState::Free { fence }, _) => format!(
                "{}'s write with token {token} committed while the lock was free (token {fence})",
                write.process
            ),
            (LockState::Absent, _) => {
                format!("{}'s write with token {token} committed while the lock item did not exist", write.process)
            }
        };
        let other = match lease {
            Some(lease) => checked.grant_entries(lease.granted_idx()),
            None => index
                .deletions
                .get(lock)
                .and_then(|d| d.iter().rev().find(|(_, i)| *i < idx))
                .map(|(_, i)| vec![*i])
                .unwrap_or_default(),
        };
        report.violations.push(checked.violation(
            ViolationKind::StaleFencedWrite,
            *lock,
            message,
            entries,
            other,
            last_good.get(lock).cloned().unwrap_or_default(),
        ));
    }
}

/// The external store never accepted a lower token after a higher one.
pub(super) fn store(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let mut last: BTreeMap<LockId, (u64, usize)> = BTreeMap::new();
    let mut good: BTreeMap<LockId, usize> = BTreeMap::new();
    for (idx, entry) in index.entries.iter().enumerate() {
        let Event::StoreAccepted { op, lock, token } = &entry.event else { continue };
        report.stats.store_writes += 1;
        let mut write = index.op_entries(*op);
        write.push(idx);
        let lower = last.get(lock).copied().filter(|&(top, _)| *token < top);
        if let Some((top, top_idx)) = lower {
            let mut higher = match &index.entries[top_idx].event {
                Event::StoreAccepted { op, .. } => index.op_entries(*op),
                _ => Vec::new(),
            };
            higher.push(top_idx);
            let before = good.get(lock).map(|g| vec![*g]).unwrap_or_default();
            report.violations.push(checked.violation(
                ViolationKind::StoreAcceptedLower,
                *lock,
                format!("the store accepted token {token} after token {top}"),
                higher,
                write,
                before,
            ));
            continue;
        }
        if let Some(&(_, previous)) = last.get(lock) {
            good.insert(*lock, previous);
        }
        last.insert(*lock, (*token, idx));
    }
}
