//! Faults timed by the protocol's own moments, as well as by the clock.
//!
//! A lock protocol breaks in narrow windows: between a renewal's send and its answer, right
//! after a holder renewed, just before a contender's takeover is due, while a contender waits.
//! A fault at a random time rarely lands in one. A [`Trigger`] waits for a [`Moment`] of a
//! process (its write to a lock item left it; DynamoDB granted or renewed its lease; the answer
//! of a renewal reached it; it read a lock another process holds) and then applies its
//! [`Reaction`] at that very instant: pause or suspend the process, delay or lose the answer
//! that is on its way, hold the write in the network until another process has read the lock,
//! partition or throttle it, step its clock, delete the lock item, or stop the holder until just
//! before a contender may take its lock over.
//!
//! Each trigger fires once, at the first matching moment after its time, so a scenario's
//! triggers are a list that a person can read, edit and shrink.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;

use std::sync::Arc;

use crate::clock::WorldClock;
use crate::history::{Actor, Event, LockRecord, Nemesis, ProcessRef, Recorder};
use crate::rng::SimRng;

/// A moment of the protocol of one process, seen from the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Moment {
    /// A write of the process to a lock item left it: an acquire, a renewal or a release.
    LockWriteSent,
    /// DynamoDB granted the process a lock; its answer is on the way back.
    Granted,
    /// DynamoDB applied a renewal of the process's lease; its answer is on the way back.
    Renewed,
    /// The answer of a renewal that DynamoDB applied reached the process.
    RenewalAnswered,
    /// The process read a lock that another process holds: it is waiting for it.
    Waiting,
    /// A read of a lock item left the process.
    LockReadSent,
    /// DynamoDB applied a release of the process's lease; its answer is on the way back.
    Released,
}

impl Moment {
    /// The moment in words, for the timeline.
    pub fn describe(self) -> &'static str {
        match self {
            Moment::LockWriteSent => "sent a write to the item of",
            Moment::Granted => "was granted",
            Moment::Renewed => "had its renewal applied to",
            Moment::RenewalAnswered => "heard its renewal of",
            Moment::Waiting => "waits for",
            Moment::LockReadSent => "sent a read of the item of",
            Moment::Released => "had its release applied to",
        }
    }
}

/// What the nemesis does at a trigger's moment, to the process of the moment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reaction {
    /// Pauses the process (its clock runs on).
    Pause {
        /// For how long.
        for_ms: u64,
    },
    /// Suspends its machine (its monotonic clock stops).
    Suspend {
        /// For how long.
        for_ms: u64,
    },
    /// Crashes it.
    Crash {
        /// How long until it restarts.
        restart_after_ms: u64,
    },
    /// Cuts it off the network.
    Partition {
        /// For how long.
        for_ms: u64,
    },
    /// Has DynamoDB throttle its requests.
    Throttle {
        /// The probability of each request, in millionths.
        per_million: u32,
        /// For how long.
        for_ms: u64,
    },
    /// Steps its wall clock.
    ClockStep {
        /// By how much, either way.
        delta_ms: i64,
    },
    /// The answer of the write of the moment ([`Moment::Granted`], [`Moment::Renewed`]) comes
    /// back this much later.
    DelayAnswer {
        /// Added to the way back.
        extra_ms: u64,
    },
    /// The answer of the write of the moment is lost, though DynamoDB applied it.
    LoseAnswer,
    /// The write of the moment ([`Moment::LockWriteSent`]) takes this much longer on its way
    /// to DynamoDB, so that whatever else is written meanwhile lands first.
    DelayRequest {
        /// Added to the way there.
        extra_ms: u64,
    },
    /// The write of the moment ([`Moment::LockWriteSent`]) is held in the network for at least
    /// `min_ms`, then delivered right after another process's next read of the same lock, so
    /// that it lands between that read and whatever the reader writes next.
    HoldUntilRead {
        /// The shortest hold.
        min_ms: u64,
    },
    /// The write of the moment ([`Moment::LockWriteSent`]) is held in the network until a
    /// process that waits for the lock may take it over (a whole lease after it first read the
    /// record it reads again), and delivered right after that process's read, so that it lands
    /// between the read and the takeover that follows it.
    HoldUntilTakeover,
    /// Deletes the lock item of the moment.
    DeleteItem,
    /// Pauses (or suspends) the holder of the lock of the moment, and resumes it `lead_ms`
    /// before the first process that waits for the lock may take it over: a whole lease after
    /// that process first read the holder's record.
    StopUntilTakeover {
        /// How long before the takeover is due the holder resumes.
        lead_ms: u64,
        /// Whether its machine is suspended instead of paused.
        suspend: bool,
    },
    /// The message of the moment (a request that leaves the process, or the answer of a write
    /// that DynamoDB applied) loses its turn: it is held in the network until `by` reads or
    /// writes of the same lock item by other processes have been applied (writes only, if
    /// `writes`), and delivered right after the last of them. Then `stop`, if any, stops the
    /// process whose read or write came last (the overtaker) or the process of the moment.
    Overtake {
        /// How many reads or writes of other processes pass it.
        by: u8,
        /// Whether only writes count.
        writes: bool,
        /// Who stops once it was delivered, and how (a pause, a suspension or a crash).
        stop: Option<(Whom, Box<Reaction>)>,
    },
}

