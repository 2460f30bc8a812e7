//! [`RunReport`]: what one run did and what the checker found, as text for people.

use std::fmt::Write as _;
use std::time::Duration;

use crate::check::{CheckReport, Violation};
use crate::history::{Actor, Entry, Event, History, Nemesis, Outcome, Phase};
use crate::scenario::{LockKind, Scenario};
use crate::timeline::{Timeline, seconds};

/// The longest timeline a violation prints.
const EXCERPT_LINES: usize = 80;

/// One run: its scenario, its history and the checker's verdict.
#[derive(Debug)]
pub struct RunReport {
    scenario: Scenario,
    history: History,
    check: CheckReport,
    requests: usize,
    source: Option<String>,
}

impl RunReport {
    pub(crate) fn new(scenario: Scenario, history: History, check: CheckReport, requests: usize) -> Self {
        RunReport { scenario, history, check, requests, source: None }
    }

    /// The same report, for a run whose scenario was read from the file at `path`: its replay
    /// and shrink commands name the file rather than the seed.
    pub fn with_source(mut self, path: impl Into<String>) -> Self {
        self.source = Some(path.into());
        self
    }

    /// The file the scenario was read from, if it was.
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// How many requests DynamoDB (the fake) answered: what a run costs, at some 20 us each
    /// through the SDK.
    pub fn requests(&self) -> usize {
        self.requests
    }

    /// The scenario that ran.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The recorded history.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The checker's verdict.
    pub fn check(&self) -> &CheckReport {
        &self.check
    }

    /// The broken invariants; empty for a good run.
    pub fn violations(&self) -> &[Violation] {
        &self.check.violations
    }

    /// The digest of the history, in hex: the same seed gives the same digest.
    pub fn digest(&self) -> String {
        format!("{:016x}", self.history.digest())
    }

    /// The command that replays this run: `dynalease-sim run --seed N --timeline` with the
    /// options that shaped the seed's scenario, or `run --scenario FILE` for a run read from a
    /// file.
    pub fn replay_command(&self) -> String {
        format!("dynalease-sim run {} --timeline", self.scenario_args())
    }

    /// The command that shrinks this run to the smallest scenario that still fails.
    pub fn shrink_command(&self) -> String {
        format!("dynalease-sim shrink {}", self.scenario_args())
    }

    fn scenario_args(&self) -> String {
        self.scenario.command_args(self.source.as_deref())
    }

    /// The whole history as a timeline.
    pub fn timeline(&self) -> String {
        Timeline::new(&self.history).render(|_| true)
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
        let stats = &self.check.stats;
        let _ = writeln!(
            out,
            "history: {} entries, {} operations ({ok} ok, {fail} fail, {info} info), {} DynamoDB requests",
            self.history.entries().len(),
            ok + fail + info,
            self.requests
        );
        let failed = |kind| self.violations().iter().any(|v| v.kind == kind);
        let verdict = |kind| if failed(kind) { "VIOLATED" } else { "ok" };
        use crate::check::ViolationKind as K;
        let _ = writeln!(out, "checks:");
        let _ = writeln!(out, "  tokens rise            {} ({} grants)", verdict(K::TokenNotRising), stats.grants);
        let _ = writeln!(
            out,
            "  takeover after expiry  {} ({} lock writes held against the item)",
            verdict(K::TakeoverBeforeExpiry),
            stats.writes
        );
        let _ = writeln!(out, "  own writes             {}", verdict(K::ForeignWrite));
        let _ = writeln!(
            out,
            "  granted beliefs        {} ({} leases believed)",
            verdict(K::UngrantedBelief),
            stats.beliefs
        );
        let _ = writeln!(out, "  beliefs end in time    {}", verdict(K::BeliefPastLease));
        let _ = writeln!(
            out,
            "  exclusive beliefs      {} ({} overlaps exempt: deletion, stopped holder or drift)",
            verdict(K::OverlappingBeliefs),
            stats.overlaps_exempt
        );
        let _ = writeln!(
            out,
            "  fencing                {} ({} fenced commits)",
            verdict(K::StaleFencedWrite),
            stats.commits
        );
        let _ = writeln!(
            out,
            "  external store         {} ({} writes)",
            verdict(K::StoreAcceptedLower),
            stats.store_writes
        );
        let _ = writeln!(out, "  retries find their own {}", verdict(K::RetryRefusedByItself));
        let _ = writeln!(out, "  healthy leases hold    {}", verdict(K::LostWhileHealthy));
        let _ = writeln!(out, "  leases run their time  {}", verdict(K::LostBeforeExpiry));
        let _ = writeln!(out, "  renewals in time       {}", verdict(K::RenewalLate));
        let _ = writeln!(out, "  short outages survived {}", verdict(K::LostInShortOutage));
        let _ = writeln!(out, "  exists agrees          {}", verdict(K::WrongExists));
        let _ = writeln!(out, "  exists drops the stale {}", verdict(K::StaleExists));
        let _ = writeln!(out, "  releases release       {}", verdict(K::HeldAfterRelease));
        let _ = writeln!(out, "  let go leases leave    {}", verdict(K::HeldAfterLetGo));
        let _ = writeln!(out, "  stops in time          {}", verdict(K::SlowStop));
        let _ = writeln!(out, "  promises kept          {}", verdict(K::BrokenPromise));
        let _ = writeln!(out, "  loss reasons true      {}", verdict(K::WrongLossReason));
        let _ = writeln!(out, "  foreign items refused  {}", verdict(K::ForeignItem));
        let liveness = match (stats.takeover, self.crashed_for_liveness()) {
            (Some(took), _) => format!(
                "{} (taken over {} after the crash, bound {})",
                verdict(K::SlowTakeover),
                seconds(took),
                seconds(self.scenario.takeover_bound())
            ),
            (None, true) => format!("{} (no takeover)", verdict(K::SlowTakeover)),
            (None, false) => String::from("not checked (no live holder of a lock with two leaders)"),
        };
        let _ = writeln!(out, "  liveness               {liveness}");
        let _ = writeln!(out, "violations: {}", self.violations().len());
        let _ = writeln!(out, "digest: {}", self.digest());
        out
    }

