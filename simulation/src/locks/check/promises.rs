//! What the library tells its callers besides the lease itself: the promises its workloads saw
//! broken, and why a lease ended.

use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Actor, Event, LockState, Nemesis, Unheld};

/// Every promise of the documentation that a process saw broken (an election that returned
/// `Cancelled` though nobody stopped it, say) is a violation.
pub(super) fn promises_kept(checked: &Checked<'_>, report: &mut CheckReport) {
    for (idx, entry) in checked.index.entries.iter().enumerate() {
        let (Event::Broken { lock, what }, Actor::Process(process)) = (&entry.event, entry.actor) else { continue };
        report.violations.push(checked.violation(
            ViolationKind::BrokenPromise,
            *lock,
            format!("{process} at {}: {what}", seconds(entry.at)),
            vec![idx],
            Vec::new(),
            Vec::new(),
        ));
    }
}

/// A lease said lost as taken over had a renewal refused while its item held another owner or
/// none; as deleted, while there was no item; for a missing table, while the table answered
/// that it was not found.
pub(super) fn loss_reasons(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    for belief in index.beliefs.values().filter(|b| b.renews) {
        let Some(Unheld::Lost(reason)) = &belief.why else { continue };
        let Some(end_idx) = belief.end_idx else { continue };
        let Some(lease) = checked.lease_of(belief) else { continue };
        let entries = &index.entries[belief.start_idx..=end_idx];
        let refused = entries.iter().enumerate().filter_map(|(offset, e)| match &e.event {
            Event::Refused { by, names, state, .. } if *by == belief.process && *names == lease.owner => {
                Some((belief.start_idx + offset, *state))
            }
            _ => None,
        });
        let since = |idx: usize| checked.truth.states_between(belief.lock, idx, end_idx);
        let fits = match reason.as_str() {
            "taken_over" => refused.into_iter().any(|(idx, _)| since(idx).iter().any(|s| *s != LockState::Absent)),
            "deleted" => refused.into_iter().any(|(idx, _)| since(idx).contains(&LockState::Absent)),
            "table_not_found" => table_missing(checked, belief.start_idx, end_idx),
            _ => true,
        };
        if fits {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::WrongLossReason,
            belief.lock,
            format!(
                "{} was told its lease (token {}) ended as {reason} at {}, which the lock item and the table do not show",
                belief.process,
                belief.token,
                seconds(belief.end)
            ),
            index.belief_entries(belief),
            checked.grant_entries(lease.granted_idx()),
            Vec::new(),
        ));
    }
}

/// Whether the table answered that it was not found at some time between entries `from` and
/// `to`.
fn table_missing(checked: &Checked<'_>, from: usize, to: usize) -> bool {
    let entries = &checked.index.entries;
    let missing_at_from = entries[..from].iter().fold(false, |missing, e| match e.event {
        Event::Nemesis(Nemesis::TableOutage) => true,
        Event::Nemesis(Nemesis::TableBack) => false,
        _ => missing,
    });
    missing_at_from || entries[from..=to].iter().any(|e| matches!(e.event, Event::Nemesis(Nemesis::TableOutage)))
}
