//! The triggers of a run while it goes on: which fire at each moment of the processes'
//! requests, the messages the network holds for them, and the orders they give the world.
//!
//! The network asks [`Triggers::moment`] at every moment of a request (sent, applied,
//! answered); a reaction that the network applies itself (lose or delay the answer, hold the
//! request) comes back, the others go to the world as [`Order`]s. The network also tells every
//! read and write DynamoDB applies to an item ([`Triggers::passed`]), which is what a message
//! held until others pass it waits for; and a service's probe announces when an item falls due
//! ([`Triggers::due`]), which is what a stopped holder and a write held for a takeover wait for.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;

use crate::clock::WorldClock;
use crate::history::{Actor, Event, Nemesis, ProcessRef, Recorder};
use crate::item::ItemRef;
use crate::nemesis::{Moment, Reaction, Trigger};

/// A reaction for the world to carry out now.
#[derive(Clone, Debug)]
pub(crate) enum Order {
    /// The reaction of a trigger that fired at a moment of `process` on `item`.
    React { process: ProcessRef, item: Option<ItemRef>, reaction: Reaction },
    /// Resume the stopped `process` at `at_ms`.
    ResumeAt { process: ProcessRef, at_ms: u64 },
}

/// A holder stopped until its item falls due.
#[derive(Clone, Debug)]
struct Stopped {
    process: ProcessRef,
    item: ItemRef,
    version: u64,
    lead_ms: u64,
}

/// An armed trigger, with its item read once.
#[derive(Debug)]
struct Armed {
    trigger: Trigger,
    item: Option<ItemRef>,
    fired: bool,
}

#[derive(Debug, Default)]
struct State {
    /// The triggers by time.
    armed: Vec<Armed>,
    orders: VecDeque<Order>,
    stopped: Vec<Stopped>,
}

/// The reads (`false`) and writes (`true`) of one item that DynamoDB applied, by process, and
/// what wakes the messages waiting for them to pass.
type Passes = (Vec<(ProcessRef, bool)>, Arc<Notify>);

/// The triggers of a run while it goes on.
#[derive(Debug)]
pub(crate) struct Triggers {
    clock: WorldClock,
    recorder: Recorder,
    state: Mutex<State>,
    /// Wakes the world when an order is waiting.
    pub(crate) orders: Notify,
    /// Wake the writes held until a read of their item, by item.
    reads: Mutex<BTreeMap<ItemRef, Arc<Notify>>>,
    /// Wake the writes held until their item falls due, by item.
    dues: Mutex<BTreeMap<ItemRef, Arc<Notify>>>,
    /// The reads and writes of each item that DynamoDB applied, by process, while triggers may
    /// fire, and what wakes the messages held until others pass them.
    passes: Mutex<BTreeMap<ItemRef, Passes>>,
    /// Wakes every held message at the heal.
    healed: Notify,
    active: AtomicBool,
}

