//! What the lock library's workloads and probe record in the history: the operations of the
//! library ([`LockCall`], [`LockValue`]), the leases processes believe they hold ([`Belief`],
//! [`Unheld`], as spans), and notes ([`LockNote`]): every write DynamoDB applied to a lock item
//! with the item before and after it, each attempt of a write as it left its process and as its
//! answer came back, fenced writes committed, broken promises.
//!
//! The checker reads them back as a [`History`](super::history::History) of its own
//! ([`project`](super::history::project)).

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::clock::seconds;
use crate::history::{Digest, OpId, ProcessRef, Record, SpanId};

/// A lock, by its name. Cheap to clone.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lock(pub Arc<str>);

impl Lock {
    /// The lock named `name`.
    pub fn new(name: &str) -> Self {
        Lock(Arc::from(name))
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Lock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for Lock {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl fmt::Debug for Lock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// What an operation of the lock library asked for.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub enum LockCall {
    /// Acquire a lock, waiting while it is held.
    Acquire {
        /// The lock.
        lock: Lock,
    },
    /// Acquire a lock if it is free now.
    TryAcquire {
        /// The lock.
        lock: Lock,
    },
    /// Release a lease.
    Release {
        /// The lock.
        lock: Lock,
        /// The fencing token of the lease.
        token: u64,
    },
    /// Renew a lease now.
    Renew {
        /// The lock.
        lock: Lock,
        /// The fencing token of the lease.
        token: u64,
    },
    /// A DynamoDB write that commits only while the lease holds the lock.
    FencedWrite {
        /// The lock.
        lock: Lock,
        /// The fencing token of the lease.
        token: u64,
    },
    /// A write to the external store, which checks fencing tokens itself.
    StoreWrite {
        /// The lock whose token the write carries.
        lock: Lock,
        /// The fencing token.
        token: u64,
    },
    /// Ask whether a lock is held ([`dynalease::ProcessLocks::exists`]); it answers
    /// [`LockValue::Bool`].
    Exists {
        /// The lock.
        lock: Lock,
    },
    /// An election ends: its caller stops it, or the work of its term returns on its own. It
    /// completes when `run_as_leader` returns, which promises to have released the lease of the
    /// term.
    Resign {
        /// The lock of the election.
        lock: Lock,
        /// The fencing token of the lease of the term under way, if the process led then.
        token: Option<u64>,
        /// Whether the caller stopped it, rather than the work returning.
        stopped: bool,
    },
    /// Acquire a lock, waiting at most `wait_ms` while it is held
    /// ([`dynalease::LockTable::try_acquire_for`]): a token, or `Fail` when the wait ran out.
    TryAcquireFor {
        /// The lock.
        lock: Lock,
        /// How long it may wait, on the process's clock.
        wait_ms: u64,
    },
    /// Describe a lock ([`dynalease::LockTable::describe`]); it answers
    /// [`LockValue::Described`].
    Describe {
        /// The lock.
        lock: Lock,
    },
    /// List every lock of the table ([`dynalease::LockTable::locks`]); it answers
    /// [`LockValue::Listed`].
    List,
    /// Shut a `LockTable` down ([`dynalease::LockTable::shutdown`]) and then try to acquire with
    /// it; it answers [`LockValue::ShutDown`].
    Shutdown {
        /// The bound of the shutdown, on the process's clock.
        within_ms: u64,
        /// The leases the table held when the shutdown began, as far as the process knows.
        leases: Vec<(Lock, u64)>,
    },
    /// An operation of a workload of your own.
    Custom {
        /// What it is, for the timeline.
        name: String,
    },
}

impl LockCall {
    /// The lock of the call, if it has one.
    pub fn lock(&self) -> Option<&Lock> {
        match self {
            LockCall::Acquire { lock }
            | LockCall::TryAcquire { lock }
            | LockCall::Release { lock, .. }
            | LockCall::Renew { lock, .. }
            | LockCall::FencedWrite { lock, .. }
            | LockCall::StoreWrite { lock, .. }
            | LockCall::Exists { lock }
            | LockCall::Resign { lock, .. }
            | LockCall::TryAcquireFor { lock, .. }
            | LockCall::Describe { lock } => Some(lock),
            LockCall::List | LockCall::Shutdown { .. } | LockCall::Custom { .. } => None,
        }
    }
}

impl Record for LockCall {
    fn digest(&self, d: &mut Digest) {
        let (code, lock) = match self {
            LockCall::Acquire { lock } => (100, Some(lock)),
            LockCall::TryAcquire { lock } => (200, Some(lock)),
            LockCall::Release { lock, .. } => (300, Some(lock)),
            LockCall::FencedWrite { lock, .. } => (400, Some(lock)),
            LockCall::StoreWrite { lock, .. } => (500, Some(lock)),
            LockCall::Custom { .. } => (600, None),
            LockCall::Renew { lock, .. } => (700, Some(lock)),
            LockCall::Exists { lock } => (800, Some(lock)),
            LockCall::Resign { lock, .. } => (900, Some(lock)),
            LockCall::TryAcquireFor { lock, .. } => (1000, Some(lock)),
            LockCall::Describe { lock } => (1100, Some(lock)),
            LockCall::List => (1200, None),
            LockCall::Shutdown { .. } => (1300, None),
        };
        d.u64(code);
        if let Some(lock) = lock {
            d.str(lock.name());
        }
        match self {
            LockCall::Release { token, .. }
            | LockCall::FencedWrite { token, .. }
            | LockCall::StoreWrite { token, .. }
            | LockCall::Renew { token, .. } => d.u64(*token),
            LockCall::Resign { token, stopped, .. } => {
                d.u64(token.map_or(0, |t| t + 1));
                d.u64(u64::from(*stopped));
            }
            LockCall::Custom { name } => d.str(name),
            LockCall::TryAcquireFor { wait_ms, .. } => d.u64(*wait_ms),
            LockCall::Shutdown { within_ms, leases } => {
                d.u64(*within_ms);
                for (lock, token) in leases {
                    d.str(lock.name());
                    d.u64(*token);
                }
            }
            _ => {}
        }
    }

    fn describe(&self) -> String {
        match self {
            LockCall::Acquire { lock } => format!("acquire {lock}"),
            LockCall::TryAcquire { lock } => format!("try-acquire {lock}"),
            LockCall::Release { lock, token } => format!("release {lock} token {token}"),
            LockCall::Renew { lock, token } => format!("renew {lock} token {token}"),
            LockCall::FencedWrite { lock, token } => format!("fenced-write {lock} token {token}"),
            LockCall::StoreWrite { lock, token } => format!("store-write {lock} token {token}"),
            LockCall::Exists { lock } => format!("exists {lock}"),
            LockCall::Resign { lock, token: Some(token), stopped: true } => {
                format!("stop leading {lock} (term of token {token})")
            }
            LockCall::Resign { lock, token: None, .. } => format!("stop contending for {lock}"),
            LockCall::Resign { lock, token: Some(token), stopped: false } => {
                format!("hand {lock} on (the work of the term of token {token} returned)")
            }
            LockCall::TryAcquireFor { lock, wait_ms } => {
                format!("try-acquire {lock} for {}", seconds(Duration::from_millis(*wait_ms)))
            }
            LockCall::Describe { lock } => format!("describe {lock}"),
            LockCall::List => String::from("list the locks"),
            LockCall::Shutdown { within_ms, leases } => {
                let leases: Vec<String> = leases.iter().map(|(lock, token)| format!("{lock} token {token}")).collect();
                format!(
                    "shut down within {} (holding {})",
                    seconds(Duration::from_millis(*within_ms)),
                    if leases.is_empty() { String::from("nothing") } else { leases.join(", ") }
                )
            }
            LockCall::Custom { name } => name.clone(),
        }
    }

    fn subject(&self) -> Option<String> {
        self.lock().map(|lock| lock.name().to_owned())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The result an operation of the lock library came back with.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum LockValue {
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
    /// What a listing of the locks told, lock by lock, in its order.
    Listed(Vec<Seen>),
    /// What a shutdown reported, and whether an acquire of the table afterwards failed with
    /// `ShutDown` before it sent anything.
    ShutDown {
        /// The releases answered.
        released: usize,
        /// The releases that failed.
        failed: usize,
        /// The releases still unanswered when the bound ran out.
        unanswered: usize,
        /// Whether the acquire after it was refused with `ShutDown`.
        refused: bool,
    },
}

/// A lock as `describe` or a listing told it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Seen {
    /// The lock.
    pub lock: Lock,
    /// Its fencing token.
    pub fence: u64,
    /// The lease of its holder, in milliseconds, while it has one (held, or expired as far as the
    /// table can tell); `None` while it is free.
    pub lease_ms: Option<u64>,
}

impl Seen {
    fn digest(&self, d: &mut Digest) {
        d.str(self.lock.name());
        d.u64(self.fence);
        d.u64(self.lease_ms.map_or(0, |ms| ms + 1));
    }

    /// In a few words: `batch held, token 4, lease 30 s`.
    pub fn describe(&self) -> String {
        match self.lease_ms {
            Some(ms) => {
                format!("{} held, token {}, lease {}", self.lock, self.fence, seconds(Duration::from_millis(ms)))
            }
            None => format!("{} free, token {}", self.lock, self.fence),
        }
    }
}

impl Record for LockValue {
    fn digest(&self, d: &mut Digest) {
        match self {
            LockValue::None => d.u64(0),
            LockValue::Token(token) => {
                d.u64(1);
                d.u64(*token);
            }
            LockValue::Text(text) => {
                d.u64(2);
                d.str(text);
            }
            LockValue::Bool(yes) => d.u64(3 + u64::from(*yes)),
            LockValue::Described(seen) => {
                d.u64(5);
                match seen {
                    Some(seen) => seen.digest(d),
                    None => d.u64(0),
                }
            }
            LockValue::Listed(locks) => {
                d.u64(6);
                d.u64(locks.len() as u64);
                for seen in locks {
                    seen.digest(d);
                }
            }
            LockValue::ShutDown { released, failed, unanswered, refused } => {
                d.u64(7);
                d.u64(*released as u64);
                d.u64(*failed as u64);
                d.u64(*unanswered as u64);
                d.u64(u64::from(*refused));
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            LockValue::None => String::new(),
            LockValue::Token(token) => format!("token {token}"),
            LockValue::Bool(yes) => yes.to_string(),
            LockValue::Text(text) => text.clone(),
            LockValue::Described(Some(seen)) => seen.describe(),
            LockValue::Described(None) => String::from("no item"),
            LockValue::Listed(locks) => {
                let locks: Vec<String> = locks.iter().map(Seen::describe).collect();
                format!("[{}]", locks.join("; "))
            }
            LockValue::ShutDown { released, failed, unanswered, refused } => format!(
                "released {released}, failed {failed}, unanswered {unanswered}; {}",
                if *refused { "acquires refused" } else { "AN ACQUIRE WAS NOT REFUSED" }
            ),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A lease a process believes it holds: the value of its span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Belief {
    /// The lock.
    pub lock: Lock,
    /// The fencing token.
    pub token: u64,
    /// Whether the lease renews itself (a [`dynalease::Lease`] and its heartbeat), which the
    /// checker then holds to the heartbeat's promises.
    pub renews: bool,
}

impl Record for Belief {
    fn digest(&self, d: &mut Digest) {
        d.str(self.lock.name());
        d.u64(self.token);
        d.u64(u64::from(self.renews));
    }

    fn describe(&self) -> String {
        format!("{} token {}", self.lock, self.token)
    }

    fn subject(&self) -> Option<String> {
        Some(self.lock.name().to_owned())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Why a belief ended: the value that closes its span.
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

impl Record for Unheld {
    fn digest(&self, d: &mut Digest) {
        match self {
            Unheld::Lost(reason) => d.str(reason),
            Unheld::Released => d.u64(1),
            Unheld::Crashed => d.u64(2),
            Unheld::RunEnded => d.u64(3),
        }
    }

    fn describe(&self) -> String {
        match self {
            Unheld::Lost(reason) => format!("lost ({reason})"),
            Unheld::Released => String::from("released"),
            Unheld::Crashed => String::from("crashed"),
            Unheld::RunEnded => String::from("run ended"),
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A lock item as DynamoDB held it at one instant.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum ItemState {
    /// There is no item.
    #[default]
    Absent,
    /// An item without an owner: a released lock, with its fencing token.
    Free {
        /// The fencing token the item keeps.
        fence: u64,
    },
    /// An item with an owner.
    Held {
        /// The owner id of the lease.
        owner: Arc<str>,
        /// The record version (for the naive lock: its expiry); empty when the item has none.
        version: Arc<str>,
        /// The fencing token.
        fence: u64,
        /// The lease written with it, in milliseconds; 0 when the item says none.
        lease_ms: u64,
    },
}

impl ItemState {
    fn digest(&self, d: &mut Digest) {
        match self {
            ItemState::Absent => d.u64(0),
            ItemState::Free { fence } => {
                d.u64(1);
                d.u64(*fence);
            }
            ItemState::Held { owner, version, fence, lease_ms } => {
                d.u64(2);
                d.str(owner);
                d.str(version);
                d.u64(*fence);
                d.u64(*lease_ms);
            }
        }
    }

    /// The item in a few words: `owner o3 version v7 token 4`, `free, token 4`, `no item`.
    pub fn describe(&self) -> String {
        match self {
            ItemState::Absent => String::from("no item"),
            ItemState::Free { fence } => format!("free, token {fence}"),
            ItemState::Held { owner, version, fence, .. } => {
                format!("owner {} version {} token {fence}", short(owner), short(version))
            }
        }
    }

    /// The fencing token the item carries; 0 for no item.
    pub fn fence(&self) -> u64 {
        match self {
            ItemState::Absent => 0,
            ItemState::Free { fence } | ItemState::Held { fence, .. } => *fence,
        }
    }
}

/// The first eight characters of an id: enough to tell the ids of a run apart.
fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// What the lock library's probe and workloads note in the history.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LockNote {
    /// DynamoDB applied a write to a lock item.
    Applied {
        /// The lock.
        lock: Lock,
        /// The incarnation whose request it was.
        by: ProcessRef,
        /// When the request left the process, in global time.
        sent: Duration,
        /// The request, numbered: the retries of one request by the client share it.
        request: u32,
        /// The operation of the process that sent the request while it acquired a lock, if any.
        op: Option<OpId>,
        /// The item before the write.
        before: ItemState,
        /// The item after it.
        after: ItemState,
    },
    /// DynamoDB refused a conditional write to a lock item.
    Refused {
        /// The lock.
        lock: Lock,
        /// The incarnation whose request it was.
        by: ProcessRef,
        /// The request.
        request: u32,
        /// The item as the refusal found it.
        state: ItemState,
        /// The owner of a lease of `by` that the request names, if it names one.
        names: Option<Arc<str>>,
    },
    /// A write to a lock item left its process (each attempt of the client, retries too).
    Sent {
        /// The lock.
        lock: Lock,
        /// The request.
        request: u32,
        /// The owner of a lease that the request names (its renewal or its release, say).
        names: Option<Arc<str>>,
    },
    /// The answer to an attempt of a write to a lock item reached its process: `ok` if
    /// DynamoDB applied it.
    Answered {
        /// The lock.
        lock: Lock,
        /// The request.
        request: u32,
        /// Whether the write was applied and the process heard so.
        ok: bool,
    },
    /// The answer of a refused write to a lock item, with the item as it was, reached its
    /// process: it knows who holds the lock.
    Heard {
        /// The lock.
        lock: Lock,
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
        lock: Lock,
        /// The token.
        token: u64,
    },
    /// A process was handed the token of a lease that another process held.
    HandedOver {
        /// The lock.
        lock: Lock,
        /// The fencing token of the lease.
        token: u64,
        /// The incarnation that handed it over.
        from: ProcessRef,
    },
    /// A process was promised its lease for `left` more, on its own clock.
    Promised {
        /// The belief.
        belief: SpanId,
        /// How long the lease is promised from now.
        left: Duration,
    },
    /// A process saw the library answer against its documentation.
    Broken {
        /// The lock.
        lock: Lock,
        /// What the library did, and what it promises.
        what: String,
    },
    /// A process asked for a warning ([`dynalease::Lease::warning`]) on its lease `token` of
    /// `lock`, `margin` before the lease runs out without a renewal.
    Warning {
        /// The lock.
        lock: Lock,
        /// The fencing token of the lease.
        token: u64,
        /// The margin.
        margin: Duration,
    },
    /// The warning on the lease `token` of `lock` fired.
    Warned {
        /// The lock.
        lock: Lock,
        /// The fencing token of the lease.
        token: u64,
    },
    /// The liveness test crashed the holder of `lock` (if a live process held it).
    LivenessCrash {
        /// The lock.
        lock: Lock,
        /// The holder that was crashed.
        victim: Option<ProcessRef>,
    },
}

impl Record for LockNote {
    fn digest(&self, d: &mut Digest) {
        match self {
            LockNote::Applied { lock, by, sent, request, op, before, after } => {
                d.u64(15);
                d.str(lock.name());
                d.u64(u64::from(by.id) << 16 | u64::from(by.incarnation));
                d.u64(sent.as_micros() as u64);
                d.u64(u64::from(*request));
                d.u64(op.map_or(0, |op| u64::from(op.0) + 1));
                before.digest(d);
                after.digest(d);
            }
            LockNote::Refused { lock, by, request, state, names } => {
                d.u64(19);
                d.str(lock.name());
                d.u64(u64::from(by.id) << 16 | u64::from(by.incarnation));
                d.u64(u64::from(*request));
                state.digest(d);
                d.str(names.as_deref().unwrap_or(""));
            }
            LockNote::Sent { lock, request, names } => {
                d.u64(23);
                d.str(lock.name());
                d.u64(u64::from(*request));
                d.str(names.as_deref().unwrap_or(""));
            }
            LockNote::Answered { lock, request, ok } => {
                d.u64(24);
                d.str(lock.name());
                d.u64(u64::from(*request));
                d.u64(u64::from(*ok));
            }
            LockNote::Heard { lock, request } => {
                d.u64(20);
                d.str(lock.name());
                d.u64(u64::from(*request));
            }
            LockNote::Committed { op } => {
                d.u64(16);
                d.u64(u64::from(op.0));
            }
            LockNote::StoreAccepted { op, lock, token } => {
                d.u64(17);
                d.u64(u64::from(op.0));
                d.str(lock.name());
                d.u64(*token);
            }
            LockNote::HandedOver { lock, token, from } => {
                d.u64(22);
                d.str(lock.name());
                d.u64(*token);
                d.u64(u64::from(from.id) << 16 | u64::from(from.incarnation));
            }
            LockNote::Promised { belief, left } => {
                d.u64(21);
                d.u64(u64::from(belief.0));
                d.u64(left.as_micros() as u64);
            }
            LockNote::Broken { lock, what } => {
                d.u64(25);
                d.str(lock.name());
                d.str(what);
            }
            LockNote::Warning { lock, token, margin } => {
                d.u64(28);
                d.str(lock.name());
                d.u64(*token);
                d.u64(margin.as_micros() as u64);
            }
            LockNote::Warned { lock, token } => {
                d.u64(29);
                d.str(lock.name());
                d.u64(*token);
            }
            LockNote::LivenessCrash { lock, victim } => {
                d.u64(27);
                d.str(lock.name());
                d.u64(victim.map_or(0, |v| (u64::from(v.id) << 16 | u64::from(v.incarnation)) + 1));
            }
        }
    }

    fn describe(&self) -> String {
        match self {
            LockNote::Applied { lock, by, op, before, after, .. } => {
                let of = op.map(|op| format!(" for {op}")).unwrap_or_default();
                match (before, after) {
                    (ItemState::Held { owner: a, fence: f, .. }, ItemState::Held { owner: b, fence: g, .. })
                        if a == b =>
                    {
                        if g > f {
                            format!("granted {lock} token {g} to {by}{of} ({})", after.describe())
                        } else if before != after {
                            format!("renewed {lock} for {by} ({})", after.describe())
                        } else {
                            format!("wrote {lock} for {by}, unchanged ({})", after.describe())
                        }
                    }
                    (_, ItemState::Held { fence, .. }) => {
                        format!("granted {lock} token {fence} to {by}{of} ({})", after.describe())
                    }
                    (ItemState::Held { .. }, _) | (ItemState::Free { .. }, ItemState::Absent) => {
                        format!("released {lock} by {by} (was {})", before.describe())
                    }
                    _ => format!("wrote {lock} for {by}, unchanged ({})", after.describe()),
                }
            }
            LockNote::Refused { lock, by, state, .. } => {
                format!("refused {by}'s write to {lock} ({})", state.describe())
            }
            LockNote::Sent { lock, request, .. } => format!("sent write r{request} to {lock}"),
            LockNote::Answered { lock, request, ok: true } => format!("heard write r{request} to {lock} applied"),
            LockNote::Answered { lock, request, ok: false } => {
                format!("heard no success of write r{request} to {lock}")
            }
            LockNote::Heard { lock, .. } => format!("the refusal of the write to {lock} reached its process"),
            LockNote::Committed { op } => format!("committed {op}"),
            LockNote::StoreAccepted { op, lock, token } => format!("accepted {op} {lock} token {token}"),
            LockNote::HandedOver { lock, token, from } => format!("was handed {lock} token {token} by {from}"),
            LockNote::Promised { belief, left } => {
                format!("promised the lease of belief {} for {} more", belief.0, seconds(*left))
            }
            LockNote::Broken { lock, what } => format!("BROKEN PROMISE on {lock}: {what}"),
            LockNote::Warning { lock, token, margin } => {
                format!("asked for a warning {} before the end of {lock} token {token}", seconds(*margin))
            }
            LockNote::Warned { lock, token } => format!("warned: {lock} token {token} is about to run out"),
            LockNote::LivenessCrash { lock, victim: Some(victim) } => {
                format!("--- liveness: crash {victim}, the holder of {lock} ---")
            }
            LockNote::LivenessCrash { lock, victim: None } => {
                format!("--- liveness: no live holder of {lock} to crash ---")
            }
        }
    }

    fn subject(&self) -> Option<String> {
        match self {
            LockNote::Applied { lock, .. }
            | LockNote::Refused { lock, .. }
            | LockNote::Sent { lock, .. }
            | LockNote::Answered { lock, .. }
            | LockNote::Heard { lock, .. }
            | LockNote::StoreAccepted { lock, .. }
            | LockNote::HandedOver { lock, .. }
            | LockNote::Broken { lock, .. }
            | LockNote::Warning { lock, .. }
            | LockNote::Warned { lock, .. }
            | LockNote::LivenessCrash { lock, .. } => Some(lock.name().to_owned()),
            LockNote::Committed { .. } | LockNote::Promised { .. } => None,
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
