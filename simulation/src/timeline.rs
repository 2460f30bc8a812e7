//! [`Timeline`]: a history as lines a person reads, one per entry.
//!
//! ```text
//!     12.345 s  p2.0      invoke #41 acquire leader
//!     12.360 s  dynamodb  granted leader token 7 to p2.0
//!     12.371 s  p2.0      ok     #41 acquire leader -> token 7
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use crate::history::{
    Actor, BeliefId, Call, Entry, Event, History, LockId, LockState, Nemesis, OpId, Phase, ProcessRef, Unheld, Value,
    WriteEffect,
};

/// Renders the entries of a history, with what each operation and belief refers to.
#[derive(Debug)]
pub struct Timeline<'h> {
    history: &'h History,
    calls: BTreeMap<OpId, (&'h Call, ProcessRef)>,
    beliefs: BTreeMap<BeliefId, (LockId, u64)>,
}

impl<'h> Timeline<'h> {
    /// The timeline of `history`.
    pub fn new(history: &'h History) -> Self {
        let mut calls = BTreeMap::new();
        let mut beliefs = BTreeMap::new();
        for entry in history.entries() {
            match (&entry.event, entry.actor) {
                (Event::Invoke { op, call }, Actor::Process(process)) => {
                    calls.insert(*op, (call, process));
                }
                (Event::Held { belief, lock, token, .. }, _) => {
                    beliefs.insert(*belief, (*lock, *token));
                }
                _ => {}
            }
        }
        Timeline { history, calls, beliefs }
    }

    /// The operation `op` as the timeline names it, such as `#41 acquire leader`.
    pub fn op(&self, op: OpId) -> String {
        match self.calls.get(&op) {
            Some((call, _)) => format!("{op} {}", self.call(call)),
            None => op.to_string(),
        }
    }

    /// The process that invoked `op`.
    pub fn invoker(&self, op: OpId) -> Option<ProcessRef> {
        self.calls.get(&op).map(|(_, p)| *p)
    }

