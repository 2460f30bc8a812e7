//! Hand-made scenarios for the tests: a few processes, a few faults at chosen times.

#![allow(dead_code)] // Each test file uses a part of the support.

pub mod history;

use std::sync::Arc;
use std::time::Duration;

use dynalease_sim::history::{Call, Event, History, Outcome, Unheld, Value};
use dynalease_sim::{
    ClockSpec, Fault, LockKind, NetSpec, ProcessCtx, ProcessSpec, Role, Scenario, ScheduledFault, Workload,
    WorkloadFuture,
};

/// The lease of the hand-made scenarios.
pub const LEASE_MS: u64 = 30_000;

/// A role that starts `delay_ms` after its process.
#[derive(Debug)]
pub struct After {
    pub delay_ms: u64,
    pub role: Role,
}

impl Workload for After {
    fn name(&self) -> String {
        format!("{} after {} ms", self.role.name(), self.delay_ms)
    }

    fn run(&self, ctx: ProcessCtx) -> WorkloadFuture {
        let (delay, role) = (Duration::from_millis(self.delay_ms), self.role.clone());
        Box::pin(async move {
            ctx.sleep(delay).await;
            role.run(ctx).await;
        })
    }
}

pub fn leader() -> Role {
    Role::Leader { lock: String::from("leader"), write_every_ms: 5_000, resigns: false }
}

/// A process with a nominal clock and the default network.
pub fn process(roles: Vec<Role>, custom: Vec<Arc<dyn Workload>>) -> ProcessSpec {
    ProcessSpec { clock: ClockSpec::default(), net: NetSpec::default(), roles, custom, lease_ms: None }
}

/// Two leaders of the lock "leader": p0 from the start, p1 five seconds later, so that p0
/// holds the lock first. No faults but `faults`; `duration_ms` of which the last 120 s heal.
pub fn two_leaders(seed: u64, duration_ms: u64, faults: Vec<ScheduledFault>) -> Scenario {
    Scenario {
        seed,
        lock: LockKind::Library,
        duration_ms,
        safety_ms: duration_ms - 150_000,
        lease_ms: LEASE_MS,
        processes: vec![
            process(vec![leader()], Vec::new()),
            process(Vec::new(), vec![Arc::new(After { delay_ms: 5_000, role: leader() })]),
        ],
        loss_ppm: 0,
        faults,
        triggers: Vec::new(),
    }
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
