//! The checker: what must hold in every history, per lock.
//!
//! - **Tokens rise**: the fencing tokens DynamoDB granted strictly rise, until the lock item is
//!   deleted (then they start again at 1).
//! - **Exclusive beliefs**: no two processes believe they hold the lock at the same instant,
//!   for pairs of processes whose clocks run at the same rate and which were not paused or
//!   suspended in between, unless the lock item was deleted in between (a deleted lock is free,
//!   and its holder learns it only at its next renewal). Beliefs are half-open intervals of global time, from the answer of
//!   the acquire to the moment the process learns that the lease ended (or releases it, or
//!   crashes).
//! - **Fencing**: every fenced write that DynamoDB committed carries the highest token granted
//!   so far: the fence holds where belief cannot, with drift and pauses too.
//! - **Store**: the external store never accepted a lower token after a higher one.
//! - **Liveness**: in the healed phase, the lock of a crashed holder is taken over within one
//!   lease and one poll interval ([`Scenario::takeover_bound`]).
//!
//! A [`Violation`] names the two conflicting operations, the last good one before them, and
//! the window of the timeline that shows them.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::time::Duration;

use crate::history::{Actor, BeliefId, Call, Entry, Event, History, LockId, Nemesis, OpId, Phase, ProcessRef, Value};
use crate::scenario::Scenario;

/// What the checker needs to know of the run besides its history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckContext {
    /// The drift of each process's clock, by process number: beliefs are compared only
    /// between processes whose clocks run at the same rate.
    pub drift_ppm: Vec<i32>,
    /// How soon the lock of a crashed holder must be taken over in the liveness phase.
    pub takeover_bound: Duration,
}

impl CheckContext {
    /// The context of a scenario.
    pub fn from_scenario(scenario: &Scenario) -> Self {
        CheckContext {
            drift_ppm: scenario.processes.iter().map(|p| p.clock.drift_ppm).collect(),
            takeover_bound: scenario.takeover_bound(),
        }
    }

    fn drift(&self, process: u16) -> i32 {
        self.drift_ppm.get(usize::from(process)).copied().unwrap_or(0)
    }
}

/// The invariant a violation breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ViolationKind {
    /// A granted token was not higher than the one granted before it.
    TokenNotRising,
    /// Two processes believed they held the lock at the same instant.
    OverlappingBeliefs,
    /// A fenced write committed with a token lower than the highest granted.
    StaleFencedWrite,
    /// The external store accepted a lower token after a higher one.
    StoreAcceptedLower,
    /// The lock of a crashed holder was not taken over in time.
    SlowTakeover,
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ViolationKind::TokenNotRising => "fencing tokens did not rise",
            ViolationKind::OverlappingBeliefs => "two processes believed they held the lock at once",
            ViolationKind::StaleFencedWrite => "a fenced write committed with a stale token",
            ViolationKind::StoreAcceptedLower => "the external store accepted a lower token after a higher one",
            ViolationKind::SlowTakeover => "the lock of a crashed holder was not taken over in time",
        })
    }
}

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Which invariant.
    pub kind: ViolationKind,
    /// On which lock.
    pub lock: LockId,
    /// What happened, in a sentence.
    pub message: String,
    /// The entries (indices into the history) of the first of the two conflicting operations.
    pub first: Vec<usize>,
    /// The entries of the second.
    pub second: Vec<usize>,
    /// The entries of the last good operation of the same kind on the lock before them.
    pub last_good: Vec<usize>,
    /// The processes involved, for the timeline.
    pub processes: Vec<u16>,
    /// The span of global time the timeline of the violation shows.
    pub window: (Duration, Duration),
}

/// How much the checker checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckStats {
    /// Tokens granted by DynamoDB.
    pub grants: usize,
    /// Leases processes believed they held.
    pub beliefs: usize,
    /// Pairs of beliefs that overlapped but were exempt: different clock rates, a pause, or a
    /// deletion of the lock item in between.
    pub overlaps_exempt: usize,
    /// Fenced writes that committed.
    pub commits: usize,
    /// Writes the external store accepted.
    pub store_writes: usize,
    /// In the liveness phase, how long the takeover took, if there was one to check.
    pub takeover: Option<Duration>,
}

