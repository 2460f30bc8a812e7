//! The network between the processes and DynamoDB (and the external store), which the world
//! controls.
//!
//! - [`NetSpec`]: the usual latency of one machine's network.
//! - `Network`: the conditions of one machine's network, which the nemesis changes: partitions,
//!   latency spikes, lost answers to writes.
//! - `Link`: the network of one incarnation: every request passes its gate (a paused process
//!   sends nothing, a crashed one never again), crosses the network, is applied at the far end
//!   and comes back, or does not.
//! - `SimConnector`: the SDK's HTTP client of a process: a `Link` in front of the fake. When
//!   the fake applies a request, the world records what it did to a lock item (see
//!   `Event::Applied`) and which fenced writes it committed, the ground truth of the checker,
//!   and tells the triggers of the nemesis ([`crate::triggers`]) the moments of the protocol.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use dynalease_fake::FakeHttpClient;

use crate::clock::WorldClock;
use crate::gate::Gate;
use crate::history::{Actor, Event, OpId, ProcessRef, Recorder, WriteEffect};
use crate::rng::SimRng;
use crate::triggers::{Moment, Reaction, Triggers, Whom};
use crate::truth::{LockTarget, Truth, find};

/// How long a client waits for an answer that the network dropped.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// The HTTP header that names the operation ([`OpId`]) of a write: when DynamoDB commits a
/// request that carries it, the world records [`Event::Committed`]
/// for that operation. Set it on the fenced writes of a workload of your own with
/// `.customize().mutate_request(..)`.
pub const OP_HEADER: &str = "x-dynalease-sim-op";

/// The prefix of the partition key of a lock item of the library.
pub(crate) const LIBRARY_PREFIX: &str = "LOCK#";

/// The prefix of the partition key of a lock item of the naive lock.
pub(crate) const NAIVE_PREFIX: &str = "NAIVE#";

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

/// Why a request got no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NetError {
    /// The request or its answer was dropped by a partition: the client timed out.
    Timeout,
    /// The request was applied but its answer was lost: the connection reset.
    Lost,
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

/// How long a trigger holds a write in the network.
#[derive(Clone, Debug)]
enum Hold {
    /// At least this long, then until another process's next read of the lock.
    Read(Duration),
    /// Until a process that waits for the lock may take it over.
    Takeover,
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
    overtaken: Option<(String, Overtaken)>,
    lose: bool,
    renewed: bool,
    /// Whether DynamoDB applied it as a write to a lock item.
    applied: bool,
    /// The request, if DynamoDB refused it as a write to a lock item.
    refused: Option<u32>,
}

/// The network of one incarnation of a process.
#[derive(Debug)]
pub(crate) struct Link {
    pub(crate) process: ProcessRef,
    gate: Gate,
    network: Arc<Network>,
    clock: WorldClock,
    recorder: Recorder,
    truth: Arc<Truth>,
    triggers: Arc<Triggers>,
    /// The longest a write is held in the network for a trigger.
    hold_max: Duration,
}

