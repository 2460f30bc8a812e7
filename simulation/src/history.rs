//! The recorded history of a run, in the form Jepsen gives histories.
//!
//! - [`History`]: every [`Entry`] of a run in the order it happened, and its [`digest`](History::digest).
//! - [`Event`]: what an entry records. Operations of processes come in pairs: an
//!   [`Invoke`](Event::Invoke), then a [`Complete`](Event::Complete) whose [`Outcome`] is `Ok`
//!   (it happened), `Fail` (it certainly did not) or `Info` (nobody knows: a lost response, a
//!   timeout, a crash). Beside them: the beliefs of processes ([`Held`](Event::Held) /
//!   [`Unheld`](Event::Unheld)), the faults of the nemesis, and what DynamoDB and the external
//!   store observed when they applied a request ([`Applied`](Event::Applied) and
//!   [`Refused`](Event::Refused) with the lock item before and after,
//!   [`Committed`](Event::Committed), [`StoreAccepted`](Event::StoreAccepted)), which is the
//!   ground truth the checker compares beliefs with.
//! - [`LockState`], [`LockRecord`]: a lock item as DynamoDB held it at one instant.
//! - [`Recorder`]: how a process's code adds operations, for workloads of your own.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::clock::WorldClock;

/// One incarnation of a simulated process: its number, and how many times it was restarted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProcessRef {
    /// The process, from 0.
    pub id: u16,
    /// The incarnation: 0, then one more after every restart.
    pub incarnation: u16,
}

impl fmt::Display for ProcessRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}.{}", self.id, self.incarnation)
    }
}

/// The number of an operation, unique in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpId(pub u32);

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// A lock, by its index in [`History::lock_name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LockId(pub u16);

/// The number of a belief: one lease that a process held, from [`Event::Held`] to
/// [`Event::Unheld`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BeliefId(pub u32);

/// What an operation asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Call {
    /// Acquire a lock, waiting while it is held.
    Acquire {
        /// The lock.
        lock: LockId,
    },
    /// Acquire a lock if it is free now.
    TryAcquire {
        /// The lock.
        lock: LockId,
    },
    /// Release a lease.
    Release {
        /// The lock.
        lock: LockId,
        /// The fencing token of the lease.
        token: u64,
    },
    /// Renew a lease now.
    Renew {
        /// The lock.
        lock: LockId,
        /// The fencing token of the lease.
        token: u64,
    },
    /// A DynamoDB write that commits only while the lease holds the lock.
    FencedWrite {
        /// The lock.
        lock: LockId,
        /// The fencing token of the lease.
        token: u64,
    },
    /// A write to the external store, which checks fencing tokens itself.
    StoreWrite {
        /// The lock whose token the write carries.
        lock: LockId,
        /// The fencing token.
        token: u64,
    },
    /// Ask whether a lock is held ([`dynalease::ProcessLocks::exists`]); it answers
    /// [`Value::Bool`].
    Exists {
        /// The lock.
        lock: LockId,
    },
    /// An election ends: its caller stops it (cancels the token of `run_as_leader`), or the
    /// work of its term returns on its own. It completes when `run_as_leader` returns, which
    /// promises to have released the lease of the term.
    Resign {
        /// The lock of the election.
        lock: LockId,
        /// The fencing token of the lease of the term under way, if the process led then.
        token: Option<u64>,
        /// Whether the caller stopped it, rather than the work returning.
        stopped: bool,
    },
    /// An operation of a workload of your own.
    Custom {
        /// What it is, for the timeline.
        name: String,
    },
}

/// How an operation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// It happened.
    Ok,
    /// It certainly did not happen.
    Fail,
    /// It may or may not have happened: a lost response, a timeout, a crash.
    Info,
}

impl Outcome {
    /// `ok`, `fail` or `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Fail => "fail",
            Outcome::Info => "info",
        }
    }
}

/// The result an operation came back with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// Nothing to tell.
    None,
    /// A fencing token.
    Token(u64),
    /// A yes or a no.
    Bool(bool),
    /// Why it failed, or anything else worth reading in the timeline.
    Text(String),
}

