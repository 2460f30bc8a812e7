//! The ground truth of the locks, rebuilt from the writes DynamoDB applied: every lease as
//! DynamoDB knew it (an owner id, granted to one incarnation and perhaps handed over to others),
//! the record versions written for it, by whom and when each was sent, how it ended, and what
//! each lock item held at every instant.

use std::collections::BTreeMap;
use std::time::Duration;

use super::clocks::Machines;
use super::index::Index;
use crate::locks::history::{Actor, Event, LockId, LockState, Nemesis, OpId, ProcessRef, WriteEffect};

/// A record version written for a lease: the first write that DynamoDB applied with it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Version {
    pub(super) value: u32,
    /// The incarnation that wrote it: the lease counts on its clock.
    pub(super) by: ProcessRef,
    /// When that write left its process, in global time.
    pub(super) sent: Duration,
    pub(super) applied: Duration,
    pub(super) idx: usize,
    pub(super) lease: Duration,
}

/// How a lease left its lock item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LeaseEnd {
    /// A write removed its owner, or the item: a release, by this incarnation.
    Released { by: ProcessRef },
    /// A write gave the lock to another owner.
    Replaced,
    /// The nemesis deleted the item.
    Deleted,
}

/// One lease as DynamoDB knew it.
#[derive(Clone, Debug)]
pub(super) struct TrueLease {
    pub(super) lock: LockId,
    /// The owner id, interned.
    pub(super) owner: u32,
    /// The incarnation whose write granted it.
    pub(super) to: ProcessRef,
    /// The incarnations it was handed over to, each with the entry from which it held the lease.
    pub(super) handed: Vec<(ProcessRef, usize)>,
    /// The grants of the lease: its fencing tokens, with their entries and the operations they
    /// were for (more than one when the client retried an acquire whose answer was lost).
    pub(super) grants: Vec<(u64, usize, Option<OpId>)>,
    pub(super) versions: Vec<Version>,
    /// When and how it left the item: (time, entry, how).
    pub(super) end: Option<(Duration, usize, LeaseEnd)>,
}

impl TrueLease {
    /// The entry of its first grant.
    pub(super) fn granted_idx(&self) -> usize {
        self.grants.first().map_or(0, |(_, idx, _)| *idx)
    }

    /// Whether `process` held the lease at entry `idx`: it was granted it, or handed it before.
    pub(super) fn held_by(&self, process: ProcessRef, idx: usize) -> bool {
        self.to == process || self.handed.iter().any(|&(p, from)| p == process && from <= idx)
    }

    /// The latest end of the lease on the monotonic clock of machine `machine`, by the versions
    /// DynamoDB had applied up to entry `idx`, and the version that sets it.
    pub(super) fn deadline_on(&self, machines: &Machines, idx: usize, machine: u16) -> Option<(Duration, Version)> {
        self.versions
            .iter()
            .filter(|v| v.idx <= idx)
            .map(|v| (machines.monotonic(machine, v.sent) + v.lease, *v))
            .max_by_key(|(deadline, v)| (*deadline, v.idx))
    }

    /// How much of the lease was left at global time `at` by the record version `value` (the
    /// one the item holds, which a contender counts from), on the clock of the incarnation that
    /// wrote it; by the versions applied up to entry `idx` if the lease has no such version.
    /// Returns the version too.
    pub(super) fn left_at(
        &self,
        machines: &Machines,
        idx: usize,
        value: u32,
        at: Duration,
    ) -> Option<(Duration, Version)> {
        let left = |v: &Version| {
            let deadline = machines.monotonic(v.by.id, v.sent) + v.lease;
            (deadline.saturating_sub(machines.monotonic(v.by.id, at)), *v)
        };
        match self.versions.iter().find(|v| v.value == value && v.idx <= idx) {
            Some(version) => Some(left(version)),
            None => self.versions.iter().filter(|v| v.idx <= idx).map(left).max_by_key(|(left, v)| (*left, v.idx)),
        }
    }
}

/// A refusal whose answer reached its process: DynamoDB told it the item did not hold the
/// lease its request named.
#[derive(Clone, Copy, Debug)]
pub(super) struct Told {
    pub(super) at: Duration,
    pub(super) by: ProcessRef,
    /// The owner of the lease the refused request named.
    pub(super) names: u32,
}

