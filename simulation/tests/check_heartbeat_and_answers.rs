//! The checker's holds on the heartbeat and on what the library answers, on hand-made
//! histories: each invariant fails when it should, and only then.

use std::time::Duration;

use dynalease_sim::locks::check::{CheckContext, CheckReport, ViolationKind, check};
use dynalease_sim::locks::history::{
    Actor, BeliefId, Call, Entry, Event, History, LockState, Nemesis, OpId, Outcome, Phase, Unheld, Value,
};

mod support;

use support::LEASE_MS;
use support::history::{LOCK, at, held_by, p};

/// DynamoDB applied the request `request` of `by`, sent at `sent_ms`.
fn applied(ms: u64, by: u16, sent_ms: u64, request: u32, before: LockState, after: LockState) -> Entry {
    let sent = Duration::from_millis(sent_ms);
    at(ms, Actor::Db, Event::Applied { lock: LOCK, by: p(by), sent, request, op: None, before, after })
}

fn sent(ms: u64, by: u16, request: u32, names: u32) -> Entry {
    at(ms, Actor::Process(p(by)), Event::Sent { lock: LOCK, request, names })
}

fn answered(ms: u64, by: u16, request: u32, ok: bool) -> Entry {
    at(ms, Actor::Process(p(by)), Event::Answered { lock: LOCK, request, ok })
}

fn held(ms: u64, process: u16, belief: u32, token: u64, renews: bool) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Held { belief: BeliefId(belief), lock: LOCK, token, renews })
}

fn unheld(ms: u64, process: u16, belief: u32, why: Unheld) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Unheld { belief: BeliefId(belief), why })
}

fn invoke(ms: u64, process: u16, op: u32, call: Call) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Invoke { op: OpId(op), call })
}

fn complete(ms: u64, process: u16, op: u32, outcome: Outcome, value: Value) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Complete { op: OpId(op), outcome, value })
}

fn nemesis(ms: u64, what: Nemesis) -> Entry {
    at(ms, Actor::Nemesis, Event::Nemesis(what))
}

fn run(mut entries: Vec<Entry>) -> CheckReport {
    entries.sort_by_key(|e| e.at);
    let history = History::from_entries(entries, vec![String::from("leader")]);
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

/// p0 sends its acquire (request 1) at 0, is granted owner 1 and token 1, hears it at 5 ms, and
/// believes in the lease, which renews itself, until `end_ms`, for `why`.
fn granted(end_ms: u64, why: Unheld) -> Vec<Entry> {
    vec![
        sent(0, 0, 1, 0),
        applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1)),
        answered(5, 0, 1, true),
        held(5, 0, 0, 1, true),
        unheld(end_ms, 0, 0, why),
    ]
}

/// A renewal of owner 1 by p0 (request `request`) sent at `ms`, applied, and heard `ok` 4 ms later.
fn renewal(ms: u64, request: u32, version: u32, ok: bool) -> Vec<Entry> {
    let mut entries = vec![sent(ms, 0, request, 1)];
    if ok {
        entries.push(applied(ms + 2, 0, ms, request, held_by(1, version - 1, 1), held_by(1, version, 1)));
    }
    entries.push(answered(ms + 4, 0, request, ok));
    entries
}

#[test]
fn a_renewal_sent_later_than_a_third_of_the_lease_after_the_last_success_is_a_violation() {
    // Due at 10 s (a third of 30 s after the send of the acquire), sent at 10 s: in time.
    let mut in_time = granted(15_000, Unheld::Released);
    in_time.extend(renewal(10_000, 2, 2, true));
    assert_eq!(kinds(&run(in_time)), []);

    // Sent at 12 s: two seconds late.
    let mut late = granted(25_000, Unheld::Released);
    late.extend(renewal(12_000, 2, 2, true));
    let report = run(late);
    assert_eq!(kinds(&report), [ViolationKind::RenewalLate]);
    assert!(report.violations[0].message.contains("the next left at 12.000 s"), "{}", report.violations[0].message);

    // A renewal counts from its own send: the next is due at 20 s, and sent at 21 s.
    let mut second_late = granted(25_000, Unheld::Released);
    second_late.extend(renewal(10_000, 2, 2, true));
    second_late.extend(renewal(21_000, 3, 3, true));
    assert_eq!(kinds(&run(second_late)), [ViolationKind::RenewalLate]);
}

