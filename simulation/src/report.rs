//! The text of a [`RunReport`]: what one run did and what the checker found, for people.

use std::fmt::Write as _;
use std::time::Duration;

use crate::history::{Actor, Entry, Event, History, Nemesis, Outcome, Phase};
use crate::scenario::Scenario;
use crate::service::Service;
use crate::tables::Tables;
use crate::timeline::{Timeline, seconds};
use crate::verdict::{Inconclusive, Verdict, Violation};
use crate::world::{RunError, RunReport};

/// The longest timeline a violation prints.
const EXCERPT_LINES: usize = 80;

/// The program that replays runs, when nobody says: the command line of the lock library's
/// simulation.
const DEFAULT_PROGRAM: &str = "dynalease-sim";

impl<S: Service> RunReport<S> {
    /// The same report, for a run whose scenario was read from the file at `path`: its replay
    /// and shrink commands name the file rather than the seed.
    pub fn with_source(mut self, path: impl Into<String>) -> Self {
        self.source = Some(path.into());
        self
    }

    /// The same report, replayed by `program` (`cargo run --example transfers --`, say, with
    /// the options that shaped the seed's service): its commands start with it.
    pub fn with_program(mut self, program: impl Into<String>) -> Self {
        self.program = Some(program.into());
        self
    }

    /// The same report, replayed by `command` as it stands (a test binary run on a scenario
    /// file, say): its failure report prints it as the replay command, and no shrink command,
    /// for a run that was shrunk already.
    pub fn with_replay(mut self, command: impl Into<String>) -> Self {
        self.replay = Some(command.into());
        self
    }

    /// The file the scenario was read from, if it was.
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// How many requests DynamoDB (the fake) answered: what a run costs.
    pub fn requests(&self) -> usize {
        self.requests
    }

    /// The scenario that ran.
    pub fn scenario(&self) -> &Scenario<S> {
        &self.scenario
    }

    /// The recorded history.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Every table as the run left it.
    pub fn tables(&self) -> &Tables {
        &self.tables
    }

    /// The checker's verdict.
    pub fn verdict(&self) -> &Verdict {
        &self.verdict
    }

    /// The broken invariants; empty for a good run.
    pub fn violations(&self) -> &[Violation] {
        &self.verdict.violations
    }

    /// The checks that could not finish: a run with one is not a pass.
    pub fn inconclusive(&self) -> &[Inconclusive] {
        &self.verdict.inconclusive
    }

    /// What went wrong with the run itself (its setup, its checker), if anything did.
    pub fn error(&self) -> Option<&RunError> {
        self.error.as_ref()
    }

    /// Whether the run passed: no violation, no check left unfinished, no error.
    pub fn passed(&self) -> bool {
        self.violations().is_empty() && self.inconclusive().is_empty() && self.error.is_none()
    }

    /// The digest of the history, in hex: the same scenario gives the same digest.
    pub fn digest(&self) -> String {
        format!("{:016x}", self.history.digest())
    }

    /// The program whose commands replay and shrink the run.
    pub fn program(&self) -> &str {
        self.program.as_deref().unwrap_or(DEFAULT_PROGRAM)
    }

    /// The command that replays this run: `run --seed N --timeline` with the options that
    /// shaped the seed's scenario, or `run --scenario FILE` for a run read from a file.
    pub fn replay_command(&self) -> String {
        if let Some(command) = &self.replay {
            return command.clone();
        }
        format!("{} run {} --timeline", self.program(), self.scenario_args())
    }

    /// The command that shrinks this run to the smallest scenario that still fails.
    pub fn shrink_command(&self) -> String {
        format!("{} shrink {}", self.program(), self.scenario_args())
    }

    fn scenario_args(&self) -> String {
        self.scenario.command_args(self.source.as_deref())
    }

    /// The whole history as a timeline.
    pub fn timeline(&self) -> String {
        Timeline::new(&self.history).render(|_, _| true)
    }

