//! The checker on hand-made histories: each invariant fails when it should, and only then.

use std::time::Duration;

use dynalease_sim::locks::check::{CheckContext, CheckReport, ViolationKind, check};
use dynalease_sim::locks::history::{
    Actor, BeliefId, Call, Entry, Event, History, LockState, Nemesis, OpId, Phase, Unheld,
};

mod support;

use support::LEASE_MS;
use support::history::{LOCK, at, held_by, p};

/// DynamoDB applied a write of `by`, sent at `sent_ms`, that took the item from `before` to `after`.
fn write(ms: u64, by: u16, sent_ms: u64, before: LockState, after: LockState) -> Entry {
    let sent = Duration::from_millis(sent_ms);
    at(ms, Actor::Db, Event::Applied { lock: LOCK, by: p(by), sent, request: ms as u32, op: None, before, after })
}

fn held(ms: u64, process: u16, belief: u32, token: u64) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Held { belief: BeliefId(belief), lock: LOCK, token, renews: false })
}

fn unheld(ms: u64, process: u16, belief: u32) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Unheld { belief: BeliefId(belief), why: Unheld::Released })
}

fn nemesis(ms: u64, what: Nemesis) -> Entry {
    at(ms, Actor::Nemesis, Event::Nemesis(what))
}

fn fenced_write(ms: u64, process: u16, op: u32, token: u64) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Invoke { op: OpId(op), call: Call::FencedWrite { lock: LOCK, token } })
}

fn committed(ms: u64, op: u32) -> Entry {
    at(ms, Actor::Db, Event::Committed { op: OpId(op) })
}

fn run(entries: Vec<Entry>, drift_ppm: Vec<i32>) -> CheckReport {
    let history = History::from_entries(entries, vec![String::from("leader")]);
    let context =
        CheckContext { drift_ppm, takeover_bound: Duration::from_secs(40), lease: Duration::from_millis(LEASE_MS) };
    check(&history, &context)
}

fn kinds(report: &CheckReport) -> Vec<ViolationKind> {
    report.violations.iter().map(|v| v.kind).collect()
}

/// p0 is granted the lock at 0 (owner 1, token 1); p1 takes it over at `takeover_ms` (owner 2,
/// token 2), sent a millisecond before.
fn handover(takeover_ms: u64) -> Vec<Entry> {
    vec![
        write(0, 0, 0, LockState::Absent, held_by(1, 1, 1)),
        write(takeover_ms, 1, takeover_ms - 1, held_by(1, 1, 1), held_by(2, 2, 2)),
    ]
}

#[test]
fn a_token_that_does_not_rise_is_a_violation() {
    let report = run(
        vec![
            write(0, 0, 0, LockState::Absent, held_by(1, 1, 1)),
            write(10, 0, 10, held_by(1, 1, 1), LockState::Free { fence: 1 }),
            write(20, 1, 20, LockState::Free { fence: 1 }, held_by(2, 2, 2)),
            write(30, 1, 30, held_by(2, 2, 2), LockState::Free { fence: 2 }),
            write(40, 0, 40, LockState::Free { fence: 2 }, held_by(3, 3, 2)),
        ],
        vec![0, 0],
    );
    assert_eq!(kinds(&report), [ViolationKind::TokenNotRising]);
    let violation = &report.violations[0];
    assert_eq!(
        (violation.first.clone(), violation.second.clone(), violation.last_good.clone()),
        (vec![2], vec![4], vec![0])
    );
}

#[test]
fn tokens_start_again_only_after_the_nemesis_deletes_the_item() {
    let grant = |ms, fence| write(ms, 0, ms, LockState::Absent, held_by(fence as u32, fence as u32, fence));
    let deleted = nemesis(15, Nemesis::DeleteItem(LOCK));
    let report = run(vec![grant(0, 1), deleted, grant(40_000, 1)], vec![0]);
    assert_eq!(kinds(&report), []);

    // A release that deletes the item lowers its token at once.
    let report = run(vec![grant(0, 1), write(10, 0, 10, held_by(1, 1, 1), LockState::Absent)], vec![0]);
    assert_eq!(kinds(&report), [ViolationKind::TokenNotRising]);
    assert!(report.violations[0].message.contains("deleted the lock item"), "{}", report.violations[0].message);
}

