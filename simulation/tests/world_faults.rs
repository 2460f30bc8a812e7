//! Each fault of the world does what it claims, seen through the history of a small run.

mod support;

use std::time::Duration;

use dynalease_sim::locks::history::{Call, Event, Nemesis, Outcome, Unheld, Value};
use dynalease_sim::{Fault, World};
use support::{LEASE_MS, at, completed, grants, lock_history, service, two_leaders, unheld};

#[test]
fn a_crashed_holder_releases_nothing_and_is_taken_over_after_its_lease() {
    let crash_ms = 40_000;
    let scenario = two_leaders(1, 400_000, vec![at(crash_ms, Fault::Crash { process: 0, restart_after_ms: 200_000 })]);
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());

    let history = &lock_history(&report);
    let released_by_p0 = completed(history).iter().any(|(p, call, ..)| *p == 0 && matches!(call, Call::Release { .. }));
    assert!(!released_by_p0, "a crashed process sends no release");
    let crash = Duration::from_millis(crash_ms);
    let takeover = grants(history).into_iter().find(|(at, _, p)| *at > crash && *p == 1).expect("p1 takes over");
    // A release would have freed the lock for p1's next poll, 10 s at most.
    assert!(takeover.0 - crash > Duration::from_secs(10), "taken over {:?} after the crash", takeover.0 - crash);
    assert!(takeover.0 - crash <= Duration::from_millis(LEASE_MS + 10_000 + 100));
}

#[test]
fn a_suspended_holder_wakes_up_believing_and_the_fence_refuses_its_writes() {
    // p0 holds the lock and renewed it at 10 s; at 11 s its machine is suspended for two
    // leases, so its monotonic clock lags by two leases: when it wakes up it believes in its
    // lease for 9 s more, while p1 holds the lock, and writes under it at 15 s of its clock.
    let scenario = two_leaders(2, 400_000, vec![at(11_000, Fault::Suspend { process: 0, for_ms: 2 * LEASE_MS })]);
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());
    assert!(report.verdict().counted("overlaps exempt") >= 1, "the beliefs overlapped:\n{}", report.timeline());

    let history = lock_history(&report);
    let resumed = history
        .entries()
        .iter()
        .find(|e| matches!(e.event, Event::Nemesis(Nemesis::Resume(p)) if p.id == 0))
        .map(|e| e.at)
        .expect("p0 resumes");
    // Refused as a lost lease where the write marks its check, as a cancelled transaction
    // where it does not.
    let refused = completed(&history).into_iter().any(|(p, call, outcome, value, at)| {
        p == 0
            && at >= resumed
            && matches!(call, Call::FencedWrite { .. })
            && outcome == Outcome::Fail
            && [Value::Text(String::from("lease lost")), Value::Text(String::from("cancelled"))].contains(&value)
    });
    assert!(refused, "the write of the woken holder is refused:\n{}", report.timeline());
}

#[test]
fn a_partitioned_holder_loses_its_lease_and_the_other_takes_over() {
    let scenario = two_leaders(3, 400_000, vec![at(20_000, Fault::Partition { process: 0, for_ms: 60_000 })]);
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());
    let history = lock_history(&report);
    assert!(unheld(&history).contains(&Unheld::Lost(String::from("expired"))), "{}", report.timeline());
    let takeover = grants(&history).into_iter().find(|(_, _, p)| *p == 1);
    assert!(takeover.is_some_and(|(at, _, _)| at < Duration::from_secs(80)), "{}", report.timeline());
}

#[test]
fn lost_answers_to_writes_are_info_and_their_writes_still_commit() {
    let mut scenario = two_leaders(4, 300_000, Vec::new());
    scenario.loss_ppm = 300_000;
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());

    let history = &lock_history(&report);
    let committed: Vec<_> = history
        .entries()
        .iter()
        .filter_map(|e| match e.event {
            Event::Committed { op } => Some(op),
            _ => None,
        })
        .collect();
    // A write whose answer was lost may still have committed (the SDK retried it and gave up,
    // or a retry answered): it is never reported as failed.
    let info_writes = completed(history)
        .into_iter()
        .filter(|(_, call, outcome, ..)| matches!(call, Call::FencedWrite { .. }) && *outcome == Outcome::Info)
        .count();
    let retried = committed.len() - committed.iter().collect::<std::collections::BTreeSet<_>>().len();
    assert!(retried > 0 || info_writes > 0, "some answers were lost:\n{}", report.timeline());
}

#[test]
fn a_deleted_lock_item_starts_its_tokens_at_one_again() {
    let scenario = two_leaders(5, 300_000, vec![at(100_000, Fault::DeleteItem { item: service().item("leader") })]);
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());
    let after: Vec<_> =
        grants(&lock_history(&report)).into_iter().filter(|(at, ..)| *at > Duration::from_secs(100)).collect();
    assert_eq!(after.first().map(|(_, token, _)| *token), Some(1), "{}", report.timeline());
}

#[test]
fn a_table_outage_ends_the_lease_as_table_not_found() {
    // A renewal comes every 10 s: one falls within an outage of 15 s.
    let scenario =
        two_leaders(6, 300_000, vec![at(30_000, Fault::TableOutage { table: String::from("Sim"), for_ms: 15_000 })]);
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());
    assert!(
        unheld(&lock_history(&report)).contains(&Unheld::Lost(String::from("table_not_found"))),
        "{}",
        report.timeline()
    );
}

#[test]
fn a_paused_process_sends_nothing_while_paused() {
    let scenario = two_leaders(7, 300_000, vec![at(20_000, Fault::Pause { process: 0, for_ms: 50_000 })]);
    let report = World::new(scenario).run();
    assert!(report.violations().is_empty(), "{}", report.failure_report());
    let (from, to) = (Duration::from_secs(20), Duration::from_secs(70));
    let invoked_while_paused = lock_history(&report).entries().iter().any(|e| {
        e.at > from
            && e.at < to
            && matches!(e.actor, dynalease_sim::history::Actor::Process(p) if p.id == 0)
            && matches!(e.event, Event::Invoke { .. })
    });
    assert!(!invoked_while_paused, "{}", report.timeline());
}
