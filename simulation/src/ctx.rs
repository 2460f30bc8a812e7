//! [`Ctx`]: one incarnation of a simulated process, as the service's code sees it.
//!
//! Everything the code awaits must go through its process: the clock ([`Ctx::sleep`]), the SDK
//! client ([`Ctx::client`], whose requests cross the process's network and meet its faults),
//! and the tasks it spawns ([`Ctx::spawn`], aborted when the process crashes). A plain
//! `tokio::time::sleep` would not stop while the process is paused.
//!
//! What the service does is recorded as operations of its own type: [`Ctx::call`] runs one and
//! records its invoke and its completion, `Ok` with the result, `Fail` when DynamoDB refused
//! it, or `Info` when nobody knows (an answer was lost or timed out on the way, so the request
//! may have been applied; or the process crashed before it completed).

use std::any::{Any, TypeId};
use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use serde::Serialize;
use tokio::task::AbortHandle;

use crate::clock::ProcessClock;
use crate::history::{OpId, Outcome, ProcessRef, Recorder, SpanId, Value};
use crate::net::{Extra, Link, Message, NetError};
use crate::probe::Probe;
use crate::rng::SimRng;

tokio::task_local! {
    /// Whether a request of the operation that the current task runs may have been applied
    /// without the process hearing so: its answer was lost, or it timed out.
    static UNCERTAIN: Arc<AtomicBool>;
}

/// Marks the operation the current task runs, if any, as one whose effect is unknown.
pub(crate) fn mark_uncertain() {
    let _ = UNCERTAIN.try_with(|flag| flag.store(true, Ordering::Relaxed));
}

/// The tasks of one incarnation, aborted together when it crashes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tasks(Arc<Mutex<Vec<AbortHandle>>>);

impl Tasks {
    fn handles(&self) -> MutexGuard<'_, Vec<AbortHandle>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        let handle = tokio::spawn(future).abort_handle();
        let mut handles = self.handles();
        if handles.len() >= 64 {
            handles.retain(|h| !h.is_finished());
        }
        handles.push(handle);
    }

    pub(crate) fn abort_all(&self) {
        for handle in self.handles().drain(..) {
            handle.abort();
        }
    }
}

/// What one incarnation shares with its workloads.
pub(crate) struct Incarnation {
    pub(crate) process: ProcessRef,
    pub(crate) clock: ProcessClock,
    pub(crate) client: Client,
    pub(crate) link: Arc<Link>,
    pub(crate) recorder: Recorder,
    pub(crate) tasks: Tasks,
    pub(crate) seed: u64,
    pub(crate) healed: Arc<AtomicBool>,
    pub(crate) probe: Option<Arc<dyn Probe>>,
    pub(crate) locals: Mutex<Vec<(TypeId, Arc<dyn Any + Send + Sync>)>>,
}

/// One incarnation of a process, as one of its workloads sees it. Cheap to clone.
///
/// `O` and `R` are the types of the service's operations and of their results
/// ([`Service::Op`](crate::Service::Op), [`Service::Ret`](crate::Service::Ret)).
pub struct Ctx<O, R> {
    inner: Arc<Incarnation>,
    workload: u16,
    types: PhantomData<fn(O) -> R>,
}

impl<O, R> Clone for Ctx<O, R> {
    fn clone(&self) -> Self {
        Ctx { inner: self.inner.clone(), workload: self.workload, types: PhantomData }
    }
}

impl<O, R> fmt::Debug for Ctx<O, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctx").field("process", &self.inner.process).field("workload", &self.workload).finish()
    }
}

/// An operation that was invoked and waits for its completion: [`ok`](Self::ok),
/// [`fail`](Self::fail) or [`unknown`](Self::unknown). One that is dropped without a
/// completion completes as `Info`, since nobody knows whether it happened.
#[must_use = "an operation that is not completed completes as unknown"]
pub struct Pending<R> {
    op: OpId,
    recorder: Recorder,
    done: bool,
    types: PhantomData<fn(R)>,
}

impl<R> fmt::Debug for Pending<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pending").field("op", &self.op).finish()
    }
}