/// The verdict on a history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Every broken invariant, at most one per invariant and lock.
    pub violations: Vec<Violation>,
    /// How much was checked.
    pub stats: CheckStats,
}

/// An operation of a process, with its entries.
#[derive(Clone, Debug)]
struct Op<'h> {
    process: ProcessRef,
    call: &'h Call,
    invoke: usize,
    complete: Option<usize>,
}

/// A belief, with its entries.
#[derive(Clone, Copy, Debug)]
struct Belief {
    process: ProcessRef,
    lock: LockId,
    token: u64,
    start: Duration,
    start_idx: usize,
    end: Duration,
    end_idx: Option<usize>,
}

/// The indexes of a history that every check reads.
struct Index<'h> {
    entries: &'h [Entry],
    ops: BTreeMap<OpId, Op<'h>>,
    beliefs: BTreeMap<BeliefId, Belief>,
    /// Pauses and suspensions of each process: (start, end).
    stops: BTreeMap<u16, Vec<(Duration, Duration)>>,
    /// Acquires that returned a token: (lock, token) -> ops.
    acquired: BTreeMap<(LockId, u64), Vec<OpId>>,
    /// When the item of each lock was deleted.
    deletions: BTreeMap<LockId, Vec<Duration>>,
    end: Duration,
}

impl<'h> Index<'h> {
    fn new(history: &'h History) -> Self {
        let entries = history.entries();
        let end = entries.last().map_or(Duration::ZERO, |e| e.at);
        let mut ops: BTreeMap<OpId, Op<'h>> = BTreeMap::new();
        let mut beliefs = BTreeMap::new();
        let mut stops: BTreeMap<u16, Vec<(Duration, Duration)>> = BTreeMap::new();
        let mut stopped: BTreeMap<u16, Duration> = BTreeMap::new();
        let mut acquired: BTreeMap<(LockId, u64), Vec<OpId>> = BTreeMap::new();
        let mut deletions: BTreeMap<LockId, Vec<Duration>> = BTreeMap::new();
        for (idx, entry) in entries.iter().enumerate() {
            match (&entry.event, entry.actor) {
                (Event::Invoke { op, call }, Actor::Process(process)) => {
                    ops.insert(*op, Op { process, call, invoke: idx, complete: None });
                }
                (Event::Complete { op, value, .. }, _) => {
                    if let Some(found) = ops.get_mut(op) {
                        found.complete = Some(idx);
                        if let (Value::Token(token), Call::Acquire { lock } | Call::TryAcquire { lock }) =
                            (value, found.call)
                        {
                            acquired.entry((*lock, *token)).or_default().push(*op);
                        }
                    }
                }
                (Event::Held { belief, lock, token }, Actor::Process(process)) => {
                    beliefs.insert(
                        *belief,
                        Belief {
                            process,
                            lock: *lock,
                            token: *token,
                            start: entry.at,
                            start_idx: idx,
                            end,
                            end_idx: None,
                        },
                    );
                }
                (Event::Unheld { belief, .. }, _) => {
                    if let Some(found) = beliefs.get_mut(belief) {
                        found.end = entry.at;
                        found.end_idx = Some(idx);
                    }
                }
                (Event::Nemesis(Nemesis::DeleteItem(lock)), _) => {
                    deletions.entry(*lock).or_default().push(entry.at);
                }
                (Event::Nemesis(Nemesis::Pause(p) | Nemesis::Suspend(p)), _) => {
                    stopped.insert(p.id, entry.at);
                }
                (Event::Nemesis(Nemesis::Resume(p) | Nemesis::Crash(p)), _) => {
                    if let Some(since) = stopped.remove(&p.id) {
                        stops.entry(p.id).or_default().push((since, entry.at));
                    }
                }
                _ => {}
            }
        }
        for (process, since) in stopped {
            stops.entry(process).or_default().push((since, end));
        }
        Index { entries, ops, beliefs, stops, acquired, deletions, end }
    }

    fn deleted_within(&self, lock: LockId, from: Duration, to: Duration) -> bool {
        self.deletions.get(&lock).is_some_and(|times| times.iter().any(|at| *at >= from && *at <= to))
    }

    fn stopped_within(&self, process: u16, from: Duration, to: Duration) -> bool {
        self.stops.get(&process).is_some_and(|spans| spans.iter().any(|(start, end)| *start <= to && *end >= from))
    }