/// Why a belief ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unheld {
    /// The lease ended without a release: the reason the library gave.
    Lost(String),
    /// The process released it.
    Released,
    /// The process crashed.
    Crashed,
    /// The run ended.
    RunEnded,
}

/// A fault the nemesis applied, or its end.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Nemesis {
    /// The incarnation was cut off: it sends nothing more and releases nothing.
    Crash(ProcessRef),
    /// A new incarnation of a crashed process started.
    Restart(ProcessRef),
    /// The process stopped; its clock runs on.
    Pause(ProcessRef),
    /// The machine stopped, its monotonic clock too.
    Suspend(ProcessRef),
    /// The process runs again after a pause or a suspension.
    Resume(ProcessRef),
    /// Requests and answers of the process are dropped; its requests time out.
    Partition(u16),
    /// The partition of the process ended.
    PartitionHealed(u16),
    /// The network of the process is slower by this much, each way.
    Latency {
        /// The process.
        process: u16,
        /// Added to every request and every answer.
        extra_ms: u64,
    },
    /// The network of the process is back to its usual latency.
    LatencyHealed(u16),
    /// DynamoDB throttles requests of the process (or of all processes) with this probability.
    Throttle {
        /// The process, or `None` for all.
        process: Option<u16>,
        /// The probability, in millionths.
        per_million: u32,
    },
    /// The throttling burst ended.
    ThrottleEnded,
    /// The table answers ResourceNotFoundException to everyone.
    TableOutage,
    /// The table answers again.
    TableBack,
    /// The item of the lock was deleted: its fencing token starts at 1 again.
    DeleteItem(LockId),
    /// The item of the lock was replaced by an entity that is no lock, until the next deletion.
    CorruptItem(LockId),
    /// The machine's wall clock jumped.
    ClockStep {
        /// The process.
        process: u16,
        /// By how much, either way.
        delta_ms: i64,
    },
    /// A trigger fired at a moment of the protocol; what it does follows.
    Triggered {
        /// The process of the moment.
        process: ProcessRef,
        /// The lock of the moment.
        lock: LockId,
        /// The moment.
        moment: crate::triggers::Moment,
        /// What the nemesis does.
        reaction: crate::triggers::Reaction,
    },
}

/// A step of the run itself.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// The safety phase starts: faults from now on.
    Safety,
    /// Every fault is healed: crashed processes restart, paused ones resume, the network is clean.
    Healed,
    /// The liveness test: the holder of the lock crashes, and another process must take the
    /// lock over within one lease and one poll interval.
    LivenessCrash {
        /// The lock.
        lock: LockId,
        /// The holder that was crashed; `None` if no live process held the lock.
        victim: Option<ProcessRef>,
    },
    /// The run ended.
    End,
}

/// A lock item as DynamoDB held it at one instant, read by the world right after it applied a
/// write (or refused one). Owner ids and record versions are interned per run
/// ([`History::id_text`]), so the same owner is the same number throughout a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LockState {
    /// There is no item.
    #[default]
    Absent,
    /// An item without an owner: a released lock, with its fencing token.
    Free {
        /// The fencing token the item keeps.
        fence: u64,
    },
    /// An item with an owner.
    Held(LockRecord),
}

impl LockState {
    /// The record, if the item has an owner.
    pub fn held(&self) -> Option<&LockRecord> {
        match self {
            LockState::Held(record) => Some(record),
            _ => None,
        }
    }

    /// The fencing token the item carries; 0 for no item.
    pub fn fence(&self) -> u64 {
        match self {
            LockState::Absent => 0,
            LockState::Free { fence } => *fence,
            LockState::Held(record) => record.fence,
        }
    }

    /// The owner, if the item has one.
    pub fn owner(&self) -> Option<u32> {
        self.held().map(|r| r.owner)
    }
}

/// The attributes of a lock item that has an owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockRecord {
    /// The owner id of the lease, interned.
    pub owner: u32,
    /// The record version (for the naive lock: its expiry), interned; 0 when the item has none.
    pub version: u32,
    /// The fencing token.
    pub fence: u64,
    /// The lease written with it, in milliseconds; 0 when the item says none.
    pub lease_ms: u64,
}