impl Triggers {
    pub(crate) fn new(clock: WorldClock, recorder: Recorder, mut triggers: Vec<Trigger>) -> Self {
        triggers.sort_by_key(|t| t.after_ms);
        let active = AtomicBool::new(!triggers.is_empty());
        let armed = triggers
            .into_iter()
            .map(|trigger| {
                let item = trigger.item.as_deref().and_then(|text| text.parse().ok());
                Armed { trigger, item, fired: false }
            })
            .collect();
        Triggers {
            clock,
            recorder,
            state: Mutex::new(State { armed, ..State::default() }),
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

    /// Fires no trigger from now on, and delivers the messages held in the network: the faults
    /// are healed.
    pub(crate) fn disarm(&self) {
        self.active.store(false, Ordering::Relaxed);
        self.healed.notify_waiters();
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The moment `moment` of `process` on `item` (labelled `label` by the probe) happens now.
    /// Returns the reaction that the network applies to the request of the moment, if a trigger
    /// with one fired; the others go to the world as orders.
    pub(crate) fn moment(
        &self,
        moment: Moment,
        process: ProcessRef,
        item: Option<&ItemRef>,
        label: Option<&'static str>,
    ) -> Option<Reaction> {
        if !self.is_active() {
            return None;
        }
        let now_ms = self.clock.now().as_millis() as u64;
        let mut state = self.state();
        let armed = state.armed.iter_mut().find(|a| {
            let t = &a.trigger;
            !a.fired
                && t.after_ms <= now_ms
                && t.moment == moment
                && t.process.is_none_or(|p| p == process.id)
                && (t.item.is_none() || (a.item.is_some() && a.item.as_ref() == item))
                && t.label.as_deref().is_none_or(|l| Some(l) == label)
                && t.reaction.fits(moment)
        })?;
        armed.fired = true;
        let reaction = armed.trigger.reaction.clone();
        let inline = reaction.is_inline();
        if !inline {
            state.orders.push_back(Order::React { process, item: item.cloned(), reaction: reaction.clone() });
        }
        drop(state);
        let fired = Nemesis::Triggered { process, item: item.cloned(), moment, label, reaction: reaction.clone() };
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

    /// `item`, whose holder's record the probe numbers `version`, falls due for `reader` at
    /// `due` (global time): resumes the holders stopped until then, `lead_ms` before it, and
    /// delivers the writes held for it if it is due now.
    pub(crate) fn due(&self, item: &ItemRef, version: u64, reader: ProcessRef, due: Duration) {
        if !self.is_active() {
            return;
        }
        let due_ms = due.as_millis() as u64;
        let mut state = self.state();
        let mut woken = Vec::new();
        state.stopped.retain(|s| {
            let wake = &s.item == item && s.version == version && s.process.id != reader.id;
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
        if self.clock.now() >= due {
            notify_of(&self.dues, item).notify_waiters();
        }
    }

    /// Waits until `item` falls due, at most `longest` and no longer than the heal.
    pub(crate) async fn next_due(&self, item: &ItemRef, longest: Duration) {
        self.notified(&self.dues, item, longest).await;
    }

    /// A read of `item` was applied: delivers the writes held until then.
    pub(crate) fn read_applied(&self, item: &ItemRef) {
        if self.is_active() {
            notify_of(&self.reads, item).notify_waiters();
        }
    }

    /// Waits `min`, then until a read of `item` is applied, at most `longest` more; no longer
    /// than the heal.
    pub(crate) async fn next_read_after(&self, item: &ItemRef, min: Duration, longest: Duration) {
        let healed = self.healed.notified();
        if !self.is_active() {
            return;
        }
        tokio::select! {
            biased;
            () = healed => return,
            () = self.clock.sleep(min) => {}
        }
        self.notified(&self.reads, item, longest).await;
    }

    /// Waits until the notifier of `item` in `map` fires, at most `longest` and no longer than
    /// the heal.
    async fn notified(&self, map: &Mutex<BTreeMap<ItemRef, Arc<Notify>>>, item: &ItemRef, longest: Duration) {
        let notify = notify_of(map, item);
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

    /// DynamoDB applied a read (or a `write`) of `item` by `process`.
    pub(crate) fn passed(&self, item: &ItemRef, process: ProcessRef, write: bool) {
        if !self.is_active() {
            return;
        }
        let notify = {
            let mut passes = self.passes.lock().unwrap_or_else(|e| e.into_inner());
            let (log, notify) = passes.entry(item.clone()).or_default();
            log.push((process, write));
            notify.clone()
        };
        notify.notify_waiters();
    }

    /// Waits until `by` reads or writes (writes only, if `writes`) of `item` by other processes
    /// than `sender` have been applied, at most `longest` and no longer than the heal. Returns
    /// the process of the last of them, if they all came.
    pub(crate) async fn overtaken(
        &self,
        item: &ItemRef,
        sender: ProcessRef,
        by: u8,
        writes: bool,
        longest: Duration,
    ) -> Option<ProcessRef> {
        let deadline = self.clock.now() + longest;
        let start = self.passes.lock().unwrap_or_else(|e| e.into_inner()).entry(item.clone()).or_default().0.len();
        loop {
            let (overtaker, notify) = {
                let mut passes = self.passes.lock().unwrap_or_else(|e| e.into_inner());
                let (log, notify) = passes.entry(item.clone()).or_default();
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
    pub(crate) fn stop(&self, process: ProcessRef, item: &ItemRef, reaction: Reaction) {
        if !self.is_active() {
            return;
        }
        self.state().orders.push_back(Order::React { process, item: Some(item.clone()), reaction });
        self.orders.notify_one();
    }

    /// `process` was stopped while it held `item` with the record the probe numbers `version`:
    /// the next reader to whom that record falls due decides when it resumes.
    pub(crate) fn stopped_until_due(&self, process: ProcessRef, item: ItemRef, version: u64, lead_ms: u64) {
        self.state().stopped.push(Stopped { process, item, version, lead_ms });
    }
}

/// The notifier of `item` in `map`.
fn notify_of(map: &Mutex<BTreeMap<ItemRef, Arc<Notify>>>, item: &ItemRef) -> Arc<Notify> {
    let mut map = map.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(item.clone()).or_default().clone()
}
