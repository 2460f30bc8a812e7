//! [`Recorder`]: where the world and its processes write the history while the run goes on.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use super::{Actor, Ended, Entry, Event, History, OpId, Outcome, Phase, ProcessRef, SpanId, Value};
use crate::clock::WorldClock;

/// The history while it is recorded.
#[derive(Debug, Default)]
struct Builder {
    entries: Vec<Entry>,
    next_op: u32,
    next_span: u32,
    open_ops: BTreeMap<OpId, ProcessRef>,
    open_spans: BTreeMap<SpanId, ProcessRef>,
}

/// Where the world and its processes record the history. Clones share it.
///
/// A service's code records through its [`Ctx`](crate::Ctx), which stamps the process and the
/// time; a probe through the recorder it is handed.
#[derive(Clone, Debug)]
pub struct Recorder {
    clock: WorldClock,
    inner: Arc<Mutex<Builder>>,
}

impl Recorder {
    pub(crate) fn new(clock: WorldClock) -> Self {
        Recorder { clock, inner: Arc::new(Mutex::new(Builder::default())) }
    }

    fn inner(&self) -> MutexGuard<'_, Builder> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The global time of the run, at the precision the history keeps (microseconds).
    pub fn now(&self) -> Duration {
        let now = self.clock.now();
        Duration::from_micros(now.as_micros() as u64)
    }

    /// Records `event` by `actor` now.
    pub fn record(&self, actor: Actor, event: Event) {
        let at = self.now();
        self.inner().entries.push(Entry { at, actor, event });
    }

    /// Records a note of `actor` now.
    pub fn note(&self, actor: Actor, value: Value) {
        self.record(actor, Event::Note(value));
    }

    /// Records the invocation of `value` by `process`.
    pub fn invoke(&self, process: ProcessRef, value: Value) -> OpId {
        let at = self.now();
        let mut inner = self.inner();
        let op = OpId(inner.next_op);
        inner.next_op += 1;
        inner.open_ops.insert(op, process);
        inner.entries.push(Entry { at, actor: Actor::Process(process), event: Event::Invoke { op, value } });
        op
    }

    /// Records the end of `op`, unless it has ended already (for instance at a crash).
    pub fn complete(&self, op: OpId, outcome: Outcome, value: Value) {
        let at = self.now();
        let mut inner = self.inner();
        let Some(process) = inner.open_ops.remove(&op) else { return };
        inner.entries.push(Entry { at, actor: Actor::Process(process), event: Event::Complete { op, outcome, value } });
    }

    /// Records that `process` starts to hold `value`.
    pub fn open(&self, process: ProcessRef, value: Value) -> SpanId {
        let at = self.now();
        let mut inner = self.inner();
        let span = SpanId(inner.next_span);
        inner.next_span += 1;
        inner.open_spans.insert(span, process);
        inner.entries.push(Entry { at, actor: Actor::Process(process), event: Event::Open { span, value } });
        span
    }

    /// Records a note of the process that holds `span` about it, unless the span has closed.
    pub fn note_on(&self, span: SpanId, value: impl FnOnce() -> Value) {
        let at = self.now();
        let mut inner = self.inner();
        let Some(process) = inner.open_spans.get(&span).copied() else { return };
        inner.entries.push(Entry { at, actor: Actor::Process(process), event: Event::Note(value()) });
    }

    /// Records the end of `span`, unless it has ended already.
    pub fn close(&self, span: SpanId, value: Value) {
        let at = self.now();
        let mut inner = self.inner();
        let Some(process) = inner.open_spans.remove(&span) else { return };
        inner.entries.push(Entry { at, actor: Actor::Process(process), event: Event::Close { span, value } });
    }

    /// Ends the open operations of `process` as `Info` and closes its spans as crashed.
    pub(crate) fn crashed(&self, process: ProcessRef) {
        self.close_all(Some(process), "crashed", Ended::Crashed);
    }

    fn close_all(&self, process: Option<ProcessRef>, reason: &str, ended: Ended) {
        let at = self.now();
        let mut inner = self.inner();
        let ops: Vec<(OpId, ProcessRef)> = inner
            .open_ops
            .iter()
            .filter(|(_, p)| process.is_none_or(|wanted| **p == wanted))
            .map(|(op, p)| (*op, *p))
            .collect();
        for (op, p) in ops {
            inner.open_ops.remove(&op);
            let event = Event::Complete { op, outcome: Outcome::Info, value: Value::text(reason) };
            inner.entries.push(Entry { at, actor: Actor::Process(p), event });
        }
        let spans: Vec<(SpanId, ProcessRef)> = inner
            .open_spans
            .iter()
            .filter(|(_, p)| process.is_none_or(|wanted| **p == wanted))
            .map(|(span, p)| (*span, *p))
            .collect();
        for (span, p) in spans {
            inner.open_spans.remove(&span);
            let event = Event::Close { span, value: Value::new(ended) };
            inner.entries.push(Entry { at, actor: Actor::Process(p), event });
        }
    }

    /// Ends every open operation and span, and hands the history out.
    pub(crate) fn finish(&self) -> History {
        self.close_all(None, "run ended", Ended::RunEnded);
        self.record(Actor::World, Event::Phase(Phase::End));
        History { entries: std::mem::take(&mut self.inner().entries) }
    }
}