#[test]
fn a_takeover_before_the_holders_lease_ran_out_is_a_violation() {
    let early = run(handover(20_000), vec![0, 0]);
    assert_eq!(kinds(&early), [ViolationKind::TakeoverBeforeExpiry]);
    assert!(
        early.violations[0].message.contains("p1.0 took the lock over from p0.0"),
        "{}",
        early.violations[0].message
    );

    assert_eq!(kinds(&run(handover(30_001), vec![0, 0])), []);

    // A renewal the holder sent at 10 s counts the lease from there.
    let mut renewed = handover(31_000);
    renewed.insert(1, write(10_005, 0, 10_000, held_by(1, 1, 1), held_by(1, 7, 1)));
    renewed[2] = write(31_000, 1, 30_999, held_by(1, 7, 1), held_by(2, 2, 2));
    assert_eq!(kinds(&run(renewed, vec![0, 0])), [ViolationKind::TakeoverBeforeExpiry]);
}

#[test]
fn a_takeover_within_the_drift_of_the_clocks_is_allowed() {
    // Over 30 s, a contender whose clock runs 500 ppm faster may come 15 ms early.
    assert_eq!(kinds(&run(handover(29_990), vec![0, 500])), []);
    assert_eq!(kinds(&run(handover(29_900), vec![0, 500])), [ViolationKind::TakeoverBeforeExpiry]);
}

#[test]
fn a_takeover_from_a_suspended_holder_is_exempt_until_it_writes_again() {
    let p0 = p(0);
    let mut suspended = handover(20_000);
    suspended.insert(1, nemesis(5_000, Nemesis::Suspend(p0)));
    suspended.push(nemesis(60_000, Nemesis::Resume(p0)));
    assert_eq!(kinds(&run(suspended, vec![0, 0])), []);

    // Suspended before it renewed: the renewal at 12 s re-confirms its lease.
    let reconfirmed = vec![
        write(0, 0, 0, LockState::Absent, held_by(1, 1, 1)),
        nemesis(5_000, Nemesis::Suspend(p0)),
        nemesis(10_000, Nemesis::Resume(p0)),
        write(12_005, 0, 12_000, held_by(1, 1, 1), held_by(1, 5, 1)),
        write(31_000, 1, 30_999, held_by(1, 5, 1), held_by(2, 2, 2)),
    ];
    assert_eq!(kinds(&run(reconfirmed, vec![0, 0])), [ViolationKind::TakeoverBeforeExpiry]);
}

#[test]
fn a_renewal_or_release_of_another_process_is_a_foreign_write() {
    let renewal = vec![
        write(0, 0, 0, LockState::Absent, held_by(1, 1, 1)),
        write(5_000, 1, 5_000, held_by(1, 1, 1), held_by(1, 9, 1)),
    ];
    let report = run(renewal, vec![0, 0]);
    assert_eq!(kinds(&report), [ViolationKind::ForeignWrite]);
    assert!(
        report.violations[0].message.contains("p1.0 renewed the lease of p0.0"),
        "{}",
        report.violations[0].message
    );

    let release = vec![
        write(0, 0, 0, LockState::Absent, held_by(1, 1, 1)),
        write(5_000, 1, 5_000, held_by(1, 1, 1), LockState::Free { fence: 1 }),
    ];
    assert_eq!(kinds(&run(release, vec![0, 0])), [ViolationKind::ForeignWrite]);
}

#[test]
fn a_belief_in_a_token_never_granted_is_a_violation() {
    let report = run(vec![write(0, 0, 0, LockState::Absent, held_by(1, 1, 1)), held(5, 1, 0, 1)], vec![0, 0]);
    assert_eq!(kinds(&report), [ViolationKind::UngrantedBelief]);
}

