//! The indexes of a history that every check reads: operations, beliefs, acquires and the
//! deletions of the nemesis.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::locks::history::{
    Actor, BeliefId, Call, Entry, Event, History, LockId, Nemesis, OpId, Phase, ProcessRef, Unheld, Value,
};

/// An operation of a process, with its entries.
#[derive(Clone, Debug)]
pub(super) struct Op<'h> {
    pub(super) process: ProcessRef,
    pub(super) call: &'h Call,
    pub(super) invoke: usize,
    pub(super) complete: Option<usize>,
}

/// A belief, with its entries.
#[derive(Clone, Debug)]
pub(super) struct Belief {
    pub(super) process: ProcessRef,
    pub(super) lock: LockId,
    pub(super) token: u64,
    /// Whether the lease renews itself: a lease with a heartbeat.
    pub(super) renews: bool,
    pub(super) start: Duration,
    pub(super) start_idx: usize,
    pub(super) end: Duration,
    pub(super) end_idx: Option<usize>,
    pub(super) why: Option<Unheld>,
    /// What the lock promised while the belief lasted: (entry, time, how long more).
    pub(super) promises: Vec<(usize, Duration, Duration)>,
}

/// One attempt of a write to a lock item: when it left its process, and when its answer came
/// back and whether it said the write was applied.
#[derive(Clone, Copy, Debug)]
pub(super) struct Attempt {
    pub(super) sent: Duration,
    pub(super) answer: Option<(Duration, bool)>,
}

/// A write to a lock item as its process sent it: one call of the library, whose attempts are
/// the client's retries.
#[derive(Clone, Debug)]
pub(super) struct Request {
    pub(super) lock: LockId,
    pub(super) attempts: Vec<Attempt>,
}

impl Request {
    /// When its first attempt left the process: where the library counts a lease from.
    pub(super) fn first_sent(&self) -> Duration {
        self.attempts.first().map_or(Duration::ZERO, |a| a.sent)
    }

    /// When the process heard that it was applied, if it did.
    pub(super) fn acknowledged(&self) -> Option<Duration> {
        self.attempts.iter().find_map(|a| a.answer.filter(|(_, ok)| *ok).map(|(at, _)| at))
    }
}

/// The indexes of a history.
pub(super) struct Index<'h> {
    pub(super) entries: &'h [Entry],
    pub(super) ops: BTreeMap<OpId, Op<'h>>,
    pub(super) beliefs: BTreeMap<BeliefId, Belief>,
    /// Acquires that returned a token: (lock, token) -> ops.
    acquired: BTreeMap<(LockId, u64), Vec<OpId>>,
    /// When the nemesis deleted the item of each lock: (time, entry).
    pub(super) deletions: BTreeMap<LockId, Vec<(Duration, usize)>>,
    /// When every fault was healed.
    pub(super) healed: Option<Duration>,
    pub(super) end: Duration,
    /// The writes to lock items, by incarnation and request.
    pub(super) requests: BTreeMap<(ProcessRef, u32), Request>,
    /// The requests of each incarnation that name the lease of an owner on a lock, in the order
    /// they were first sent.
    pub(super) naming: BTreeMap<(ProcessRef, LockId, u32), Vec<u32>>,
}

