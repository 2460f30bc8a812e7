//! The promises of a lease's heartbeat, held against the writes its process sent and the answers
//! it heard: a renewal is sent a third of the lease after the send of the last write that
//! succeeded, not later; and a failed renewal is retried until less than the longest retry (a
//! sixth of the lease) is left, so an outage shorter than what the lease leaves for retries does
//! not lose the lease.

use std::time::Duration;

use super::beliefs::LATE;
use super::index::{Belief, Request};
use super::truth::TrueLease;
use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Event, Unheld};

/// A lease's heartbeat as its process saw it: the writes of the lease it sent, and those it
/// heard applied.
struct Beats {
    /// The requests heard applied: (when it was heard, when it was first sent), in the order
    /// they were heard.
    acks: Vec<(Duration, Duration)>,
    /// Every attempt of a write naming the lease: when it left, and its answer.
    attempts: Vec<(Duration, Option<(Duration, bool)>)>,
    lease: Duration,
}

impl Beats {
    fn of(checked: &Checked<'_>, belief: &Belief, lease: &TrueLease) -> Option<Beats> {
        let index = &checked.index;
        let process = belief.process;
        let duration = lease.versions.first()?.lease;
        // The acquire that granted the lease to this process, then every write naming it.
        let granted = lease.grants.iter().filter_map(|&(_, idx, _)| match &index.entries[idx].event {
            Event::Applied { by, request, .. } if *by == process => Some(*request),
            _ => None,
        });
        let named = index.naming.get(&(process, belief.lock, lease.owner)).into_iter().flatten().copied();
        let ids: std::collections::BTreeSet<u32> = granted.chain(named).collect();
        let requests: Vec<&Request> =
            ids.iter().filter_map(|request| index.requests.get(&(process, *request))).collect();
        let mut acks: Vec<(Duration, Duration)> =
            requests.iter().filter_map(|r| r.acknowledged().map(|at| (at, r.first_sent()))).collect();
        acks.sort();
        let mut attempts: Vec<(Duration, Option<(Duration, bool)>)> =
            requests.iter().flat_map(|r| r.attempts.iter().map(|a| (a.sent, a.answer))).collect();
        attempts.sort_by_key(|a| a.0);
        Some(Beats { acks, attempts, lease: duration })
    }
}

/// A lease renews itself a third of its duration after the send of the last write of it that
/// its process heard succeed (or at once, if that answer came later): some write of the lease
/// leaves the process by then, while the process believes in the lease and runs, unless a
/// renewal sent before is still on its way.
pub(super) fn renewals_in_time(checked: &Checked<'_>, report: &mut CheckReport) {
    let (index, machines) = (&checked.index, &checked.machines);
    for belief in index.beliefs.values().filter(|b| b.renews) {
        let Some(lease) = checked.lease_of(belief) else { continue };
        let Some(beats) = Beats::of(checked, belief, lease) else { continue };
        let id = belief.process.id;
        let mut last_sent = Duration::ZERO;
        for (k, &(heard, sent)) in beats.acks.iter().enumerate() {
            if heard > belief.end {
                break;
            }
            last_sent = last_sent.max(sent);
            // The library counts from the latest send it heard succeed; a later answer moves it on.
            if beats.acks.get(k + 1).is_some_and(|&(next, _)| next <= heard) {
                continue;
            }
            let due_mono = machines.monotonic(id, last_sent) + beats.lease / 3;
            let due = machines.when(id, due_mono, last_sent).max(heard) + LATE;
            if belief.end <= due || index.end <= due || machines.stopped_within(id, last_sent, due) {
                continue;
            }
            let next = beats.attempts.iter().map(|a| a.0).find(|&at| at > last_sent);
            if next.is_some_and(|at| at <= due) {
                continue;
            }
            // A renewal still on its way is waited for: one at a time. So is the read of the
            // item that follows a refused one.
            if beats.attempts.iter().any(|a| a.0 < due && a.1.is_none_or(|(answered, _)| answered > due))
                || refused_between(checked, belief, lease, last_sent, due)
            {
                continue;
            }
            let next_text = match next {
                Some(at) => format!("the next left at {}", seconds(at)),
                None => String::from("no other left"),
            };
            report.violations.push(checked.violation(
                ViolationKind::RenewalLate,
                belief.lock,
                format!(
                    "{} renewed token {} too late: its write of the lease sent at {} was heard applied at {}, so the \
                     next was due by {} (a third of the {} lease), but {next_text}",
                    belief.process,
                    belief.token,
                    seconds(last_sent),
                    seconds(heard),
                    seconds(due - LATE),
                    seconds(beats.lease),
                ),
                checked.index.belief_entries(belief),
                attempt_entries(checked, belief, next),
                checked.grant_entries(lease.granted_idx()),
            ));
            break;
        }
    }
}

