//! The recorded history of a run, in the form Jepsen gives histories, for any service.
//!
//! - [`History`]: every [`Entry`] of a run in the order it happened, and its
//!   [`digest`](History::digest).
//! - [`Event`]: what an entry records. Operations of processes come in pairs: an
//!   [`Invoke`](Event::Invoke), then a [`Complete`](Event::Complete) whose [`Outcome`] is `Ok`
//!   (it happened), `Fail` (it certainly did not) or `Info` (nobody knows: a lost answer, a
//!   timeout, a crash; it may have taken effect at any time after its invoke). Beside them:
//!   spans a process opens and closes ([`Open`](Event::Open), [`Close`](Event::Close): a lease
//!   believed held, a job claimed), notes of the service's probe ([`Note`](Event::Note): what
//!   DynamoDB held when it applied a write), the requests of processes
//!   ([`Request`](Event::Request)), the faults of the nemesis and the phases of the run.
//! - [`Value`], [`Record`]: the service's own types, held type-erased; [`Digest`].
//! - [`Recorder`]: where the world and the processes write the history while the run goes on.

mod digest;
mod record;
mod recorder;

use std::fmt;
use std::time::Duration;

pub use digest::Digest;
pub use record::{Record, Text, Value};
pub use recorder::Recorder;

use crate::item::ItemRef;
use crate::nemesis::{Moment, Reaction};

/// One incarnation of a simulated process: its number, and how many times it was restarted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct OpId(pub u32);

impl fmt::Display for OpId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The number of a span: something a process holds for a while, from [`Event::Open`] to
/// [`Event::Close`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpanId(pub u32);

/// How an operation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// It happened.
    Ok,
    /// It certainly did not happen.
    Fail,
    /// It may or may not have happened: a lost answer, a timeout, a crash.
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

/// Why the world closed a span that its process did not close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ended {
    /// The process crashed.
    Crashed,
    /// The run ended.
    RunEnded,
}

impl Record for Ended {
    fn digest(&self, digest: &mut Digest) {
        digest.u64(match self {
            Ended::Crashed => 2,
            Ended::RunEnded => 3,
        });
    }

    fn describe(&self) -> String {
        String::from(match self {
            Ended::Crashed => "crashed",
            Ended::RunEnded => "run ended",
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// A fault the nemesis applied, or its end.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Nemesis {
    /// The incarnation was cut off: it sends nothing more and hears nothing more.
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
    /// DynamoDB processes batches of the process (or of all processes) only in part, with this
    /// probability.
    PartialBatches {
        /// The process, or `None` for all.
        process: Option<u16>,
        /// The probability, in millionths.
        per_million: u32,
    },
    /// The burst of partial batches ended.
    PartialBatchesEnded,
    /// The table answers ResourceNotFoundException to everyone.
    TableOutage(String),
    /// The table answers again.
    TableBack(String),
    /// The item was deleted.
    DeleteItem(ItemRef),
    /// The item was replaced by an entity of another kind, until the next deletion.
    ReplaceItem(ItemRef),
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
        /// The item of the moment, if the request names one.
        item: Option<ItemRef>,
        /// The moment.
        moment: Moment,
        /// The label the probe gave the moment, if any.
        label: Option<&'static str>,
        /// What the nemesis does.
        reaction: Reaction,
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
    /// The liveness test of the service starts (the lock library crashes the holder of a lock
    /// here, and another process must take it over in time).
    Liveness,
    /// The run ended.
    End,
}

/// What became of a request of a process, as the world saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// It left the process.
    Sent,
    /// DynamoDB answered it with this HTTP status (200: applied; 400: refused with an error).
    Answered(u16),
    /// Its answer reached the process.
    Heard,
    /// Its answer was lost: the connection reset after DynamoDB applied it.
    Lost,
    /// It or its answer was dropped by a partition: the client timed out.
    TimedOut,
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
        value: Value,
    },
    /// An operation ended.
    Complete {
        /// The operation.
        op: OpId,
        /// How.
        outcome: Outcome,
        /// With what: the result of an `Ok`, why for the others.
        value: Value,
    },
    /// A process starts to hold something: a lease it believes it holds, a job it claimed.
    Open {
        /// The span.
        span: SpanId,
        /// What it holds.
        value: Value,
    },
    /// The process stops holding it.
    Close {
        /// The span.
        span: SpanId,
        /// Why.
        value: Value,
    },
    /// A note of the service's probe or code: what it saw, what DynamoDB held.
    Note(Value),
    /// A step of a DynamoDB request of a process (recorded for services that ask for it).
    Request {
        /// The request, numbered in the order they left their processes; retries by the SDK are
        /// requests of their own.
        request: u32,
        /// What became of it.
        step: Step,
        /// The operation (`PutItem`, ...), the table and the item it names, on `Sent`.
        what: Option<std::sync::Arc<str>>,
    },
    /// A fault.
    Nemesis(Nemesis),
    /// A step of the run.
    Phase(Phase),
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
    /// A system outside DynamoDB that the service's processes talk to.
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
}

/// One operation of a history, typed: its invoke, and its completion if it has one.
#[derive(Debug)]
pub struct Operation<'h, O, R> {
    /// The operation's number.
    pub op: OpId,
    /// The incarnation that invoked it.
    pub process: ProcessRef,
    /// What it asked for.
    pub call: &'h O,
    /// How it ended: `Info` for an operation the run ended or a crash cut short.
    pub outcome: Outcome,
    /// Its result, for an `Ok` completion.
    pub ret: Option<&'h R>,
    /// Why it failed or is unknown, for the others.
    pub reason: Option<&'h str>,
    /// The index of its invoke entry.
    pub invoke: usize,
    /// The index of its completion entry, if it completed.
    pub complete: Option<usize>,
    /// When it was invoked.
    pub invoked_at: Duration,
    /// When it completed.
    pub completed_at: Option<Duration>,
}

