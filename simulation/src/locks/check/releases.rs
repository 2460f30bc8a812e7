//! Releases the library promises, held against the lock item: a release that returned `Ok` left
//! the item without its lease; an election that returned after a term sent the release of its
//! lease, and once nothing fails any more, left the item without it; a lease let go of once
//! nothing fails any more (dropped above all, whose release goes out in the background) leaves
//! the item within seconds; an election stopped by its caller returns in time.

use std::time::Duration;

use super::beliefs::LATE;
use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Call, Event, Nemesis, Outcome, Unheld};

/// Every release the library answered left the lock item without the lease it released. An
/// election that returned after a term, having released its lease (a lease it knew lost ends
/// the term as `Info`: there is nothing to release), sent that release; it logs a release that
/// fails and returns all the same, so only once nothing fails any more must the item be without
/// the lease.
pub(super) fn releases_release(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    for (&op, released) in &index.ops {
        let Some(complete) = released.complete else { continue };
        let answered_ok = matches!(&index.entries[complete].event, Event::Complete { outcome: Outcome::Ok, .. });
        let (lock, token, strict) = match released.call {
            Call::Release { lock, token } if answered_ok => (*lock, *token, true),
            Call::Resign { lock, token: Some(token), .. } if answered_ok => {
                (*lock, *token, index.healed.is_some_and(|at| at <= index.entries[released.invoke].at))
            }
            _ => continue,
        };
        let Some(lease) = checked.truth.lease_held(lock, released.process, token, released.invoke) else { continue };
        if checked.truth.leases_with_token(lock, released.process, token, released.invoke).nth(1).is_some() {
            continue;
        }
        if checked.truth.state_at(lock, complete).owner() != Some(lease.owner) {
            continue;
        }
        // A lease the process knew lost (taken over, deleted, its table gone) is not released:
        // its belief ends then, at the latest in the instant the release returns.
        let lost = index.beliefs.values().any(|b| {
            b.process == released.process
                && b.lock == lock
                && b.token == token
                && b.start_idx <= released.invoke
                && b.end <= index.entries[complete].at
                && matches!(&b.why, Some(Unheld::Lost(reason)) if reason != "expired")
        });
        if lost {
            continue;
        }
        let (from, to) = (index.entries[released.invoke].at, index.entries[complete].at);
        // The release was sent, and its process heard how it went (an answer, or the timeout of
        // its last attempt) before the call returned: a release left to the background is not.
        let sent = index.naming.get(&(released.process, lock, lease.owner)).into_iter().flatten().any(|request| {
            index.requests.get(&(released.process, *request)).is_some_and(|r| {
                r.attempts.iter().any(|a| a.sent >= from && a.sent <= to)
                    && r.attempts.last().is_some_and(|a| a.answer.is_some_and(|(at, _)| at <= to))
            })
        });
        if sent && !strict {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::HeldAfterRelease,
            lock,
            format!(
                "{}'s release of token {token} returned at {}, but the lock item still held that lease{}",
                released.process,
                seconds(to),
                if sent { "" } else { ", and no write of it was sent" }
            ),
            checked.grant_entries(lease.granted_idx()),
            index.op_entries(op),
            Vec::new(),
        ));
    }
}

/// How soon a lease let go of once nothing fails any more has left the lock item: its release
/// is one round trip, sent at once, after the renewal on its way if there is one.
const LET_GO: Duration = Duration::from_secs(5);

/// A lease with a heartbeat that its process let go of after the heal, not knowing it lost
/// (released, dropped, or the end of the term of an election), has left the lock item
/// [`LET_GO`] later: a dropped lease is released in the background. Unless the process was
/// stopped or crashed in between, or it still holds the same lease in another belief.
pub(super) fn let_go_leases_leave_the_item(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let Some(healed) = index.healed else { return };
    for belief in index.beliefs.values() {
        if !belief.renews || belief.why != Some(Unheld::Released) || belief.end < healed {
            continue;
        }
        let (from, to) = (belief.end, belief.end + LET_GO);
        if to > index.end || checked.machines.stopped_within(belief.process.id, from, to) {
            continue;
        }
        // The entries from the let-go to the bound; the world records the crash of the liveness
        // phase's victim as a crash too.
        let (first, after) =
            (index.entries.partition_point(|e| e.at < from), index.entries.partition_point(|e| e.at <= to));
        let crashed = index.entries[first..after]
            .iter()
            .any(|e| matches!(&e.event, Event::Nemesis(Nemesis::Crash(p)) if *p == belief.process));
        if crashed {
            continue;
        }
        let Some(lease) = checked.lease_of(belief) else { continue };
        let still_held = index.beliefs.values().any(|other| {
            other.lock == belief.lock
                && other.end > belief.end
                && checked.lease_of(other).is_some_and(|l| l.owner == lease.owner)
        });
        if still_held {
            continue;
        }
        if after == 0 || checked.truth.state_at(belief.lock, after - 1).owner() != Some(lease.owner) {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::HeldAfterLetGo,
            belief.lock,
            format!(
                "{} let go of its lease with token {} at {}, once nothing failed, but the lock item still held it at {}",
                belief.process,
                belief.token,
                seconds(from),
                seconds(to)
            ),
            checked.grant_entries(lease.granted_idx()),
            belief.end_idx.into_iter().collect(),
            Vec::new(),
        ));
    }
}

/// An election stopped by its caller returns: at once if it waited for the lock (it has no lease
/// to release), and while it led, once its work has stopped and its release was answered or
/// given up, which takes at most a few round trips, even when a release is held in the network
/// for two leases, unless its process was stopped.
pub(super) fn stops_at_once(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let bound = 3 * checked.context.lease + std::time::Duration::from_secs(30);
    for (&op, stop) in &index.ops {
        let Call::Resign { lock, token: Some(token), stopped: true } = stop.call else { continue };
        let from = index.entries[stop.invoke].at;
        let to = stop.complete.map_or(index.end, |c| index.entries[c].at);
        if to.saturating_sub(from) <= bound || checked.machines.stopped_within(stop.process.id, from, to) {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::SlowStop,
            *lock,
            format!(
                "{} stopped its election while it led with token {token} at {}, but it had not returned {} later",
                stop.process,
                seconds(from),
                seconds(to - from)
            ),
            index.op_entries(op),
            Vec::new(),
            Vec::new(),
        ));
    }
    for (&op, stop) in &index.ops {
        let Call::Resign { lock, token: None, stopped: true } = stop.call else { continue };
        let Some(complete) = stop.complete else { continue };
        let (from, to) = (index.entries[stop.invoke].at, index.entries[complete].at);
        // A write of the lock already on its way (an acquire, or the release of a lease whose
        // acquire answered too late) is waited for, with the client's retries of it.
        let waited = index
            .requests
            .iter()
            .filter(|((process, _), request)| *process == stop.process && request.lock == *lock)
            .filter(|(_, request)| {
                request.attempts.iter().any(|a| a.sent <= from && a.answer.is_none_or(|(at, _)| at >= from))
            })
            .flat_map(|(_, request)| request.attempts.iter())
            .filter_map(|a| a.answer.map(|(at, _)| at))
            .max()
            .unwrap_or(from)
            .max(from);
        if to <= waited + LATE {
            continue;
        }
        report.violations.push(checked.violation(
            ViolationKind::SlowStop,
            *lock,
            format!(
                "{} stopped an election that waited for the lock at {}, but it returned only at {}",
                stop.process,
                seconds(from),
                seconds(to)
            ),
            index.op_entries(op),
            Vec::new(),
            Vec::new(),
        ));
    }
}