    /// The parameters of the run, what happened and what was checked, ending with the line
    /// `digest: <hex>`.
    pub fn summary(&self) -> String {
        let mut out = self.scenario.describe();
        let (mut ok, mut fail, mut info) = (0, 0, 0);
        for entry in self.history.entries() {
            if let Event::Complete { outcome, .. } = entry.event {
                match outcome {
                    Outcome::Ok => ok += 1,
                    Outcome::Fail => fail += 1,
                    Outcome::Info => info += 1,
                }
            }
        }
        let _ = writeln!(
            out,
            "history: {} entries, {} operations ({ok} ok, {fail} fail, {info} info), {} DynamoDB requests",
            self.history.entries().len(),
            ok + fail + info,
            self.requests
        );
        if let Some(error) = &self.error {
            let _ = writeln!(out, "ERROR of service {} at seed {}: {error}", S::NAME, self.scenario.seed);
        }
        let _ = writeln!(out, "checks:");
        let invariants = self.scenario.service.invariants();
        let width = invariants.iter().map(|i| i.name().len()).max().unwrap_or(0);
        for invariant in &invariants {
            let broken = self.violations().iter().any(|v| &v.invariant == invariant);
            let verdict = if self.error.is_some() {
                "not checked"
            } else if broken {
                "VIOLATED"
            } else {
                "ok"
            };
            let _ = writeln!(out, "  {:<width$}  {verdict}", invariant.name());
        }
        for inconclusive in self.inconclusive() {
            let _ = writeln!(out, "  {:<width$}  INCONCLUSIVE: {}", inconclusive.check, inconclusive.why);
        }
        if !self.verdict.counts.is_empty() {
            let counts: Vec<String> = self.verdict.counts.iter().map(|(name, n)| format!("{n} {name}")).collect();
            let _ = writeln!(out, "checked: {}", counts.join(", "));
        }
        for (name, value) in &self.verdict.maxima {
            let _ = writeln!(out, "  {name}: {value}");
        }
        let _ = writeln!(out, "violations: {}", self.violations().len());
        let _ = writeln!(out, "digest: {}", self.digest());
        out
    }

    /// Every violation with its two conflicting operations, the last good one before them, the
    /// commands that replay and shrink the run, and a window of the timeline; an error or an
    /// unfinished check says so. Empty for a good run.
    pub fn failure_report(&self) -> String {
        let mut out = String::new();
        if let Some(error) = &self.error {
            let _ = writeln!(out, "ERROR: service {} at seed {}: {error}", S::NAME, self.scenario.seed);
            let _ = writeln!(out, "  replay: {}", self.replay_command());
        }
        for inconclusive in self.inconclusive() {
            let _ = writeln!(
                out,
                "INCONCLUSIVE: {} (service {}, seed {}): {}",
                inconclusive.check,
                S::NAME,
                self.scenario.seed,
                inconclusive.why
            );
            let _ = writeln!(out, "  replay: {}", self.replay_command());
        }
        let timeline = Timeline::new(&self.history);
        for violation in self.violations() {
            self.write_violation(&mut out, &timeline, violation);
        }
        out
    }