/// What a write applied to a lock item did, told apart by the item before and after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteEffect {
    /// A new owner, or the same owner with a raised fencing token (an acquire that a client
    /// retried after its answer was lost).
    Grant,
    /// The same owner with a new record version.
    Renewal,
    /// The owner was removed, or the item deleted.
    Release,
    /// Nothing a lock protocol reads changed.
    Unchanged,
}

impl WriteEffect {
    /// The effect of a write that turned `before` into `after`.
    pub fn of(before: &LockState, after: &LockState) -> WriteEffect {
        match (before, after) {
            (LockState::Held(old), LockState::Held(new)) if old.owner == new.owner => {
                if new.fence > old.fence {
                    WriteEffect::Grant
                } else if new.version != old.version {
                    WriteEffect::Renewal
                } else {
                    WriteEffect::Unchanged
                }
            }
            (_, LockState::Held(_)) => WriteEffect::Grant,
            (LockState::Held(_), _) => WriteEffect::Release,
            (LockState::Free { .. }, LockState::Absent) => WriteEffect::Release,
            _ => WriteEffect::Unchanged,
        }
    }
}

/// What one entry of the history records.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event {
    /// A process started an operation.
    Invoke {
        /// The operation.
        op: OpId,
        /// What it asks for.
        call: Call,
    },
    /// An operation ended.
    Complete {
        /// The operation.
        op: OpId,
        /// How.
        outcome: Outcome,
        /// With what.
        value: Value,
    },
    /// A process starts to believe that it holds a lock.
    Held {
        /// The belief.
        belief: BeliefId,
        /// The lock.
        lock: LockId,
        /// The fencing token of the lease.
        token: u64,
        /// Whether the lease renews itself (a [`dynalease::Lease`] and its heartbeat), which the
        /// checker then holds to the heartbeat's promises.
        renews: bool,
    },
    /// A process was handed the token of a lease that another process held: from now on it
    /// may renew and release that lease as its own.
    HandedOver {
        /// The lock.
        lock: LockId,
        /// The fencing token of the lease.
        token: u64,
        /// The incarnation that handed it over.
        from: ProcessRef,
    },
    /// A process was promised its lease for `left` more, on its own clock (a renewal by token
    /// with a minimum window that returned true, say): the lease as DynamoDB holds it must last
    /// that long.
    Promised {
        /// The belief.
        belief: BeliefId,
        /// How long the lease is promised from now.
        left: Duration,
    },
    /// A process stops believing that it holds a lock.
    Unheld {
        /// The belief.
        belief: BeliefId,
        /// Why.
        why: Unheld,
    },
    /// A fault.
    Nemesis(Nemesis),
    /// DynamoDB applied a write to a lock item: an acquire, a renewal, a release, or whatever
    /// else a process wrote there.
    Applied {
        /// The lock.
        lock: LockId,
        /// The incarnation whose request it was.
        by: ProcessRef,
        /// When the request left the process, in global time.
        sent: Duration,
        /// The request, interned: the retries of one request by the client share it.
        request: u32,
        /// The operation of the process that sent the request while it acquired a lock, if any.
        op: Option<OpId>,
        /// The item before the write.
        before: LockState,
        /// The item after it.
        after: LockState,
    },
    /// DynamoDB refused a conditional write to a lock item.
    Refused {
        /// The lock.
        lock: LockId,
        /// The incarnation whose request it was.
        by: ProcessRef,
        /// The request, interned as for [`Event::Applied`].
        request: u32,
        /// The item as the refusal found it.
        state: LockState,
        /// The owner of a lease of `by` that the request names (its renewal or its release, say),
        /// interned; 0 if it names none.
        names: u32,
    },
    /// A write to a lock item left its process (each attempt of the client, retries too).
    Sent {
        /// The lock.
        lock: LockId,
        /// The request, interned as for [`Event::Applied`].
        request: u32,
        /// The owner of a lease that the request names (its renewal or its release, say),
        /// interned; 0 if it names none.
        names: u32,
    },
    /// The answer to an attempt of a write to a lock item reached its process: `ok` if DynamoDB
    /// applied it, otherwise an error, a timeout or a lost answer.
    Answered {
        /// The lock.
        lock: LockId,
        /// The request.
        request: u32,
        /// Whether the write was applied and the process heard so.
        ok: bool,
    },
    /// The answer of a refused write to a lock item ([`Event::Refused`]), with the item as it
    /// was, reached its process: it knows who holds the lock.
    Heard {
        /// The lock.
        lock: LockId,
        /// The request.
        request: u32,
    },
    /// DynamoDB applied a fenced write.
    Committed {
        /// The operation of the write.
        op: OpId,
    },
    /// The external store accepted a write.
    StoreAccepted {
        /// The operation of the write.
        op: OpId,
        /// The lock whose token the write carries.
        lock: LockId,
        /// The token.
        token: u64,
    },
    /// A process saw the library answer against its documentation (an election that returned
    /// `Cancelled` though nobody cancelled it, say).
    Broken {
        /// The lock.
        lock: LockId,
        /// What the library did, and what it promises.
        what: String,
    },
    /// A step of the run.
    Phase(Phase),
}

