//! The network between the processes and DynamoDB (and any other system they talk to), which
//! the world controls.
//!
//! - [`NetSpec`]: the usual latency of one machine's network.
//! - `Network`: the conditions of one machine's network, which the nemesis changes: partitions,
//!   latency spikes, lost answers to writes.
//! - `Link`: the network of one incarnation: every request passes its gate (a paused process
//!   sends nothing, a crashed one never again), crosses the network, is applied at the far end
//!   and comes back, or does not. The triggers of the nemesis hold, delay or lose messages at the
//!   moments of their requests ([`crate::nemesis::trigger`]).

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::clock::WorldClock;
use crate::gate::Gate;
use crate::history::ProcessRef;
use crate::item::ItemRef;
use crate::nemesis::{Moment, Reaction, Whom};
use crate::rng::SimRng;
use crate::world::triggers::Triggers;

/// How long a client waits for an answer that the network dropped.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// The usual latency of one machine's network, each way.
///
/// # Examples
///
/// ```
/// let spec = dynalease_sim::NetSpec { latency_ms_min: 1, latency_ms_max: 12 };
/// # let _ = spec;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NetSpec {
    /// The shortest one-way latency.
    pub latency_ms_min: u64,
    /// The longest one-way latency, spikes aside.
    pub latency_ms_max: u64,
}

impl Default for NetSpec {
    fn default() -> Self {
        NetSpec { latency_ms_min: 1, latency_ms_max: 10 }
    }
}

/// Why a message got no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetError {
    /// The request or its answer was dropped by a partition: the client timed out.
    Timeout,
    /// The request was applied but its answer was lost: the connection reset.
    Lost,
}

impl std::fmt::Display for NetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NetError::Timeout => "no answer (partition): timed out",
            NetError::Lost => "the answer was lost after the request was applied",
        })
    }
}

/// The network of one machine, shared by the incarnations of its process.
#[derive(Debug)]
pub(crate) struct Network {
    spec: NetSpec,
    state: Mutex<NetState>,
}

#[derive(Debug)]
struct NetState {
    partitioned: bool,
    extra_ms: u64,
    loss_ppm: u32,
    rng: SimRng,
}

/// What one request meets on its way.
struct Draw {
    there: Duration,
    back: Duration,
    lost: bool,
    partitioned: bool,
}

impl Network {
    pub(crate) fn new(spec: NetSpec, loss_ppm: u32, rng: SimRng) -> Self {
        Network { spec, state: Mutex::new(NetState { partitioned: false, extra_ms: 0, loss_ppm, rng }) }
    }

    fn state(&self) -> MutexGuard<'_, NetState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn set_partitioned(&self, partitioned: bool) {
        self.state().partitioned = partitioned;
    }

    pub(crate) fn set_extra_latency_ms(&self, extra_ms: u64) {
        self.state().extra_ms = extra_ms;
    }

    pub(crate) fn set_loss_ppm(&self, loss_ppm: u32) {
        self.state().loss_ppm = loss_ppm;
    }

    fn partitioned(&self) -> bool {
        self.state().partitioned
    }

    fn draw(&self, write: bool) -> Draw {
        let mut state = self.state();
        let (min, max, extra) = (self.spec.latency_ms_min, self.spec.latency_ms_max, state.extra_ms);
        let there = Duration::from_millis(state.rng.range(min, max) + extra);
        let back = Duration::from_millis(state.rng.range(min, max) + extra);
        let loss_ppm = state.loss_ppm;
        let lost = write && loss_ppm > 0 && state.rng.chance_ppm(loss_ppm);
        Draw { there, back, lost, partitioned: state.partitioned }
    }
}

/// How long a trigger holds a request in the network.
#[derive(Clone, Debug)]
enum Hold {
    /// At least this long, then until another process's next read of the item.
    Read(Duration),
    /// Until the item falls due.
    Due,
    /// Until reads or writes of other processes pass it.
    Overtaken(Overtaken),
}