#[test]
fn a_late_renewal_is_no_violation_when_its_process_was_stopped_or_its_lease_had_ended() {
    let mut paused = granted(20_000, Unheld::Released);
    paused.extend(renewal(14_000, 2, 2, true));
    paused.push(nemesis(8_000, Nemesis::Pause(p(0))));
    paused.push(nemesis(14_000, Nemesis::Resume(p(0))));
    assert_eq!(kinds(&run(paused)), []);

    // Released at 9 s, before the renewal was due.
    assert_eq!(kinds(&run(granted(9_000, Unheld::Released))), []);

    // A renewal sent at 8 s and still on its way at 10 s is waited for.
    let mut in_flight = granted(15_000, Unheld::Released);
    in_flight.push(sent(8_000, 0, 2, 1));
    in_flight.push(answered(11_000, 0, 2, false));
    in_flight.extend(renewal(11_000, 3, 2, true));
    assert_eq!(kinds(&run(in_flight)), []);
}

#[test]
fn a_lease_lost_after_its_renewals_stopped_early_is_lost_in_a_short_outage() {
    // Renewals fail from 10 s; a retry comes at most 5 s (a sixth of the lease) after each
    // failure, so the last failure heard is within 5 s of the end at 30 s: the outage was long.
    let mut retried = granted(30_000, Unheld::Lost(String::from("expired")));
    for (request, send) in [10_000, 10_200, 10_600, 11_400, 13_000, 16_200, 21_200, 26_200].into_iter().enumerate() {
        retried.extend(renewal(send, request as u32 + 2, 0, false));
    }
    assert_eq!(kinds(&run(retried)), []);

    // The heartbeat gave up after its first failure: an outage of an instant lost the lease.
    let mut gave_up = granted(30_000, Unheld::Lost(String::from("expired")));
    gave_up.extend(renewal(10_000, 2, 0, false));
    let report = run(gave_up);
    assert_eq!(kinds(&report), [ViolationKind::LostInShortOutage]);
    assert!(report.violations[0].message.contains("after an outage of 0.004 s"), "{}", report.violations[0].message);

    // A renewal still on its way when the lease ran out is waited for.
    let mut waiting = granted(30_000, Unheld::Lost(String::from("expired")));
    waiting.extend(renewal(10_000, 2, 0, false));
    waiting.push(sent(12_000, 0, 3, 1));
    assert_eq!(kinds(&run(waiting)), []);
}

/// p1 asks whether the lock is held, from `from_ms` to `to_ms`, and is told `held`.
fn exists(op: u32, from_ms: u64, to_ms: u64, held: bool) -> Vec<Entry> {
    vec![invoke(from_ms, 1, op, Call::Exists { lock: LOCK }), complete(to_ms, 1, op, Outcome::Ok, Value::Bool(held))]
}

#[test]
fn exists_that_contradicts_the_item_during_its_call_is_a_violation() {
    // p0 holds the lock from 0 to the end of its lease at 30 s, renewing nothing.
    let grant = [applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1))];
    let with = |extra: Vec<Entry>| grant.iter().cloned().chain(extra).collect::<Vec<_>>();

    assert_eq!(kinds(&run(with(exists(0, 10_000, 10_010, true)))), []);
    assert_eq!(kinds(&run(with(exists(0, 10_000, 10_010, false)))), [ViolationKind::WrongExists]);
    // Once the holder's lease ran out, false is what a table that watched it says.
    assert_eq!(kinds(&run(with(exists(0, 31_000, 31_010, false)))), []);
    // Before the grant the lock is free: true is wrong.
    assert_eq!(kinds(&run(with(exists(0, 0, 1, true)))), [ViolationKind::WrongExists]);
}