/// The ground truth of a run.
#[derive(Debug, Default)]
pub(super) struct Truth {
    pub(super) leases: Vec<TrueLease>,
    /// Refusals heard by their processes, in order.
    pub(super) told: Vec<Told>,
    by_owner: BTreeMap<(LockId, u32), usize>,
    /// What each lock item held after each change: (entry, state), in order.
    states: BTreeMap<LockId, Vec<(usize, LockState)>>,
    /// Writes DynamoDB applied to lock items.
    pub(super) writes: usize,
    /// When the item of each lock was an entity that is no lock: (entry of the nemesis that put
    /// it there, entry of the deletion that ended it, if any).
    pub(super) foreign: BTreeMap<LockId, Vec<(usize, Option<usize>)>>,
}

impl Truth {
    pub(super) fn new(index: &Index<'_>, default_lease: Duration) -> Self {
        let mut truth = Truth::default();
        let mut refusals: BTreeMap<u32, (ProcessRef, u32)> = BTreeMap::new();
        for (idx, entry) in index.entries.iter().enumerate() {
            match &entry.event {
                Event::Applied { lock, by, sent, before, after, op, .. } => {
                    truth.writes += 1;
                    truth.change(*lock, idx, *after);
                    let effect = WriteEffect::of(before, after);
                    if let Some(old) = before.held()
                        && after.owner() != Some(old.owner)
                        && let Some(&i) = truth.by_owner.get(&(*lock, old.owner))
                        && truth.leases[i].end.is_none()
                    {
                        let how =
                            if after.held().is_some() { LeaseEnd::Replaced } else { LeaseEnd::Released { by: *by } };
                        truth.leases[i].end = Some((entry.at, idx, how));
                    }
                    let Some(record) = after.held() else { continue };
                    let i = match truth.by_owner.get(&(*lock, record.owner)) {
                        Some(&i) => i,
                        None => {
                            truth.leases.push(TrueLease {
                                lock: *lock,
                                owner: record.owner,
                                to: *by,
                                handed: Vec::new(),
                                grants: Vec::new(),
                                versions: Vec::new(),
                                end: None,
                            });
                            truth.by_owner.insert((*lock, record.owner), truth.leases.len() - 1);
                            truth.leases.len() - 1
                        }
                    };
                    let lease = &mut truth.leases[i];
                    if effect == WriteEffect::Grant {
                        lease.grants.push((record.fence, idx, *op));
                    }
                    if !lease.versions.iter().any(|v| v.value == record.version) {
                        let duration =
                            if record.lease_ms > 0 { Duration::from_millis(record.lease_ms) } else { default_lease };
                        lease.versions.push(Version {
                            value: record.version,
                            by: *by,
                            sent: *sent,
                            applied: entry.at,
                            idx,
                            lease: duration,
                        });
                    }
                }
                Event::Refused { lock, state, by, request, names } => {
                    truth.change(*lock, idx, *state);
                    refusals.insert(*request, (*by, *names));
                }
                Event::Heard { request, .. } => {
                    if let Some(&(by, names)) = refusals.get(request)
                        && names != 0
                    {
                        truth.told.push(Told { at: entry.at, by, names });
                    }
                }
                Event::HandedOver { lock, token, from } => {
                    let Actor::Process(to) = entry.actor else { continue };
                    let handed = truth
                        .leases
                        .iter_mut()
                        .filter(|l| l.lock == *lock && l.held_by(*from, idx) && l.grants.iter().any(|g| g.0 == *token))
                        .max_by_key(|l| l.grants.first().map_or(0, |g| g.1));
                    if let Some(lease) = handed {
                        lease.handed.push((to, idx));
                    }
                }
                Event::Nemesis(Nemesis::CorruptItem(lock)) => {
                    if let Some(owner) = truth.state_at(*lock, idx).owner()
                        && let Some(&i) = truth.by_owner.get(&(*lock, owner))
                        && truth.leases[i].end.is_none()
                    {
                        truth.leases[i].end = Some((entry.at, idx, LeaseEnd::Replaced));
                    }
                    // An item replaced again while foreign stays foreign from the first time on.
                    let spans = truth.foreign.entry(*lock).or_default();
                    if !matches!(spans.last(), Some((_, None))) {
                        spans.push((idx, None));
                    }
                    truth.change(*lock, idx, LockState::Free { fence: 0 });
                }
                Event::Nemesis(Nemesis::DeleteItem(lock)) => {
                    if let Some((_, end @ None)) = truth.foreign.get_mut(lock).and_then(|spans| spans.last_mut()) {
                        *end = Some(idx);
                    }
                    if let Some(owner) = truth.state_at(*lock, idx).owner()
                        && let Some(&i) = truth.by_owner.get(&(*lock, owner))
                        && truth.leases[i].end.is_none()
                    {
                        truth.leases[i].end = Some((entry.at, idx, LeaseEnd::Deleted));
                    }
                    truth.change(*lock, idx, LockState::Absent);
                }
                _ => {}
            }
        }
        truth
    }

