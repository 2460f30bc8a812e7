//! Beliefs, held against the ground truth: each is in a lease DynamoDB granted, ends with its
//! lease on the believer's own clock, and no two overlap but where the protocol cannot help it.

use std::collections::BTreeMap;
use std::time::Duration;

use super::index::Belief;
use super::truth::{LeaseEnd, TrueLease};
use super::writes::drift_allowance;
use super::{CheckReport, Checked, ViolationKind};
use crate::clock::seconds;
use crate::locks::history::LockId;

/// How late a process may learn that its lease ran out: the timer that tells it fires on the
/// next millisecond.
pub(super) const LATE: Duration = Duration::from_micros(1_001);

impl Checked<'_> {
    /// The lease DynamoDB granted for `belief`, if any.
    /// A lease handed over to the process after the acquire that returned the same token is
    /// the one it believes in.
    pub(super) fn lease_of(&self, belief: &Belief) -> Option<&TrueLease> {
        let op = self.index.acquire_of(belief.lock, belief.token, belief.process, belief.start_idx);
        let acquired = op.and_then(|op| self.index.ops.get(&op)).and_then(|op| op.complete);
        if let Some((lease, handed)) =
            self.truth.lease_handed(belief.lock, belief.process, belief.token, belief.start_idx)
            && acquired.is_none_or(|acquired| handed > acquired)
        {
            return Some(lease);
        }
        self.truth.lease_granted(belief.lock, belief.process, belief.token, belief.start_idx, op)
    }
}

/// Every belief is in a lease DynamoDB granted the believer, and ends once the lease has run out
/// on the believer's clock (when it resumes, if it was stopped then), and before its own
/// release is applied.
pub(super) fn granted_and_timely(checked: &Checked<'_>, report: &mut CheckReport) {
    for belief in checked.index.beliefs.values() {
        let Some(lease) = checked.lease_of(belief) else {
            report.violations.push(checked.violation(
                ViolationKind::UngrantedBelief,
                belief.lock,
                format!(
                    "{} believed it held token {} from {}, which DynamoDB never granted it",
                    belief.process,
                    belief.token,
                    seconds(belief.start)
                ),
                checked.index.belief_entries(belief),
                Vec::new(),
                Vec::new(),
            ));
            continue;
        };
        if let Some(message) = overrun(checked, belief, lease) {
            let last = lease.versions.iter().filter(|v| v.applied <= belief.end).map(|v| v.idx).max();
            report.violations.push(checked.violation(
                ViolationKind::BeliefPastLease,
                belief.lock,
                message,
                checked.index.belief_entries(belief),
                last.into_iter().chain(lease.end.map(|(_, idx, _)| idx)).collect(),
                checked.grant_entries(lease.granted_idx()),
            ));
        }
    }
}

/// Why `belief` lasted longer than `lease` allowed, if it did.
fn overrun(checked: &Checked<'_>, belief: &Belief, lease: &TrueLease) -> Option<String> {
    let process = belief.process;
    if let Some((released, _, LeaseEnd::Released { by })) = lease.end
        && by == process
        && belief.end > released
    {
        return Some(format!(
            "{process} believed in token {} until {}, after its own release was applied at {}",
            belief.token,
            seconds(belief.end),
            seconds(released)
        ));
    }
    if let Some(told) = checked
        .truth
        .told
        .iter()
        .find(|t| t.by == process && t.names == lease.owner && t.at >= belief.start && t.at + LATE < belief.end)
    {
        return Some(format!(
            "{process} believed in token {} until {}, though DynamoDB had refused its write naming that lease \
             at {}: the item no longer held it",
            belief.token,
            seconds(belief.end),
            seconds(told.at)
        ));
    }
    let machines = &checked.machines;
    for &(idx, at, left) in &belief.promises {
        let Some((deadline, version)) = lease.deadline_on(machines, idx, process.id) else { continue };
        let promised = machines.monotonic(process.id, at) + left;
        if promised > deadline + LATE {
            return Some(format!(
                "{process} was promised token {} for {} more at {}, but its lease, last written at {}, ends {} sooner \
                 on its clock",
                belief.token,
                seconds(left),
                seconds(at),
                seconds(version.sent),
                seconds(promised - deadline)
            ));
        }
    }
    let mut versions = lease.versions.to_vec();
    versions.sort_by_key(|v| v.idx);
    let mut next = 0;
    let mut deadline = Duration::ZERO;
    // Walks the belief from its start: the lease is extended by every version DynamoDB applies
    // before it runs out, and ends where none came in time.
    let mut from = belief.start;
    loop {
        while next < versions.len() && versions[next].applied <= from {
            let version = versions[next];
            deadline = deadline.max(machines.monotonic(process.id, version.sent) + version.lease);
            next += 1;
        }
        let lapse = machines.when(process.id, deadline, Duration::ZERO);
        if let Some(version) = versions.get(next)
            && version.applied <= lapse
        {
            from = version.applied;
            continue;
        }
        // The lease ran out at `lapse`: a running process learns it then, a stopped one when it
        // resumes, unless a write applied meanwhile extended it.
        let learns = match machines.stopped_at(process.id, lapse) {
            Some(resumed) => {
                if let Some(version) = versions.get(next)
                    && version.applied <= resumed
                {
                    from = resumed.max(version.applied);
                    continue;
                }
                resumed
            }
            None => lapse,
        };
        if belief.end <= learns + LATE {
            return None;
        }
        let when = if learns == lapse {
            String::from("while it ran")
        } else {
            format!("while it was stopped; it ran again at {}", seconds(learns))
        };
        return Some(format!(
            "{process} believed in token {} until {}, but its lease ran out on its own clock at {} ({when})",
            belief.token,
            seconds(belief.end),
            seconds(lapse)
        ));
    }
}

