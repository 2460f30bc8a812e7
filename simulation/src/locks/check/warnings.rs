//! What `Lease::warning` promises, held against the writes of the lease and its holder's clock:
//! it fires before the lease runs out with time to spare, when the lease is lost at the latest,
//! and never while renewals succeed on time.

use std::time::Duration;

use super::index::Belief;
use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Actor, Event, Unheld, WriteEffect};

/// How far the warning may stray from its instant: the timer's own granularity.
const SLACK: Duration = Duration::from_millis(5);

/// Every warning asked for on a lease with a heartbeat fired no sooner than `margin` before the
/// end of the lease as the writes its process heard succeed set it (unless the lease was lost by
/// then), at least half its margin before the lease ran out on its holder's clock (unless the
/// holder was stopped meanwhile, or asked with less than the margin left), and at the latest when
/// the lease was lost.
pub(super) fn warnings_in_time(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let machines = &checked.machines;
    for (idx, entry) in index.entries.iter().enumerate() {
        let (Event::Warning { lock, token, margin }, Actor::Process(p)) = (&entry.event, entry.actor) else {
            continue;
        };
        let (lock, token, margin) = (*lock, *token, *margin);
        let belief = index.beliefs.values().find(|b| {
            b.process == p
                && b.lock == lock
                && b.token == token
                && b.renews
                && b.start_idx <= idx
                && b.end_idx.is_none_or(|end| end >= idx)
        });
        let Some(belief) = belief else { continue };
        let warned = index.entries[idx..].iter().enumerate().find_map(|(i, e)| match (&e.event, e.actor) {
            (Event::Warned { lock: l, token: t }, Actor::Process(q)) if q == p && *l == lock && *t == token => {
                Some((idx + i, e.at))
            }
            _ => None,
        });
        let mono = |at| machines.monotonic(p.id, at);
        let lost = |at: Duration| belief.end <= at && matches!(belief.why, Some(Unheld::Lost(_)));
        let wrong = match (warned, &belief.why) {
            (Some((_, at)), _)
                if !lost(at)
                    && heard_until(checked, belief, at).is_some_and(|until| until > mono(at) + margin + SLACK) =>
            {
                let until = heard_until(checked, belief, at).unwrap_or_default();
                Some(format!(
                    "it fired with {} of the lease left by the renewals its process heard succeed",
                    seconds(until - mono(at))
                ))
            }
            (_, Some(Unheld::Lost(reason))) if reason == "expired" => {
                let end = mono(belief.end);
                let asked_in_time = end >= mono(entry.at) + margin;
                let stopped = machines.stopped_within(p.id, belief.end.saturating_sub(2 * margin), belief.end);
                let spare = warned.map(|(_, at)| end.saturating_sub(mono(at)));
                match spare {
                    Some(spare) if spare + SLACK >= margin / 2 => None,
                    _ if !asked_in_time || stopped => None,
                    Some(spare) => Some(format!(
                        "it fired {} before the lease ran out, with a margin of {}",
                        seconds(spare),
                        seconds(margin)
                    )),
                    None => Some(String::from("the lease ran out and it never fired")),
                }
            }
            (None, Some(Unheld::Lost(reason))) => Some(format!("the lease was lost ({reason}) and it never fired")),
            (Some((_, at)), Some(Unheld::Lost(reason))) if at > belief.end + SLACK => {
                Some(format!("the lease was lost ({reason}) at {} and it fired later", seconds(belief.end)))
            }
            _ => None,
        };
        let Some(wrong) = wrong else { continue };
        let mut first = index.belief_entries(belief);
        first.push(idx);
        report.violations.push(checked.violation(
            ViolationKind::WarningOffTime,
            lock,
            format!("{p} asked for a warning {} before the end of token {token}: {wrong}", seconds(margin)),
            first,
            warned.map(|(i, _)| vec![i]).unwrap_or_default(),
            Vec::new(),
        ));
    }
}

/// The end of the lease of `belief` on its holder's monotonic clock, as the writes of it that
/// its process heard succeed before global time `at` set it: a lease from the send of each.
fn heard_until(checked: &Checked<'_>, belief: &Belief, at: Duration) -> Option<Duration> {
    let index = &checked.index;
    let p = belief.process;
    let owner = checked.truth.lease_held(belief.lock, p, belief.token, belief.start_idx)?.owner;
    index
        .entries
        .iter()
        .filter_map(|e| match &e.event {
            Event::Applied { lock, by, request, before, after, .. }
                if *lock == belief.lock
                    && *by == p
                    && after.owner() == Some(owner)
                    && matches!(WriteEffect::of(before, after), WriteEffect::Grant | WriteEffect::Renewal) =>
            {
                let sent = index.requests.get(&(p, *request))?;
                sent.acknowledged().filter(|heard| *heard < at)?;
                let lease = Duration::from_millis(after.held()?.lease_ms);
                Some(checked.machines.monotonic(p.id, sent.first_sent()) + lease)
            }
            _ => None,
        })
        .max()
}