impl<R: Serialize + fmt::Debug + Send + Sync + 'static> Pending<R> {
    /// The operation's number.
    pub fn id(&self) -> OpId {
        self.op
    }

    /// It happened, and returned `ret`.
    pub fn ok(mut self, ret: R) {
        self.done = true;
        self.recorder.complete(self.op, Outcome::Ok, Value::of(ret));
    }

    /// It certainly did not happen, for `why`.
    pub fn fail(mut self, why: impl fmt::Display) {
        self.done = true;
        self.recorder.complete(self.op, Outcome::Fail, Value::text(why.to_string()));
    }

    /// It may or may not have happened, for `why` (its answer was lost, it timed out).
    pub fn unknown(mut self, why: impl fmt::Display) {
        self.done = true;
        self.recorder.complete(self.op, Outcome::Info, Value::text(why.to_string()));
    }
}

impl<R> Drop for Pending<R> {
    fn drop(&mut self) {
        if !self.done {
            self.recorder.complete(self.op, Outcome::Info, Value::text("abandoned"));
        }
    }
}

/// Something a process holds for a while, recorded from [`Ctx::hold`] until it is closed or
/// dropped (the process crashed or the run ended: the world closes it then).
#[derive(Debug)]
pub struct Span {
    span: SpanId,
    recorder: Recorder,
}

impl Span {
    /// The span's number.
    pub fn id(&self) -> SpanId {
        self.span
    }

    /// Ends it, for `why`.
    pub fn close(self, why: Value) {
        self.recorder.close(self.span, why);
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        // Ends the span as let go of, unless `close` ended it already.
        self.recorder.close(self.span, Value::text("dropped"));
    }
}

impl<O, R> Ctx<O, R> {
    pub(crate) fn new(inner: Arc<Incarnation>, workload: u16) -> Self {
        Ctx { inner, workload, types: PhantomData }
    }

    /// This incarnation of the process.
    pub fn process(&self) -> ProcessRef {
        self.inner.process
    }

    /// The clock of the process: its monotonic and wall readings, and its sleep.
    pub fn clock(&self) -> &ProcessClock {
        &self.inner.clock
    }

    /// Waits `duration` on the clock of the process.
    pub async fn sleep(&self, duration: Duration) {
        self.inner.clock.sleep(duration).await;
    }

    /// The SDK client of the process, wired to the fake through the world's network: its
    /// requests meet the process's latency, partitions, lost answers and throttling.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// A random stream of this workload in this incarnation, derived from the seed of the run,
    /// the process, the incarnation and the workload. Each call starts the same stream over:
    /// call it once.
    pub fn rng(&self) -> SimRng {
        let process = self.inner.process;
        SimRng::derive(
            self.inner.seed,
            &[0x3011, u64::from(process.id), u64::from(process.incarnation), u64::from(self.workload)],
        )
    }

    /// A random stream of this incarnation, shared by its workloads: derived from the seed of
    /// the run, `stream`, the process and the incarnation. Each call starts the same stream
    /// over.
    pub fn incarnation_rng(&self, stream: u64) -> SimRng {
        let process = self.inner.process;
        SimRng::derive(self.inner.seed, &[stream, u64::from(process.id), u64::from(process.incarnation)])
    }

    /// Runs `future` as a task of this incarnation: aborted when the process crashes.
    pub fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        self.inner.tasks.spawn(future);
    }

    /// Whether every fault of the run is healed: the liveness phase, in which a service is held
    /// to making progress.
    pub fn healed(&self) -> bool {
        self.inner.healed.load(Ordering::Relaxed)
    }

    /// Runs `work` within the current operation's accounting: its requests whose answers are
    /// lost or time out mark the operation's effect as unknown, as in [`call`](Self::call).
    /// Returns `work`'s output and whether that happened.
    pub async fn watch<T>(&self, work: impl Future<Output = T>) -> (T, bool) {
        let uncertain = Arc::new(AtomicBool::new(false));
        let out = UNCERTAIN.scope(uncertain.clone(), work).await;
        (out, uncertain.load(Ordering::Relaxed))
    }

    /// [`hold`](Self::hold) for a value made already.
    pub fn hold_value(&self, value: Value) -> Span {
        let span = self.inner.recorder.open(self.inner.process, value);
        Span { span, recorder: self.inner.recorder.clone() }
    }

    /// [`note`](Self::note) for a value made already.
    pub fn note_value(&self, value: Value) {
        self.inner.recorder.note(crate::history::Actor::Process(self.inner.process), value);
    }

    /// The history's recorder, for notes of types that implement [`Record`](crate::history::Record).
    pub fn recorder(&self) -> &Recorder {
        &self.inner.recorder
    }

    /// The service's probe of this run, as its own type.
    pub fn probe<T: Probe>(&self) -> Option<&T> {
        self.inner.probe.as_deref().and_then(|probe| probe.as_any().downcast_ref::<T>())
    }

    /// The state of type `T` this incarnation keeps for all its workloads, made by `init` the
    /// first time one asks (a cache, a connection, the lock table of a lock library).
    pub fn local<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Arc<T> {
        let mut locals = self.inner.locals.lock().unwrap_or_else(|e| e.into_inner());
        let id = TypeId::of::<T>();
        if let Some((_, value)) = locals.iter().find(|(t, _)| *t == id)
            && let Ok(value) = value.clone().downcast::<T>()
        {
            return value;
        }
        let value = Arc::new(init());
        locals.push((id, value.clone()));
        value
    }

    /// Sends a message to a system outside DynamoDB over the process's network: `apply` runs at
    /// the far end when the message arrives (after the process's latency, through its
    /// partitions), and its result comes back, or is lost on the way if `write`.
    pub async fn remote<T: Send + 'static>(
        &self,
        write: bool,
        apply: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, NetError> {
        let leave = |_| Message::default();
        let answer =
            self.inner.link.round_trip(write, leave, move |_| async move { (apply(), Extra::default()) }, |_| {});
        answer.await
    }
}

