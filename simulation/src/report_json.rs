//! Results for machines: a run and a sweep as one JSON document each, for CI systems to read
//! (`run --format json`, `sweep --format json`).
//!
//! A violation carries its invariant (the short name and the sentence), its subject and seed,
//! the conflicting operations and the last good one (each a list of history entries: time in
//! milliseconds, actor, the timeline's text), and the commands that replay and shrink its run.
//! The JSON of the parts of a partitioned sweep merges into one ([`SweepReport::merge`]).

use serde_json::{Value, json};

use crate::history::Entry;
use crate::service::Service;
use crate::spec::Config;
use crate::sweep::SweepReport;
use crate::timeline::Timeline;
use crate::verdict::Violation;
use crate::world::RunReport;

impl<S: Service> RunReport<S> {
    /// The run as a JSON document: the scenario's parameters, what was checked, the violations
    /// and the commands that replay and shrink the run.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease_sim::{Config, Scenario, World};
    /// use dynalease_sim::locks::{LockKind, LockService};
    ///
    /// let naive = LockService::with_lock(LockKind::Naive);
    /// let report = World::new(Scenario::from_seed(0, &Config::default(), &naive)).run();
    /// let json = report.to_json();
    /// assert_eq!(json["seed"], 0);
    /// assert_eq!(json["service"], "locks");
    /// let violation = &json["violations"][0];
    /// assert!(violation["invariant"].is_string() && violation["first"].is_array());
    /// ```
    pub fn to_json(&self) -> Value {
        let scenario = self.scenario();
        let timeline = Timeline::new(self.history());
        let violations: Vec<Value> = self.violations().iter().map(|v| self.violation_json(&timeline, v)).collect();
        let counts: serde_json::Map<String, Value> =
            self.verdict().counts.iter().map(|(name, n)| (name.clone(), json!(n))).collect();
        let maxima: serde_json::Map<String, Value> =
            self.verdict().maxima.iter().map(|(name, n)| (name.clone(), json!(n))).collect();
        let inconclusive: Vec<Value> =
            self.inconclusive().iter().map(|i| json!({"check": i.check, "why": i.why})).collect();
        json!({
            "service": S::NAME,
            "options": serde_json::to_value(&scenario.service).unwrap_or(Value::Null),
            "seed": scenario.seed,
            "source": self.source(),
            "processes": scenario.processes.len(),
            "duration_ms": scenario.duration_ms,
            "safety_ms": scenario.safety_ms,
            "faults": scenario.faults.len(),
            "triggers": scenario.triggers.len(),
            "requests": self.requests(),
            "history_entries": self.history().entries().len(),
            "checked": counts,
            "maxima": maxima,
            "passed": self.passed(),
            "error": self.error().map(|e| e.to_string()),
            "inconclusive": inconclusive,
            "violations": violations,
            "digest": self.digest(),
            "replay": self.replay_command(),
            "shrink": (!self.violations().is_empty()).then(|| self.shrink_command()),
        })
    }

    fn violation_json(&self, timeline: &Timeline<'_>, violation: &Violation) -> Value {
        let entries = self.history().entries();
        let ops = |lines: &[usize]| -> Vec<Value> {
            lines.iter().filter_map(|i| entries.get(*i)).map(|entry| entry_json(timeline, entry)).collect()
        };
        json!({
            "invariant": violation.invariant.name(),
            "safety": violation.invariant.is_safety(),
            "description": violation.invariant.sentence(),
            "subject": violation.subject,
            "seed": self.scenario().seed,
            "message": violation.message,
            "processes": violation.processes,
            "window_ms": [violation.window.0.as_millis() as u64, violation.window.1.as_millis() as u64],
            "first": ops(&violation.first),
            "second": ops(&violation.second),
            "last_good": ops(&violation.last_good),
        })
    }
}

fn entry_json(timeline: &Timeline<'_>, entry: &Entry) -> Value {
    json!({
        "at_ms": entry.at.as_micros() as f64 / 1000.0,
        "actor": entry.actor.to_string(),
        "text": timeline.text(entry),
    })
}

impl SweepReport {
    /// The sweep as a JSON document: the report itself under `report` (what
    /// [`SweepReport::merge`] reads back), the shape of its runs, `failures` (the
    /// [`RunReport::to_json`] of each failing run), and `seeds_per_s` if the caller timed it.
    pub fn to_json(&self, config: &Config, failures: Vec<Value>, seeds_per_s: Option<f64>) -> Value {
        json!({
            "service": self.service,
            "from": self.from,
            "range": self.range,
            "partition": self.partition.map(|p| p.to_string()),
            "seeds": self.seeds,
            "processes": config.processes,
            "duration_ms": config.duration_ms,
            "requests": self.requests,
            "passed": self.passed(),
            "checked": self.counts,
            "maxima": self.maxima,
            "violations": self.violations,
            "failing_seeds": self.failed,
            "inconclusive_seeds": self.inconclusive,
            "stopped_at": self.stopped_at,
            "stopped_for": self.stopped_for,
            "failures": failures,
            "seeds_per_s": seeds_per_s,
            "report": serde_json::to_value(self).unwrap_or(Value::Null),
        })
    }

    /// The report of a sweep from its JSON document ([`to_json`](Self::to_json)).
    pub fn from_json(document: &Value) -> Result<SweepReport, String> {
        serde_json::from_value(document["report"].clone())
            .map_err(|err| format!("not the JSON of a sweep of dynalease-sim: {err}"))
    }
}