impl<'h> Index<'h> {
    pub(super) fn new(history: &'h History) -> Self {
        let entries = history.entries();
        let end = entries.last().map_or(Duration::ZERO, |e| e.at);
        let mut ops: BTreeMap<OpId, Op<'h>> = BTreeMap::new();
        let mut beliefs = BTreeMap::new();
        let mut acquired: BTreeMap<(LockId, u64), Vec<OpId>> = BTreeMap::new();
        let mut deletions: BTreeMap<LockId, Vec<(Duration, usize)>> = BTreeMap::new();
        let mut healed = None;
        let mut requests: BTreeMap<(ProcessRef, u32), Request> = BTreeMap::new();
        let mut naming: BTreeMap<(ProcessRef, LockId, u32), Vec<u32>> = BTreeMap::new();
        for (idx, entry) in entries.iter().enumerate() {
            match (&entry.event, entry.actor) {
                (Event::Sent { lock, request, names }, Actor::Process(process)) => {
                    let sent = requests.entry((process, *request)).or_insert_with(|| {
                        if *names != 0 {
                            naming.entry((process, *lock, *names)).or_default().push(*request);
                        }
                        Request { lock: *lock, attempts: Vec::new() }
                    });
                    sent.attempts.push(Attempt { sent: entry.at, answer: None });
                }
                (Event::Answered { request, ok, .. }, Actor::Process(process)) => {
                    let open = requests
                        .get_mut(&(process, *request))
                        .and_then(|r| r.attempts.iter_mut().find(|a| a.answer.is_none()));
                    if let Some(attempt) = open {
                        attempt.answer = Some((entry.at, *ok));
                    }
                }
                (Event::Invoke { op, call }, Actor::Process(process)) => {
                    ops.insert(*op, Op { process, call, invoke: idx, complete: None });
                }
                (Event::Complete { op, value, .. }, _) => {
                    if let Some(found) = ops.get_mut(op) {
                        found.complete = Some(idx);
                        if let (Value::Token(token), Some(lock)) = (value, found.call.acquires()) {
                            acquired.entry((lock, *token)).or_default().push(*op);
                        }
                    }
                }
                (Event::Held { belief, lock, token, renews }, Actor::Process(process)) => {
                    let belief_at = Belief {
                        process,
                        lock: *lock,
                        token: *token,
                        renews: *renews,
                        start: entry.at,
                        start_idx: idx,
                        end,
                        end_idx: None,
                        why: None,
                        promises: Vec::new(),
                    };
                    beliefs.insert(*belief, belief_at);
                }
                (Event::Promised { belief, left }, _) => {
                    if let Some(found) = beliefs.get_mut(belief) {
                        found.promises.push((idx, entry.at, *left));
                    }
                }
                (Event::Unheld { belief, why }, _) => {
                    if let Some(found) = beliefs.get_mut(belief) {
                        found.end = entry.at;
                        found.end_idx = Some(idx);
                        found.why = Some(why.clone());
                    }
                }
                (Event::Nemesis(Nemesis::DeleteItem(lock)), _) => {
                    deletions.entry(*lock).or_default().push((entry.at, idx));
                }
                (Event::Phase(Phase::Healed), _) => healed = Some(entry.at),
                _ => {}
            }
        }
        Index { entries, ops, beliefs, acquired, deletions, healed, end, requests, naming }
    }

    /// Whether the nemesis deleted the item of `lock` at a time in `[from, to]`.
    pub(super) fn deleted_within(&self, lock: LockId, from: Duration, to: Duration) -> bool {
        self.deletions.get(&lock).is_some_and(|times| times.iter().any(|(at, _)| *at >= from && *at <= to))
    }

    /// The entries of an operation.
    pub(super) fn op_entries(&self, op: OpId) -> Vec<usize> {
        self.ops.get(&op).map(|o| std::iter::once(o.invoke).chain(o.complete).collect()).unwrap_or_default()
    }

    /// The acquire by `process` that returned `token` for `lock`, completed at or before `before`.
    pub(super) fn acquire_of(&self, lock: LockId, token: u64, process: ProcessRef, before: usize) -> Option<OpId> {
        self.acquired.get(&(lock, token))?.iter().rev().copied().find(|op| {
            self.ops.get(op).is_some_and(|o| o.process == process && o.complete.is_some_and(|c| c <= before))
        })
    }

    /// The acquire by `process` that returned `token` for `lock`, whenever it completed.
    pub(super) fn acquire_returning(&self, lock: LockId, token: u64, process: ProcessRef) -> Option<OpId> {
        self.acquired
            .get(&(lock, token))?
            .iter()
            .copied()
            .find(|op| self.ops.get(op).is_some_and(|o| o.process == process))
    }

    /// When the acquire that handed out `belief` was called, if the belief came from one.
    pub(super) fn acquire_called(&self, belief: &Belief) -> Option<Duration> {
        let op = self.acquire_of(belief.lock, belief.token, belief.process, belief.start_idx)?;
        self.ops.get(&op).map(|op| self.entries[op.invoke].at)
    }

    /// The entries that show a belief: its acquire, its start and its end.
    pub(super) fn belief_entries(&self, belief: &Belief) -> Vec<usize> {
        let mut out = Vec::new();
        if let Some(op) = self.acquire_of(belief.lock, belief.token, belief.process, belief.start_idx) {
            out.extend(self.op_entries(op));
        }
        out.push(belief.start_idx);
        out.extend(belief.end_idx);
        out.sort_unstable();
        out.dedup();
        out
    }
}