    fn write_violation(&self, out: &mut String, timeline: &Timeline<'_>, violation: &Violation) {
        let entries = self.history.entries();
        let about = if violation.subject.is_empty() { String::new() } else { format!(", {}", violation.subject) };
        let _ = writeln!(
            out,
            "VIOLATION: {} [{}] (service {}, seed {}{about})",
            violation.invariant,
            violation.invariant.name(),
            S::NAME,
            self.scenario.seed
        );
        let _ = writeln!(out, "  {}", violation.message);
        let _ = writeln!(out, "  replay: {}", self.replay_command());
        if self.replay.is_none() {
            let _ = writeln!(out, "  shrink: {}", self.shrink_command());
        }
        let section = |out: &mut String, title: &str, lines: &[usize]| {
            let _ = writeln!(out, "  {title}:");
            if lines.is_empty() {
                let _ = writeln!(out, "      (none)");
            }
            for line in lines.iter().filter_map(|i| entries.get(*i)) {
                let _ = writeln!(out, "    {}", timeline.line(line));
            }
        };
        section(out, "first", &violation.first);
        section(out, "second", &violation.second);
        section(out, "last good", &violation.last_good);

        let from = violation.window.0.saturating_sub(self.scenario.service.scale());
        let to = violation.window.1 + Duration::from_secs(2);
        // The requests of the processes involved (for services whose requests are recorded):
        // what they sent, what DynamoDB applied, what they heard.
        let requests: std::collections::BTreeSet<u32> = entries
            .iter()
            .filter(|e| e.at >= from && e.at <= to)
            .filter_map(|e| match (&e.event, e.actor) {
                (Event::Request { request, .. }, Actor::Process(p)) if violation.processes.contains(&p.id) => {
                    Some(*request)
                }
                _ => None,
            })
            .collect();
        let keep = |index: usize, entry: &Entry| {
            entry.at >= from
                && entry.at <= to
                && ((!violation.subject.is_empty() && timeline.subject(index) == Some(violation.subject.as_str()))
                    || violation.first.contains(&index)
                    || violation.second.contains(&index)
                    || concerns(entry).is_some_and(|p| violation.processes.contains(&p))
                    || matches!(&entry.event, Event::Request { request, .. } if requests.contains(request))
                    // The operations and notes of the processes involved that are about nothing in
                    // particular (a service's own types say no subject).
                    || (matches!(
                        (&entry.event, entry.actor),
                        (Event::Invoke { .. } | Event::Complete { .. } | Event::Note(_), Actor::Process(p))
                            if violation.processes.contains(&p.id)
                    ) && timeline.subject(index).is_none())
                    || matches!(
                        entry.event,
                        Event::Nemesis(
                            Nemesis::TableOutage(_)
                                | Nemesis::TableBack(_)
                                | Nemesis::Throttle { process: None, .. }
                                | Nemesis::PartialBatches { process: None, .. }
                        ) | Event::Phase(_)
                    ))
        };
        let lines: Vec<String> =
            entries.iter().enumerate().filter(|(i, e)| keep(*i, e)).map(|(_, e)| timeline.line(e)).collect();
        let processes: Vec<String> = violation.processes.iter().map(|p| format!("p{p}")).collect();
        let faults = if processes.is_empty() { String::new() } else { format!("faults of {}, ", processes.join(" ")) };
        let _ = writeln!(
            out,
            "  timeline ({}{faults}{} .. {}):",
            if violation.subject.is_empty() { String::new() } else { format!("{}, ", violation.subject) },
            seconds(from),
            seconds(to)
        );
        if lines.len() > EXCERPT_LINES {
            let head = EXCERPT_LINES / 4;
            let tail = EXCERPT_LINES - head;
            for line in &lines[..head] {
                let _ = writeln!(out, "    {line}");
            }
            let _ = writeln!(out, "    ... {} lines ...", lines.len() - head - tail);
            for line in &lines[lines.len() - tail..] {
                let _ = writeln!(out, "    {line}");
            }
        } else {
            for line in &lines {
                let _ = writeln!(out, "    {line}");
            }
        }
        let _ = writeln!(out);
    }

    /// Whether the liveness phase of the run began.
    pub fn reached_liveness(&self) -> bool {
        self.history.entries().iter().any(|e| matches!(e.event, Event::Phase(Phase::Liveness)))
    }
}

/// The process a fault or an entry of a process concerns, if it concerns one.
fn concerns(entry: &Entry) -> Option<u16> {
    match (&entry.event, entry.actor) {
        (Event::Nemesis(nemesis), _) => match nemesis {
            Nemesis::Crash(p) | Nemesis::Restart(p) | Nemesis::Pause(p) | Nemesis::Suspend(p) | Nemesis::Resume(p) => {
                Some(p.id)
            }
            Nemesis::Partition(p) | Nemesis::PartitionHealed(p) | Nemesis::LatencyHealed(p) => Some(*p),
            Nemesis::Latency { process, .. } | Nemesis::ClockStep { process, .. } => Some(*process),
            Nemesis::Throttle { process, .. } | Nemesis::PartialBatches { process, .. } => *process,
            Nemesis::Triggered { process, .. } => Some(process.id),
            _ => None,
        },
        _ => None,
    }
}

impl<S: Service> Scenario<S> {
    /// The arguments of `run` (or `shrink`) that make this scenario again: the file it was read
    /// from, if `file`, else the seed with the options of its shape where they are not the
    /// default ones (`--seed 7 --duration-s 120`).
    pub fn command_args(&self, file: Option<&str>) -> String {
        if let Some(path) = file {
            return format!("--scenario {path}");
        }
        let mut args = format!("--seed {}", self.seed);
        let default = crate::spec::Config::default();
        if self.processes.len() != usize::from(default.processes) {
            args.push_str(&format!(" --processes {}", self.processes.len()));
        }
        if self.duration_ms != default.duration_ms {
            args.push_str(&format!(" --duration-s {}", self.duration_ms / 1000));
        }
        args
    }
}
