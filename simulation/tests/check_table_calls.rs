//! The checker's holds on the calls of a `LockTable` beside a lease's own (`describe` and the
//! listing, `shutdown`, `try_acquire_for`, `Lease::warning`), on hand-made histories: each
//! invariant fails when it should, and only then.

use std::time::Duration;

use dynalease_sim::locks::check::{CheckContext, CheckReport, ViolationKind, check};
use dynalease_sim::locks::history::{
    Actor, BeliefId, Call, Entry, Event, History, LockState, OpId, Outcome, Seen, Unheld, Value,
};

mod support;

use support::LEASE_MS;
use support::history::{LOCK, at, held_by, p};

/// DynamoDB applied the request `request` of `by`, sent at `sent_ms`.
fn applied(ms: u64, by: u16, sent_ms: u64, request: u32, before: LockState, after: LockState) -> Entry {
    let sent = Duration::from_millis(sent_ms);
    at(ms, Actor::Db, Event::Applied { lock: LOCK, by: p(by), sent, request, op: None, before, after })
}

fn sent(ms: u64, by: u16, request: u32) -> Entry {
    at(ms, Actor::Process(p(by)), Event::Sent { lock: LOCK, request, names: 0 })
}

fn answered(ms: u64, by: u16, request: u32) -> Entry {
    at(ms, Actor::Process(p(by)), Event::Answered { lock: LOCK, request, ok: true })
}

fn invoke(ms: u64, process: u16, op: u32, call: Call) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Invoke { op: OpId(op), call })
}

fn complete(ms: u64, process: u16, op: u32, outcome: Outcome, value: Value) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Complete { op: OpId(op), outcome, value })
}

fn run(mut entries: Vec<Entry>) -> CheckReport {
    entries.sort_by_key(|e| e.at);
    let history = History::from_entries(entries, vec![String::from("job")]);
    let context = CheckContext {
        drift_ppm: vec![0, 0],
        takeover_bound: Duration::from_secs(40),
        lease: Duration::from_millis(LEASE_MS),
    };
    check(&history, &context)
}

fn kinds(report: &CheckReport) -> Vec<ViolationKind> {
    report.violations.iter().map(|v| v.kind).collect()
}

/// The violations of the warnings alone: a lease that renews itself and is never renewed in a
/// hand-made history breaks the heartbeat's invariants too.
fn warnings(report: &CheckReport) -> Vec<ViolationKind> {
    kinds(report).into_iter().filter(|kind| *kind == ViolationKind::WarningOffTime).collect()
}

/// p0 sends its acquire (request 1) at 0, is granted owner 1 and token 1 and hears it at 5 ms.
fn granted() -> Vec<Entry> {
    vec![sent(0, 0, 1), applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1)), answered(5, 0, 1)]
}

#[test]
fn a_description_or_a_listing_that_fits_no_instant_of_the_item_is_a_violation() {
    let held = Seen { lock: LOCK, fence: 1, lease_ms: Some(LEASE_MS) };
    let free = Seen { lock: LOCK, fence: 1, lease_ms: None };
    let asked = |call: Call, value: Value| {
        let mut entries = granted();
        entries.push(invoke(10_000, 1, 0, call));
        entries.push(complete(10_004, 1, 0, Outcome::Ok, value));
        entries
    };
    let describe = || Call::Describe { lock: LOCK };
    assert_eq!(kinds(&run(asked(describe(), Value::Described(Some(held))))), []);
    assert_eq!(kinds(&run(asked(Call::List, Value::Listed(vec![held])))), []);
    assert_eq!(kinds(&run(asked(describe(), Value::Described(Some(free))))), [ViolationKind::WrongDescription]);
    assert_eq!(kinds(&run(asked(describe(), Value::Described(None)))), [ViolationKind::WrongDescription]);
    let report = run(asked(Call::List, Value::Listed(Vec::new())));
    assert_eq!(kinds(&report), [ViolationKind::WrongDescription]);
    assert!(report.violations[0].message.contains("told no lock"), "{}", report.violations[0].message);
    // Released during the call: free fits too.
    let mut released = asked(describe(), Value::Described(Some(free)));
    released.push(applied(10_002, 0, 10_000, 2, held_by(1, 1, 1), LockState::Free { fence: 1 }));
    assert_eq!(kinds(&run(released)), []);
}

