//! Hand-made scenarios for the tests: a few processes, a few faults at chosen times.

#![allow(dead_code)] // Each test file uses a part of the support.

pub mod history;

use std::time::Duration;

use dynalease_sim::locks::history::{Call, Event, History, Outcome, Unheld, Value, project};
use dynalease_sim::locks::{LockService, LockWorkload, Role};
use dynalease_sim::{ClockSpec, Fault, NetSpec, ProcessSpec, RunReport, Scenario, ScheduledFault};

/// The lease of the hand-made scenarios.
pub const LEASE_MS: u64 = 30_000;

pub fn leader() -> Role {
    Role::Leader { lock: String::from("leader"), write_every_ms: 5_000, resigns: false }
}

/// A role that starts `delay_ms` after its process.
pub fn after(delay_ms: u64, role: Role) -> LockWorkload {
    LockWorkload { role, lease_ms: None, after_ms: Some(delay_ms) }
}

/// A process with a nominal clock and the default network.
pub fn process(kinds: Vec<LockWorkload>) -> ProcessSpec<LockWorkload> {
    ProcessSpec { clock: ClockSpec::default(), net: NetSpec::default(), kinds }
}

/// The lock service of the hand-made scenarios: the library, leases of [`LEASE_MS`].
pub fn service() -> LockService {
    LockService { lease_ms: LEASE_MS, ..LockService::default() }
}

/// Two leaders of the lock "leader": p0 from the start, p1 five seconds later, so that p0
/// holds the lock first. No faults but `faults`; `duration_ms` of which the last 150 s heal.
pub fn two_leaders(seed: u64, duration_ms: u64, faults: Vec<ScheduledFault>) -> Scenario<LockService> {
    Scenario {
        seed,
        service: service(),
        duration_ms,
        safety_ms: duration_ms - 150_000,
        processes: vec![process(vec![leader().into()]), process(vec![after(5_000, leader())])],
        loss_ppm: 0,
        faults,
        triggers: Vec::new(),
    }
}

/// The history of a run, as the lock checker reads it.
pub fn lock_history(report: &RunReport<LockService>) -> History {
    project(report.history())
}

pub fn at(at_ms: u64, fault: Fault) -> ScheduledFault {
    ScheduledFault { at_ms, fault }
}

/// The completed operations of `history`: (process id, call, outcome, value, completion time).
pub fn completed(history: &History) -> Vec<(u16, Call, Outcome, Value, Duration)> {
    let mut calls = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for entry in history.entries() {
        match (&entry.event, entry.actor) {
            (Event::Invoke { op, call }, dynalease_sim::history::Actor::Process(p)) => {
                calls.insert(*op, (p.id, call.clone()));
            }
            (Event::Complete { op, outcome, value }, _) => {
                if let Some((p, call)) = calls.get(op) {
                    out.push((*p, call.clone(), *outcome, value.clone(), entry.at));
                }
            }
            _ => {}
        }
    }
    out
}

/// The reasons beliefs ended with.
pub fn unheld(history: &History) -> Vec<Unheld> {
    history
        .entries()
        .iter()
        .filter_map(|e| match &e.event {
            Event::Unheld { why, .. } => Some(why.clone()),
            _ => None,
        })
        .collect()
}

/// The grants of the lock "leader": (time, token, process id).
pub fn grants(history: &History) -> Vec<(Duration, u64, u16)> {
    let lock = history.lock_id("leader");
    history
        .entries()
        .iter()
        .filter_map(|e| match e.event.grant() {
            Some((l, token, to)) if Some(l) == lock => Some((e.at, token, to.id)),
            _ => None,
        })
        .collect()
}
