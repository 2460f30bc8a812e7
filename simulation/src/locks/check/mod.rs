//! The checker: what must hold in every history, per lock.
//!
//! Beside what processes believed and did, the history holds the ground truth: every write
//! DynamoDB applied to a lock item, with the item before and after it ([`Event::Applied`]),
//! and every one it refused. The checker holds each write against the item as it was at
//! that instant, and each belief against the writes that back it, each measured on the clock
//! of the process concerned.
//!
//! Safety:
//! - **Tokens rise**: the fencing tokens DynamoDB granted strictly rise, and no write by a
//!   process lowers the token of an item (a release that deletes it does); only a deletion by
//!   the nemesis, as by hand, starts them at 1 again.
//! - **Takeover after expiry**: DynamoDB gives a lock to a new owner only once the lease of
//!   the previous one has run out on that holder's own clock, counted from when it sent its
//!   last write of a new record version (within what the two clocks' drift allows, and unless
//!   the holder's machine was suspended, which no lease can see).
//! - **Own writes**: a renewal or a release that DynamoDB applied comes from the process that
//!   holds the lease it changes.
//! - **Granted beliefs**: a process believes only in a lease DynamoDB granted it.
//! - **Beliefs end with their lease**: a process stops believing once its lease has run out on
//!   its own clock, at once if it runs, when it resumes if it was stopped (unless a write it sent
//!   before was applied meanwhile), and before its own release is applied.
//! - **Exclusive beliefs**: no two processes believe they hold the lock at the same instant,
//!   unless the lock item was deleted after the earlier lease was granted and before the later
//!   one (its holder learns it at its next renewal), the earlier holder was stopped since its
//!   last write that DynamoDB applied, or the overlap is within what the clocks' drift allows.
//!   Beliefs are half-open intervals of global time, from the answer of the acquire to the
//!   moment the process learns that the lease ended (or releases it, or crashes).
//! - **Fencing**: every fenced write that DynamoDB committed did so while the lock item held the
//!   writer's lease, with its owner and its token.
//! - **Store**: the external store never accepted a lower token after a higher one.
//!
//! Liveness:
//! - **Takeover in time**: in the healed phase, the lock of a crashed holder is taken over
//!   within one lease and one poll interval ([`CheckContext::takeover_bound`]).
//! - **Healthy leases hold**: a lease acquired after the heal is not lost while nothing fails.
//! - **Retries find their own write**: a client's retry of a write that DynamoDB applied is not
//!   refused for what that very write wrote (a lease granted and never used).
//!
//! Operations beside the lease's own:
//! - **Descriptions fit the items**: `describe` and a listing tell each lock as its item was at
//!   some instant of the call.
//! - **Shutdowns release**: a shutdown returns within its bound, leaves no lease of its table held
//!   but those its report counts, and its table acquires nothing after it.
//! - **Waits are kept**: `try_acquire_for` gives up only once its wait ran out, on a lock held
//!   during its last poll, and returns within its wait and one poll.
//! - **Warnings in time**: a lease's warning fires before the lease runs out with half its margin
//!   to spare, when it is lost at the latest, and never while renewals succeed on time.
//!
//! A [`Violation`] names the two conflicting operations, the last good one before them, and
//! the window of the timeline that shows them.

mod beliefs;
mod clocks;
mod descriptions;
mod exists;
mod heartbeat;
mod index;
mod liveness;
mod promises;
mod releases;
mod renewals;
mod shutdowns;
mod tokens;
mod truth;
mod waits;
mod warnings;
mod writes;

use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;

use crate::locks::history::{Actor, Event, History, LockId};

use clocks::Machines;
use index::Index;
use truth::Truth;

/// What the checker needs to know of the run besides its history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckContext {
    /// The drift of each process's clock, by process number.
    pub drift_ppm: Vec<i32>,
    /// How soon the lock of a crashed holder must be taken over in the liveness phase.
    pub takeover_bound: Duration,
    /// The lease of an item that does not say its own (the naive lock's).
    pub lease: Duration,
}