impl Link {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        process: ProcessRef,
        gate: Gate,
        network: Arc<Network>,
        clock: WorldClock,
        recorder: Recorder,
        truth: Arc<Truth>,
        triggers: Arc<Triggers>,
        hold_max: Duration,
    ) -> Self {
        Link { process, gate, network, clock, recorder, truth, triggers, hold_max }
    }

    /// Sends a request: waits while the process is stopped, crosses the network, lets `apply`
    /// answer it at the far end (given when the request left), and brings the answer back
    /// through the gate. A write that left the process is delivered even if the process stops
    /// waiting for it, crashes or is cut off: only its answer can be lost. The answer to a write
    /// may be lost on the way; a partition drops the request or its answer, and the client
    /// times out. `lock_write` is the write to a lock item the request is, if it is one: its
    /// send and its answer are recorded, and the triggers may hold it.
    pub(crate) async fn round_trip<T, F, Fut>(
        self: &Arc<Self>,
        write: bool,
        lock: Option<LockMessage<'_>>,
        apply: F,
    ) -> Result<T, NetError>
    where
        F: FnOnce(Duration) -> Fut + Send + 'static,
        Fut: Future<Output = (T, Extra)> + Send + 'static,
        T: Send + 'static,
    {
        self.gate.open().await;
        let lock_write = match lock {
            Some(LockMessage::Write(w)) => Some(w),
            _ => None,
        };
        let request = lock_write.map(|w| (w, self.truth.sent(&w.target, self.process, w.hash, &w.body)));
        let answered = |ok: bool| {
            if let Some((w, request)) = request {
                self.truth.answered(&w.target, self.process, request, ok);
            }
        };
        let (target, moment) = match lock {
            Some(LockMessage::Write(w)) => (Some(&w.target), Moment::LockWriteSent),
            Some(LockMessage::Read(target)) => (Some(target), Moment::LockReadSent),
            None => (None, Moment::LockWriteSent),
        };
        let sent = self.clock.now();
        let draw = self.network.draw(write);
        if draw.partitioned {
            self.clock.sleep(REQUEST_TIMEOUT).await;
            self.gate.open().await;
            answered(false);
            return Err(NetError::Timeout);
        }
        let (mut there, back) = (draw.there, draw.back);
        let reaction = target.and_then(|t| self.triggers.moment(moment, self.process, &t.name));
        let hold = match (reaction, target) {
            (Some(Reaction::HoldUntilRead { min_ms }), Some(target)) => {
                Some((target.name.clone(), Hold::Read(Duration::from_millis(min_ms))))
            }
            (Some(Reaction::HoldUntilTakeover), Some(target)) => Some((target.name.clone(), Hold::Takeover)),
            (Some(Reaction::Overtake { by, writes, stop }), Some(target)) => {
                Some((target.name.clone(), Hold::Overtaken(Overtaken { by, writes, stop })))
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
                Some((lock, Hold::Read(min))) => link.triggers.next_read_after(&lock, min, link.hold_max).await,
                Some((lock, Hold::Takeover)) => link.triggers.next_takeover(&lock, link.hold_max).await,
                Some((lock, Hold::Overtaken(overtaken))) => stop = link.overtaken(&lock, overtaken).await,
                None => {}
            }
            let (answer, extra) = apply(sent).await;
            if let Some((process, lock, reaction)) = stop {
                link.triggers.stop(process, &lock, reaction);
            }
            let back = back + extra.delay;
            if !back.is_zero() {
                link.clock.sleep(back).await;
            }
            if let Some((lock, overtaken)) = extra.overtaken.clone()
                && let Some((process, lock, reaction)) = link.overtaken(&lock, overtaken).await
            {
                link.triggers.stop(process, &lock, reaction);
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
                    answered(false);
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
            answered(false);
            return Err(NetError::Timeout);
        }
        self.gate.open().await;
        if draw.lost || extra.lose {
            answered(false);
            return Err(NetError::Lost);
        }
        answered(extra.applied);
        if let Some(request) = extra.refused
            && let Some(target) = target
        {
            self.truth.heard(target, request);
        }
        if extra.renewed
            && let Some(target) = target
        {
            self.triggers.moment(Moment::RenewalAnswered, self.process, &target.name);
        }
        Ok(answer)
    }

    /// Waits until the reads or writes of others that `overtaken` names pass a message of this
    /// incarnation on `lock`, and says whom to stop then and how, if anyone.
    async fn overtaken(&self, lock: &str, overtaken: Overtaken) -> Option<(ProcessRef, String, Reaction)> {
        let overtaker =
            self.triggers.overtaken(lock, self.process, overtaken.by, overtaken.writes, self.hold_max).await?;
        let (whom, reaction) = overtaken.stop?;
        let process = match whom {
            Whom::Overtaker => overtaker,
            Whom::Sender => self.process,
        };
        Some((process, lock.to_owned(), *reaction))
    }

    /// Records what DynamoDB did with a request it answered: the writes to lock items it
    /// applied or refused, the fenced writes it committed; and reports the moments of the
    /// protocol to the triggers. Returns what the triggers add to the answer's way back.
    fn observe(&self, request: &Observing, sent: Duration, response: &HttpResponse) -> Extra {
        self.truth.count_request();
        let status = response.status().as_u16();
        let mut extra = Extra::default();
        if status == 200
            && let Some(op) = request.op
        {
            self.recorder.record(Actor::Db, Event::Committed { op });
        }
        let Some(target) = &request.target else { return extra };
        if !request.writes_lock {
            if status == 200 {
                self.triggers.read_applied(&target.name);
                self.triggers.passed(&target.name, self.process, false);
                if self.triggers.is_active()
                    && let Some((holder, record)) = self.truth.holder(&target.name)
                    && holder != self.process
                {
                    self.triggers.read_held(self.process, &target.name, record);
                    self.triggers.moment(Moment::Waiting, self.process, &target.name);
                }
            }
            return extra;
        }
        if status == 200 {
            extra.applied = true;
            let observed = self.truth.applied(target, self.process, sent, request.hash, request.operation);
            self.triggers.passed(&target.name, self.process, true);
            let moment = match observed.effect {
                WriteEffect::Grant => Some(Moment::Granted),
                WriteEffect::Renewal => Some(Moment::Renewed),
                WriteEffect::Release => Some(Moment::Released),
                WriteEffect::Unchanged => None,
            };
            extra.renewed = observed.effect == WriteEffect::Renewal;
            match moment.and_then(|moment| self.triggers.moment(moment, self.process, &target.name)) {
                Some(Reaction::DelayAnswer { extra_ms }) => extra.delay = Duration::from_millis(extra_ms),
                Some(Reaction::LoseAnswer) => extra.lose = true,
                Some(Reaction::Overtake { by, writes, stop }) => {
                    extra.overtaken = Some((target.name.clone(), Overtaken { by, writes, stop }));
                }
                _ => {}
            }
        } else if let Some(body) = response.body().bytes()
            && find(body, b"ConditionalCheckFailed").is_some()
        {
            let refused = self.truth.refused(target, self.process, request.hash, &request.body);
            // Only an answer that shows the item tells the process who holds the lock; without it
            // the process must read the item again to know.
            if find(body, b"\"Item\"").is_some() {
                extra.refused = Some(refused);
            }
        }
        extra
    }
}

