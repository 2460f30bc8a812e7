//! What `try_acquire_for` promises of its wait, held against the lock item and the process's
//! clock: it gives up only once its wait has run out, on a lock held during its last poll, and
//! it returns no later than the wait and the requests of one poll.

use std::time::Duration;

use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::{Call, Event, Nemesis, Outcome};

/// How long the requests of one poll may take after the wait ran out: a read and a write, each
/// with the client's attempts of [`REQUEST_TIMEOUT`](crate::net::REQUEST_TIMEOUT) and the
/// back-off between them.
const LAST_POLL: Duration = Duration::from_secs(20);

/// How much sooner than its deadline a call may give up: the timer's own granularity.
const SLACK: Duration = Duration::from_millis(5);

/// Every `try_acquire_for` that came back without a lease did so once its wait had run out on
/// its process's clock, and the item was held at some instant of its last poll (from one poll's
/// time before the deadline to its answer); every one
/// returned within its wait and one poll (and the time of the writes it sent that were still under
/// way at its deadline). The last two hold unless its process was stopped during the call, or the
/// nemesis held or delayed one of its requests.
pub(super) fn waits_kept(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
    let machines = &checked.machines;
    for (&op, tried) in &index.ops {
        let Call::TryAcquireFor { lock, wait_ms } = tried.call else { continue };
        let Some(complete) = tried.complete else { continue };
        let Event::Complete { outcome, .. } = &index.entries[complete].event else { continue };
        let p = tried.process;
        let (from, to) = (index.entries[tried.invoke].at, index.entries[complete].at);
        let wait = Duration::from_millis(*wait_ms);
        let deadline = machines.when(p.id, machines.monotonic(p.id, from) + wait, from);
        let took = machines.monotonic(p.id, to).saturating_sub(machines.monotonic(p.id, from));
        // A process stopped during the call, or whose requests the nemesis held or delayed at a
        // moment of the protocol (past the network's timeout), may look last and return late.
        let disturbed = machines.stopped_within(p.id, from, to)
            || index.entries[tried.invoke..=complete]
                .iter()
                .any(|e| matches!(&e.event, Event::Nemesis(Nemesis::Triggered { process }) if process.id == p.id));
        let wrong = if *outcome == Outcome::Fail && to + SLACK < deadline {
            Some(format!("it gave up after {} of a wait of {}", seconds(took), seconds(wait)))
        } else if *outcome == Outcome::Fail
            && !disturbed
            && !held_at_last_look(checked, *lock, deadline.saturating_sub(LAST_POLL).max(from), complete)
        {
            Some(String::from("it gave up, though the item had no owner during its last poll"))
        } else if !disturbed && took > wait + LAST_POLL + held_past(checked, p, *lock, (from, to), deadline) {
            Some(format!("it returned after {} of a wait of {}", seconds(took), seconds(wait)))
        } else {
            None
        };
        let Some(wrong) = wrong else { continue };
        report.violations.push(checked.violation(
            ViolationKind::WaitNotKept,
            *lock,
            format!("{p} tried the lock for {} at {}: {wrong}", seconds(wait), seconds(from)),
            index.op_entries(op),
            Vec::new(),
            Vec::new(),
        ));
    }
}

/// How long the writes of `process` to `lock` sent during the call (from global time `call.0` to
/// `call.1`) and still under way at `deadline` took, from their first attempt to their last
/// answer (or the call's end): a write the network holds, or the nemesis until a moment of the
/// protocol, is waited for.
fn held_past(
    checked: &Checked<'_>,
    process: crate::locks::history::ProcessRef,
    lock: crate::locks::history::LockId,
    call: (Duration, Duration),
    deadline: Duration,
) -> Duration {
    let requests = checked.index.requests.range((process, 0)..=(process, u32::MAX));
    requests
        .filter(|(_, r)| r.lock == lock && r.first_sent() >= call.0 && r.first_sent() <= call.1)
        .filter_map(|(_, r)| {
            let last = r.attempts.last()?.answer.map_or(call.1, |(at, _)| at);
            (last > deadline).then(|| last.saturating_sub(r.first_sent()))
        })
        .sum()
}

/// Whether the item of `lock` had an owner at some instant from global time `from` to entry `to`.
fn held_at_last_look(checked: &Checked<'_>, lock: crate::locks::history::LockId, from: Duration, to: usize) -> bool {
    let entries = checked.index.entries;
    let start = entries.partition_point(|e| e.at < from).saturating_sub(1);
    checked.truth.states_between(lock, start, to).iter().any(|state| state.held().is_some())
}