/// Whom the stop of an [`Reaction::Overtake`] stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Whom {
    /// The process whose read or write passed the held message last.
    Overtaker,
    /// The process whose message was held.
    Sender,
}

impl Reaction {
    /// Whether the network applies it to the request of the moment, rather than the world.
    pub(crate) fn is_inline(&self) -> bool {
        matches!(
            self,
            Reaction::DelayAnswer { .. }
                | Reaction::LoseAnswer
                | Reaction::DelayRequest { .. }
                | Reaction::HoldUntilRead { .. }
                | Reaction::HoldUntilTakeover
                | Reaction::Overtake { .. }
        )
    }

    /// The kind of reaction, for counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Reaction::Pause { .. } => "pause",
            Reaction::Suspend { .. } => "suspend",
            Reaction::Crash { .. } => "crash",
            Reaction::Partition { .. } => "partition",
            Reaction::Throttle { .. } => "throttle",
            Reaction::ClockStep { .. } => "clock-step",
            Reaction::DelayAnswer { .. } => "delayed-answer",
            Reaction::LoseAnswer => "lost-answer",
            Reaction::DelayRequest { .. } => "delayed-write",
            Reaction::HoldUntilRead { .. } => "held-write",
            Reaction::HoldUntilTakeover => "write-held-until-takeover",
            Reaction::DeleteItem => "delete-item",
            Reaction::StopUntilTakeover { .. } => "stop-until-takeover",
            Reaction::Overtake { .. } => "overtaken",
        }
    }
}

/// A fault that waits for a moment of the protocol.
///
/// # Examples
///
/// Right after the first renewal that p0 hears from 60 s on, cut it off for a minute:
///
/// ```
/// use dynalease_sim::triggers::{Moment, Reaction, Trigger};
///
/// let trigger = Trigger {
///     after_ms: 60_000,
///     process: Some(0),
///     lock: None,
///     moment: Moment::RenewalAnswered,
///     reaction: Reaction::Partition { for_ms: 60_000 },
/// };
/// # let _ = trigger;
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Trigger {
    /// From when the trigger waits for its moment, since the start of the run.
    pub after_ms: u64,
    /// The process whose moment it is; `None` for any process.
    pub process: Option<u16>,
    /// The lock of the moment; `None` for any lock.
    pub lock: Option<String>,
    /// The moment.
    pub moment: Moment,
    /// What happens then.
    pub reaction: Reaction,
}

/// A reaction for the world to carry out now.
#[derive(Clone, Debug)]
pub(crate) enum Order {
    /// The reaction of a trigger that fired at a moment of `process` on `lock`.
    React { process: ProcessRef, lock: String, reaction: Reaction },
    /// Resume the stopped `process` at `at_ms`.
    ResumeAt { process: ProcessRef, at_ms: u64 },
}

/// A holder stopped until a takeover of its lock is due.
#[derive(Clone, Debug)]
struct Stopped {
    process: ProcessRef,
    lock: String,
    record: LockRecord,
    lead_ms: u64,
}

#[derive(Debug, Default)]
struct State {
    /// The triggers by time, and whether each has fired.
    armed: Vec<(Trigger, bool)>,
    orders: VecDeque<Order>,
    /// Since when each waiting process has read the same record of each lock, in global time.
    watching: BTreeMap<(u16, String), (LockRecord, Duration)>,
    stopped: Vec<Stopped>,
}

/// The reads (`false`) and writes (`true`) of one lock item that DynamoDB applied, by process,
/// and what wakes the messages waiting for them to pass.
type Passes = (Vec<(ProcessRef, bool)>, Arc<Notify>);