#[test]
fn a_belief_past_its_lease_on_its_own_clock_is_a_violation() {
    let grant = write(10, 0, 0, LockState::Absent, held_by(1, 1, 1));
    let in_time = run(vec![grant.clone(), held(20, 0, 0, 1), unheld(30_001, 0, 0)], vec![0]);
    assert_eq!(kinds(&in_time), []);

    let late = run(vec![grant.clone(), held(20, 0, 0, 1), unheld(30_100, 0, 0)], vec![0]);
    assert_eq!(kinds(&late), [ViolationKind::BeliefPastLease]);

    // A slow clock measures the lease later.
    assert_eq!(kinds(&run(vec![grant.clone(), held(20, 0, 0, 1), unheld(30_010, 0, 0)], vec![-500])), []);

    // Stopped when the lease ran out, it learns when it runs again.
    let paused = |end_ms| {
        vec![
            grant.clone(),
            held(20, 0, 0, 1),
            nemesis(25_000, Nemesis::Pause(p(0))),
            nemesis(40_000, Nemesis::Resume(p(0))),
            unheld(end_ms, 0, 0),
        ]
    };
    assert_eq!(kinds(&run(paused(40_000), vec![0])), []);
    assert_eq!(kinds(&run(paused(40_500), vec![0])), [ViolationKind::BeliefPastLease]);
}

#[test]
fn a_renewal_sent_before_a_pause_and_applied_during_it_extends_the_lease() {
    let entries = vec![
        write(10, 0, 0, LockState::Absent, held_by(1, 1, 1)),
        held(20, 0, 0, 1),
        nemesis(20_000, Nemesis::Pause(p(0))),
        write(35_000, 0, 20_000, held_by(1, 1, 1), held_by(1, 2, 1)),
        nemesis(40_000, Nemesis::Resume(p(0))),
        unheld(49_000, 0, 0),
    ];
    assert_eq!(kinds(&run(entries.clone(), vec![0])), []);
    let mut late = entries;
    late[5] = unheld(51_000, 0, 0);
    assert_eq!(kinds(&run(late, vec![0])), [ViolationKind::BeliefPastLease]);
}

#[test]
fn a_belief_after_its_own_release_was_applied_is_a_violation() {
    let entries = vec![
        write(10, 0, 0, LockState::Absent, held_by(1, 1, 1)),
        held(20, 0, 0, 1),
        write(1_000, 0, 990, held_by(1, 1, 1), LockState::Free { fence: 1 }),
        unheld(1_010, 0, 0),
    ];
    let report = run(entries, vec![0]);
    assert_eq!(kinds(&report), [ViolationKind::BeliefPastLease]);
    assert!(report.violations[0].message.contains("own release"), "{}", report.violations[0].message);
}

#[test]
fn overlapping_beliefs_are_a_violation_that_names_both() {
    let mut entries = handover(10_000);
    entries.extend([held(0, 0, 0, 1), held(10_000, 1, 1, 2), unheld(20_000, 0, 0), unheld(25_000, 1, 1)]);
    entries.sort_by_key(|e| e.at);
    let report = run(entries, vec![0, 0]);
    assert!(kinds(&report).contains(&ViolationKind::OverlappingBeliefs), "{:?}", kinds(&report));
    let overlap = report.violations.iter().find(|v| v.kind == ViolationKind::OverlappingBeliefs).unwrap();
    assert_eq!(overlap.processes, [0, 1]);
}