#[test]
fn exists_that_still_counts_a_holder_seen_unchanged_for_a_whole_lease_is_a_violation() {
    let grant = vec![applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1))];
    let mut stale = grant.clone();
    stale.extend(exists(0, 1_000, 1_010, true));
    stale.extend(exists(1, 40_000, 40_010, true));
    assert_eq!(kinds(&run(stale.clone())), [ViolationKind::StaleExists]);

    // Less than a lease apart, true is right.
    let mut fresh = grant.clone();
    fresh.extend(exists(0, 1_000, 1_010, true));
    fresh.extend(exists(1, 20_000, 20_010, true));
    assert_eq!(kinds(&run(fresh)), []);

    // A renewal in between is a new holder record: true again.
    stale.push(applied(20_002, 0, 20_000, 2, held_by(1, 1, 1), held_by(1, 2, 1)));
    assert_eq!(kinds(&run(stale)), []);
}

#[test]
fn a_release_that_returned_while_the_item_kept_the_lease_is_a_violation() {
    let grant = applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1));
    let release = |ok: bool| {
        let mut entries = vec![grant.clone(), invoke(10_000, 0, 0, Call::Release { lock: LOCK, token: 1 })];
        if ok {
            entries.push(sent(10_000, 0, 2, 1));
            entries.push(applied(10_002, 0, 10_000, 2, held_by(1, 1, 1), LockState::Free { fence: 1 }));
        }
        entries.push(complete(10_004, 0, 0, Outcome::Ok, Value::None));
        entries
    };
    assert_eq!(kinds(&run(release(true))), []);
    let report = run(release(false));
    assert_eq!(kinds(&report), [ViolationKind::HeldAfterRelease]);
    assert!(report.violations[0].message.contains("no write of it was sent"), "{}", report.violations[0].message);
}

#[test]
fn a_release_by_a_token_number_two_leases_of_the_process_carried_is_not_held_against_the_later() {
    // p0 holds owner 1 with token 1; the nemesis deletes the item, and p0 acquires the lock
    // again as owner 2, whose token starts at 1 again. A release of token 1 that returns while
    // owner 2 holds the item may have meant owner 1's lease, which the deletion ended.
    let history = |deleted: bool| {
        let mut entries = vec![applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1))];
        if deleted {
            entries.push(nemesis(5_000, Nemesis::DeleteItem(LOCK)));
            entries.push(applied(6_002, 0, 6_000, 2, LockState::Absent, held_by(2, 2, 1)));
        }
        entries.push(invoke(10_000, 0, 0, Call::Release { lock: LOCK, token: 1 }));
        entries.push(complete(10_004, 0, 0, Outcome::Ok, Value::None));
        entries
    };
    assert_eq!(kinds(&run(history(true))), []);
    // Without the deletion one lease carried the number, and the item kept it.
    assert_eq!(kinds(&run(history(false))), [ViolationKind::HeldAfterRelease]);
}

#[test]
fn a_lease_let_go_of_after_the_heal_leaves_the_item_within_seconds() {
    // Every fault is healed at 1 s; p0 holds owner 1 (a lease with a heartbeat) and lets go of
    // it at 10 s, by a drop whose release goes out in the background.
    let let_go = |released_ms: Option<u64>| {
        let mut entries = granted(10_000, Unheld::Released);
        entries.push(at(1_000, Actor::World, Event::Phase(Phase::Healed)));
        if let Some(ms) = released_ms {
            entries.push(sent(ms - 2, 0, 2, 1));
            entries.push(applied(ms, 0, ms - 2, 2, held_by(1, 1, 1), LockState::Free { fence: 1 }));
        }
        entries.push(at(30_000, Actor::World, Event::Phase(Phase::End)));
        entries
    };
    assert_eq!(kinds(&run(let_go(Some(10_004)))), []);
    let report = run(let_go(None));
    assert_eq!(kinds(&report), [ViolationKind::HeldAfterLetGo]);
    assert!(report.violations[0].message.contains("let go of its lease with token 1 at 10.000 s"));
    assert_eq!(kinds(&run(let_go(Some(20_000)))), [ViolationKind::HeldAfterLetGo]);
    // A process that crashed as it let go sent nothing, and that is no fault of the library.
    let mut crashed = let_go(None);
    crashed.push(nemesis(10_001, Nemesis::Crash(p(0))));
    assert_eq!(kinds(&run(crashed)), []);
}