/// The triggers of a run while it goes on.
#[derive(Debug)]
pub(crate) struct Triggers {
    clock: WorldClock,
    recorder: Recorder,
    state: Mutex<State>,
    /// Wakes the world when an order is waiting.
    pub(crate) orders: Notify,
    /// Wake the writes held until a read of their lock, by lock.
    reads: Mutex<BTreeMap<String, Arc<Notify>>>,
    /// Wake the writes held until a takeover of their lock is due, by lock.
    dues: Mutex<BTreeMap<String, Arc<Notify>>>,
    /// The reads and writes of each lock item that DynamoDB applied, by process, while triggers
    /// may fire, and what wakes the messages held until others pass them.
    passes: Mutex<BTreeMap<String, Passes>>,
    /// Wakes every held write at the heal.
    healed: Notify,
    active: AtomicBool,
}

impl Triggers {
    pub(crate) fn new(clock: WorldClock, recorder: Recorder, mut triggers: Vec<Trigger>) -> Self {
        triggers.sort_by_key(|t| t.after_ms);
        let active = AtomicBool::new(!triggers.is_empty());
        let state = State { armed: triggers.into_iter().map(|t| (t, false)).collect(), ..State::default() };
        Triggers {
            clock,
            recorder,
            state: Mutex::new(state),
            orders: Notify::new(),
            reads: Mutex::new(BTreeMap::new()),
            dues: Mutex::new(BTreeMap::new()),
            passes: Mutex::new(BTreeMap::new()),
            healed: Notify::new(),
            active,
        }
    }

    /// Whether the run has triggers that may still fire.
    pub(crate) fn is_active(&self) -> bool {
        self.active.load(Ordering::Relaxed)
    }