#[test]
fn beliefs_overlap_without_violation_after_a_deletion_counted_from_the_grant() {
    // p1's acquire is applied at 10 s, the nemesis deletes the item at 12 s before p1 hears its
    // answer (15 s); p0 acquires the free lock at 13 s and believes from 14 s. p1 learns at 20 s.
    let entries = vec![
        write(10_000, 1, 9_999, LockState::Absent, held_by(1, 1, 1)),
        nemesis(12_000, Nemesis::DeleteItem(LOCK)),
        write(13_000, 0, 12_999, LockState::Absent, held_by(2, 2, 1)),
        held(14_000, 0, 0, 1),
        held(15_000, 1, 1, 1),
        unheld(20_000, 1, 1),
        unheld(25_000, 0, 0),
    ];
    let report = run(entries, vec![0, 0]);
    assert_eq!(kinds(&report), []);
    assert_eq!(report.stats.overlaps_exempt, 1);
}

#[test]
fn beliefs_overlap_without_violation_when_the_holder_was_stopped() {
    let mut entries = handover(31_000);
    entries.extend([
        held(0, 0, 0, 1),
        nemesis(5_000, Nemesis::Pause(p(0))),
        held(31_010, 1, 1, 2),
        nemesis(40_000, Nemesis::Resume(p(0))),
        unheld(40_000, 0, 0),
        unheld(50_000, 1, 1),
    ]);
    entries.sort_by_key(|e| e.at);
    let report = run(entries, vec![0, 0]);
    assert_eq!(kinds(&report), []);
    assert_eq!(report.stats.overlaps_exempt, 1);
}

#[test]
fn a_fenced_write_without_the_writers_lease_is_a_violation() {
    let mut entries = handover(31_000);
    entries.extend([fenced_write(1, 0, 0, 1), committed(2, 0), fenced_write(31_500, 0, 1, 1), committed(31_600, 1)]);
    entries.sort_by_key(|e| e.at);
    let report = run(entries, vec![0, 0]);
    assert_eq!(kinds(&report), [ViolationKind::StaleFencedWrite]);
    let violation = &report.violations[0];
    assert_eq!(violation.first, [4, 5]);
    assert_eq!(violation.second, [3]);
    assert_eq!(violation.last_good, [1, 2]);
}

#[test]
fn a_fenced_write_with_the_token_of_another_lease_is_a_violation() {
    // Tokens start at 1 again after a deletion: the token matches, the owner does not.
    let entries = vec![
        write(0, 0, 0, LockState::Absent, held_by(1, 1, 1)),
        nemesis(1_000, Nemesis::DeleteItem(LOCK)),
        write(2_000, 1, 2_000, LockState::Absent, held_by(2, 2, 1)),
        fenced_write(3_000, 0, 0, 1),
        committed(3_001, 0),
    ];
    assert_eq!(kinds(&run(entries, vec![0, 0])), [ViolationKind::StaleFencedWrite]);
}

#[test]
fn a_retried_commit_of_a_good_write_is_counted_once() {
    let mut entries = handover(31_000);
    entries.extend([fenced_write(1, 0, 0, 1), committed(2, 0), committed(31_100, 0)]);
    entries.sort_by_key(|e| e.at);
    let report = run(entries, vec![0, 0]);
    assert_eq!(kinds(&report), []);
    assert_eq!(report.stats.commits, 1);
}

#[test]
fn the_store_accepting_a_lower_token_after_a_higher_one_is_a_violation() {
    let accept = |ms, op, token| at(ms, Actor::Store, Event::StoreAccepted { op: OpId(op), lock: LOCK, token });
    let report = run(vec![accept(0, 0, 1), accept(1, 1, 3), accept(2, 2, 3), accept(3, 3, 2)], vec![0, 0]);
    assert_eq!(kinds(&report), [ViolationKind::StoreAcceptedLower]);
    assert_eq!(report.violations[0].first, [2]);
    assert_eq!(report.violations[0].second, [3]);
}