#[test]
fn an_election_stopped_while_it_waited_returns_at_once() {
    let stop = Call::Resign { lock: LOCK, token: None, stopped: true };
    let at_once = vec![invoke(5_000, 1, 0, stop.clone()), complete(5_000, 1, 0, Outcome::Ok, Value::None)];
    assert_eq!(kinds(&run(at_once)), []);
    let waited = vec![invoke(5_000, 1, 0, stop), complete(9_000, 1, 0, Outcome::Ok, Value::None)];
    assert_eq!(kinds(&run(waited)), [ViolationKind::SlowStop]);
}

#[test]
fn a_promise_a_process_saw_broken_is_a_violation() {
    let broken = at(1_000, Actor::Process(p(1)), Event::Broken { lock: LOCK, what: String::from("it said so") });
    let report = run(vec![broken]);
    assert_eq!(kinds(&report), [ViolationKind::BrokenPromise]);
    assert!(report.violations[0].message.contains("it said so"));
}

#[test]
fn a_lease_said_deleted_needs_a_refusal_that_found_no_item() {
    let lost = |refused: LockState| {
        let mut entries = granted(12_000, Unheld::Lost(String::from("deleted")));
        entries.push(sent(10_000, 0, 2, 1));
        entries.push(at(
            10_002,
            Actor::Db,
            Event::Refused { lock: LOCK, by: p(0), request: 2, state: refused, names: 1 },
        ));
        entries.push(answered(10_004, 0, 2, false));
        entries
    };
    let mut deleted = lost(LockState::Absent);
    deleted.push(nemesis(9_000, Nemesis::DeleteItem(LOCK)));
    assert_eq!(kinds(&run(deleted)), []);
    // The item was held by another owner: taken over, not deleted.
    let mut taken = lost(held_by(2, 2, 2));
    taken.push(applied(9_000, 1, 8_999, 9, held_by(1, 1, 1), held_by(2, 2, 2)));
    assert!(kinds(&run(taken)).contains(&ViolationKind::WrongLossReason));
}

#[test]
fn a_renewal_by_a_process_the_token_was_handed_to_is_its_own() {
    let handed = at(9_000, Actor::Process(p(1)), Event::HandedOver { lock: LOCK, token: 1, from: p(0) });
    let renewal = applied(10_002, 1, 10_000, 2, held_by(1, 1, 1), held_by(1, 2, 1));
    let grant = applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1));
    assert_eq!(kinds(&run(vec![grant.clone(), handed, renewal.clone()])), []);
    assert_eq!(kinds(&run(vec![grant, renewal])), [ViolationKind::ForeignWrite]);
}

#[test]
fn a_write_to_an_item_that_is_no_lock_is_a_violation_until_the_item_is_deleted() {
    // The nemesis replaces the item twice, then deletes it; p0 acquires the lock afterwards.
    let history = |grant_ms: u64| {
        vec![
            nemesis(1_000, Nemesis::CorruptItem(LOCK)),
            nemesis(2_000, Nemesis::CorruptItem(LOCK)),
            nemesis(3_000, Nemesis::DeleteItem(LOCK)),
            sent(grant_ms - 2, 0, 1, 0),
            applied(grant_ms, 0, grant_ms - 2, 1, LockState::Absent, held_by(1, 1, 1)),
            answered(grant_ms + 2, 0, 1, true),
        ]
    };
    assert_eq!(kinds(&run(history(5_000))), []);
    assert_eq!(kinds(&run(history(2_500))), [ViolationKind::ForeignItem]);
}