    fn change(&mut self, lock: LockId, idx: usize, state: LockState) {
        let states = self.states.entry(lock).or_default();
        if states.last().is_none_or(|(_, last)| *last != state) {
            states.push((idx, state));
        }
    }

    /// What the item of `lock` held right after entry `idx`.
    pub(super) fn state_at(&self, lock: LockId, idx: usize) -> LockState {
        let Some(states) = self.states.get(&lock) else { return LockState::Absent };
        let at = states.partition_point(|(i, _)| *i <= idx);
        at.checked_sub(1).map_or(LockState::Absent, |i| states[i].1)
    }

    /// What the item of `lock` held from right after entry `from` to right after entry `to`:
    /// the state then, and every state it changed to in between, in order.
    pub(super) fn states_between(&self, lock: LockId, from: usize, to: usize) -> Vec<LockState> {
        let mut states = vec![self.state_at(lock, from)];
        if let Some(changes) = self.states.get(&lock) {
            let start = changes.partition_point(|(i, _)| *i <= from);
            states.extend(changes[start..].iter().take_while(|(i, _)| *i <= to).map(|(_, state)| *state));
        }
        states
    }

    /// Every lock whose item the history shows, in order.
    pub(super) fn locks(&self) -> impl Iterator<Item = LockId> + '_ {
        self.states.keys().copied()
    }

    /// Whether the item of `lock` was an entity that is no lock at some instant from entry `from`
    /// to entry `to`.
    pub(super) fn foreign_between(&self, lock: LockId, from: usize, to: usize) -> bool {
        self.foreign
            .get(&lock)
            .is_some_and(|spans| spans.iter().any(|&(start, end)| start <= to && end.is_none_or(|end| end > from)))
    }

    /// The lease with `token` on `lock` that `process` held at entry `idx` (granted to it or
    /// handed over to it), the latest if several.
    pub(super) fn lease_held(&self, lock: LockId, process: ProcessRef, token: u64, idx: usize) -> Option<&TrueLease> {
        self.leases_with_token(lock, process, token, idx).max_by_key(|l| l.granted_idx())
    }

    /// The leases `process` held on `lock` with `token` before entry `idx`: more than one once a
    /// deletion of the item started its tokens again, and then a token alone does not say which
    /// lease a call meant.
    pub(super) fn leases_with_token(
        &self,
        lock: LockId,
        process: ProcessRef,
        token: u64,
        idx: usize,
    ) -> impl Iterator<Item = &TrueLease> {
        self.leases.iter().filter(move |l| {
            l.lock == lock && l.held_by(process, idx) && l.grants.iter().any(|g| g.0 == token && g.1 <= idx)
        })
    }

    /// The lease of `owner` on `lock`.
    pub(super) fn lease_of_owner(&self, lock: LockId, owner: u32) -> Option<&TrueLease> {
        self.by_owner.get(&(lock, owner)).map(|&i| &self.leases[i])
    }

    /// The lease with `token` on `lock` that was last handed over to `to` before entry `idx`,
    /// and the entry of the handoff.
    pub(super) fn lease_handed(
        &self,
        lock: LockId,
        to: ProcessRef,
        token: u64,
        idx: usize,
    ) -> Option<(&TrueLease, usize)> {
        self.leases
            .iter()
            .filter(|l| l.lock == lock && l.grants.iter().any(|g| g.0 == token))
            .filter_map(|l| {
                l.handed
                    .iter()
                    .filter(|&&(p, at)| p == to && at <= idx)
                    .map(|&(_, at)| (l, at))
                    .max_by_key(|(_, at)| *at)
            })
            .max_by_key(|(_, at)| *at)
    }

    /// The lease that DynamoDB granted `to` (or that was handed over to it) on `lock` with
    /// `token` before entry `idx`: the one granted for the operation `op` if there is one, else
    /// the last.
    pub(super) fn lease_granted(
        &self,
        lock: LockId,
        to: ProcessRef,
        token: u64,
        idx: usize,
        op: Option<OpId>,
    ) -> Option<&TrueLease> {
        let granted = |l: &&TrueLease, of: Option<OpId>| {
            l.grants
                .iter()
                .any(|&(fence, at, grant_op)| fence == token && at <= idx && (of.is_none() || grant_op == of))
        };
        let candidates = || self.leases.iter().filter(|l| l.lock == lock && l.held_by(to, idx));
        op.and_then(|op| candidates().filter(|l| granted(l, Some(op))).max_by_key(|l| l.granted_idx()))
            .or_else(|| candidates().filter(|l| granted(l, None)).max_by_key(|l| l.granted_idx()))
    }
}