/// The invariant a violation breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ViolationKind {
    /// A granted token was not higher than the one granted before it, or a write lowered it.
    TokenNotRising,
    /// DynamoDB gave the lock to a new owner while the lease of the previous one had time
    /// left on its holder's clock.
    TakeoverBeforeExpiry,
    /// DynamoDB applied a renewal or a release of a lease for a process that did not hold it.
    ForeignWrite,
    /// A process believed in a lease DynamoDB never granted it.
    UngrantedBelief,
    /// A process believed in its lease after the lease had ended on its own clock, or after
    /// its own release.
    BeliefPastLease,
    /// Two processes believed they held the lock at once.
    OverlappingBeliefs,
    /// A fenced write committed while the lock item did not hold the writer's lease.
    StaleFencedWrite,
    /// The external store accepted a lower token after a higher one.
    StoreAcceptedLower,
    /// The lock of a crashed holder was not taken over in time.
    SlowTakeover,
    /// A lease acquired after the heal was lost although nothing failed.
    LostWhileHealthy,
    /// A client's retry of a write was refused for what its own first attempt had written.
    RetryRefusedByItself,
    /// The library gave a lease up as run out while, on its holder's clock, it had time left.
    LostBeforeExpiry,
    /// A lease's heartbeat sent its renewal later than a third of the lease after the send of
    /// the last write that succeeded.
    RenewalLate,
    /// A lease was lost to an outage shorter than what it left for retries: its heartbeat stopped
    /// retrying while more than the longest retry was left.
    LostInShortOutage,
    /// `exists` answered against the lock item as it was during the call.
    WrongExists,
    /// `exists` still counted a holder that its table had seen unchanged for a whole lease.
    StaleExists,
    /// A release that returned (or an election that released its term's lease) left the item
    /// holding that lease.
    HeldAfterRelease,
    /// A lease with a heartbeat that its process let go of after the heal (a drop, a release, the
    /// end of a term) and did not know lost still held the item a few seconds later.
    HeldAfterLetGo,
    /// An election stopped by its caller did not return in time: at once while it waited, within
    /// a few round trips while it led.
    SlowStop,
    /// The library answered against its documentation, as a process saw it.
    BrokenPromise,
    /// An item at a lock's key that is no lock was written as a lock, or not reported as one.
    ForeignItem,
    /// A lease was said lost for a reason the lock item and the table do not show.
    WrongLossReason,
    /// A renewal answered true while the lock item did not hold its lease at any instant of
    /// the call.
    RenewedUnheld,
    /// `describe` or a listing told a lock otherwise than its item was at any instant of the call.
    WrongDescription,
    /// A shutdown outran its bound, left a lease of its table on its item that its report does
    /// not count, or let its table acquire after it.
    ShutdownLeftHeld,
    /// `try_acquire_for` gave up before its wait ran out or on a lock free during its last poll,
    /// or returned long after its wait.
    WaitNotKept,
    /// A warning on a lease fired while its renewals succeeded on time, or not with time to spare
    /// before the lease ran out, or not when it was lost.
    WarningOffTime,
}

impl ViolationKind {
    /// Whether the invariant is one of safety (something bad happened), rather than of
    /// liveness (something good did not).
    pub fn is_safety(self) -> bool {
        !matches!(
            self,
            ViolationKind::SlowTakeover
                | ViolationKind::LostWhileHealthy
                | ViolationKind::RetryRefusedByItself
                | ViolationKind::LostBeforeExpiry
                | ViolationKind::RenewalLate
                | ViolationKind::LostInShortOutage
                | ViolationKind::StaleExists
                | ViolationKind::HeldAfterRelease
                | ViolationKind::HeldAfterLetGo
                | ViolationKind::SlowStop
                | ViolationKind::WrongLossReason
                | ViolationKind::ShutdownLeftHeld
                | ViolationKind::WaitNotKept
                | ViolationKind::WarningOffTime
        )
    }

