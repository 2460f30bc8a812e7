//! What a shutdown of a `LockTable` promises, held against the lock items: it returns within its
//! bound, it leaves no lease of the table on its item but those its report counts as failed or
//! unanswered, and the table acquires nothing after it.

use std::time::Duration;

use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Call, Event, Unheld, Value};

/// How much later than its bound a shutdown may return: the timer's own granularity.
const SLACK: Duration = Duration::from_millis(5);

/// Every shutdown that returned did so within its bound on its process's clock (unless the
/// process was stopped meanwhile), left at most as many of its table's leases on their items as
/// its report counts failed or unanswered, and was followed by an acquire of the table that was
/// refused before anything was sent.
pub(super) fn shutdowns_release(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let machines = &checked.machines;
    for (&op, shut) in &index.ops {
        let Call::Shutdown { within_ms, leases } = shut.call else { continue };
        let Some(complete) = shut.complete else { continue };
        let Event::Complete { value: Value::ShutDown { failed, unanswered, refused, .. }, .. } =
            &index.entries[complete].event
        else {
            continue;
        };
        let p = shut.process;
        let (from, to) = (index.entries[shut.invoke].at, index.entries[complete].at);
        let mut wrong = Vec::new();
        let within = Duration::from_millis(*within_ms);
        let took = machines.monotonic(p.id, to).saturating_sub(machines.monotonic(p.id, from));
        if took > within + SLACK && !machines.stopped_within(p.id, from, to) {
            wrong.push(format!("it took {} of a bound of {}", seconds(took), seconds(within)));
        }
        if !refused {
            wrong.push(String::from("an acquire of the table after it was not refused with ShutDown"));
        }
        let granted = index.entries[shut.invoke..=complete]
            .iter()
            .any(|e| matches!(&e.event, Event::Applied { op: Some(of), .. } if *of == op) && e.event.grant().is_some());
        if granted {
            wrong.push(String::from("DynamoDB granted a lock to an acquire of the table after it"));
        }
        let mut left = Vec::new();
        for &(lock, token) in leases {
            let Some(lease) = checked.truth.lease_held(lock, p, token, shut.invoke) else { continue };
            if checked.truth.state_at(lock, complete).owner() != Some(lease.owner) {
                continue;
            }
            // A lease the process knew lost (taken over, deleted, its table gone) is not released.
            let lost = index.beliefs.values().any(|b| {
                b.process == p
                    && b.lock == lock
                    && b.token == token
                    && b.end <= to
                    && matches!(&b.why, Some(Unheld::Lost(reason)) if reason != "expired")
            });
            if !lost {
                left.push((lock, token));
            }
        }
        if left.len() > failed + unanswered {
            let names: Vec<String> = left.iter().map(|(_, token)| format!("the lease of token {token}")).collect();
            wrong.push(format!(
                "it left {} on the item while its report counts {failed} failed and {unanswered} unanswered",
                names.join(", ")
            ));
        }
        if wrong.is_empty() {
            continue;
        }
        let lock = leases.first().map_or(crate::locks::history::LockId(0), |(lock, _)| *lock);
        report.violations.push(checked.violation(
            ViolationKind::ShutdownLeftHeld,
            lock,
            format!("{p} shut its table down at {}: {}", seconds(from), wrong.join("; ")),
            index.op_entries(op),
            Vec::new(),
            Vec::new(),
        ));
    }
}