impl<O, R> Ctx<O, R>
where
    O: Serialize + fmt::Debug + Send + Sync + 'static,
    R: Serialize + fmt::Debug + Send + Sync + 'static,
{
    /// Records that this process starts the operation `op`; complete it through the returned
    /// [`Pending`]. An operation still open when the process crashes completes as `Info`.
    pub fn invoke(&self, op: O) -> Pending<R> {
        let op = self.inner.recorder.invoke(self.inner.process, Value::of(op));
        Pending { op, recorder: self.inner.recorder.clone(), done: false, types: PhantomData }
    }

    /// Runs `work` as the operation `op` and records how it ended: `Ok` with its result; for an
    /// error, `Fail` if every request it sent was answered (DynamoDB refused it, so it did not
    /// happen), `Info` if a request's answer was lost or timed out on the way, so that it may
    /// have been applied after all. Returns what `work` returned.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(ctx: dynalease_sim::Ctx<String, u64>) {
    /// use aws_sdk_dynamodb::types::AttributeValue;
    ///
    /// let added = ctx
    ///     .call(String::from("add 1"), async {
    ///         let out = ctx.client().update_item().table_name("Counters")
    ///             .key("id", AttributeValue::S("hits".into()))
    ///             .update_expression("ADD n :one")
    ///             .expression_attribute_values(":one", AttributeValue::N("1".into()))
    ///             .return_values(aws_sdk_dynamodb::types::ReturnValue::UpdatedNew)
    ///             .send().await?;
    ///         let n = out.attributes().and_then(|a| a.get("n")).and_then(|n| n.as_n().ok());
    ///         Ok::<u64, aws_sdk_dynamodb::Error>(n.and_then(|n| n.parse().ok()).unwrap_or(0))
    ///     })
    ///     .await;
    /// # let _ = added;
    /// # }
    /// ```
    pub async fn call<E: fmt::Display>(&self, op: O, work: impl Future<Output = Result<R, E>>) -> Result<R, E>
    where
        R: Clone,
    {
        let pending = self.invoke(op);
        let uncertain = Arc::new(AtomicBool::new(false));
        let result = UNCERTAIN.scope(uncertain.clone(), work).await;
        match &result {
            Ok(ret) => pending.ok(ret.clone()),
            Err(err) if uncertain.load(Ordering::Relaxed) => pending.unknown(err),
            Err(err) => pending.fail(err),
        }
        result
    }

    /// Records that this process starts to hold `value` (a job it claimed, a lease it believes
    /// in) until the returned [`Span`] is closed or dropped, or the process crashes.
    pub fn hold<T: Serialize + fmt::Debug + Send + Sync + 'static>(&self, value: T) -> Span {
        self.hold_value(Value::of(value))
    }

    /// Records a note of this process in the history: something it saw, for the timeline and
    /// the checkers.
    pub fn note<T: Serialize + fmt::Debug + Send + Sync + 'static>(&self, note: T) {
        self.note_value(Value::of(note));
    }
}