    /// Every invariant, in the order of the checks.
    pub const ALL: [ViolationKind; 27] = [
        ViolationKind::TokenNotRising,
        ViolationKind::TakeoverBeforeExpiry,
        ViolationKind::ForeignWrite,
        ViolationKind::UngrantedBelief,
        ViolationKind::BeliefPastLease,
        ViolationKind::OverlappingBeliefs,
        ViolationKind::StaleFencedWrite,
        ViolationKind::StoreAcceptedLower,
        ViolationKind::SlowTakeover,
        ViolationKind::LostWhileHealthy,
        ViolationKind::RetryRefusedByItself,
        ViolationKind::LostBeforeExpiry,
        ViolationKind::RenewalLate,
        ViolationKind::LostInShortOutage,
        ViolationKind::WrongExists,
        ViolationKind::StaleExists,
        ViolationKind::HeldAfterRelease,
        ViolationKind::HeldAfterLetGo,
        ViolationKind::SlowStop,
        ViolationKind::BrokenPromise,
        ViolationKind::WrongLossReason,
        ViolationKind::ForeignItem,
        ViolationKind::RenewedUnheld,
        ViolationKind::WrongDescription,
        ViolationKind::ShutdownLeftHeld,
        ViolationKind::WaitNotKept,
        ViolationKind::WarningOffTime,
    ];

    /// The invariant of a short name ([`name`](ViolationKind::name)).
    pub fn from_name(name: &str) -> Option<ViolationKind> {
        ViolationKind::ALL.into_iter().find(|kind| kind.name() == name)
    }