    /// The call of `op`.
    pub fn call_of(&self, op: OpId) -> Option<&'h Call> {
        self.calls.get(&op).map(|(c, _)| *c)
    }

    /// The lock and token of a belief.
    pub fn belief(&self, belief: BeliefId) -> Option<(LockId, u64)> {
        self.beliefs.get(&belief).copied()
    }

    fn lock(&self, lock: LockId) -> &str {
        self.history.lock_name(lock)
    }

    fn call(&self, call: &Call) -> String {
        match call {
            Call::Acquire { lock } => format!("acquire {}", self.lock(*lock)),
            Call::TryAcquire { lock } => format!("try-acquire {}", self.lock(*lock)),
            Call::Release { lock, token } => format!("release {} token {token}", self.lock(*lock)),
            Call::Renew { lock, token } => format!("renew {} token {token}", self.lock(*lock)),
            Call::FencedWrite { lock, token } => format!("fenced-write {} token {token}", self.lock(*lock)),
            Call::StoreWrite { lock, token } => format!("store-write {} token {token}", self.lock(*lock)),
            Call::Exists { lock } => format!("exists {}", self.lock(*lock)),
            Call::Resign { lock, token: Some(token), stopped: true } => {
                format!("stop leading {} (term of token {token})", self.lock(*lock))
            }
            Call::Resign { lock, token: None, .. } => format!("stop contending for {}", self.lock(*lock)),
            Call::Resign { lock, token: Some(token), stopped: false } => {
                format!("hand {} on (the work of the term of token {token} returned)", self.lock(*lock))
            }
            Call::Custom { name } => name.clone(),
        }
    }

    /// What `entry` says, without its time and actor.
    pub fn text(&self, entry: &Entry) -> String {
        match &entry.event {
            Event::Invoke { op, .. } => format!("invoke {}", self.op(*op)),
            Event::Complete { op, outcome, value } => {
                let outcome = format!("{:<6}", outcome.as_str());
                match value {
                    Value::None => format!("{outcome} {}", self.op(*op)),
                    Value::Token(token) => format!("{outcome} {} -> token {token}", self.op(*op)),
                    Value::Text(text) => format!("{outcome} {}: {text}", self.op(*op)),
                    Value::Bool(yes) => format!("{outcome} {} -> {yes}", self.op(*op)),
                }
            }
            Event::Held { lock, token, .. } => format!("held   {} token {token}", self.lock(*lock)),
            Event::HandedOver { lock, token, from } => {
                format!("was handed {} token {token} by {from}", self.lock(*lock))
            }
            Event::Sent { lock, request, .. } => format!("sent write r{request} to {}", self.lock(*lock)),
            Event::Broken { lock, what } => format!("BROKEN PROMISE on {}: {what}", self.lock(*lock)),
            Event::Answered { lock, request, ok: true } => {
                format!("heard write r{request} to {} applied", self.lock(*lock))
            }
            Event::Answered { lock, request, ok: false } => {
                format!("heard no success of write r{request} to {}", self.lock(*lock))
            }
            Event::Promised { belief, left } => {
                let what = match self.belief(*belief) {
                    Some((lock, token)) => format!("{} token {token}", self.lock(lock)),
                    None => format!("belief {}", belief.0),
                };
                format!("promised {what} for {} more", seconds(*left))
            }
            Event::Unheld { belief, why } => {
                let what = match self.belief(*belief) {
                    Some((lock, token)) => format!("{} token {token}", self.lock(lock)),
                    None => format!("belief {}", belief.0),
                };
                let why = match why {
                    Unheld::Lost(reason) => format!("lost ({reason})"),
                    Unheld::Released => String::from("released"),
                    Unheld::Crashed => String::from("crashed"),
                    Unheld::RunEnded => String::from("run ended"),
                };
                format!("unheld {what}: {why}")
            }
            Event::Nemesis(nemesis) => self.nemesis(nemesis),
            Event::Applied { lock, by, before, after, op, .. } => {
                let lock = self.lock(*lock);
                let of = op.map(|op| format!(" for {op}")).unwrap_or_default();
                match WriteEffect::of(before, after) {
                    WriteEffect::Grant => {
                        format!("granted {lock} token {} to {by}{of} ({})", after.fence(), self.state(after))
                    }
                    WriteEffect::Renewal => format!("renewed {lock} for {by} ({})", self.state(after)),
                    WriteEffect::Release => format!("released {lock} by {by} (was {})", self.state(before)),
                    WriteEffect::Unchanged => format!("wrote {lock} for {by}, unchanged ({})", self.state(after)),
                }
            }
            Event::Refused { lock, by, state, .. } => {
                format!("refused {by}'s write to {} ({})", self.lock(*lock), self.state(state))
            }
            Event::Heard { lock, .. } => {
                format!("the refusal of the write to {} reached its process", self.lock(*lock))
            }
            Event::Committed { op } => {
                let by = self.invoker(*op).map(|p| format!(" by {p}")).unwrap_or_default();
                format!("committed {}{by}", self.op(*op))
            }
            Event::StoreAccepted { op, lock, token } => {
                let by = self.invoker(*op).map(|p| format!(" from {p}")).unwrap_or_default();
                format!("accepted {op} {} token {token}{by}", self.lock(*lock))
            }
            Event::Phase(phase) => match phase {
                Phase::Safety => String::from("--- safety phase: faults ---"),
                Phase::Healed => String::from("--- healed: liveness phase ---"),
                Phase::LivenessCrash { lock, victim: Some(victim) } => {
                    format!("--- liveness: crash {victim}, the holder of {} ---", self.lock(*lock))
                }
                Phase::LivenessCrash { lock, victim: None } => {
                    format!("--- liveness: no live holder of {} to crash ---", self.lock(*lock))
                }
                Phase::End => String::from("--- end ---"),
            },
        }
    }

    /// A lock item in a few words: `owner o3 version v7 token 4`, `free, token 4`, `no item`.
    fn state(&self, state: &LockState) -> String {
        match state {
            LockState::Absent => String::from("no item"),
            LockState::Free { fence } => format!("free, token {fence}"),
            LockState::Held(record) => format!(
                "owner {} version {} token {}",
                short(self.history.id_text(record.owner)),
                short(self.history.id_text(record.version)),
                record.fence
            ),
        }
    }

    fn nemesis(&self, nemesis: &Nemesis) -> String {
        match nemesis {
            Nemesis::Crash(p) => format!("crash {p}"),
            Nemesis::Restart(p) => format!("restart as {p}"),
            Nemesis::Pause(p) => format!("pause {p}"),
            Nemesis::Suspend(p) => format!("suspend {p} (its monotonic clock stops)"),
            Nemesis::Resume(p) => format!("resume {p}"),
            Nemesis::Partition(p) => format!("partition p{p} from the network"),
            Nemesis::PartitionHealed(p) => format!("p{p} reconnected"),
            Nemesis::Latency { process, extra_ms } => format!("latency of p{process} +{extra_ms} ms each way"),
            Nemesis::LatencyHealed(p) => format!("latency of p{p} back to normal"),
            Nemesis::Throttle { process: Some(p), per_million } => {
                format!("throttle p{p} ({}%)", f64::from(*per_million) / 10_000.0)
            }
            Nemesis::Throttle { process: None, per_million } => {
                format!("throttle everyone ({}%)", f64::from(*per_million) / 10_000.0)
            }
            Nemesis::ThrottleEnded => String::from("throttling burst over"),
            Nemesis::TableOutage => String::from("table answers ResourceNotFound"),
            Nemesis::TableBack => String::from("table back"),
            Nemesis::DeleteItem(lock) => format!("delete the item of lock {}", self.lock(*lock)),
            Nemesis::CorruptItem(lock) => {
                format!("replace the item of lock {} with an entity that is no lock", self.lock(*lock))
            }
            Nemesis::ClockStep { process, delta_ms } => format!("wall clock of p{process} steps {delta_ms:+} ms"),
            Nemesis::Triggered { process, lock, moment, reaction } => {
                format!("trigger: {process} {} {}: {reaction:?}", moment.describe(), self.lock(*lock))
            }
        }
    }

    /// One line: time, actor, text.
    pub fn line(&self, entry: &Entry) -> String {
        format!("{:>12}  {:<9} {}", seconds(entry.at), entry.actor.to_string(), self.text(entry))
    }

    /// The lines of the entries that `keep` selects.
    pub fn render(&self, keep: impl Fn(&Entry) -> bool) -> String {
        let mut out = String::new();
        for entry in self.history.entries().iter().filter(|e| keep(e)) {
            let _ = writeln!(out, "{}", self.line(entry));
        }
        out
    }

    /// The lock an entry is about, if any.
    pub fn lock_of(&self, entry: &Entry) -> Option<LockId> {
        match &entry.event {
            Event::Invoke { call, .. } => call_lock(call),
            Event::Complete { op, .. } | Event::Committed { op } => self.call_of(*op).and_then(call_lock),
            Event::Held { lock, .. }
            | Event::Applied { lock, .. }
            | Event::Refused { lock, .. }
            | Event::Heard { lock, .. }
            | Event::HandedOver { lock, .. }
            | Event::Sent { lock, .. }
            | Event::Answered { lock, .. }
            | Event::Broken { lock, .. }
            | Event::StoreAccepted { lock, .. } => Some(*lock),
            Event::Nemesis(Nemesis::Triggered { lock, .. }) => Some(*lock),
            Event::Unheld { belief, .. } | Event::Promised { belief, .. } => self.belief(*belief).map(|(lock, _)| lock),
            Event::Nemesis(Nemesis::DeleteItem(lock) | Nemesis::CorruptItem(lock)) => Some(*lock),
            Event::Phase(Phase::LivenessCrash { lock, .. }) => Some(*lock),
            _ => None,
        }
    }
}

/// The lock a call is about.
pub(crate) fn call_lock(call: &Call) -> Option<LockId> {
    match call {
        Call::Acquire { lock }
        | Call::TryAcquire { lock }
        | Call::Release { lock, .. }
        | Call::Renew { lock, .. }
        | Call::FencedWrite { lock, .. }
        | Call::StoreWrite { lock, .. }
        | Call::Exists { lock }
        | Call::Resign { lock, .. } => Some(*lock),
        Call::Custom { .. } => None,
    }
}

/// The first eight characters of an id: enough to tell the ids of a run apart.
fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// A global time as `12.345 s`.
pub fn seconds(at: Duration) -> String {
    format!("{}.{:03} s", at.as_secs(), at.subsec_millis())
}