impl Event {
    /// The lock, fencing token and incarnation of a grant: an applied write that gave a lock
    /// to a new owner, or raised the token of its owner.
    pub fn grant(&self) -> Option<(LockId, u64, ProcessRef)> {
        match self {
            Event::Applied { lock, by, before, after: after @ LockState::Held(record), .. }
                if WriteEffect::of(before, after) == WriteEffect::Grant =>
            {
                Some((*lock, record.fence, *by))
            }
            _ => None,
        }
    }
}

/// Who recorded an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Actor {
    /// An incarnation of a process.
    Process(ProcessRef),
    /// The fault injector.
    Nemesis,
    /// DynamoDB (the fake), when it applied a request.
    Db,
    /// The external store, when it applied a write.
    Store,
    /// The world.
    World,
}

impl fmt::Display for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Actor::Process(process) => process.fmt(f),
            Actor::Nemesis => f.write_str("nemesis"),
            Actor::Db => f.write_str("dynamodb"),
            Actor::Store => f.write_str("store"),
            Actor::World => f.write_str("world"),
        }
    }
}

/// One entry of the history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// When, in global time since the start of the run (microsecond precision).
    pub at: Duration,
    /// Who recorded it.
    pub actor: Actor,
    /// What happened.
    pub event: Event,
}

/// The whole history of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    entries: Vec<Entry>,
    locks: Vec<String>,
    ids: Vec<String>,
}

impl History {
    /// A history of `entries`, whose locks are named by `locks` (`LockId(i)` is `locks[i]`).
    /// For checking histories that were not recorded by the world, such as in tests of the checker.
    pub fn from_entries(entries: Vec<Entry>, locks: Vec<String>) -> Self {
        History { entries, locks, ids: Vec::new() }
    }

    /// The entries, in the order they happened.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The name of a lock.
    pub fn lock_name(&self, lock: LockId) -> &str {
        self.locks.get(usize::from(lock.0)).map_or("?", String::as_str)
    }

    /// The text of an interned owner id or record version ([`LockRecord`]); `?` for an
    /// unknown one.
    pub fn id_text(&self, id: u32) -> &str {
        id.checked_sub(1).and_then(|i| self.ids.get(i as usize)).map_or("?", String::as_str)
    }

    /// The lock of this name, if the history has one.
    pub fn lock_id(&self, name: &str) -> Option<LockId> {
        self.locks.iter().position(|l| l == name).map(|i| LockId(i as u16))
    }

    /// A 64-bit FNV-1a hash of every entry, stable across builds, platforms of the same word
    /// size and log levels: the same seed gives the same digest.
    pub fn digest(&self) -> u64 {
        let mut digest = Digest::default();
        for name in &self.locks {
            digest.str(name);
        }
        for id in &self.ids {
            digest.str(id);
        }
        for entry in &self.entries {
            entry.feed(&mut digest);
        }
        digest.0
    }
}