/// No two beliefs in one lock overlap, but where the protocol cannot help it: the item was
/// deleted after the earlier lease was granted and before the later one, the earlier holder was
/// stopped since the last write DynamoDB applied for it, or the clocks' drift allows it.
pub(super) fn exclusive(checked: &Checked<'_>, report: &mut CheckReport) {
    let index = &checked.index;
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
                if let Some(why) = exempt(checked, earlier, later) {
                    report.stats.overlaps_exempt += 1;
                    if why == Exempt::Deleted {
                        report.stats.overlaps_after_deletion += 1;
                    }
                    continue;
                }
                let last_good = beliefs[..j]
                    .iter()
                    .filter(|g| g.end <= earlier.start && g.end > g.start)
                    .max_by_key(|g| (g.end, g.start_idx))
                    .map(|g| index.belief_entries(g))
                    .unwrap_or_default();
                report.violations.push(checked.violation(
                    ViolationKind::OverlappingBeliefs,
                    lock,
                    format!(
                        "{} held token {} until {}, but {} held token {} from {}",
                        earlier.process,
                        earlier.token,
                        seconds(earlier.end),
                        later.process,
                        later.token,
                        seconds(later.start),
                    ),
                    index.belief_entries(earlier),
                    index.belief_entries(later),
                    last_good,
                ));
            }
        }
    }
}

/// Why an overlap of beliefs is one the protocol cannot prevent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exempt {
    /// A belief in nothing DynamoDB granted, which is reported as such.
    Ungranted,
    /// The item was deleted after the older lease was granted, before the newer one.
    Deleted,
    /// The older holder was stopped since its last write that DynamoDB applied.
    Stopped,
    /// The clocks' drift allows that much.
    Drift,
}

/// Whether the overlap of `earlier` and `later` is one the protocol cannot prevent, and why.
/// Which of the two is stale goes by when DynamoDB granted their leases, not by when their
/// answers came.
fn exempt(checked: &Checked<'_>, earlier: &Belief, later: &Belief) -> Option<Exempt> {
    let (Some(a), Some(b)) = (checked.lease_of(earlier), checked.lease_of(later)) else {
        return Some(Exempt::Ungranted);
    };
    let ((old, old_belief), (new, new_belief)) =
        if a.granted_idx() <= b.granted_idx() { ((a, earlier), (b, later)) } else { ((b, later), (a, earlier)) };
    let granted = |lease: &TrueLease| checked.index.entries[lease.granted_idx()].at;
    let (old_at, new_at) = (granted(old), granted(new));
    if checked.index.deleted_within(earlier.lock, old_at, new_at) {
        return Some(Exempt::Deleted);
    }
    let confirmed = old.deadline_on(&checked.machines, new.granted_idx(), old_belief.process.id).map(|(_, v)| v);
    if let Some(version) = confirmed
        && checked.machines.stopped_within(old_belief.process.id, version.sent, new_at.max(new_belief.start))
    {
        return Some(Exempt::Stopped);
    }
    let lease = confirmed.map_or(checked.context.lease, |v| v.lease);
    let overlap = earlier.end.min(later.end).saturating_sub(later.start);
    let allowance = drift_allowance(checked, earlier.process.id, later.process.id, lease).max(drift_allowance(
        checked,
        later.process.id,
        earlier.process.id,
        lease,
    ));
    (overlap <= allowance).then_some(Exempt::Drift)
}