    /// The entries of an operation.
    fn op_entries(&self, op: OpId) -> Vec<usize> {
        self.ops
            .get(&op)
            .map(|o| {
                o.complete.into_iter().fold(vec![o.invoke], |mut v, c| {
                    v.push(c);
                    v
                })
            })
            .unwrap_or_default()
    }

    /// The acquire by `process` that returned `token` for `lock`, at or before entry `before`.
    fn acquire_of(&self, lock: LockId, token: u64, process: ProcessRef, before: usize) -> Option<OpId> {
        self.acquired.get(&(lock, token))?.iter().rev().copied().find(|op| {
            self.ops.get(op).is_some_and(|o| o.process == process && o.complete.is_some_and(|c| c <= before))
        })
    }

    /// The entries that show a grant: the grant, and the acquire that returned its token.
    fn grant_entries(&self, idx: usize) -> Vec<usize> {
        let mut out = Vec::new();
        if let Event::Granted { lock, token, to } = &self.entries[idx].event {
            // The answer comes after the grant: look for the acquire that completed with it.
            if let Some(op) = self
                .acquired
                .get(&(*lock, *token))
                .and_then(|ops| ops.iter().copied().find(|op| self.ops.get(op).is_some_and(|o| o.process == *to)))
            {
                out.extend(self.op_entries(op));
            }
        }
        out.push(idx);
        out.sort_unstable();
        out
    }