#[test]
fn a_shutdown_that_leaves_a_lease_held_outruns_its_bound_or_acquires_after_it_is_a_violation() {
    let shutdown = |release: bool, done_ms: u64, unanswered: usize, refused: bool| {
        let mut entries = granted();
        entries.push(invoke(10_000, 0, 0, Call::Shutdown { within_ms: 5_000, leases: vec![(LOCK, 1)] }));
        if release {
            entries.push(applied(10_002, 0, 10_000, 2, held_by(1, 1, 1), LockState::Free { fence: 1 }));
        }
        let value = Value::ShutDown { released: usize::from(release), failed: 0, unanswered, refused };
        entries.push(complete(done_ms, 0, 0, Outcome::Ok, value));
        entries
    };
    assert_eq!(kinds(&run(shutdown(true, 10_004, 0, true))), []);
    assert_eq!(kinds(&run(shutdown(false, 15_000, 1, true))), [], "the report counts the release unanswered");
    let report = run(shutdown(false, 10_004, 0, true));
    assert_eq!(kinds(&report), [ViolationKind::ShutdownLeftHeld]);
    assert!(report.violations[0].message.contains("the lease of token 1"), "{}", report.violations[0].message);
    assert_eq!(kinds(&run(shutdown(true, 16_000, 0, true))), [ViolationKind::ShutdownLeftHeld]);
    assert_eq!(kinds(&run(shutdown(true, 10_004, 0, false))), [ViolationKind::ShutdownLeftHeld]);
}

#[test]
fn a_try_acquire_for_that_gives_up_early_or_on_a_free_lock_or_returns_late_is_a_violation() {
    // p1 holds the lock from 2 ms on (owner 1, token 1); p0 waits 60 s for it from 1 s on.
    let tried = |free_at: Option<u64>, done_ms: u64, outcome: Outcome| {
        let mut entries = vec![applied(2, 1, 0, 1, LockState::Absent, held_by(1, 1, 1))];
        if let Some(ms) = free_at {
            entries.push(applied(ms, 1, ms, 2, held_by(1, 1, 1), LockState::Free { fence: 1 }));
        }
        entries.push(invoke(1_000, 0, 0, Call::TryAcquireFor { lock: LOCK, wait_ms: 60_000 }));
        let value = if outcome == Outcome::Fail { Value::Text(String::from("held")) } else { Value::Token(2) };
        entries.push(complete(done_ms, 0, 0, outcome, value));
        entries
    };
    assert_eq!(kinds(&run(tried(None, 61_004, Outcome::Fail))), []);
    assert_eq!(kinds(&run(tried(None, 5_000, Outcome::Fail))), [ViolationKind::WaitNotKept], "gave up early");
    // Free from 30 s on: its last poll, from 20 s before its deadline, found no owner.
    assert_eq!(kinds(&run(tried(Some(30_000), 61_004, Outcome::Fail))), [ViolationKind::WaitNotKept]);
    assert_eq!(kinds(&run(tried(None, 95_000, Outcome::Info))), [ViolationKind::WaitNotKept], "returned late");
}

#[test]
fn a_warning_too_late_missing_or_while_renewals_succeed_is_a_violation() {
    // p0 believes in its lease from 5 ms on, asks for a warning 5 s before its end, and then
    // either the lease runs out at 30 s without a renewal, or it is renewed at 10 s.
    let warned = |renewed: bool, warned_ms: Option<u64>| {
        let mut entries = granted();
        entries.push(at(
            5,
            Actor::Process(p(0)),
            Event::Held { belief: BeliefId(0), lock: LOCK, token: 1, renews: true },
        ));
        entries.push(at(
            5,
            Actor::Process(p(0)),
            Event::Warning { lock: LOCK, token: 1, margin: Duration::from_secs(5) },
        ));
        let why = if renewed {
            entries.push(sent(10_000, 0, 2));
            entries.push(applied(10_002, 0, 10_000, 2, held_by(1, 1, 1), held_by(1, 2, 1)));
            entries.push(answered(10_004, 0, 2));
            Unheld::Released
        } else {
            Unheld::Lost(String::from("expired"))
        };
        entries.push(at(30_000, Actor::Process(p(0)), Event::Unheld { belief: BeliefId(0), why }));
        if let Some(ms) = warned_ms {
            entries.push(at(ms, Actor::Process(p(0)), Event::Warned { lock: LOCK, token: 1 }));
        }
        entries
    };
    assert_eq!(warnings(&run(warned(false, Some(25_000)))), []);
    assert_eq!(warnings(&run(warned(true, None))), []);
    assert_eq!(warnings(&run(warned(false, Some(29_000)))), [ViolationKind::WarningOffTime]);
    assert_eq!(warnings(&run(warned(false, None))), [ViolationKind::WarningOffTime]);
    let report = run(warned(true, Some(25_000)));
    assert_eq!(warnings(&report), [ViolationKind::WarningOffTime]);
    let warning = report.violations.iter().find(|v| v.kind == ViolationKind::WarningOffTime).expect("a warning");
    assert!(warning.message.contains("renewals its process heard succeed"), "{}", warning.message);
}
