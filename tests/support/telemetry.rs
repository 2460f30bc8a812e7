//! What the library reports, captured for assertions: spans and log events through a global
//! tracing subscriber of the test binary (tests running in parallel tell theirs apart by the
//! name of the lock), and metrics through a recorder local to the test's thread (a paused-time
//! test runs every task on its own thread).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use metrics::{Counter, CounterFn, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A span as it was opened, with the fields recorded on it since.
#[derive(Clone, Debug)]
pub struct SpanRecord {
    pub id: u64,
    pub name: &'static str,
    pub parent: Option<u64>,
    pub fields: BTreeMap<String, String>,
    pub follows_from: Vec<u64>,
}

impl SpanRecord {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// A log event of the library, with its fields (the message as `message`).
#[derive(Clone, Debug)]
pub struct EventRecord {
    pub level: Level,
    pub fields: BTreeMap<String, String>,
    /// The span the event happened in.
    pub span: Option<u64>,
}

impl EventRecord {
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }

    pub fn id(&self) -> Option<u64> {
        self.field("event_id").and_then(|id| id.parse().ok())
    }
}

#[derive(Debug, Default)]
struct Captured {
    spans: Vec<SpanRecord>,
    events: Vec<EventRecord>,
}

/// The spans and events of this test binary.
#[derive(Clone, Debug, Default)]
pub struct Telemetry(Arc<Mutex<Captured>>);

impl Telemetry {
    /// The collector of this test binary, installed on first use.
    pub fn global() -> Telemetry {
        static GLOBAL: OnceLock<Telemetry> = OnceLock::new();
        GLOBAL
            .get_or_init(|| {
                let telemetry = Telemetry::default();
                let subscriber = tracing_subscriber::registry().with(telemetry.clone());
                tracing::subscriber::set_global_default(subscriber).expect("one global subscriber");
                telemetry
            })
            .clone()
    }

    fn captured(&self) -> std::sync::MutexGuard<'_, Captured> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The spans of the library for lock `lock`, in the order they were opened.
    pub fn lock_spans(&self, lock: &str) -> Vec<SpanRecord> {
        self.captured().spans.iter().filter(|s| s.field("dynalease.lock.name") == Some(lock)).cloned().collect()
    }

    /// The spans of lock `lock` named `name`.
    pub fn spans_named(&self, lock: &str, name: &str) -> Vec<SpanRecord> {
        self.lock_spans(lock).into_iter().filter(|s| s.name == name).collect()
    }

    /// The spans whose parent is `parent`.
    pub fn children(&self, parent: u64) -> Vec<SpanRecord> {
        self.captured().spans.iter().filter(|s| s.parent == Some(parent)).cloned().collect()
    }

    /// The names of the child spans of `parent`.
    pub fn child_names(&self, parent: u64) -> Vec<&'static str> {
        self.children(parent).iter().map(|s| s.name).collect()
    }

    /// The span with id `id`, the last one opened with it.
    pub fn span(&self, id: u64) -> Option<SpanRecord> {
        self.captured().spans.iter().rev().find(|s| s.id == id).cloned()
    }

    /// The spans named `name` (all locks).
    pub fn all_spans_named(&self, name: &str) -> Vec<SpanRecord> {
        self.captured().spans.iter().filter(|s| s.name == name).cloned().collect()
    }

    /// The numbered log events of the library (those with an `event_id`) for lock `lock`, in
    /// order.
    pub fn events(&self, lock: &str) -> Vec<EventRecord> {
        let captured = self.captured();
        captured.events.iter().filter(|e| e.field("lock") == Some(lock) && e.id().is_some()).cloned().collect()
    }

    /// The event ids logged for `lock`, in order.
    pub fn event_ids(&self, lock: &str) -> Vec<u64> {
        self.events(lock).iter().filter_map(EventRecord::id).collect()
    }

    /// The events of `lock` with id `id`.
    pub fn events_with_id(&self, lock: &str, id: u64) -> Vec<EventRecord> {
        self.events(lock).into_iter().filter(|e| e.id() == Some(id)).collect()
    }
}

#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), value.to_string());
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S> Layer<S> for Telemetry
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn register_callsite(&self, metadata: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        // Every span, the library's and the SDK's; the events of the library only.
        if metadata.is_span() || metadata.target().starts_with("dynalease") {
            tracing::subscriber::Interest::always()
        } else {
            tracing::subscriber::Interest::never()
        }
    }

    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        let parent = ctx.span(id).and_then(|span| span.parent()).map(|parent| parent.id().into_u64());
        self.captured().spans.push(SpanRecord {
            id: id.into_u64(),
            name: attrs.metadata().name(),
            parent,
            fields: fields.0,
            follows_from: Vec::new(),
        });
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut fields = Fields::default();
        values.record(&mut fields);
        if let Some(span) = self.captured().spans.iter_mut().rev().find(|s| s.id == id.into_u64()) {
            span.fields.extend(fields.0);
        }
    }

    fn on_follows_from(&self, id: &Id, follows: &Id, _: Context<'_, S>) {
        if let Some(span) = self.captured().spans.iter_mut().rev().find(|s| s.id == id.into_u64()) {
            span.follows_from.push(follows.into_u64());
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let span = ctx.event_span(event).map(|span| span.id().into_u64());
        self.captured().events.push(EventRecord { level: *event.metadata().level(), fields: fields.0, span });
    }
}

/// A counter: its name and its labels, sorted.
pub type CounterKey = (String, Vec<(String, String)>);

/// The counters recorded on this thread while [`Counters::install`]'s guard lives.
#[derive(Clone, Debug, Default)]
pub struct Counters(Arc<Mutex<BTreeMap<CounterKey, u64>>>);

struct CounterHandle {
    key: CounterKey,
    counters: Counters,
}

impl CounterFn for CounterHandle {
    fn increment(&self, value: u64) {
        *self.counters.all().entry(self.key.clone()).or_insert(0) += value;
    }
    fn absolute(&self, value: u64) {
        self.counters.all().insert(self.key.clone(), value);
    }
}

impl Counters {
    /// Records the metrics of this thread until the guard is dropped.
    pub fn install(&self) -> metrics::LocalRecorderGuard<'_> {
        metrics::set_default_local_recorder(self)
    }

    fn all(&self) -> std::sync::MutexGuard<'_, BTreeMap<CounterKey, u64>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The value of counter `name` with exactly `labels`; 0 if never incremented.
    pub fn get(&self, name: &str, labels: &[(&str, &str)]) -> u64 {
        let mut labels: Vec<(String, String)> =
            labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        labels.sort();
        self.all().get(&(name.to_owned(), labels)).copied().unwrap_or(0)
    }

    /// Every counter recorded, with its labels and value.
    pub fn snapshot(&self) -> Vec<(CounterKey, u64)> {
        self.all().iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}

impl Recorder for Counters {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        let mut labels: Vec<(String, String)> =
            key.labels().map(|l| (l.key().to_owned(), l.value().to_owned())).collect();
        labels.sort();
        let key = (key.name().to_owned(), labels);
        Counter::from_arc(Arc::new(CounterHandle { key, counters: self.clone() }))
    }

    fn register_gauge(&self, _: &Key, _: &Metadata<'_>) -> Gauge {
        Gauge::noop()
    }

    fn register_histogram(&self, _: &Key, _: &Metadata<'_>) -> Histogram {
        Histogram::noop()
    }
}