    /// The entries that show a belief: its acquire, its start and its end.
    fn belief_entries(&self, belief: &Belief) -> Vec<usize> {
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

/// Checks `history` against every invariant.
///
/// # Examples
///
/// A history in which DynamoDB granted token 2 and then token 2 again:
///
/// ```
/// use std::time::Duration;
/// use dynalease_sim::check::{check, CheckContext, ViolationKind};
/// use dynalease_sim::history::{Actor, Entry, Event, History, LockId, ProcessRef};
///
/// let p = |id| ProcessRef { id, incarnation: 0 };
/// let grant = |s, token, to| Entry {
///     at: Duration::from_secs(s),
///     actor: Actor::Db,
///     event: Event::Granted { lock: LockId(0), token, to },
/// };
/// let history = History::from_entries(vec![grant(1, 2, p(0)), grant(9, 2, p(1))], vec!["leader".into()]);
/// let context = CheckContext { drift_ppm: vec![0, 0], takeover_bound: Duration::from_secs(40) };
/// let report = check(&history, &context);
/// assert_eq!(report.violations[0].kind, ViolationKind::TokenNotRising);
/// ```
pub fn check(history: &History, context: &CheckContext) -> CheckReport {
    let index = Index::new(history);
    let mut report = CheckReport::default();
    tokens_rise(&index, &mut report);
    beliefs_exclusive(&index, context, &mut report);
    fencing(&index, &mut report);
    store(&index, &mut report);
    liveness(&index, context, &mut report);
    report.stats.beliefs = index.beliefs.len();
    // One violation per invariant and lock: the first one, which the others usually follow from.
    let mut seen = BTreeSet::new();
    report.violations.retain(|v| seen.insert((v.kind, v.lock)));
    report.violations.sort_by_key(|v| (v.window.0, v.kind));
    report
}

fn span(index: &Index<'_>, entries: &[usize]) -> (Duration, Duration) {
    let times = entries.iter().filter_map(|i| index.entries.get(*i)).map(|e| e.at);
    let start = times.clone().min().unwrap_or(Duration::ZERO);
    let end = times.max().unwrap_or(Duration::ZERO);
    (start, end)
}

fn processes_of(index: &Index<'_>, entries: &[usize]) -> Vec<u16> {
    let mut out: Vec<u16> = entries
        .iter()
        .filter_map(|i| index.entries.get(*i))
        .filter_map(|e| match (&e.event, e.actor) {
            (_, Actor::Process(p)) => Some(p.id),
            (Event::Granted { to, .. }, _) => Some(to.id),
            (Event::Committed { op } | Event::StoreAccepted { op, .. }, _) => index.ops.get(op).map(|o| o.process.id),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn violation(
    index: &Index<'_>,
    kind: ViolationKind,
    lock: LockId,
    message: String,
    first: Vec<usize>,
    second: Vec<usize>,
    last_good: Vec<usize>,
) -> Violation {
    let all: Vec<usize> = first.iter().chain(&second).copied().collect();
    let window = span(index, &all);
    Violation { kind, lock, message, processes: processes_of(index, &all), first, second, last_good, window }
}

fn tokens_rise(index: &Index<'_>, report: &mut CheckReport) {
    // Per lock: the last grant and the one before it.
    let mut last: BTreeMap<LockId, (u64, usize, Option<usize>)> = BTreeMap::new();
    for (idx, entry) in index.entries.iter().enumerate() {
        match &entry.event {
            Event::Nemesis(Nemesis::DeleteItem(lock)) => {
                last.remove(lock);
            }
            Event::Granted { lock, token, .. } => {
                report.stats.grants += 1;
                let fallen = last.get(lock).copied().filter(|&(before, _, _)| *token <= before);
                if let Some((before, before_idx, good)) = fallen {
                    report.violations.push(violation(
                        index,
                        ViolationKind::TokenNotRising,
                        *lock,
                        format!("DynamoDB granted token {token} after token {before}, with no deletion in between"),
                        index.grant_entries(before_idx),
                        index.grant_entries(idx),
                        good.map(|g| index.grant_entries(g)).unwrap_or_default(),
                    ));
                }
                let previous = last.get(lock).map(|&(_, i, _)| i);
                last.insert(*lock, (*token, idx, previous));
            }
            _ => {}
        }
    }
}

fn beliefs_exclusive(index: &Index<'_>, context: &CheckContext, report: &mut CheckReport) {
    let mut by_lock: BTreeMap<LockId, Vec<&Belief>> = BTreeMap::new();
    for belief in index.beliefs.values() {
        by_lock.entry(belief.lock).or_default().push(belief);
    }
    for (lock, mut beliefs) in by_lock {
        beliefs.sort_by_key(|b| (b.start, b.start_idx));
        for (j, later) in beliefs.iter().enumerate() {
            for earlier in &beliefs[..j] {
                if earlier.end <= later.start || later.end <= later.start || earlier.end <= earlier.start {
                    continue;
                }
                let (a, b) = (earlier.process.id, later.process.id);
                let exempt = context.drift(a) != context.drift(b)
                    || index.stopped_within(a, earlier.start, later.start)
                    || index.stopped_within(b, earlier.start, later.start)
                    || index.deleted_within(lock, earlier.start, later.start);
                if exempt {
                    report.stats.overlaps_exempt += 1;
                    continue;
                }
                let last_good = beliefs[..j]
                    .iter()
                    .filter(|g| g.end <= earlier.start && g.end > g.start)
                    .max_by_key(|g| (g.end, g.start_idx))
                    .map(|g| index.belief_entries(g))
                    .unwrap_or_default();
                report.violations.push(violation(
                    index,
                    ViolationKind::OverlappingBeliefs,
                    lock,
                    format!(
                        "{} held token {} until {}, but {} held token {} from {}",
                        earlier.process,
                        earlier.token,
                        crate::timeline::seconds(earlier.end),
                        later.process,
                        later.token,
                        crate::timeline::seconds(later.start),
                    ),
                    index.belief_entries(earlier),
                    index.belief_entries(later),
                    last_good,
                ));
            }
        }
    }
}

fn fencing(index: &Index<'_>, report: &mut CheckReport) {
    // Per lock: the highest token granted since the item was last deleted, and where.
    let mut highest: BTreeMap<LockId, (u64, usize)> = BTreeMap::new();
    let mut deleted: BTreeMap<LockId, usize> = BTreeMap::new();
    let mut last_good: BTreeMap<LockId, Vec<usize>> = BTreeMap::new();
    let mut committed = BTreeSet::new();
    for (idx, entry) in index.entries.iter().enumerate() {
        match &entry.event {
            Event::Nemesis(Nemesis::DeleteItem(lock)) => {
                highest.remove(lock);
                deleted.insert(*lock, idx);
            }
            Event::Granted { lock, token, .. } => {
                let top = highest.entry(*lock).or_insert((*token, idx));
                if *token >= top.0 {
                    *top = (*token, idx);
                }
            }
            Event::Committed { op } => {
                if !committed.insert(*op) {
                    continue; // a retry of a transaction that had committed already
                }
                let Some(Op { call: Call::FencedWrite { lock, token }, .. }) = index.ops.get(op) else { continue };
                report.stats.commits += 1;
                let mut write = index.op_entries(*op);
                write.push(idx);
                write.sort_unstable();
                match highest.get(lock) {
                    Some(&(top, _)) if top == *token => {
                        last_good.insert(*lock, write);
                    }
                    Some(&(top, grant)) => report.violations.push(violation(
                        index,
                        ViolationKind::StaleFencedWrite,
                        *lock,
                        format!("a write with token {token} committed after token {top} was granted"),
                        write,
                        index.grant_entries(grant),
                        last_good.get(lock).cloned().unwrap_or_default(),
                    )),
                    None => report.violations.push(violation(
                        index,
                        ViolationKind::StaleFencedWrite,
                        *lock,
                        format!(
                            "a write with token {token} committed after the lock item was deleted, before any grant"
                        ),
                        write,
                        deleted.get(lock).map(|d| vec![*d]).unwrap_or_default(),
                        last_good.get(lock).cloned().unwrap_or_default(),
                    )),
                }
            }
            _ => {}
        }
    }
}

fn store(index: &Index<'_>, report: &mut CheckReport) {
    let mut last: BTreeMap<LockId, (u64, usize)> = BTreeMap::new();
    let mut good: BTreeMap<LockId, usize> = BTreeMap::new();
    for (idx, entry) in index.entries.iter().enumerate() {
        let Event::StoreAccepted { op, lock, token } = &entry.event else { continue };
        report.stats.store_writes += 1;
        let mut write = index.op_entries(*op);
        write.push(idx);
        write.sort_unstable();
        let lower = last.get(lock).copied().filter(|&(top, _)| *token < top);
        if let Some((top, top_idx)) = lower {
            let mut higher = match &index.entries[top_idx].event {
                Event::StoreAccepted { op, .. } => index.op_entries(*op),
                _ => Vec::new(),
            };
            higher.push(top_idx);
            higher.sort_unstable();
            let before = good.get(lock).map(|g| vec![*g]).unwrap_or_default();
            report.violations.push(violation(
                index,
                ViolationKind::StoreAcceptedLower,
                *lock,
                format!("the store accepted token {token} after token {top}"),
                higher,
                write,
                before,
            ));
            continue;
        }
        if let Some(&(_, previous)) = last.get(lock) {
            good.insert(*lock, previous);
        }
        last.insert(*lock, (*token, idx));
    }
}

fn liveness(index: &Index<'_>, context: &CheckContext, report: &mut CheckReport) {
    let crash = index.entries.iter().enumerate().find_map(|(idx, e)| match &e.event {
        Event::Phase(Phase::LivenessCrash { lock, victim: Some(victim) }) => Some((idx, e.at, *lock, *victim)),
        _ => None,
    });
    let Some((crash_idx, crashed_at, lock, victim)) = crash else { return };
    let victim_grant = index.entries[..crash_idx]
        .iter()
        .rposition(|e| matches!(&e.event, Event::Granted { lock: l, to, .. } if *l == lock && *to == victim));
    let takeover = index.entries[crash_idx..].iter().enumerate().find_map(|(offset, e)| match &e.event {
        Event::Granted { lock: l, to, .. } if *l == lock && to.id != victim.id => Some((crash_idx + offset, e.at)),
        _ => None,
    });
    let bound = context.takeover_bound;
    let late = match takeover {
        Some((_, at)) => {
            let took = at - crashed_at;
            report.stats.takeover = Some(took);
            took > bound
        }
        None => true,
    };
    if !late {
        return;
    }
    let message = match takeover {
        Some((_, at)) => format!(
            "the lock was taken over {} after its holder {victim} crashed; the bound is {}",
            crate::timeline::seconds(at - crashed_at),
            crate::timeline::seconds(bound)
        ),
        None => format!(
            "nobody took the lock over in the {} after its holder {victim} crashed",
            crate::timeline::seconds(index.end.saturating_sub(crashed_at))
        ),
    };
    report.violations.push(violation(
        index,
        ViolationKind::SlowTakeover,
        lock,
        message,
        vec![crash_idx],
        takeover.map(|(idx, _)| index.grant_entries(idx)).unwrap_or_default(),
        victim_grant.map(|g| index.grant_entries(g)).unwrap_or_default(),
    ));
}