/// FNV-1a, 64 bits.
struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn u64(&mut self, value: u64) {
        self.bytes(&value.to_le_bytes());
    }

    fn str(&mut self, value: &str) {
        self.u64(value.len() as u64);
        self.bytes(value.as_bytes());
    }

    fn process(&mut self, process: ProcessRef) {
        self.u64(u64::from(process.id) << 16 | u64::from(process.incarnation));
    }

    fn state(&mut self, state: &LockState) {
        match state {
            LockState::Absent => self.u64(0),
            LockState::Free { fence } => {
                self.u64(1);
                self.u64(*fence);
            }
            LockState::Held(record) => {
                self.u64(2);
                self.u64(u64::from(record.owner) << 32 | u64::from(record.version));
                self.u64(record.fence);
                self.u64(record.lease_ms);
            }
        }
    }
}

impl Entry {
    fn feed(&self, d: &mut Digest) {
        d.u64(self.at.as_micros() as u64);
        match self.actor {
            Actor::Process(p) => {
                d.u64(1);
                d.process(p);
            }
            Actor::Nemesis => d.u64(2),
            Actor::Db => d.u64(3),
            Actor::Store => d.u64(4),
            Actor::World => d.u64(5),
        }
        match &self.event {
            Event::Invoke { op, call } => {
                d.u64(10);
                d.u64(u64::from(op.0));
                match call {
                    Call::Acquire { lock } => d.u64(100 + u64::from(lock.0)),
                    Call::TryAcquire { lock } => d.u64(200 + u64::from(lock.0)),
                    Call::Release { lock, token } => {
                        d.u64(300 + u64::from(lock.0));
                        d.u64(*token);
                    }
                    Call::FencedWrite { lock, token } => {
                        d.u64(400 + u64::from(lock.0));
                        d.u64(*token);
                    }
                    Call::StoreWrite { lock, token } => {
                        d.u64(500 + u64::from(lock.0));
                        d.u64(*token);
                    }
                    Call::Custom { name } => {
                        d.u64(600);
                        d.str(name);
                    }
                    Call::Renew { lock, token } => {
                        d.u64(700 + u64::from(lock.0));
                        d.u64(*token);
                    }
                    Call::Exists { lock } => d.u64(800 + u64::from(lock.0)),
                    Call::Resign { lock, token, stopped } => {
                        d.u64(900 + u64::from(lock.0));
                        d.u64(token.map_or(0, |t| t + 1));
                        d.u64(u64::from(*stopped));
                    }
                }
            }
            Event::Complete { op, outcome, value } => {
                d.u64(11);
                d.u64(u64::from(op.0));
                d.u64(*outcome as u64);
                match value {
                    Value::None => d.u64(0),
                    Value::Token(token) => {
                        d.u64(1);
                        d.u64(*token);
                    }
                    Value::Text(text) => {
                        d.u64(2);
                        d.str(text);
                    }
                    Value::Bool(yes) => d.u64(3 + u64::from(*yes)),
                }
            }
            Event::Held { belief, lock, token, renews } => {
                d.u64(12);
                d.u64(u64::from(belief.0));
                d.u64(u64::from(lock.0));
                d.u64(*token);
                d.u64(u64::from(*renews));
            }
            Event::HandedOver { lock, token, from } => {
                d.u64(22);
                d.u64(u64::from(lock.0));
                d.u64(*token);
                d.process(*from);
            }
            Event::Sent { lock, request, names } => {
                d.u64(23);
                d.u64(u64::from(lock.0));
                d.u64(u64::from(*request));
                d.u64(u64::from(*names));
            }
            Event::Answered { lock, request, ok } => {
                d.u64(24);
                d.u64(u64::from(lock.0));
                d.u64(u64::from(*request));
                d.u64(u64::from(*ok));
            }
            Event::Promised { belief, left } => {
                d.u64(21);
                d.u64(u64::from(belief.0));
                d.u64(left.as_micros() as u64);
            }
            Event::Unheld { belief, why } => {
                d.u64(13);
                d.u64(u64::from(belief.0));
                match why {
                    Unheld::Lost(reason) => d.str(reason),
                    Unheld::Released => d.u64(1),
                    Unheld::Crashed => d.u64(2),
                    Unheld::RunEnded => d.u64(3),
                }
            }
            Event::Nemesis(nemesis) => {
                d.u64(14);
                d.str(&format!("{nemesis:?}"));
            }
            Event::Applied { lock, by, sent, request, op, before, after } => {
                d.u64(15);
                d.u64(u64::from(lock.0));
                d.process(*by);
                d.u64(sent.as_micros() as u64);
                d.u64(u64::from(*request));
                d.u64(op.map_or(0, |op| u64::from(op.0) + 1));
                d.state(before);
                d.state(after);
            }
            Event::Refused { lock, by, request, state, names } => {
                d.u64(19);
                d.u64(u64::from(lock.0));
                d.process(*by);
                d.u64(u64::from(*request));
                d.state(state);
                d.u64(u64::from(*names));
            }
            Event::Heard { lock, request } => {
                d.u64(20);
                d.u64(u64::from(lock.0));
                d.u64(u64::from(*request));
            }
            Event::Committed { op } => {
                d.u64(16);
                d.u64(u64::from(op.0));
            }
            Event::StoreAccepted { op, lock, token } => {
                d.u64(17);
                d.u64(u64::from(op.0));
                d.u64(u64::from(lock.0));
                d.u64(*token);
            }
            Event::Broken { lock, what } => {
                d.u64(25);
                d.u64(u64::from(lock.0));
                d.str(what);
            }
            Event::Phase(phase) => {
                d.u64(18);
                d.str(&format!("{phase:?}"));
            }
        }
    }
}