/// A message about a lock item: a read, or a write.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LockMessage<'a> {
    Read(&'a LockTarget),
    Write(&'a LockWrite),
}

/// A write to a lock item, as it leaves its process.
#[derive(Clone, Debug)]
pub(crate) struct LockWrite {
    target: LockTarget,
    /// The identity of its body, which the client's retries share.
    hash: u64,
    body: Arc<[u8]>,
}

/// Whether an operation of DynamoDB writes.
fn is_write(operation: &str) -> bool {
    matches!(operation, "UpdateItem" | "PutItem" | "DeleteItem" | "TransactWriteItems" | "BatchWriteItem")
}

/// What the world watches for in one request.
#[derive(Debug)]
struct Observing {
    /// The operation of a fenced write, from [`OP_HEADER`].
    op: Option<OpId>,
    /// The lock item the request reads or writes, if it is about one.
    target: Option<LockTarget>,
    /// Whether it writes the lock item.
    writes_lock: bool,
    /// The identity of its body, which the client's retries share.
    hash: u64,
    /// The body of a write to a lock item.
    body: Arc<[u8]>,
    /// The operation the sending task acquires a lock for.
    operation: Option<OpId>,
}

impl Observing {
    /// The write to a lock item this request is, if it is one.
    fn lock_write(&self) -> Option<LockWrite> {
        let target = self.target.clone().filter(|_| self.writes_lock)?;
        Some(LockWrite { target, hash: self.hash, body: self.body.clone() })
    }

    fn of(operation: &str, request: &HttpRequest) -> Observing {
        let op = request.headers().get(OP_HEADER).and_then(|v| v.parse().ok()).map(OpId);
        let body = request.body().bytes().unwrap_or_default();
        let single = matches!(operation, "UpdateItem" | "PutItem" | "DeleteItem" | "GetItem");
        let target = if single { LockTarget::find(body, &[LIBRARY_PREFIX, NAIVE_PREFIX]) } else { None };
        let writes_lock = target.is_some() && operation != "GetItem";
        let hash = if writes_lock { crate::truth::fnv(body) } else { 0 };
        let body: Arc<[u8]> = if writes_lock { Arc::from(body) } else { Arc::from(&[][..]) };
        let operation = if writes_lock { crate::workload::current_operation() } else { None };
        Observing { op, target, writes_lock, hash, body, operation }
    }
}

/// The SDK's HTTP client of one incarnation: its [`Link`] in front of the fake.
#[derive(Clone, Debug)]
pub(crate) struct SimConnector {
    fake: FakeHttpClient,
    link: Arc<Link>,
}

impl SimConnector {
    pub(crate) fn new(fake: FakeHttpClient, link: Arc<Link>) -> Self {
        SimConnector { fake, link }
    }
}

impl HttpConnector for SimConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let target = request.headers().get("x-amz-target").unwrap_or("");
        let operation = target.strip_prefix("DynamoDB_20120810.").unwrap_or(target).to_owned();
        let observing = Observing::of(&operation, &request);
        let fake = self.fake.clone();
        let link = self.link.clone();
        HttpConnectorFuture::new(async move {
            let write = is_write(&operation);
            let lock_write = observing.lock_write();
            let read = observing.target.clone().filter(|_| !observing.writes_lock);
            let lock = match (&lock_write, &read) {
                (Some(write), _) => Some(LockMessage::Write(write)),
                (None, Some(target)) => Some(LockMessage::Read(target)),
                (None, None) => None,
            };
            let far = link.clone();
            let sent = link
                .round_trip(write, lock, move |sent| async move {
                    let answer = fake.call(request).await;
                    let extra = match &answer {
                        Ok(response) => far.observe(&observing, sent, response),
                        Err(_) => Extra::default(),
                    };
                    (answer, extra)
                })
                .await;
            match sent {
                Ok(answer) => answer,
                Err(NetError::Timeout) => Err(ConnectorError::timeout("dynalease-sim: no answer (partition)".into())),
                Err(NetError::Lost) => Err(ConnectorError::io(Box::new(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "dynalease-sim: the answer was lost after the request was applied",
                )))),
            }
        })
    }
}

impl HttpClient for SimConnector {
    fn http_connector(&self, _: &HttpConnectorSettings, _: &RuntimeComponents) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}