/// A lease lost as run out had its renewals retried until less than the longest retry (a sixth
/// of the lease) was left: the failures its process heard span what the lease left for retries,
/// from when the renewal was due to a sixth before the end, unless a renewal was still on its
/// way at the end. An outage shorter than that does not lose the lease.
pub(super) fn outages_survived(checked: &Checked<'_>, report: &mut CheckReport) {
    let (index, machines) = (&checked.index, &checked.machines);
    for belief in index.beliefs.values().filter(|b| b.renews) {
        if !matches!(&belief.why, Some(Unheld::Lost(reason)) if reason == "expired") {
            continue;
        }
        let Some(lease) = checked.lease_of(belief) else { continue };
        let Some(beats) = Beats::of(checked, belief, lease) else { continue };
        let id = belief.process.id;
        let end = belief.end;
        let Some(&(heard, _)) = beats.acks.iter().filter(|(heard, _)| *heard <= end).max_by_key(|(_, sent)| *sent)
        else {
            continue;
        };
        let last_sent = beats.acks.iter().filter(|(h, _)| *h <= end).map(|(_, sent)| *sent).max().unwrap_or(heard);
        if machines.stopped_within(id, last_sent, end) || machines.suspended_within(id, last_sent, end) {
            continue;
        }
        let due = machines.when(id, machines.monotonic(id, last_sent) + beats.lease / 3, last_sent).max(heard);
        let longest_retry = beats.lease / 6;
        // A renewal still on its way when the lease ran out is waited for to the end, and so is
        // the read of the item that follows a refused one.
        if beats.attempts.iter().any(|a| a.0 <= end && a.1.is_none_or(|(answered, _)| answered >= end))
            || refused_between(checked, belief, lease, last_sent, end)
        {
            continue;
        }
        let attempts: Vec<_> = beats.attempts.iter().filter(|a| a.0 > last_sent && a.0 <= end).collect();
        let last_failure = attempts.iter().filter_map(|a| a.1.map(|(at, _)| at)).max();
        let first = attempts.first().map_or(due, |a| a.0.min(due));
        let outage = last_failure.unwrap_or(first).saturating_sub(first);
        let left_for_retries = machines.when(id, machines.monotonic(id, end).saturating_sub(longest_retry), due);
        let needed = left_for_retries.saturating_sub(due);
        if outage + LATE >= needed {
            continue;
        }
        let tried = match last_failure {
            Some(at) => format!("its last failed renewal was heard at {}", seconds(at)),
            None => String::from("it tried no renewal"),
        };
        report.violations.push(checked.violation(
            ViolationKind::LostInShortOutage,
            belief.lock,
            format!(
                "{} lost its lease (token {}) as run out at {} after an outage of {}, shorter than the {} the lease \
                 left for retries: the renewal was due at {}, {tried}, and a sixth of the lease ({}) before the end \
                 it should still have been retrying",
                belief.process,
                belief.token,
                seconds(end),
                seconds(outage),
                seconds(needed),
                seconds(due),
                seconds(longest_retry),
            ),
            checked.index.belief_entries(belief),
            Vec::new(),
            checked.grant_entries(lease.granted_idx()),
        ));
    }
}

/// Whether DynamoDB refused a write of the process naming the lease between `from` and `to`:
/// the library then reads the item to learn why, which the history does not show.
fn refused_between(checked: &Checked<'_>, belief: &Belief, lease: &TrueLease, from: Duration, to: Duration) -> bool {
    checked.index.entries.iter().any(|e| {
        e.at >= from
            && e.at <= to
            && matches!(e.event, Event::Refused { by, names, .. } if by == belief.process && names == lease.owner)
    })
}

/// The entries of the process's writes of the lease around `at`, for the report.
fn attempt_entries(checked: &Checked<'_>, belief: &Belief, at: Option<Duration>) -> Vec<usize> {
    let Some(at) = at else { return Vec::new() };
    checked
        .index
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.at == at && matches!(e.event, Event::Sent { lock, .. } if lock == belief.lock))
        .map(|(idx, _)| idx)
        .take(1)
        .collect()
}