    /// A short name, for tables and command lines: `overlapping-beliefs`.
    pub fn name(self) -> &'static str {
        match self {
            ViolationKind::TokenNotRising => "token-not-rising",
            ViolationKind::TakeoverBeforeExpiry => "takeover-before-expiry",
            ViolationKind::ForeignWrite => "foreign-write",
            ViolationKind::UngrantedBelief => "ungranted-belief",
            ViolationKind::BeliefPastLease => "belief-past-lease",
            ViolationKind::OverlappingBeliefs => "overlapping-beliefs",
            ViolationKind::StaleFencedWrite => "stale-fenced-write",
            ViolationKind::StoreAcceptedLower => "store-accepted-lower",
            ViolationKind::SlowTakeover => "slow-takeover",
            ViolationKind::LostWhileHealthy => "lost-while-healthy",
            ViolationKind::RetryRefusedByItself => "retry-refused-by-itself",
            ViolationKind::LostBeforeExpiry => "lost-before-expiry",
            ViolationKind::RenewalLate => "renewal-late",
            ViolationKind::LostInShortOutage => "lost-in-short-outage",
            ViolationKind::WrongExists => "wrong-exists",
            ViolationKind::StaleExists => "stale-exists",
            ViolationKind::HeldAfterRelease => "held-after-release",
            ViolationKind::HeldAfterLetGo => "held-after-let-go",
            ViolationKind::SlowStop => "slow-stop",
            ViolationKind::BrokenPromise => "broken-promise",
            ViolationKind::WrongLossReason => "wrong-loss-reason",
            ViolationKind::ForeignItem => "foreign-item",
            ViolationKind::RenewedUnheld => "renewed-unheld",
            ViolationKind::WrongDescription => "wrong-description",
            ViolationKind::ShutdownLeftHeld => "shutdown-left-held",
            ViolationKind::WaitNotKept => "wait-not-kept",
            ViolationKind::WarningOffTime => "warning-off-time",
        }
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ViolationKind::TokenNotRising => "fencing tokens did not rise",
            ViolationKind::TakeoverBeforeExpiry => "the lock was taken over before the holder's lease ran out",
            ViolationKind::ForeignWrite => "a process renewed or released another process's lease",
            ViolationKind::UngrantedBelief => "a process believed in a lease it was never granted",
            ViolationKind::BeliefPastLease => "a process believed in its lease after it ended",
            ViolationKind::OverlappingBeliefs => "two processes believed they held the lock at once",
            ViolationKind::StaleFencedWrite => "a fenced write committed without the writer's lease",
            ViolationKind::StoreAcceptedLower => "the external store accepted a lower token after a higher one",
            ViolationKind::SlowTakeover => "the lock of a crashed holder was not taken over in time",
            ViolationKind::LostWhileHealthy => "a lease was lost although nothing failed",
            ViolationKind::RetryRefusedByItself => "a retried write was refused by its own first attempt",
            ViolationKind::LostBeforeExpiry => "a lease was given up as run out while it had time left",
            ViolationKind::RenewalLate => {
                "a lease was renewed later than a third of its duration after its last success"
            }
            ViolationKind::LostInShortOutage => "a lease was lost to an outage shorter than it leaves for retries",
            ViolationKind::WrongExists => "exists answered against the lock item",
            ViolationKind::StaleExists => "exists counted a holder seen unchanged for a whole lease",
            ViolationKind::HeldAfterRelease => "a release returned while the lock item still held the lease",
            ViolationKind::HeldAfterLetGo => "a lease let go of after the heal still held the lock item seconds later",
            ViolationKind::SlowStop => "an election stopped by its caller did not return in time",
            ViolationKind::BrokenPromise => "the library answered against its documentation",
            ViolationKind::WrongLossReason => "a lease was said lost for a reason the lock item does not show",
            ViolationKind::ForeignItem => "an item that is no lock was written as a lock, or not reported as one",
            ViolationKind::RenewedUnheld => "a renewal answered true while the lock item did not hold its lease",
            ViolationKind::WrongDescription => "a description of a lock did not fit its item",
            ViolationKind::ShutdownLeftHeld => {
                "a shutdown outran its bound, left a lease held, or let its table acquire after it"
            }
            ViolationKind::WaitNotKept => "try_acquire_for did not keep its wait",
            ViolationKind::WarningOffTime => "a lease's warning fired too early, too late or not at all",
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
    /// Writes to lock items that DynamoDB applied, each held against the item as it was.
    pub writes: usize,
    /// Leases processes believed they held.
    pub beliefs: usize,
    /// Pairs of beliefs that overlapped but were exempt: a deletion, a stopped holder, or the
    /// clocks' drift.
    pub overlaps_exempt: usize,
    /// Of those, the pairs whose lock item was deleted after the earlier lease was granted and
    /// before the later one.
    pub overlaps_after_deletion: usize,
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

/// What every check reads: the history's indexes, the ground truth and the clocks.
struct Checked<'h> {
    index: Index<'h>,
    truth: Truth,
    machines: Machines,
    context: &'h CheckContext,
}

