//! The history of a run as the lock checker reads it: the world's history, with the lock
//! library's notes read back into events of their own and locks and ids numbered.
//!
//! - [`project`]: from the world's history to this one, entry for entry (an entry the checker
//!   has no use for becomes [`Event::Other`], so that indices stay the same).
//! - [`History`]: every [`Entry`] of a run in the order it happened.
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

use std::collections::BTreeMap;
use std::time::Duration;

use crate::history as world;
pub use crate::history::{Actor, OpId, Outcome, ProcessRef};
use crate::locks::notes::{Belief, ItemState, Lock, LockCall, LockNote, LockValue};

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
    /// Acquire a lock, waiting at most `wait_ms` on the process's clock while it is held.
    TryAcquireFor {
        /// The lock.
        lock: LockId,
        /// How long it may wait.
        wait_ms: u64,
    },
    /// Describe a lock; it answers [`Value::Described`].
    Describe {
        /// The lock.
        lock: LockId,
    },
    /// List every lock of the table; it answers [`Value::Listed`].
    List,
    /// Shut a `LockTable` down, then try to acquire with it; it answers [`Value::ShutDown`].
    Shutdown {
        /// The bound of the shutdown, on the process's clock.
        within_ms: u64,
        /// The leases the table held when the shutdown began: (lock, fencing token).
        leases: Vec<(LockId, u64)>,
    },
    /// An operation of a workload of your own.
    Custom {
        /// What it is, for the timeline.
        name: String,
    },
}

impl Call {
    /// The lock of an acquire of any form (`acquire`, `try_acquire`, `try_acquire_for`).
    pub fn acquires(&self) -> Option<LockId> {
        match self {
            Call::Acquire { lock } | Call::TryAcquire { lock } | Call::TryAcquireFor { lock, .. } => Some(*lock),
            _ => None,
        }
    }
}

/// A lock as `describe` or a listing told it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    /// The lock.
    pub lock: LockId,
    /// Its fencing token.
    pub fence: u64,
    /// The lease of its holder in milliseconds while it has one; `None` while it is free.
    pub lease_ms: Option<u64>,
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
    /// What `describe` told: `None` for a lock without an item.
    Described(Option<Seen>),
    /// What a listing told, lock by lock.
    Listed(Vec<Seen>),
    /// What a shutdown reported, and whether an acquire afterwards was refused with `ShutDown`.
    ShutDown {
        /// The releases answered.
        released: usize,
        /// The releases that failed.
        failed: usize,
        /// The releases unanswered when the bound ran out.
        unanswered: usize,
        /// Whether the acquire after it was refused.
        refused: bool,
    },
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
    /// A trigger fired at a moment of a process's request; what it does follows.
    Triggered {
        /// The process of the moment.
        process: ProcessRef,
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
    /// A process asked for a warning `margin` before its lease `token` of `lock` runs out
    /// without a renewal.
    Warning {
        /// The lock.
        lock: LockId,
        /// The fencing token of the lease.
        token: u64,
        /// The margin.
        margin: Duration,
    },
    /// The warning on the lease `token` of `lock` fired.
    Warned {
        /// The lock.
        lock: LockId,
        /// The fencing token of the lease.
        token: u64,
    },
    /// A step of the run.
    Phase(Phase),
    /// An entry the checker has no use for.
    Other,
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
}

/// Reads the world's history back as the lock checker's, entry for entry.
pub fn project(history: &world::History) -> History {
    let mut projector = Projector::default();
    let entries = history
        .entries()
        .iter()
        .map(|entry| Entry { at: entry.at, actor: entry.actor, event: projector.event(&entry.event) })
        .collect();
    History { entries, locks: projector.locks, ids: projector.ids }
}

/// Numbers locks and ids in the order they first appear.
#[derive(Default)]
struct Projector {
    locks: Vec<String>,
    lock_ids: BTreeMap<String, LockId>,
    ids: Vec<String>,
    id_numbers: BTreeMap<String, u32>,
    beliefs: std::collections::BTreeSet<u32>,
}

impl Projector {
    fn lock(&mut self, lock: &Lock) -> LockId {
        self.lock_named(lock.name())
    }

    fn lock_named(&mut self, name: &str) -> LockId {
        if let Some(id) = self.lock_ids.get(name) {
            return *id;
        }
        let id = LockId(self.locks.len() as u16);
        self.locks.push(name.to_owned());
        self.lock_ids.insert(name.to_owned(), id);
        id
    }

    fn intern(&mut self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        if let Some(id) = self.id_numbers.get(text) {
            return *id;
        }
        self.ids.push(text.to_owned());
        let id = self.ids.len() as u32;
        self.id_numbers.insert(text.to_owned(), id);
        id
    }