impl History {
    /// A history of `entries`, for checking histories that were not recorded by the world, such
    /// as in tests of a checker.
    pub fn from_entries(entries: Vec<Entry>) -> Self {
        History { entries }
    }

    /// The entries, in the order they happened.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The operations whose invoke value is an `O`, in the order they were invoked, with their
    /// results as `R`. An `Ok` whose value is not an `R` is given no result.
    pub fn operations<O: 'static, R: 'static>(&self) -> Vec<Operation<'_, O, R>> {
        let mut ops: Vec<Operation<'_, O, R>> = Vec::new();
        let mut by_id = std::collections::BTreeMap::new();
        for (index, entry) in self.entries.iter().enumerate() {
            match (&entry.event, entry.actor) {
                (Event::Invoke { op, value }, Actor::Process(process)) => {
                    if let Some(call) = value.get::<O>() {
                        by_id.insert(*op, ops.len());
                        ops.push(Operation {
                            op: *op,
                            process,
                            call,
                            outcome: Outcome::Info,
                            ret: None,
                            reason: None,
                            invoke: index,
                            complete: None,
                            invoked_at: entry.at,
                            completed_at: None,
                        });
                    }
                }
                (Event::Complete { op, outcome, value }, _) => {
                    if let Some(&at) = by_id.get(op) {
                        let operation = &mut ops[at];
                        operation.outcome = *outcome;
                        operation.complete = Some(index);
                        operation.completed_at = Some(entry.at);
                        match outcome {
                            Outcome::Ok => operation.ret = value.get::<R>(),
                            _ => operation.reason = value.as_text(),
                        }
                    }
                }
                _ => {}
            }
        }
        ops
    }

    /// The notes whose value is a `T`, with the index of their entry.
    pub fn notes<T: 'static>(&self) -> impl Iterator<Item = (usize, &Entry, &T)> + '_ {
        self.entries.iter().enumerate().filter_map(|(index, entry)| match &entry.event {
            Event::Note(value) => value.get::<T>().map(|note| (index, entry, note)),
            _ => None,
        })
    }

    /// A 64-bit hash of every entry, stable across builds, platforms of the same word size and
    /// log levels: the same seed gives the same digest.
    pub fn digest(&self) -> u64 {
        let mut digest = Digest::default();
        for entry in &self.entries {
            entry.feed(&mut digest);
        }
        digest.finish()
    }
}

impl Entry {
    fn feed(&self, d: &mut Digest) {
        d.u64(self.at.as_micros() as u64);
        match self.actor {
            Actor::Process(p) => {
                d.u64(1);
                d.u64(u64::from(p.id) << 16 | u64::from(p.incarnation));
            }
            Actor::Nemesis => d.u64(2),
            Actor::Db => d.u64(3),
            Actor::Store => d.u64(4),
            Actor::World => d.u64(5),
        }
        match &self.event {
            Event::Invoke { op, value } => {
                d.u64(10);
                d.u64(u64::from(op.0));
                value.digest(d);
            }
            Event::Complete { op, outcome, value } => {
                d.u64(11);
                d.u64(u64::from(op.0));
                d.u64(*outcome as u64);
                value.digest(d);
            }
            Event::Open { span, value } => {
                d.u64(12);
                d.u64(u64::from(span.0));
                value.digest(d);
            }
            Event::Close { span, value } => {
                d.u64(13);
                d.u64(u64::from(span.0));
                value.digest(d);
            }
            Event::Note(value) => value.digest(d),
            Event::Request { request, step, what } => {
                d.u64(26);
                d.u64(u64::from(*request));
                d.str(&format!("{step:?}"));
                if let Some(what) = what {
                    d.str(what);
                }
            }
            Event::Nemesis(nemesis) => {
                d.u64(14);
                d.str(&format!("{nemesis:?}"));
            }
            Event::Phase(phase) => {
                d.u64(18);
                d.str(&format!("{phase:?}"));
            }
        }
    }
}