/// A message held until reads or writes of other processes on the same item pass it, and who
/// stops then.
#[derive(Clone, Debug)]
pub(crate) struct Overtaken {
    by: u8,
    writes: bool,
    stop: Option<(Whom, Box<Reaction>)>,
}

/// What the far end adds to a request's way back: a delay, a loss, and what the request did.
#[derive(Clone, Debug, Default)]
pub(crate) struct Extra {
    delay: Duration,
    /// The answer, once back, waits for reads or writes of others on the same item.
    overtaken: Option<(ItemRef, Overtaken)>,
    lose: bool,
    /// Whether DynamoDB applied it as a write, and the label of that moment.
    pub(crate) applied: Option<Option<&'static str>>,
}

impl Extra {
    /// What the triggers of the far end's moment add: `reaction`, fired there for `item`.
    pub(crate) fn react(&mut self, item: Option<&ItemRef>, reaction: Option<Reaction>) {
        match reaction {
            Some(Reaction::DelayAnswer { extra_ms }) => self.delay = Duration::from_millis(extra_ms),
            Some(Reaction::LoseAnswer) => self.lose = true,
            Some(Reaction::Overtake { by, writes, stop }) => {
                if let Some(item) = item {
                    self.overtaken = Some((item.clone(), Overtaken { by, writes, stop }));
                }
            }
            _ => {}
        }
    }
}

/// What the sender says about a message as it leaves (once its process runs): the item it is
/// about, and the label of its moment.
#[derive(Clone, Debug, Default)]
pub(crate) struct Message {
    pub(crate) item: Option<ItemRef>,
    pub(crate) label: Option<&'static str>,
}

/// How a round trip ended, as its process learns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// The answer reached the process; `Some` with the label of the write DynamoDB applied.
    Answered(Option<Option<&'static str>>),
    /// A partition dropped it before it left: it was never applied.
    NotSent,
    /// It failed so after it may have been applied.
    Failed(NetError),
}

/// The network of one incarnation of a process.
#[derive(Debug)]
pub(crate) struct Link {
    pub(crate) process: ProcessRef,
    gate: Gate,
    network: Arc<Network>,
    clock: WorldClock,
    pub(crate) triggers: Arc<Triggers>,
    /// The longest a message is held in the network for a trigger.
    hold_max: Duration,
}

impl Link {
    pub(crate) fn new(
        process: ProcessRef,
        gate: Gate,
        network: Arc<Network>,
        clock: WorldClock,
        triggers: Arc<Triggers>,
        hold_max: Duration,
    ) -> Self {
        Link { process, gate, network, clock, triggers, hold_max }
    }