    fn state(&mut self, state: &ItemState) -> LockState {
        match state {
            ItemState::Absent => LockState::Absent,
            ItemState::Free { fence } => LockState::Free { fence: *fence },
            ItemState::Held { owner, version, fence, lease_ms } => LockState::Held(LockRecord {
                owner: self.intern(owner),
                version: self.intern(version),
                fence: *fence,
                lease_ms: *lease_ms,
            }),
        }
    }

    fn call(&mut self, call: &LockCall) -> Call {
        match call {
            LockCall::Acquire { lock } => Call::Acquire { lock: self.lock(lock) },
            LockCall::TryAcquire { lock } => Call::TryAcquire { lock: self.lock(lock) },
            LockCall::Release { lock, token } => Call::Release { lock: self.lock(lock), token: *token },
            LockCall::Renew { lock, token } => Call::Renew { lock: self.lock(lock), token: *token },
            LockCall::FencedWrite { lock, token } => Call::FencedWrite { lock: self.lock(lock), token: *token },
            LockCall::StoreWrite { lock, token } => Call::StoreWrite { lock: self.lock(lock), token: *token },
            LockCall::Exists { lock } => Call::Exists { lock: self.lock(lock) },
            LockCall::Resign { lock, token, stopped } => {
                Call::Resign { lock: self.lock(lock), token: *token, stopped: *stopped }
            }
            LockCall::TryAcquireFor { lock, wait_ms } => {
                Call::TryAcquireFor { lock: self.lock(lock), wait_ms: *wait_ms }
            }
            LockCall::Describe { lock } => Call::Describe { lock: self.lock(lock) },
            LockCall::List => Call::List,
            LockCall::Shutdown { within_ms, leases } => Call::Shutdown {
                within_ms: *within_ms,
                leases: leases.iter().map(|(lock, token)| (self.lock(lock), *token)).collect(),
            },
            LockCall::Custom { name } => Call::Custom { name: name.clone() },
        }
    }

    fn seen(&mut self, seen: &crate::locks::notes::Seen) -> Seen {
        Seen { lock: self.lock(&seen.lock), fence: seen.fence, lease_ms: seen.lease_ms }
    }

    fn event(&mut self, event: &world::Event) -> Event {
        match event {
            world::Event::Invoke { op, value } => match value.get::<LockCall>() {
                Some(call) => Event::Invoke { op: *op, call: self.call(call) },
                None => match value.as_text() {
                    Some(name) => Event::Invoke { op: *op, call: Call::Custom { name: name.to_owned() } },
                    None => Event::Invoke { op: *op, call: Call::Custom { name: value.describe() } },
                },
            },
            world::Event::Complete { op, outcome, value } => {
                let value = match (value.get::<LockValue>(), value.as_text()) {
                    (Some(LockValue::None), _) => Value::None,
                    (Some(LockValue::Token(token)), _) => Value::Token(*token),
                    (Some(LockValue::Bool(yes)), _) => Value::Bool(*yes),
                    (Some(LockValue::Text(text)), _) => Value::Text(text.clone()),
                    (Some(LockValue::Described(seen)), _) => Value::Described(seen.as_ref().map(|s| self.seen(s))),
                    (Some(LockValue::Listed(locks)), _) => Value::Listed(locks.iter().map(|s| self.seen(s)).collect()),
                    (Some(LockValue::ShutDown { released, failed, unanswered, refused }), _) => Value::ShutDown {
                        released: *released,
                        failed: *failed,
                        unanswered: *unanswered,
                        refused: *refused,
                    },
                    (None, Some("")) | (None, None) => Value::None,
                    (None, Some(text)) => Value::Text(text.to_owned()),
                };
                Event::Complete { op: *op, outcome: *outcome, value }
            }
            world::Event::Open { span, value } => match value.get::<Belief>() {
                Some(belief) => {
                    self.beliefs.insert(span.0);
                    Event::Held {
                        belief: BeliefId(span.0),
                        lock: self.lock(&belief.lock),
                        token: belief.token,
                        renews: belief.renews,
                    }
                }
                None => Event::Other,
            },
            world::Event::Close { span, value } if self.beliefs.contains(&span.0) => {
                let why = match (value.get::<crate::locks::notes::Unheld>(), value.get::<world::Ended>()) {
                    (Some(why), _) => match why {
                        crate::locks::notes::Unheld::Lost(reason) => Unheld::Lost(reason.clone()),
                        crate::locks::notes::Unheld::Released => Unheld::Released,
                        crate::locks::notes::Unheld::Crashed => Unheld::Crashed,
                        crate::locks::notes::Unheld::RunEnded => Unheld::RunEnded,
                    },
                    (None, Some(world::Ended::Crashed)) => Unheld::Crashed,
                    (None, Some(world::Ended::RunEnded)) => Unheld::RunEnded,
                    (None, None) => Unheld::Released,
                };
                Event::Unheld { belief: BeliefId(span.0), why }
            }
            world::Event::Note(value) => match value.get::<LockNote>() {
                Some(note) => self.note(note),
                None => Event::Other,
            },
            world::Event::Nemesis(nemesis) => self.nemesis(nemesis),
            world::Event::Phase(phase) => match phase {
                world::Phase::Safety => Event::Phase(Phase::Safety),
                world::Phase::Healed => Event::Phase(Phase::Healed),
                world::Phase::End => Event::Phase(Phase::End),
                _ => Event::Other,
            },
            _ => Event::Other,
        }
    }