#[test]
fn a_retry_refused_by_its_own_first_attempt_is_a_violation() {
    let applied = at(
        0,
        Actor::Db,
        Event::Applied {
            lock: LOCK,
            by: p(0),
            sent: Duration::ZERO,
            request: 7,
            op: None,
            before: LockState::Absent,
            after: held_by(1, 1, 1),
        },
    );
    let refused = |request| {
        at(1_000, Actor::Db, Event::Refused { lock: LOCK, by: p(0), request, state: held_by(1, 1, 1), names: 0 })
    };
    let report = run(vec![applied.clone(), refused(7)], vec![0]);
    assert_eq!(kinds(&report), [ViolationKind::RetryRefusedByItself]);
    assert!(!ViolationKind::RetryRefusedByItself.is_safety());
    assert_eq!(kinds(&run(vec![applied, refused(8)], vec![0])), []);
}

#[test]
fn a_takeover_later_than_the_bound_is_a_violation() {
    let crash = |ms| at(ms, Actor::World, Event::Phase(Phase::LivenessCrash { lock: LOCK, victim: Some(p(0)) }));
    let takeover = |ms: u64| write(ms, 1, ms, held_by(1, 1, 1), held_by(2, 2, 2));
    let grant = write(0, 0, 0, LockState::Absent, held_by(1, 1, 1));
    let in_time = run(vec![grant.clone(), crash(1_000), takeover(40_000)], vec![0, 0]);
    assert_eq!(kinds(&in_time), []);
    assert_eq!(in_time.stats.takeover, Some(Duration::from_secs(39)));

    let late = run(vec![grant.clone(), crash(1_000), takeover(42_000)], vec![0, 0]);
    assert_eq!(kinds(&late), [ViolationKind::SlowTakeover]);
    assert_eq!(late.violations[0].last_good, [0]);

    let never = run(vec![grant, crash(1_000)], vec![0, 0]);
    assert_eq!(kinds(&never), [ViolationKind::SlowTakeover]);
}

#[test]
fn a_takeover_is_timed_from_the_last_write_of_the_crashed_holder_that_landed() {
    // p0 sent a renewal before its crash at 1 s; DynamoDB applies it at 5 s, a new record
    // version the contenders wait a lease from again. A takeover at 44 s is 39 s after it.
    let crash = at(1_000, Actor::World, Event::Phase(Phase::LivenessCrash { lock: LOCK, victim: Some(p(0)) }));
    let grant = write(0, 0, 0, LockState::Absent, held_by(1, 1, 1));
    let late_renewal = write(5_000, 0, 900, held_by(1, 1, 1), held_by(1, 2, 1));
    let takeover = |ms: u64| write(ms, 1, ms, held_by(1, 2, 1), held_by(2, 3, 2));
    let in_time = run(vec![grant.clone(), crash.clone(), late_renewal.clone(), takeover(44_000)], vec![0, 0]);
    assert_eq!(kinds(&in_time), []);
    assert_eq!(in_time.stats.takeover, Some(Duration::from_secs(39)));

    let late = run(vec![grant, crash, late_renewal, takeover(46_000)], vec![0, 0]);
    assert_eq!(kinds(&late), [ViolationKind::SlowTakeover]);
    let message = &late.violations[0].message;
    assert!(message.contains("its last write was applied, at 5.000 s"), "{message}");
}

#[test]
fn a_lease_lost_after_the_heal_is_a_violation() {
    let healed = at(1_000, Actor::World, Event::Phase(Phase::Healed));
    let lost = at(
        20_000,
        Actor::Process(p(0)),
        Event::Unheld { belief: BeliefId(0), why: Unheld::Lost(String::from("expired")) },
    );
    let entries =
        vec![healed.clone(), write(2_000, 0, 1_990, LockState::Absent, held_by(1, 1, 1)), held(2_010, 0, 0, 1), lost];
    assert_eq!(kinds(&run(entries.clone(), vec![0])), [ViolationKind::LostWhileHealthy]);

    // Asked for before the heal: it may come back late, and end at once.
    let mut before = entries;
    before[1] = write(2_000, 0, 900, LockState::Absent, held_by(1, 1, 1));
    assert_eq!(kinds(&run(before, vec![0])), []);
}