    /// Fires no trigger from now on, and delivers the writes held in the network: the faults
    /// are healed.
    pub(crate) fn disarm(&self) {
        self.active.store(false, Ordering::Relaxed);
        self.healed.notify_waiters();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The moment `moment` of `process` on `lock` happens now. Returns the reaction that the
    /// network applies to the request of the moment, if a trigger with one fired; the others
    /// go to the world as orders.
    pub(crate) fn moment(&self, moment: Moment, process: ProcessRef, lock: &str) -> Option<Reaction> {
        if !self.is_active() {
            return None;
        }
        let now_ms = self.clock.now().as_millis() as u64;
        let mut state = self.state();
        let (trigger, fired) = state.armed.iter_mut().find(|(t, fired)| {
            !*fired
                && t.after_ms <= now_ms
                && t.moment == moment
                && t.process.is_none_or(|p| p == process.id)
                && t.lock.as_deref().is_none_or(|l| l == lock)
                && fits(moment, &t.reaction)
        })?;
        *fired = true;
        let reaction = trigger.reaction.clone();
        let inline = reaction.is_inline();
        if !inline {
            state.orders.push_back(Order::React { process, lock: lock.to_owned(), reaction: reaction.clone() });
        }
        drop(state);
        let lock_id = self.recorder.lock(lock);
        let fired = Nemesis::Triggered { process, lock: lock_id, moment, reaction: reaction.clone() };
        self.recorder.record(Actor::Nemesis, Event::Nemesis(fired));
        if inline {
            return Some(reaction);
        }
        self.orders.notify_one();
        None
    }

    /// The next order for the world, if any.
    pub(crate) fn next_order(&self) -> Option<Order> {
        self.state().orders.pop_front()
    }

    /// `reader` read `lock` while `holder` held it with `record`: it waits for the lock.
    pub(crate) fn read_held(&self, reader: ProcessRef, lock: &str, record: LockRecord) {
        if !self.is_active() {
            return;
        }
        let now = self.clock.now();
        let mut state = self.state();
        let key = (reader.id, lock.to_owned());
        let since = match state.watching.get(&key) {
            Some((seen, since)) if *seen == record => *since,
            _ => {
                state.watching.insert(key, (record, now));
                now
            }
        };
        let due_ms = (since + Duration::from_millis(record.lease_ms)).as_millis() as u64;
        let mut woken = Vec::new();
        state.stopped.retain(|s| {
            let wake = s.lock == lock && s.record == record && s.process.id != reader.id;
            if wake {
                woken.push(Order::ResumeAt { process: s.process, at_ms: due_ms.saturating_sub(s.lead_ms) });
            }
            !wake
        });
        let any = !woken.is_empty();
        state.orders.extend(woken);
        drop(state);
        if any {
            self.orders.notify_one();
        }
        if now.as_millis() as u64 >= due_ms {
            notify_of(&self.dues, lock).notify_waiters();
        }
    }

    /// Waits until a process that waits for `lock` may take it over, at most `longest` and no
    /// longer than the heal.
    pub(crate) async fn next_takeover(&self, lock: &str, longest: Duration) {
        self.notified(&self.dues, lock, longest).await;
    }

    /// A read of `lock` was applied: delivers the writes held until then.
    pub(crate) fn read_applied(&self, lock: &str) {
        if self.is_active() {
            notify_of(&self.reads, lock).notify_waiters();
        }
    }

    /// Waits `min`, then until a read of `lock` is applied, at most `longest` more; no longer
    /// than the heal.
    pub(crate) async fn next_read_after(&self, lock: &str, min: Duration, longest: Duration) {
        let healed = self.healed.notified();
        if !self.is_active() {
            return;
        }
        tokio::select! {
            biased;
            () = healed => return,
            () = self.clock.sleep(min) => {}
        }
        self.next_read(lock, longest).await;
    }

    /// Waits until a read of `lock` is applied, at most `longest` and no longer than the heal.
    async fn next_read(&self, lock: &str, longest: Duration) {
        self.notified(&self.reads, lock, longest).await;
    }

    /// Waits until the notifier of `lock` in `map` fires, at most `longest` and no longer than
    /// the heal.
    async fn notified(&self, map: &Mutex<BTreeMap<String, Arc<Notify>>>, lock: &str, longest: Duration) {
        let notify = notify_of(map, lock);
        let notified = notify.notified();
        let healed = self.healed.notified();
        if !self.is_active() {
            return;
        }
        tokio::select! {
            biased;
            () = healed => {}
            () = notified => {}
            () = self.clock.sleep(longest) => {}
        }
    }

    /// DynamoDB applied a read (or a `write`) of the item of `lock` by `process`.
    pub(crate) fn passed(&self, lock: &str, process: ProcessRef, write: bool) {
        if !self.is_active() {
            return;
        }
        let notify = {
            let mut passes = self.passes.lock().unwrap_or_else(|e| e.into_inner());
            let (log, notify) = passes.entry(lock.to_owned()).or_default();
            log.push((process, write));
            notify.clone()
        };
        notify.notify_waiters();
    }

    /// Waits until `by` reads or writes (writes only, if `writes`) of the item of `lock` by
    /// other processes than `sender` have been applied, at most `longest` and no longer than
    /// the heal. Returns the process of the last of them, if they all came.
    pub(crate) async fn overtaken(
        &self,
        lock: &str,
        sender: ProcessRef,
        by: u8,
        writes: bool,
        longest: Duration,
    ) -> Option<ProcessRef> {
        let deadline = self.clock.now() + longest;
        let start = self.passes.lock().unwrap_or_else(|e| e.into_inner()).entry(lock.to_owned()).or_default().0.len();
        loop {
            let (overtaker, notify) = {
                let mut passes = self.passes.lock().unwrap_or_else(|e| e.into_inner());
                let (log, notify) = passes.entry(lock.to_owned()).or_default();
                let others = log[start..].iter().filter(|(p, w)| p.id != sender.id && (*w || !writes));
                (others.clone().nth(usize::from(by.max(1)) - 1).map(|(p, _)| *p), notify.clone())
            };
            if overtaker.is_some() {
                return overtaker;
            }
            let notified = notify.notified();
            let healed = self.healed.notified();
            let now = self.clock.now();
            if !self.is_active() || now >= deadline {
                return None;
            }
            tokio::select! {
                biased;
                () = healed => return None,
                () = notified => {}
                () = self.clock.sleep(deadline - now) => return None,
            }
        }
    }

    /// Stops `process` as `reaction` says (a pause, a suspension or a crash): the end of an
    /// [`Reaction::Overtake`].
    pub(crate) fn stop(&self, process: ProcessRef, lock: &str, reaction: Reaction) {
        if !self.is_active() {
            return;
        }
        self.state().orders.push_back(Order::React { process, lock: lock.to_owned(), reaction });
        self.orders.notify_one();
    }

    /// `process` was stopped while it held `lock` with `record`: the next reader of that
    /// record decides when it resumes.
    pub(crate) fn stopped_until_takeover(&self, process: ProcessRef, lock: &str, record: LockRecord, lead_ms: u64) {
        self.state().stopped.push(Stopped { process, lock: lock.to_owned(), record, lead_ms });
    }
}

/// The notifier of `lock` in `map`.
fn notify_of(map: &Mutex<BTreeMap<String, Arc<Notify>>>, lock: &str) -> Arc<Notify> {
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(lock.to_owned()).or_default().clone()
}

/// Whether a reaction means anything at a moment: the network's reactions need the request
/// of the moment.
fn fits(moment: Moment, reaction: &Reaction) -> bool {
    match reaction {
        Reaction::DelayAnswer { .. } | Reaction::LoseAnswer => {
            matches!(moment, Moment::Granted | Moment::Renewed | Moment::Released)
        }
        Reaction::DelayRequest { .. } | Reaction::HoldUntilRead { .. } | Reaction::HoldUntilTakeover => {
            moment == Moment::LockWriteSent
        }
        Reaction::Overtake { .. } => matches!(
            moment,
            Moment::LockReadSent | Moment::LockWriteSent | Moment::Granted | Moment::Renewed | Moment::Released
        ),
        _ => true,
    }
}

/// The moments and reactions a seed draws its triggers from: each a window where a lock
/// protocol is known to break, and the fault that opens it.
const MENU: [(Moment, ReactionKind); 27] = [
    // A message that loses its turn to the next reads or writes of others on the same item:
    // a read overtaken by a renewal, an answer held past another's write, a release racing a
    // takeover, a renewal landing after a takeover; and after it, the overtaker or the sender
    // stopped, so that what the race left behind lasts.
    // Twice each for reads and writes: the reads include those of `exists`, and the writes
    // the releases and the acquires of free locks, where no lease is yet at stake.
    (Moment::LockReadSent, ReactionKind::Overtake),
    (Moment::LockReadSent, ReactionKind::Overtake),
    (Moment::LockWriteSent, ReactionKind::Overtake),
    (Moment::LockWriteSent, ReactionKind::Overtake),
    (Moment::Granted, ReactionKind::Overtake),
    (Moment::Renewed, ReactionKind::Overtake),
    (Moment::Released, ReactionKind::Overtake),
    (Moment::LockWriteSent, ReactionKind::DelayRequest),
    (Moment::LockWriteSent, ReactionKind::HoldUntilTakeover),
    (Moment::LockWriteSent, ReactionKind::Pause),
    (Moment::LockWriteSent, ReactionKind::Suspend),
    (Moment::LockWriteSent, ReactionKind::Crash),
    (Moment::LockWriteSent, ReactionKind::HoldUntilRead),
    (Moment::Granted, ReactionKind::DelayAnswer),
    (Moment::Granted, ReactionKind::LoseAnswer),
    (Moment::Granted, ReactionKind::DeleteItem),
    (Moment::Renewed, ReactionKind::DelayAnswer),
    (Moment::Renewed, ReactionKind::LoseAnswer),
    (Moment::Renewed, ReactionKind::Pause),
    (Moment::RenewalAnswered, ReactionKind::Partition),
    (Moment::RenewalAnswered, ReactionKind::Throttle),
    (Moment::RenewalAnswered, ReactionKind::StopUntilTakeover),
    (Moment::RenewalAnswered, ReactionKind::DeleteItem),
    (Moment::RenewalAnswered, ReactionKind::Pause),
    (Moment::Waiting, ReactionKind::ClockStep),
    (Moment::Waiting, ReactionKind::ClockStep),
    (Moment::Waiting, ReactionKind::Pause),
];

/// The kinds of [`Reaction`], without their sizes: what the menu of a seed and a scenario file
/// name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ReactionKind {
    Pause,
    Suspend,
    Crash,
    Partition,
    Throttle,
    ClockStep,
    DelayAnswer,
    LoseAnswer,
    DelayRequest,
    HoldUntilRead,
    HoldUntilTakeover,
    DeleteItem,
    StopUntilTakeover,
    Overtake,
}

