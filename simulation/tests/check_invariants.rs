//! The checker on hand-made histories: each invariant fails when it should, and only then.

use std::time::Duration;

use dynalease_sim::check::{CheckContext, CheckReport, ViolationKind, check};
use dynalease_sim::history::{
    Actor, BeliefId, Call, Entry, Event, History, LockId, Nemesis, OpId, Phase, ProcessRef, Unheld,
};

const LOCK: LockId = LockId(0);

fn p(id: u16) -> ProcessRef {
    ProcessRef { id, incarnation: 0 }
}

fn at(ms: u64, actor: Actor, event: Event) -> Entry {
    Entry { at: Duration::from_millis(ms), actor, event }
}

fn granted(ms: u64, token: u64, to: u16) -> Entry {
    at(ms, Actor::Db, Event::Granted { lock: LOCK, token, to: p(to) })
}

fn held(ms: u64, process: u16, belief: u32, token: u64) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Held { belief: BeliefId(belief), lock: LOCK, token })
}

fn unheld(ms: u64, process: u16, belief: u32) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Unheld { belief: BeliefId(belief), why: Unheld::Released })
}

fn fenced_write(ms: u64, process: u16, op: u32, token: u64) -> Entry {
    at(ms, Actor::Process(p(process)), Event::Invoke { op: OpId(op), call: Call::FencedWrite { lock: LOCK, token } })
}

fn committed(ms: u64, op: u32) -> Entry {
    at(ms, Actor::Db, Event::Committed { op: OpId(op) })
}

fn run(entries: Vec<Entry>, drift_ppm: Vec<i32>) -> CheckReport {
    let history = History::from_entries(entries, vec![String::from("leader")]);
    check(&history, &CheckContext { drift_ppm, takeover_bound: Duration::from_secs(40) })
}

fn kinds(report: &CheckReport) -> Vec<ViolationKind> {
    report.violations.iter().map(|v| v.kind).collect()
}

#[test]
fn a_token_that_does_not_rise_is_a_violation() {
    let report = run(vec![granted(0, 1, 0), granted(10, 2, 1), granted(20, 2, 0)], vec![0, 0]);
    assert_eq!(kinds(&report), [ViolationKind::TokenNotRising]);
    let violation = &report.violations[0];
    assert_eq!(
        (violation.first.clone(), violation.second.clone(), violation.last_good.clone()),
        (vec![1], vec![2], vec![0])
    );
}

#[test]
fn tokens_start_again_after_the_item_is_deleted() {
    let delete = at(15, Actor::Nemesis, Event::Nemesis(Nemesis::DeleteItem(LOCK)));
    let report = run(vec![granted(0, 1, 0), granted(10, 2, 1), delete, granted(20, 1, 0)], vec![0, 0]);
    assert_eq!(kinds(&report), []);
}

#[test]
fn overlapping_beliefs_at_the_same_rate_are_a_violation() {
    let report = run(vec![held(0, 0, 0, 1), held(10, 1, 1, 2), unheld(20, 0, 0), unheld(30, 1, 1)], vec![0, 0]);
    assert_eq!(kinds(&report), [ViolationKind::OverlappingBeliefs]);
    let violation = &report.violations[0];
    assert_eq!(violation.first, [0, 2]);
    assert_eq!(violation.second, [1, 3]);
    assert_eq!(violation.processes, [0, 1]);
}

#[test]
fn overlapping_beliefs_of_clocks_at_different_rates_are_exempt() {
    let report = run(vec![held(0, 0, 0, 1), held(10, 1, 1, 2), unheld(20, 0, 0), unheld(30, 1, 1)], vec![0, 200]);
    assert_eq!(kinds(&report), []);
    assert_eq!(report.stats.overlaps_exempt, 1);
}

#[test]
fn overlapping_beliefs_across_a_pause_are_exempt() {
    let pause = at(5, Actor::Nemesis, Event::Nemesis(Nemesis::Pause(p(0))));
    let resume = at(15, Actor::Nemesis, Event::Nemesis(Nemesis::Resume(p(0))));
    let entries = vec![held(0, 0, 0, 1), pause, held(10, 1, 1, 2), resume, unheld(16, 0, 0), unheld(30, 1, 1)];
    let report = run(entries, vec![0, 0]);
    assert_eq!(kinds(&report), []);
    assert_eq!(report.stats.overlaps_exempt, 1);
}

#[test]
fn a_handover_at_the_same_instant_is_no_overlap() {
    let report = run(vec![held(0, 0, 0, 1), unheld(10, 0, 0), held(10, 1, 1, 2), unheld(30, 1, 1)], vec![0, 0]);
    assert_eq!(kinds(&report), []);
    assert_eq!(report.stats.overlaps_exempt, 0);
}

#[test]
fn a_fenced_write_that_commits_below_the_highest_token_is_a_violation() {
    let entries = vec![
        granted(0, 1, 0),
        fenced_write(1, 0, 0, 1),
        committed(2, 0),
        fenced_write(3, 0, 1, 1),
        granted(5, 2, 1),
        committed(6, 1),
    ];
    let report = run(entries, vec![0, 0]);
    assert_eq!(kinds(&report), [ViolationKind::StaleFencedWrite]);
    let violation = &report.violations[0];
    assert_eq!(violation.first, [3, 5]);
    assert_eq!(violation.second, [4]);
    assert_eq!(violation.last_good, [1, 2]);
}

#[test]
fn a_retried_commit_of_a_good_write_is_counted_once() {
    let entries = vec![granted(0, 1, 0), fenced_write(1, 0, 0, 1), committed(2, 0), granted(5, 2, 1), committed(6, 0)];
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
fn a_takeover_later_than_the_bound_is_a_violation() {
    let crash = |ms| at(ms, Actor::World, Event::Phase(Phase::LivenessCrash { lock: LOCK, victim: Some(p(0)) }));
    let in_time = run(vec![granted(0, 1, 0), crash(1_000), granted(40_000, 2, 1)], vec![0, 0]);
    assert_eq!(kinds(&in_time), []);
    assert_eq!(in_time.stats.takeover, Some(Duration::from_secs(39)));

    let late = run(vec![granted(0, 1, 0), crash(1_000), granted(42_000, 2, 1)], vec![0, 0]);
    assert_eq!(kinds(&late), [ViolationKind::SlowTakeover]);
    assert_eq!(late.violations[0].last_good, [0]);

    let never = run(vec![granted(0, 1, 0), crash(1_000)], vec![0, 0]);
    assert_eq!(kinds(&never), [ViolationKind::SlowTakeover]);
}
