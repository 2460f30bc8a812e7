//! Results for machines: a run and a sweep as one JSON document each, for CI systems to read
//! (`dynalease-sim run --format json`, `sweep --format json`).
//!
//! A violation carries its kind (the short name of [`ViolationKind::name`] and the sentence of
//! its `Display`), its lock and seed, the two conflicting operations and the last good one (each
//! a list of history entries: time in milliseconds, actor, the timeline's text), and the
//! commands that replay and shrink its run.

use serde_json::{Value, json};

use crate::check::{Violation, ViolationKind};
use crate::history::Entry;
use crate::report::RunReport;
use crate::scenario::Config;
use crate::sweep::SweepReport;
use crate::timeline::Timeline;

impl RunReport {
    /// The run as a JSON document: the scenario's parameters, what was checked, the violations
    /// and the commands that replay and shrink the run.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease_sim::{Config, LockKind, Scenario, World};
    ///
    /// let config = Config { lock: LockKind::Naive, ..Config::default() };
    /// let report = World::new(Scenario::from_seed(0, &config)).run();
    /// let json = report.to_json();
    /// assert_eq!(json["seed"], 0);
    /// let violation = &json["violations"][0];
    /// assert!(violation["kind"].is_string() && violation["first"].is_array());
    /// assert_eq!(json["shrink"], "dynalease-sim shrink --seed 0 --lock naive");
    /// ```
    pub fn to_json(&self) -> Value {
        let scenario = self.scenario();
        let stats = &self.check().stats;
        let timeline = Timeline::new(self.history());
        let violations: Vec<Value> = self.violations().iter().map(|v| self.violation_json(&timeline, v)).collect();
        let failed = !violations.is_empty();
        json!({
            "seed": scenario.seed,
            "source": self.source(),
            "lock": scenario.lock.to_string(),
            "processes": scenario.processes.len(),
            "duration_ms": scenario.duration_ms,
            "safety_ms": scenario.safety_ms,
            "lease_ms": scenario.lease_ms,
            "faults": scenario.faults.len(),
            "triggers": scenario.triggers.len(),
            "requests": self.requests(),
            "history_entries": self.history().entries().len(),
            "checked": {
                "grants": stats.grants,
                "lock_writes": stats.writes,
                "beliefs": stats.beliefs,
                "overlaps_exempt": stats.overlaps_exempt,
                "fenced_commits": stats.commits,
                "store_writes": stats.store_writes,
                "takeover_ms": stats.takeover.map(|t| t.as_millis() as u64),
            },
            "violations": violations,
            "digest": self.digest(),
            "replay": self.replay_command(),
            "shrink": failed.then(|| self.shrink_command()),
        })
    }

    fn violation_json(&self, timeline: &Timeline<'_>, violation: &Violation) -> Value {
        let entries = self.history().entries();
        let ops = |lines: &[usize]| -> Vec<Value> {
            lines.iter().filter_map(|i| entries.get(*i)).map(|entry| entry_json(timeline, entry)).collect()
        };
        json!({
            "kind": violation.kind.name(),
            "safety": violation.kind.is_safety(),
            "description": violation.kind.to_string(),
            "lock": self.history().lock_name(violation.lock),
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
    /// The sweep as a JSON document, with `failures`: the [`RunReport::to_json`] of each failing
    /// run, and `seeds_per_s` if the caller timed it.
    pub fn to_json(&self, config: &Config, failures: Vec<Value>, seeds_per_s: Option<f64>) -> Value {
        let violations: serde_json::Map<String, Value> =
            self.violations.iter().map(|(kind, runs)| (kind.name().to_owned(), json!(runs))).collect();
        json!({
            "from": self.from,
            "seeds": self.seeds,
            "lock": config.lock.to_string(),
            "processes": config.processes,
            "duration_ms": config.duration_ms,
            "requests": self.requests,
            "checked": {
                "grants": self.grants,
                "lock_writes": self.writes,
                "beliefs": self.beliefs,
                "fenced_commits": self.commits,
                "store_writes": self.store_writes,
                "takeovers": self.takeovers,
                "slowest_takeover_ms": self.slowest_takeover.as_millis() as u64,
            },
            "violations": violations,
            "failing_seeds": self.failed,
            "stopped_at": self.stopped_at,
            "stopped_for": self.stopped_for.iter().copied().map(ViolationKind::name).collect::<Vec<_>>(),
            "failures": failures,
            "seeds_per_s": seeds_per_s,
        })
    }
}