impl ReactionKind {
    fn draw(self, moment: Moment, rng: &mut SimRng, lease_ms: u64) -> Reaction {
        let lease = lease_ms.max(1_000);
        match self {
            ReactionKind::Pause => Reaction::Pause { for_ms: rng.range(lease / 4, 2 * lease) },
            ReactionKind::Suspend => Reaction::Suspend { for_ms: rng.range(lease / 4, 2 * lease) },
            ReactionKind::Crash => Reaction::Crash { restart_after_ms: rng.range(1_000, 2 * lease) },
            ReactionKind::Partition => Reaction::Partition { for_ms: rng.range(lease / 2, 2 * lease) },
            // Half of them throttle every request, through what the lease leaves for retries.
            ReactionKind::Throttle => Reaction::Throttle {
                per_million: if rng.chance_ppm(500_000) { 1_000_000 } else { rng.range(900_000, 1_000_000) as u32 },
                for_ms: rng.range(lease / 3, 3 * lease / 2),
            },
            // As a machine whose clock NTP corrects by much, or a virtual machine that resumes:
            // larger than any wait, either way.
            ReactionKind::ClockStep => {
                let step = rng.range(lease / 2, 2 * lease) as i64;
                Reaction::ClockStep { delta_ms: if rng.chance_ppm(500_000) { step } else { -step } }
            }
            ReactionKind::DelayAnswer => Reaction::DelayAnswer { extra_ms: rng.range(100, 3 * lease / 2) },
            ReactionKind::LoseAnswer => Reaction::LoseAnswer,
            ReactionKind::DelayRequest => Reaction::DelayRequest { extra_ms: rng.range(1, lease / 3) },
            ReactionKind::HoldUntilRead => Reaction::HoldUntilRead { min_ms: rng.range(lease / 2, lease) },
            ReactionKind::HoldUntilTakeover => Reaction::HoldUntilTakeover,
            ReactionKind::DeleteItem => Reaction::DeleteItem,
            ReactionKind::StopUntilTakeover => {
                Reaction::StopUntilTakeover { lead_ms: rng.range(0, lease / 2), suspend: rng.chance_ppm(500_000) }
            }
            ReactionKind::Overtake => {
                // Mostly one write that overtakes, and then a stop long enough that what the race
                // left behind outlasts a lease. A read is overtaken by the holder's write, which
                // is then mostly the one to stop; an answer, by a contender's write, and either
                // may stop.
                let read = moment == Moment::LockReadSent;
                let by = if rng.chance_ppm(800_000) { 1 } else { 2 };
                let writes = rng.chance_ppm(850_000);
                let stop = match rng.below(20) {
                    0..4 => None,
                    n => {
                        let overtaker = if read { n < 17 } else { n < 12 };
                        let whom = if overtaker { Whom::Overtaker } else { Whom::Sender };
                        let for_ms = rng.range(lease / 2, 2 * lease);
                        let how = match rng.below(5) {
                            0 | 1 => Reaction::Pause { for_ms },
                            2 | 3 => Reaction::Suspend { for_ms },
                            _ => Reaction::Crash { restart_after_ms: for_ms },
                        };
                        Some((whom, Box::new(how)))
                    }
                };
                Reaction::Overtake { by, writes, stop }
            }
        }
    }
}

