//! Liveness: in the healed phase, the lock of a crashed holder is taken over in time and a lease
//! acquired once nothing fails any more is not lost; and throughout, a lease is given up as run
//! out only once it has run out.

use super::beliefs::LATE;
use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Event, Phase, Unheld};

/// The lock of the holder crashed in the liveness phase is taken over within the bound.
pub(super) fn takeover_in_time(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let crash = index.entries.iter().enumerate().find_map(|(idx, e)| match &e.event {
        Event::Phase(Phase::LivenessCrash { lock, victim: Some(victim) }) => Some((idx, e.at, *lock, *victim)),
        _ => None,
    });
    let Some((crash_idx, crashed_at, lock, victim)) = crash else { return };
    let victim_grant = index.entries[..crash_idx]
        .iter()
        .rposition(|e| e.event.grant().is_some_and(|(l, _, to)| l == lock && to == victim));
    let takeover = index.entries[crash_idx..].iter().enumerate().find_map(|(offset, e)| match e.event.grant() {
        Some((l, _, to)) if l == lock && to.id != victim.id => Some((crash_idx + offset, e.at)),
        _ => None,
    });
    let bound = checked.context.takeover_bound;
    // A write the holder sent before its crash may still be applied after it, as a new record
    // version: the contenders' wait starts again from that.
    let last_write = index.entries[crash_idx..takeover.map_or(index.entries.len(), |(idx, _)| idx)]
        .iter()
        .filter(|e| matches!(&e.event, Event::Applied { lock: l, by, .. } if *l == lock && *by == victim))
        .map(|e| e.at)
        .max();
    let counted_from = last_write.map_or(crashed_at, |at| at.max(crashed_at));
    let late = match takeover {
        Some((_, at)) => {
            let took = at - counted_from;
            report.stats.takeover = Some(took);
            took > bound
        }
        None => true,
    };
    if !late {
        return;
    }
    let message = match takeover {
        Some((_, at)) => format!(
            "the lock was taken over {} after its holder {victim} crashed{}; the bound is {}",
            seconds(at - counted_from),
            if counted_from > crashed_at {
                format!(" and its last write was applied, at {}", seconds(counted_from))
            } else {
                String::new()
            },
            seconds(bound)
        ),
        None => format!(
            "nobody took the lock over in the {} after its holder {victim} crashed",
            seconds(index.end.saturating_sub(crashed_at))
        ),
    };
    report.violations.push(checked.violation(
        ViolationKind::SlowTakeover,
        lock,
        message,
        vec![crash_idx],
        takeover.map(|(idx, _)| checked.grant_entries(idx)).unwrap_or_default(),
        victim_grant.map(|g| checked.grant_entries(g)).unwrap_or_default(),
    ));
}

/// A lease acquired after the heal is not lost: nothing fails any more, so its renewals
/// succeed and nobody takes it over.
pub(super) fn healthy_leases_hold(checked: &Checked<'_>, report: &mut CheckReport) {
    let Some(healed) = checked.index.healed else { return };
    for belief in checked.index.beliefs.values() {
        let Some(Unheld::Lost(reason)) = &belief.why else { continue };
        // A lease asked for before the heal may come back after it, late and already run out.
        let sent = checked.lease_of(belief).and_then(|lease| lease.versions.first()).map(|v| v.sent);
        let asked = sent.into_iter().chain(checked.index.acquire_called(belief)).min();
        if belief.start < healed || asked.is_none_or(|at| at < healed) {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::LostWhileHealthy,
            belief.lock,
            format!(
                "{} lost its lease (token {}, {reason}) at {}, acquired at {} after every fault was healed",
                belief.process,
                belief.token,
                seconds(belief.end),
                seconds(belief.start)
            ),
            checked.index.belief_entries(belief),
            Vec::new(),
            Vec::new(),
        ));
    }
}

/// A lease the library gives up as run out ("expired") had run out on its holder's clock: not
/// sooner than a whole lease after the acquire that returned it was called (the library counts
/// its lease from a send that comes no earlier), nor before the end of a window the library
/// promised it. A heartbeat that gives up while the lease still has time hands the lock to
/// nobody, and the holder's work stops for nothing.
pub(super) fn leases_run_their_time(checked: &Checked<'_>, report: &mut CheckReport) {
    let (index, machines) = (&checked.index, &checked.machines);
    for belief in index.beliefs.values() {
        if !matches!(&belief.why, Some(Unheld::Lost(reason)) if reason == "expired") {
            continue;
        }
        let id = belief.process.id;
        let called = index.acquire_called(belief);
        let lease = checked.lease_of(belief).and_then(|lease| lease.versions.first()).map(|v| v.lease);
        let acquired = called.zip(lease).map(|(at, lease)| (machines.monotonic(id, at) + lease, at, lease));
        let promised = belief.promises.iter().map(|&(_, at, left)| (machines.monotonic(id, at) + left, at, left));
        let Some((until, since, length)) = acquired.into_iter().chain(promised).max() else { continue };
        let lost = machines.monotonic(id, belief.end);
        if lost + LATE >= until {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::LostBeforeExpiry,
            belief.lock,
            format!(
                "{} gave up its lease (token {}) as run out at {}, {} before the end of the {} it had from {} on its clock",
                belief.process,
                belief.token,
                seconds(belief.end),
                seconds(until - lost),
                seconds(length),
                seconds(since)
            ),
            index.belief_entries(belief),
            Vec::new(),
            Vec::new(),
        ));
    }
}