/// An operation that was invoked and has not completed yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Open {
    process: ProcessRef,
}

/// A belief that has not ended yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OpenBelief {
    process: ProcessRef,
}

/// The history while it is recorded.
#[derive(Debug, Default)]
struct Builder {
    entries: Vec<Entry>,
    locks: Vec<String>,
    lock_ids: BTreeMap<String, LockId>,
    ids: Vec<String>,
    id_numbers: BTreeMap<String, u32>,
    next_op: u32,
    next_belief: u32,
    open_ops: BTreeMap<OpId, Open>,
    open_beliefs: BTreeMap<BeliefId, OpenBelief>,
}

/// Where the world and its processes record the history. Clones share it.
///
/// Workloads of your own record through [`ProcessCtx`](crate::ProcessCtx), which stamps the
/// process and the time.
#[derive(Clone, Debug)]
pub struct Recorder {
    clock: WorldClock,
    inner: Arc<Mutex<Builder>>,
}

impl Recorder {
    pub(crate) fn new(clock: WorldClock) -> Self {
        Recorder { clock, inner: Arc::new(Mutex::new(Builder::default())) }
    }

    fn inner(&self) -> MutexGuard<'_, Builder> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn now(&self) -> Duration {
        let now = self.clock.now();
        Duration::from_micros(now.as_micros() as u64)
    }

    /// The id of the lock of this name, interned on first use.
    pub fn lock(&self, name: &str) -> LockId {
        let mut inner = self.inner();
        if let Some(id) = inner.lock_ids.get(name) {
            return *id;
        }
        let id = LockId(inner.locks.len() as u16);
        inner.locks.push(name.to_owned());
        inner.lock_ids.insert(name.to_owned(), id);
        id
    }

    /// The number of an owner id, record version or request, interned on first use, from 1.
    pub(crate) fn intern(&self, text: &str) -> u32 {
        let mut inner = self.inner();
        if let Some(id) = inner.id_numbers.get(text) {
            return *id;
        }
        inner.ids.push(text.to_owned());
        let id = inner.ids.len() as u32;
        inner.id_numbers.insert(text.to_owned(), id);
        id
    }

    /// Records `event` by `actor` now.
    pub(crate) fn record(&self, actor: Actor, event: Event) {
        let at = self.now();
        self.inner().entries.push(Entry { at, actor, event });
    }

    /// Records the invocation of `call` by `process`.
    pub(crate) fn invoke(&self, process: ProcessRef, call: Call) -> OpId {
        let at = self.now();
        let mut inner = self.inner();
        let op = OpId(inner.next_op);
        inner.next_op += 1;
        inner.open_ops.insert(op, Open { process });
        inner.entries.push(Entry { at, actor: Actor::Process(process), event: Event::Invoke { op, call } });
        op
    }

    /// Records the end of `op`, unless it has ended already (for instance at a crash).
    pub(crate) fn complete(&self, op: OpId, outcome: Outcome, value: Value) {
        let at = self.now();
        let mut inner = self.inner();
        let Some(open) = inner.open_ops.remove(&op) else { return };
        let actor = Actor::Process(open.process);
        inner.entries.push(Entry { at, actor, event: Event::Complete { op, outcome, value } });
    }

    /// Records that `process` believes it holds `lock` with `token`, a lease that renews itself
    /// if `renews`.
    pub(crate) fn held(&self, process: ProcessRef, lock: LockId, token: u64, renews: bool) -> BeliefId {
        let at = self.now();
        let mut inner = self.inner();
        let belief = BeliefId(inner.next_belief);
        inner.next_belief += 1;
        inner.open_beliefs.insert(belief, OpenBelief { process });
        let event = Event::Held { belief, lock, token, renews };
        inner.entries.push(Entry { at, actor: Actor::Process(process), event });
        belief
    }

    /// Records that the lease of `belief` is promised for `left` more, unless the belief has ended.
    pub(crate) fn promised(&self, belief: BeliefId, left: Duration) {
        let at = self.now();
        let mut inner = self.inner();
        let Some(open) = inner.open_beliefs.get(&belief).copied() else { return };
        inner.entries.push(Entry { at, actor: Actor::Process(open.process), event: Event::Promised { belief, left } });
    }

    /// Records the end of a belief, unless it has ended already.
    pub(crate) fn unheld(&self, belief: BeliefId, why: Unheld) {
        let at = self.now();
        let mut inner = self.inner();
        let Some(open) = inner.open_beliefs.remove(&belief) else { return };
        let actor = Actor::Process(open.process);
        inner.entries.push(Entry { at, actor, event: Event::Unheld { belief, why } });
    }

    /// The incarnation that DynamoDB last granted `lock` to.
    pub(crate) fn last_grant(&self, lock: LockId) -> Option<ProcessRef> {
        self.inner().entries.iter().rev().find_map(|e| match e.event.grant() {
            Some((l, _, to)) if l == lock => Some(to),
            _ => None,
        })
    }

    /// Ends the open operations of `process` as `Info` and its beliefs as crashed.
    pub(crate) fn crashed(&self, process: ProcessRef) {
        self.close(Some(process), "crashed", || Unheld::Crashed);
    }

    fn close(&self, process: Option<ProcessRef>, reason: &str, why: impl Fn() -> Unheld) {
        let at = self.now();
        let mut inner = self.inner();
        let ops: Vec<(OpId, Open)> = inner
            .open_ops
            .iter()
            .filter(|(_, open)| process.is_none_or(|p| open.process == p))
            .map(|(op, open)| (*op, *open))
            .collect();
        for (op, open) in ops {
            inner.open_ops.remove(&op);
            let event = Event::Complete { op, outcome: Outcome::Info, value: Value::Text(reason.to_owned()) };
            inner.entries.push(Entry { at, actor: Actor::Process(open.process), event });
        }
        let beliefs: Vec<(BeliefId, OpenBelief)> = inner
            .open_beliefs
            .iter()
            .filter(|(_, open)| process.is_none_or(|p| open.process == p))
            .map(|(b, open)| (*b, *open))
            .collect();
        for (belief, open) in beliefs {
            inner.open_beliefs.remove(&belief);
            inner.entries.push(Entry {
                at,
                actor: Actor::Process(open.process),
                event: Event::Unheld { belief, why: why() },
            });
        }
    }

    /// Ends every open operation and belief, and hands the history out.
    pub(crate) fn finish(&self) -> History {
        self.close(None, "run ended", || Unheld::RunEnded);
        self.record(Actor::World, Event::Phase(Phase::End));
        let mut inner = self.inner();
        History {
            entries: std::mem::take(&mut inner.entries),
            locks: inner.locks.clone(),
            ids: std::mem::take(&mut inner.ids),
        }
    }
}