    /// Sends a message: waits while the process is stopped, asks `leave` what the message is
    /// (given when it leaves), crosses the network, lets `apply` answer it at the far end (given
    /// when the message left), and brings the answer back through the gate. A write that left
    /// the process is delivered even if the process stops waiting for it, crashes or is cut
    /// off: only its answer can be lost. The answer to a write may be lost on the way; a
    /// partition drops the message or its answer, and the client times out. `ended` hears how
    /// the trip ended, on the process's side.
    pub(crate) async fn round_trip<T, F, Fut>(
        self: &Arc<Self>,
        write: bool,
        leave: impl FnOnce(Duration) -> Message,
        apply: F,
        ended: impl FnOnce(Ended),
    ) -> Result<T, NetError>
    where
        F: FnOnce(Duration) -> Fut + Send + 'static,
        Fut: Future<Output = (T, Extra)> + Send + 'static,
        T: Send + 'static,
    {
        self.gate.open().await;
        let message = leave(self.clock.now());
        let sent = self.clock.now();
        let draw = self.network.draw(write);
        if draw.partitioned {
            self.clock.sleep(REQUEST_TIMEOUT).await;
            self.gate.open().await;
            ended(Ended::NotSent);
            return Err(NetError::Timeout);
        }
        let (mut there, back) = (draw.there, draw.back);
        let moment = if write { Moment::WriteSent } else { Moment::ReadSent };
        let reaction = if self.triggers.is_active() {
            self.triggers.moment(moment, self.process, message.item.as_ref(), message.label)
        } else {
            None
        };
        let hold = match (reaction, message.item.as_ref()) {
            (Some(Reaction::HoldUntilRead { min_ms }), Some(item)) => {
                Some((item.clone(), Hold::Read(Duration::from_millis(min_ms))))
            }
            (Some(Reaction::HoldUntilDue), Some(item)) => Some((item.clone(), Hold::Due)),
            (Some(Reaction::Overtake { by, writes, stop }), Some(item)) => {
                Some((item.clone(), Hold::Overtaken(Overtaken { by, writes, stop })))
            }
            (Some(Reaction::DelayRequest { extra_ms }), _) => {
                there += Duration::from_millis(extra_ms);
                None
            }
            _ => None,
        };
        let link = self.clone();
        let deliver = async move {
            if !there.is_zero() {
                link.clock.sleep(there).await;
            }
            let mut stop = None;
            match hold {
                Some((item, Hold::Read(min))) => link.triggers.next_read_after(&item, min, link.hold_max).await,
                Some((item, Hold::Due)) => link.triggers.next_due(&item, link.hold_max).await,
                Some((item, Hold::Overtaken(overtaken))) => stop = link.overtaken(&item, overtaken).await,
                None => {}
            }
            let (answer, extra) = apply(sent).await;
            if let Some((process, item, reaction)) = stop {
                link.triggers.stop(process, &item, reaction);
            }
            let back = back + extra.delay;
            if !back.is_zero() {
                link.clock.sleep(back).await;
            }
            if let Some((item, overtaken)) = extra.overtaken.clone()
                && let Some((process, item, reaction)) = link.overtaken(&item, overtaken).await
            {
                link.triggers.stop(process, &item, reaction);
            }
            (answer, extra)
        };
        let (answer, extra) = if write {
            // The write travels on its own: dropping the client's future does not recall it.
            let (tx, rx) = tokio::sync::oneshot::channel();
            tokio::spawn(async move {
                let _ = tx.send(deliver.await);
            });
            match rx.await {
                Ok(delivered) => delivered,
                Err(_) => {
                    ended(Ended::Failed(NetError::Lost));
                    return Err(NetError::Lost);
                }
            }
        } else {
            deliver.await
        };
        if self.network.partitioned() {
            let spent = self.clock.now().saturating_sub(sent);
            self.clock.sleep(REQUEST_TIMEOUT.saturating_sub(spent)).await;
            self.gate.open().await;
            ended(Ended::Failed(NetError::Timeout));
            return Err(NetError::Timeout);
        }
        self.gate.open().await;
        if draw.lost || extra.lose {
            ended(Ended::Failed(NetError::Lost));
            return Err(NetError::Lost);
        }
        ended(Ended::Answered(extra.applied));
        if let Some(label) = extra.applied
            && self.triggers.is_active()
        {
            self.triggers.moment(Moment::WriteAnswered, self.process, message.item.as_ref(), label);
        }
        Ok(answer)
    }

    /// Waits until the reads or writes of others that `overtaken` names pass a message of this
    /// incarnation on `item`, and says whom to stop then and how, if anyone.
    async fn overtaken(&self, item: &ItemRef, overtaken: Overtaken) -> Option<(ProcessRef, ItemRef, Reaction)> {
        let overtaker =
            self.triggers.overtaken(item, self.process, overtaken.by, overtaken.writes, self.hold_max).await?;
        let (whom, reaction) = overtaken.stop?;
        let process = match whom {
            Whom::Overtaker => overtaker,
            Whom::Sender => self.process,
        };
        Some((process, item.clone(), *reaction))
    }
}