#[test]
fn a_lease_given_up_as_run_out_before_its_time_is_a_violation() {
    use dynalease_sim::locks::history::{Outcome, Value};
    let process = Actor::Process(p(0));
    let lost = |ms| at(ms, process, Event::Unheld { belief: BeliefId(0), why: Unheld::Lost(String::from("expired")) });
    // Acquire called at 1 s, granted with a lease of 30 s sent at 1 s: it runs out at 31 s.
    let entries = |lost_ms| {
        vec![
            at(1_000, process, Event::Invoke { op: OpId(0), call: Call::Acquire { lock: LOCK } }),
            write(1_005, 0, 1_000, LockState::Absent, held_by(1, 1, 1)),
            at(1_010, process, Event::Complete { op: OpId(0), outcome: Outcome::Ok, value: Value::Token(1) }),
            held(1_010, 0, 0, 1),
            lost(lost_ms),
        ]
    };
    assert_eq!(kinds(&run(entries(31_000), vec![0])), []);
    let report = run(entries(11_000), vec![0]);
    assert_eq!(kinds(&report), [ViolationKind::LostBeforeExpiry]);
    assert!(!ViolationKind::LostBeforeExpiry.is_safety());
    assert!(report.violations[0].message.contains("20.000 s before"), "{}", report.violations[0].message);

    // On a clock that runs 1% slow the lease lasts longer in global time; a suspended machine's
    // clock stands still, so the loss must come later still.
    assert_eq!(kinds(&run(entries(31_000), vec![-10_000])), [ViolationKind::LostBeforeExpiry]);
    let suspended = |lost_ms| {
        let mut e = entries(lost_ms);
        e.insert(4, nemesis(5_000, Nemesis::Suspend(p(0))));
        e.insert(5, nemesis(15_000, Nemesis::Resume(p(0))));
        e
    };
    assert_eq!(kinds(&run(suspended(31_000), vec![0])), [ViolationKind::LostBeforeExpiry]);
    assert_eq!(kinds(&run(suspended(41_000), vec![0])), []);

    // A renewal sent at 19.99 s, and a window the library then promised at 20 s for 25 s more,
    // which holds until 45 s.
    let promised = |lost_ms| {
        let mut e = entries(lost_ms);
        let promise = Event::Promised { belief: BeliefId(0), left: Duration::from_secs(25) };
        e.insert(4, write(19_995, 0, 19_990, held_by(1, 1, 1), held_by(1, 2, 1)));
        e.insert(5, at(20_000, process, promise));
        e
    };
    assert_eq!(kinds(&run(promised(40_000), vec![0])), [ViolationKind::LostBeforeExpiry]);
    assert_eq!(kinds(&run(promised(45_000), vec![0])), []);

    // Lost for another reason, or with no acquire to count from: not this invariant's business.
    let mut taken = entries(11_000);
    taken[4] =
        at(11_000, process, Event::Unheld { belief: BeliefId(0), why: Unheld::Lost(String::from("taken_over")) });
    assert_eq!(kinds(&run(taken, vec![0])), []);
    assert_eq!(kinds(&run(entries(11_000)[1..].to_vec(), vec![0])), []);
}

#[test]
fn a_promise_that_reaches_past_the_lease_is_a_violation() {
    let promised = |ms, left_ms| {
        at(ms, Actor::Process(p(0)), Event::Promised { belief: BeliefId(0), left: Duration::from_millis(left_ms) })
    };
    // Granted with a lease of 30 s sent at 0: at 10 s, 20 s are left.
    let entries = |left_ms| {
        vec![
            write(5, 0, 0, LockState::Absent, held_by(1, 1, 1)),
            held(10, 0, 0, 1),
            promised(10_000, left_ms),
            unheld(15_000, 0, 0),
        ]
    };
    assert_eq!(kinds(&run(entries(20_000), vec![0])), []);
    let report = run(entries(20_500), vec![0]);
    assert_eq!(kinds(&report), [ViolationKind::BeliefPastLease]);
    assert!(report.violations[0].message.contains("was promised"), "{}", report.violations[0].message);
}
