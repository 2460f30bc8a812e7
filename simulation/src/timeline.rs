//! [`Timeline`]: a history as lines a person reads, one per entry.
//!
//! ```text
//!     12.345 s  p2.0      invoke #41 acquire leader
//!     12.360 s  dynamodb  granted leader token 7 to p2.0
//!     12.371 s  p2.0      ok     #41 acquire leader -> token 7
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

pub use crate::clock::seconds;
use crate::history::{Actor, Entry, Event, History, Nemesis, OpId, Phase, ProcessRef, SpanId, Step, Value};

/// Renders the entries of a history, with what each operation and span refers to.
#[derive(Debug)]
pub struct Timeline<'h> {
    history: &'h History,
    calls: BTreeMap<OpId, (&'h Value, ProcessRef)>,
    spans: BTreeMap<SpanId, &'h Value>,
    /// The subject of each entry that has one.
    subjects: Vec<Option<String>>,
}

impl<'h> Timeline<'h> {
    /// The timeline of `history`.
    pub fn new(history: &'h History) -> Self {
        let mut calls = BTreeMap::new();
        let mut spans = BTreeMap::new();
        let mut subjects = Vec::with_capacity(history.entries().len());
        for entry in history.entries() {
            let subject = match &entry.event {
                Event::Invoke { op, value } => {
                    if let Actor::Process(process) = entry.actor {
                        calls.insert(*op, (value, process));
                    }
                    value.subject()
                }
                Event::Complete { op, .. } => calls.get(op).and_then(|(call, _)| call.subject()),
                Event::Open { span, value } => {
                    spans.insert(*span, value);
                    value.subject()
                }
                Event::Close { span, .. } => spans.get(span).and_then(|value| value.subject()),
                Event::Note(value) => value.subject(),
                Event::Request { what: Some(what), .. } => what.split_once(' ').map(|(_, item)| item.to_owned()),
                Event::Nemesis(Nemesis::DeleteItem(item) | Nemesis::ReplaceItem(item)) => Some(item.to_string()),
                _ => None,
            };
            subjects.push(subject);
        }
        Timeline { history, calls, spans, subjects }
    }

    /// The operation `op` as the timeline names it, such as `#41 acquire leader`.
    pub fn op(&self, op: OpId) -> String {
        match self.calls.get(&op) {
            Some((call, _)) => format!("{op} {}", call.describe()),
            None => op.to_string(),
        }
    }

    /// The process that invoked `op`.
    pub fn invoker(&self, op: OpId) -> Option<ProcessRef> {
        self.calls.get(&op).map(|(_, p)| *p)
    }

    /// What the entry at `index` is about, if it says.
    pub fn subject(&self, index: usize) -> Option<&str> {
        self.subjects.get(index).and_then(Option::as_deref)
    }

    /// What `entry` says, without its time and actor.
    pub fn text(&self, entry: &Entry) -> String {
        match &entry.event {
            Event::Invoke { op, .. } => format!("invoke {}", self.op(*op)),
            Event::Complete { op, outcome, value } => {
                let outcome = format!("{:<6}", outcome.as_str());
                let said = value.describe();
                match (said.is_empty(), outcome.trim()) {
                    (true, _) => format!("{outcome} {}", self.op(*op)),
                    (false, "ok") => format!("{outcome} {} -> {said}", self.op(*op)),
                    (false, _) => format!("{outcome} {}: {said}", self.op(*op)),
                }
            }
            Event::Open { value, .. } => format!("holds  {}", value.describe()),
            Event::Close { span, value } => {
                let what = self.spans.get(span).map_or_else(|| format!("span {}", span.0), |v| v.describe());
                format!("lets go of {what}: {}", value.describe())
            }
            Event::Note(value) => value.describe(),
            Event::Request { request, step, what } => match step {
                Step::Sent => format!("sends r{request} {}", what.as_deref().unwrap_or("")),
                Step::Answered(200) => format!("applied r{request}"),
                Step::Answered(status) => format!("answered r{request} with an error ({status})"),
                Step::Heard => format!("hears the answer of r{request}"),
                Step::Lost => format!("loses the answer of r{request} (connection reset after it was applied)"),
                Step::TimedOut => format!("times out waiting for r{request}"),
            },
            Event::Nemesis(nemesis) => describe_nemesis(nemesis),
            Event::Phase(phase) => match phase {
                Phase::Safety => String::from("--- safety phase: faults ---"),
                Phase::Healed => String::from("--- healed: liveness phase ---"),
                Phase::Liveness => String::from("--- liveness test ---"),
                Phase::End => String::from("--- end ---"),
            },
        }
    }

    /// One line: time, actor, text.
    pub fn line(&self, entry: &Entry) -> String {
        format!("{:>12}  {:<9} {}", seconds(entry.at), entry.actor.to_string(), self.text(entry))
    }

    /// The lines of the entries that `keep` selects (by index and entry).
    pub fn render(&self, keep: impl Fn(usize, &Entry) -> bool) -> String {
        let mut out = String::new();
        for (_, entry) in self.history.entries().iter().enumerate().filter(|(i, e)| keep(*i, e)) {
            let _ = writeln!(out, "{}", self.line(entry));
        }
        out
    }
}

/// A fault in words.
pub fn describe_nemesis(nemesis: &Nemesis) -> String {
    match nemesis {
        Nemesis::Crash(p) => format!("crash {p}"),
        Nemesis::Restart(p) => format!("restart as {p}"),
        Nemesis::Pause(p) => format!("pause {p}"),
        Nemesis::Suspend(p) => format!("suspend {p} (its monotonic clock stops)"),
        Nemesis::Resume(p) => format!("resume {p}"),
        Nemesis::Partition(p) => format!("partition p{p} from the network"),
        Nemesis::PartitionHealed(p) => format!("p{p} reconnected"),
        Nemesis::Latency { process, extra_ms } => format!("latency of p{process} +{extra_ms} ms each way"),
        Nemesis::LatencyHealed(p) => format!("latency of p{p} back to normal"),
        Nemesis::Throttle { process: Some(p), per_million } => {
            format!("throttle p{p} ({}%)", crate::nemesis::percent(*per_million))
        }
        Nemesis::Throttle { process: None, per_million } => {
            format!("throttle everyone ({}%)", crate::nemesis::percent(*per_million))
        }
        Nemesis::ThrottleEnded => String::from("throttling burst over"),
        Nemesis::PartialBatches { process, per_million } => format!(
            "batches of {} processed in part ({}%)",
            crate::nemesis::whom(*process),
            crate::nemesis::percent(*per_million)
        ),
        Nemesis::PartialBatchesEnded => String::from("partial batches over"),
        Nemesis::TableOutage(table) => format!("table {table} answers ResourceNotFound"),
        Nemesis::TableBack(table) => format!("table {table} back"),
        Nemesis::DeleteItem(item) => format!("delete the item {item}"),
        Nemesis::ReplaceItem(item) => format!("replace the item {item} with an entity of another kind"),
        Nemesis::ClockStep { process, delta_ms } => format!("wall clock of p{process} steps {delta_ms:+} ms"),
        Nemesis::Triggered { process, item, moment, label, reaction } => {
            let on = item.as_ref().map(|item| format!(" {item}")).unwrap_or_default();
            let label = label.map(|l| format!(" ({l})")).unwrap_or_default();
            format!("trigger: {process} {}{on}{label}: {reaction:?}", moment.describe())
        }
    }
}