    fn crashed_for_liveness(&self) -> bool {
        self.history
            .entries()
            .iter()
            .any(|e| matches!(e.event, Event::Phase(Phase::LivenessCrash { victim: Some(_), .. })))
    }

    /// Every violation with the seed, the two conflicting operations, the last good one, a
    /// timeline of the lock around them, and the command that replays the run. Empty for a
    /// good run.
    pub fn failure_report(&self) -> String {
        let timeline = Timeline::new(&self.history);
        let mut out = String::new();
        for violation in self.violations() {
            self.write_violation(&mut out, &timeline, violation);
        }
        out
    }

    fn write_violation(&self, out: &mut String, timeline: &Timeline<'_>, violation: &Violation) {
        let entries = self.history.entries();
        let lock = self.history.lock_name(violation.lock);
        let _ = writeln!(out, "VIOLATION: {} (seed {}, lock {lock})", violation.kind, self.scenario.seed);
        let _ = writeln!(out, "  {}", violation.message);
        let _ = writeln!(out, "  replay: {}", self.replay_command());
        let _ = writeln!(out, "  shrink: {}", self.shrink_command());
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

        let from = violation.window.0.saturating_sub(self.scenario.lease());
        let to = violation.window.1 + Duration::from_secs(2);
        let keep = |entry: &Entry| {
            entry.at >= from
                && entry.at <= to
                && (timeline.lock_of(entry) == Some(violation.lock)
                    || concerns(entry).is_some_and(|p| violation.processes.contains(&p))
                    || matches!(
                        entry.event,
                        Event::Nemesis(
                            Nemesis::TableOutage | Nemesis::TableBack | Nemesis::Throttle { process: None, .. }
                        ) | Event::Phase(_)
                    ))
        };
        let lines: Vec<String> = entries.iter().filter(|e| keep(e)).map(|e| timeline.line(e)).collect();
        let processes: Vec<String> = violation.processes.iter().map(|p| format!("p{p}")).collect();
        let _ = writeln!(
            out,
            "  timeline (lock {lock}, faults of {}, {} .. {}):",
            processes.join(" "),
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
}

/// The process a fault concerns, if it concerns one.
fn concerns(entry: &Entry) -> Option<u16> {
    match (&entry.event, entry.actor) {
        (Event::Nemesis(nemesis), _) => match nemesis {
            Nemesis::Crash(p) | Nemesis::Restart(p) | Nemesis::Pause(p) | Nemesis::Suspend(p) | Nemesis::Resume(p) => {
                Some(p.id)
            }
            Nemesis::Partition(p) | Nemesis::PartitionHealed(p) | Nemesis::LatencyHealed(p) => Some(*p),
            Nemesis::Latency { process, .. } | Nemesis::ClockStep { process, .. } => Some(*process),
            Nemesis::Throttle { process, .. } => *process,
            _ => None,
        },
        (_, Actor::Process(_)) => None,
        _ => None,
    }
}

impl Scenario {
    /// The arguments of `dynalease-sim run` (or `shrink`) that make this scenario again: the
    /// file it was read from, if `file`, else the seed with the options of its shape where they
    /// are not the default ones (`--seed 7 --lock naive --duration-s 120`).
    pub fn command_args(&self, file: Option<&str>) -> String {
        let lock = match self.lock {
            LockKind::Library => "",
            LockKind::Naive => " --lock naive",
        };
        if let Some(path) = file {
            return format!("--scenario {path}{lock}");
        }
        let mut args = format!("--seed {}{lock}", self.seed);
        let default = crate::scenario::Config::default();
        if self.processes.len() != usize::from(default.processes) {
            args.push_str(&format!(" --processes {}", self.processes.len()));
        }
        if self.duration_ms != default.duration_ms {
            args.push_str(&format!(" --duration-s {}", self.duration_ms / 1000));
        }
        args
    }
}