/// Checks `history` against every invariant.
///
/// # Examples
///
/// A history in which DynamoDB granted token 2 and then token 2 again:
///
/// ```
/// use std::time::Duration;
/// use dynalease_sim::locks::check::{check, CheckContext, ViolationKind};
/// use dynalease_sim::locks::history::{Actor, Entry, Event, History, LockId, LockRecord, LockState, ProcessRef};
///
/// let p = |id| ProcessRef { id, incarnation: 0 };
/// let held = |owner, fence| LockState::Held(LockRecord { owner, version: owner, fence, lease_ms: 30_000 });
/// let grant = |s, before, after, by| Entry {
///     at: Duration::from_secs(s),
///     actor: Actor::Db,
///     event: Event::Applied { lock: LockId(0), by, sent: Duration::from_secs(s), request: 0, op: None, before, after },
/// };
/// let history = History::from_entries(
///     vec![grant(1, LockState::Free { fence: 1 }, held(1, 2), p(0)), grant(99, held(1, 2), held(2, 2), p(1))],
///     vec!["leader".into()],
/// );
/// let context = CheckContext { drift_ppm: vec![0, 0], takeover_bound: Duration::from_secs(40), lease: Duration::from_secs(30) };
/// let report = check(&history, &context);
/// assert_eq!(report.violations[0].kind, ViolationKind::TokenNotRising);
/// ```
pub fn check(history: &History, context: &CheckContext) -> CheckReport {
    let index = Index::new(history);
    let machines = Machines::new(history.entries(), &context.drift_ppm, index.end);
    let truth = Truth::new(&index, context.lease);
    let checked = Checked { index, truth, machines, context };
    let mut report = CheckReport::default();
    tokens::tokens_rise(&checked, &mut report);
    writes::takeovers(&checked, &mut report);
    writes::own_writes(&checked, &mut report);
    writes::retries(&checked, &mut report);
    writes::foreign_items(&checked, &mut report);
    beliefs::granted_and_timely(&checked, &mut report);
    beliefs::exclusive(&checked, &mut report);
    tokens::fencing(&checked, &mut report);
    tokens::store(&checked, &mut report);
    liveness::takeover_in_time(&checked, &mut report);
    liveness::healthy_leases_hold(&checked, &mut report);
    liveness::leases_run_their_time(&checked, &mut report);
    heartbeat::renewals_in_time(&checked, &mut report);
    heartbeat::outages_survived(&checked, &mut report);
    exists::answers_agree(&checked, &mut report);
    exists::stale_holders_drop(&checked, &mut report);
    releases::releases_release(&checked, &mut report);
    releases::let_go_leases_leave_the_item(&checked, &mut report);
    releases::stops_at_once(&checked, &mut report);
    promises::promises_kept(&checked, &mut report);
    promises::loss_reasons(&checked, &mut report);
    renewals::renewals_answer_truly(&checked, &mut report);
    descriptions::descriptions_agree(&checked, &mut report);
    shutdowns::shutdowns_release(&checked, &mut report);
    waits::waits_kept(&checked, &mut report);
    warnings::warnings_in_time(&checked, &mut report);
    report.stats.beliefs = checked.index.beliefs.len();
    report.stats.writes = checked.truth.writes;
    // One violation per invariant and lock: the first one, which the others usually follow from.
    report.violations.sort_by_key(|v| (v.window.0, v.kind));
    let mut seen = BTreeSet::new();
    report.violations.retain(|v| seen.insert((v.kind, v.lock)));
    report
}

/// The span of global time of `entries`.
fn span(index: &Index<'_>, entries: &[usize]) -> (Duration, Duration) {
    let times = entries.iter().filter_map(|i| index.entries.get(*i)).map(|e| e.at);
    let start = times.clone().min().unwrap_or(Duration::ZERO);
    let end = times.max().unwrap_or(Duration::ZERO);
    (start, end)
}

/// The processes that `entries` concern.
fn processes_of(index: &Index<'_>, entries: &[usize]) -> Vec<u16> {
    let mut out: Vec<u16> = entries
        .iter()
        .filter_map(|i| index.entries.get(*i))
        .filter_map(|e| match (&e.event, e.actor) {
            (_, Actor::Process(p)) => Some(p.id),
            (Event::Applied { by, .. } | Event::Refused { by, .. }, _) => Some(by.id),
            (Event::Committed { op } | Event::StoreAccepted { op, .. }, _) => index.ops.get(op).map(|o| o.process.id),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

impl Checked<'_> {
    /// A violation of `kind` on `lock`, between `first` and `second`, after `last_good`.
    fn violation(
        &self,
        kind: ViolationKind,
        lock: LockId,
        message: String,
        mut first: Vec<usize>,
        mut second: Vec<usize>,
        mut last_good: Vec<usize>,
    ) -> Violation {
        for entries in [&mut first, &mut second, &mut last_good] {
            entries.sort_unstable();
            entries.dedup();
        }
        let all: Vec<usize> = first.iter().chain(&second).copied().collect();
        let window = span(&self.index, &all);
        Violation { kind, lock, message, processes: processes_of(&self.index, &all), first, second, last_good, window }
    }
}