#[test]
fn an_election_stopped_while_it_led_hears_its_release_before_it_returns() {
    // p0 leads with token 1; its caller stops it at 10 s. Before the heal a release may fail,
    // but the election waits for its answer: one that comes after the return was left behind.
    let stop = Call::Resign { lock: LOCK, token: Some(1), stopped: true };
    let stopped = |answered_ms: u64| {
        vec![
            applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1)),
            invoke(10_000, 0, 0, stop.clone()),
            sent(10_000, 0, 2, 1),
            answered(answered_ms, 0, 2, false),
            complete(10_010, 0, 0, Outcome::Ok, Value::None),
        ]
    };
    assert_eq!(kinds(&run(stopped(10_008))), []);
    assert_eq!(kinds(&run(stopped(10_020))), [ViolationKind::HeldAfterRelease]);
}

#[test]
fn an_election_stopped_while_its_write_was_on_its_way_waits_for_the_clients_retries_of_it() {
    // p1's acquire (request 5) is on its way at the stop; its answer is lost and the client
    // retries it a second later. The election returns once the retry is answered.
    let stop = Call::Resign { lock: LOCK, token: None, stopped: true };
    let stopped = |returned_ms: u64| {
        vec![
            sent(5_000, 1, 5, 7),
            invoke(5_000, 1, 0, stop.clone()),
            answered(5_010, 1, 5, false),
            sent(6_010, 1, 5, 7),
            answered(6_020, 1, 5, false),
            complete(returned_ms, 1, 0, Outcome::Ok, Value::None),
        ]
    };
    assert_eq!(kinds(&run(stopped(6_020))), []);
    assert_eq!(kinds(&run(stopped(9_000))), [ViolationKind::SlowStop]);
}

#[test]
fn a_renewal_that_answered_true_while_the_item_held_no_lease_of_its_token_is_a_violation() {
    // p0 holds owner 1 with token 1 and releases it at 5 s; at 10 s it renews the same token.
    let history = |released: bool, answer: Value| {
        let mut entries = vec![applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1))];
        if released {
            entries.push(applied(5_002, 0, 5_000, 2, held_by(1, 1, 1), LockState::Free { fence: 1 }));
        }
        entries.push(invoke(10_000, 0, 0, Call::Renew { lock: LOCK, token: 1 }));
        entries.push(complete(10_004, 0, 0, Outcome::Ok, answer));
        entries
    };
    assert_eq!(kinds(&run(history(false, Value::None))), [], "the lease held the item");
    assert_eq!(kinds(&run(history(true, Value::Bool(false)))), [], "a renewal that answered false");
    let report = run(history(true, Value::None));
    assert_eq!(kinds(&report), [ViolationKind::RenewedUnheld]);
    assert!(report.violations[0].message.contains("no owner (token 1)"), "{}", report.violations[0].message);
}

#[test]
fn a_renewal_is_not_vouched_for_by_another_owner_that_carries_its_token_number_after_a_deletion() {
    // p0 holds owner 1 with token 1; the item is deleted, and p1 acquires it as owner 2, whose
    // token is 1 again. A renewal of p0's token 1 that answers true renewed nothing of p0's.
    let mut entries = vec![
        applied(2, 0, 0, 1, LockState::Absent, held_by(1, 1, 1)),
        nemesis(5_000, Nemesis::DeleteItem(LOCK)),
        applied(6_002, 1, 6_000, 1, LockState::Absent, held_by(2, 2, 1)),
        invoke(10_000, 0, 0, Call::Renew { lock: LOCK, token: 1 }),
        complete(10_004, 0, 0, Outcome::Ok, Value::None),
    ];
    assert_eq!(kinds(&run(entries.clone())), [ViolationKind::RenewedUnheld]);
    // Renewed by the holder of owner 2, it is its own lease.
    entries[3] = invoke(10_000, 1, 0, Call::Renew { lock: LOCK, token: 1 });
    entries[4] = complete(10_004, 1, 0, Outcome::Ok, Value::None);
    assert_eq!(kinds(&run(entries)), []);
}