    fn note(&mut self, note: &LockNote) -> Event {
        match note {
            LockNote::Applied { lock, by, sent, request, op, before, after } => Event::Applied {
                lock: self.lock(lock),
                by: *by,
                sent: *sent,
                request: *request,
                op: *op,
                before: self.state(before),
                after: self.state(after),
            },
            LockNote::Refused { lock, by, request, state, names } => Event::Refused {
                lock: self.lock(lock),
                by: *by,
                request: *request,
                state: self.state(state),
                names: names.as_deref().map_or(0, |owner| self.intern(owner)),
            },
            LockNote::Sent { lock, request, names } => Event::Sent {
                lock: self.lock(lock),
                request: *request,
                names: names.as_deref().map_or(0, |owner| self.intern(owner)),
            },
            LockNote::Answered { lock, request, ok } => {
                Event::Answered { lock: self.lock(lock), request: *request, ok: *ok }
            }
            LockNote::Heard { lock, request } => Event::Heard { lock: self.lock(lock), request: *request },
            LockNote::Committed { op } => Event::Committed { op: *op },
            LockNote::StoreAccepted { op, lock, token } => {
                Event::StoreAccepted { op: *op, lock: self.lock(lock), token: *token }
            }
            LockNote::HandedOver { lock, token, from } => {
                Event::HandedOver { lock: self.lock(lock), token: *token, from: *from }
            }
            LockNote::Promised { belief, left } => Event::Promised { belief: BeliefId(belief.0), left: *left },
            LockNote::Broken { lock, what } => Event::Broken { lock: self.lock(lock), what: what.clone() },
            LockNote::Warning { lock, token, margin } => {
                Event::Warning { lock: self.lock(lock), token: *token, margin: *margin }
            }
            LockNote::Warned { lock, token } => Event::Warned { lock: self.lock(lock), token: *token },
            LockNote::LivenessCrash { lock, victim } => {
                Event::Phase(Phase::LivenessCrash { lock: self.lock(lock), victim: *victim })
            }
        }
    }

    fn nemesis(&mut self, nemesis: &world::Nemesis) -> Event {
        let nemesis = match nemesis {
            world::Nemesis::Crash(p) => Nemesis::Crash(*p),
            world::Nemesis::Restart(p) => Nemesis::Restart(*p),
            world::Nemesis::Pause(p) => Nemesis::Pause(*p),
            world::Nemesis::Suspend(p) => Nemesis::Suspend(*p),
            world::Nemesis::Resume(p) => Nemesis::Resume(*p),
            world::Nemesis::Partition(p) => Nemesis::Partition(*p),
            world::Nemesis::PartitionHealed(p) => Nemesis::PartitionHealed(*p),
            world::Nemesis::Latency { process, extra_ms } => {
                Nemesis::Latency { process: *process, extra_ms: *extra_ms }
            }
            world::Nemesis::LatencyHealed(p) => Nemesis::LatencyHealed(*p),
            world::Nemesis::Throttle { process, per_million } => {
                Nemesis::Throttle { process: *process, per_million: *per_million }
            }
            world::Nemesis::ThrottleEnded => Nemesis::ThrottleEnded,
            // The library sends no batches.
            world::Nemesis::PartialBatches { .. } | world::Nemesis::PartialBatchesEnded => return Event::Other,
            world::Nemesis::TableOutage(_) => Nemesis::TableOutage,
            world::Nemesis::TableBack(_) => Nemesis::TableBack,
            world::Nemesis::DeleteItem(item) => match crate::locks::truth::lock_of_item(item) {
                Some(lock) => Nemesis::DeleteItem(self.lock_named(lock)),
                None => return Event::Other,
            },
            world::Nemesis::ReplaceItem(item) => match crate::locks::truth::lock_of_item(item) {
                Some(lock) => Nemesis::CorruptItem(self.lock_named(lock)),
                None => return Event::Other,
            },
            world::Nemesis::ClockStep { process, delta_ms } => {
                Nemesis::ClockStep { process: *process, delta_ms: *delta_ms }
            }
            world::Nemesis::Triggered { process, .. } => Nemesis::Triggered { process: *process },
        };
        Event::Nemesis(nemesis)
    }
}