/// Draws up to `count_max` triggers for a safety phase of `safety_ms` among `processes`
/// processes with leases of `lease_ms` on `locks`, from a part of the menu that the seed draws
/// too (swarm testing again: some runs meet one kind of timed trouble many times). Half of the
/// runs focus their triggers on one lock, and the others half of their triggers, so that a lock
/// whose moments are rare gets its share.
pub(crate) fn draw(
    rng: &mut SimRng,
    count_max: u32,
    safety_ms: u64,
    processes: u16,
    lease_ms: u64,
    locks: &[String],
) -> Vec<Trigger> {
    if count_max == 0 || safety_ms == 0 || processes == 0 {
        return Vec::new();
    }
    // Half the runs focus on one lock and a few moments, to meet one window many times.
    let focus = rng.chance_ppm(500_000).then(|| rng.pick(locks).cloned()).flatten();
    let share = if focus.is_some() { 150_000 } else { 400_000 };
    let mut menu: Vec<(Moment, ReactionKind)> = MENU.iter().copied().filter(|_| rng.chance_ppm(share)).collect();
    if menu.is_empty() {
        menu.extend(rng.pick(&MENU).copied());
    }
    let count = rng.range(1, u64::from(count_max));
    let mut triggers: Vec<Trigger> = (0..count)
        .filter_map(|_| {
            let (moment, kind) = *rng.pick(&menu)?;
            let process = if rng.chance_ppm(500_000) { None } else { Some(rng.below(u64::from(processes)) as u16) };
            let lock = match &focus {
                Some(lock) => Some(lock.clone()),
                None if rng.chance_ppm(500_000) => None,
                None => rng.pick(locks).cloned(),
            };
            Some(Trigger {
                after_ms: rng.range(0, safety_ms.saturating_sub(1)),
                process,
                lock,
                moment,
                reaction: kind.draw(moment, rng, lease_ms),
            })
        })
        .collect();
    triggers.sort_by_key(|t| t.after_ms);
    triggers
}
