//! Shrinking: from a failing run to the smallest scenario that still breaks the same invariant.
//!
//! [`shrink`] tries smaller scenarios one run at a time and keeps each that still fails with
//! the same invariant: a run cut short after the violation, fewer faults and triggers
//! (all of them, then halves, then one at a time), fewer processes and workloads, no lost
//! answers, shorter faults, and clocks, networks and leases made plain. It stops when no
//! simplification keeps the failure, or after a bounded number of runs.
//!
//! Removing a process renumbers the ones after it, and their faults and triggers with them; each
//! process then draws from the stream of its new number, so a shrunk scenario is a scenario of its
//! own, checked by its own run like any other.

use std::time::Duration;

use crate::clock::seconds;
use crate::nemesis::{Fault, Reaction, ScheduledFault, Trigger};
use crate::net::NetSpec;
use crate::scenario::Scenario;
use crate::service::Service;
use crate::world::{RunReport, World};

/// The default bound of the runs of a shrink.
pub const DEFAULT_MAX_RUNS: usize = 300;

/// How a shrink runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShrinkOptions {
    /// The most runs it makes, the first one included.
    pub max_runs: usize,
    /// The invariant that must keep failing, by name; `None` for the first one the run breaks
    /// (of safety, if it breaks one).
    pub kind: Option<String>,
}

impl Default for ShrinkOptions {
    fn default() -> Self {
        ShrinkOptions { max_runs: DEFAULT_MAX_RUNS, kind: None }
    }
}

/// A simplification that kept the failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The run that tried it, from 1 (the run of the scenario as given).
    pub run: usize,
    /// What it changed, in words.
    pub change: String,
    /// The size of the scenario after it.
    pub size: Size,
}

/// How large a scenario is, as a shrink counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Processes.
    pub processes: usize,
    /// Workloads, over all processes.
    pub workloads: usize,
    /// Timed faults.
    pub faults: usize,
    /// Triggers.
    pub triggers: usize,
    /// The length of the run.
    pub duration_ms: u64,
}

impl Size {
    /// The size of `scenario`.
    pub fn of<S: Service>(scenario: &Scenario<S>) -> Size {
        Size {
            processes: scenario.processes.len(),
            workloads: scenario.processes.iter().map(|p| p.kinds.len()).sum(),
            faults: scenario.faults.len(),
            triggers: scenario.triggers.len(),
            duration_ms: scenario.duration_ms,
        }
    }
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "{}, {}, {}, {}, {} s",
            count(self.processes, "process", "processes"),
            count(self.workloads, "workload", "workloads"),
            count(self.faults, "fault", "faults"),
            count(self.triggers, "trigger", "triggers"),
            self.duration_ms / 1000
        )
    }
}

/// What a shrink ended with.
#[derive(Debug)]
pub struct Shrunk<S: Service> {
    /// The invariant that kept failing, by name.
    pub kind: String,
    /// The size of the scenario it started from.
    pub from: Size,
    /// The scenario as given.
    pub original: Scenario<S>,
    /// The run of the smallest scenario that still fails.
    pub report: RunReport<S>,
    /// The simplifications it kept, in order.
    pub steps: Vec<Step>,
    /// How many runs it made.
    pub runs: usize,
    /// Whether it stopped at the bound of runs, with simplifications left untried.
    pub gave_up: bool,
}

/// Why a shrink did not start.
#[derive(Debug)]
pub enum NotShrunk<S: Service> {
    /// The run of the scenario as given does not break the invariant (or any, without one).
    Passes(Box<RunReport<S>>),
}

/// Shrinks `scenario` while it keeps breaking the same invariant, and calls `on_step` with every
/// simplification it keeps and `on_run` after every run (with the number of runs so far).
///
/// # Errors
///
/// [`NotShrunk::Passes`] if the scenario does not fail to begin with.
///
/// # Examples
///
/// ```
/// use dynalease_sim::{Config, Scenario, World};
/// use dynalease_sim::locks::{LockKind, LockService};
/// use dynalease_sim::shrink::{shrink, ShrinkOptions};
///
/// let config = Config { duration_ms: 180_000, ..Config::default() };
/// let naive = LockService::with_lock(LockKind::Naive);
/// let failing = (0..50).map(|seed| Scenario::from_seed(seed, &config, &naive))
///     .find(|s| !World::new(s.clone()).run().violations().is_empty())
///     .unwrap();
/// let options = ShrinkOptions { max_runs: 40, ..ShrinkOptions::default() };
/// let shrunk = shrink(failing, options, |_| {}, |_| {}).unwrap();
/// assert!(shrunk.report.violations().iter().any(|v| v.invariant.name() == shrunk.kind));
/// assert!(shrunk.runs <= 40);
/// ```
pub fn shrink<S: Service>(
    scenario: Scenario<S>,
    options: ShrinkOptions,
    mut on_step: impl FnMut(&Step),
    mut on_run: impl FnMut(usize),
) -> Result<Shrunk<S>, NotShrunk<S>> {
    let from = Size::of(&scenario);
    let first = World::new(scenario).run();
    on_run(1);
    let kind = match options.kind {
        Some(kind) => kind,
        None => {
            let violations = first.violations();
            match violations.iter().find(|v| v.invariant.is_safety()).or(violations.first()) {
                Some(v) => v.invariant.name().to_owned(),
                None => return Err(NotShrunk::Passes(Box::new(first))),
            }
        }
    };
    if !breaks(&first, &kind) {
        return Err(NotShrunk::Passes(Box::new(first)));
    }
    let original = first.scenario().clone();
    let mut best = first;
    let mut runs = 1;
    let mut steps = Vec::new();
    let mut gave_up = false;
    'rounds: loop {
        let mut kept_any = false;
        for pass in passes::<S>() {
            // Each pass starts over on the scenario it simplified last, until none of its
            // candidates keeps the failure.
            let mut skip = 0;
            loop {
                let candidates = pass(&best, &kind);
                let Some((change, candidate)) = candidates.into_iter().nth(skip) else { break };
                if runs >= options.max_runs {
                    gave_up = true;
                    break 'rounds;
                }
                runs += 1;
                let report = World::new(candidate).run();
                on_run(runs);
                if breaks(&report, &kind) {
                    best = report;
                    kept_any = true;
                    skip = 0;
                    let step = Step { run: runs, change, size: Size::of(best.scenario()) };
                    on_step(&step);
                    steps.push(step);
                } else {
                    skip += 1;
                }
            }
        }
        if !kept_any {
            break;
        }
    }
    Ok(Shrunk { kind, from, original, report: best, steps, runs, gave_up })
}

fn breaks<S: Service>(report: &RunReport<S>, kind: &str) -> bool {
    report.violations().iter().any(|v| v.invariant.name() == kind)
}

/// A kind of simplification: the candidates it makes of the last scenario that failed, the
/// boldest first.
type Pass<S> = fn(&RunReport<S>, &str) -> Vec<(String, Scenario<S>)>;

fn passes<S: Service>() -> [Pass<S>; 8] {
    [
        cut_the_run,
        drop_faults,
        drop_triggers,
        drop_processes,
        drop_kinds,
        no_lost_answers,
        shorten_faults,
        plain_processes,
    ]
}

/// The run ends two seconds after the violation (rounded up to a second), and its faults
/// after the new end of the safety phase are dropped; then half the run.
fn cut_the_run<S: Service>(report: &RunReport<S>, kind: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    let Some(violation) = report.violations().iter().find(|v| v.invariant.name() == kind) else { return Vec::new() };
    let after = (violation.window.1 + Duration::from_secs(2)).as_millis() as u64;
    let mut out = Vec::new();
    for duration_ms in [after.div_ceil(1000) * 1000, scenario.duration_ms / 2000 * 1000] {
        let duration_ms = duration_ms.max(1_000);
        if duration_ms >= scenario.duration_ms {
            continue;
        }
        let mut cut = scenario.clone();
        cut.duration_ms = duration_ms;
        cut.safety_ms = cut.safety_ms.min(duration_ms);
        cut.faults.retain(|f| f.at_ms < cut.safety_ms);
        cut.triggers.retain(|t| t.after_ms < cut.safety_ms);
        out.push((format!("ended the run at {} s", duration_ms / 1000), cut));
    }
    out
}

/// Chunks of `0..n` to remove: everything, then halves, quarters, ... single items.
fn chunks(n: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    out.push(0..n);
    let mut size = n / 2;
    while size >= 1 {
        let mut start = 0;
        while start < n {
            let end = (start + size).min(n);
            if end - start < n {
                out.push(start..end);
            }
            start = end;
        }
        if size == 1 {
            break;
        }
        size /= 2;
    }
    out.dedup();
    out
}

fn drop_faults<S: Service>(report: &RunReport<S>, _: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    chunks(scenario.faults.len())
        .into_iter()
        .map(|range| {
            let mut smaller = scenario.clone();
            let change = if range.len() == 1 {
                format!("removed fault {}: {}", range.start, describe_fault(&scenario.faults[range.start]))
            } else {
                format!("removed faults {}..{} of {}", range.start, range.end - 1, scenario.faults.len())
            };
            smaller.faults.drain(range);
            (change, smaller)
        })
        .collect()
}

fn drop_triggers<S: Service>(report: &RunReport<S>, _: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    chunks(scenario.triggers.len())
        .into_iter()
        .map(|range| {
            let mut smaller = scenario.clone();
            let change = if range.len() == 1 {
                format!("removed trigger {}: {}", range.start, describe_trigger(&scenario.triggers[range.start]))
            } else {
                format!("removed triggers {}..{} of {}", range.start, range.end - 1, scenario.triggers.len())
            };
            smaller.triggers.drain(range);
            (change, smaller)
        })
        .collect()
}

/// Each process in turn, the last first, with its faults and triggers; the ones after it are
/// renumbered.
fn drop_processes<S: Service>(report: &RunReport<S>, _: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    if scenario.processes.len() <= 1 {
        return Vec::new();
    }
    (0..scenario.processes.len())
        .rev()
        .map(|gone| {
            let gone = gone as u16;
            let mut smaller = scenario.clone();
            smaller.processes.remove(usize::from(gone));
            let renumber = |p: u16| if p > gone { p - 1 } else { p };
            smaller.faults = scenario
                .faults
                .iter()
                .filter(|f| f.fault.process() != Some(gone))
                .map(|f| ScheduledFault { at_ms: f.at_ms, fault: renumbered(&f.fault, renumber) })
                .collect();
            smaller.triggers = scenario
                .triggers
                .iter()
                .filter(|t| t.process != Some(gone))
                .map(|t| Trigger { process: t.process.map(renumber), ..t.clone() })
                .collect();
            (format!("removed process p{gone} and its faults"), smaller)
        })
        .collect()
}

fn renumbered(fault: &Fault, renumber: impl Fn(u16) -> u16) -> Fault {
    match fault.clone() {
        Fault::Crash { process, restart_after_ms } => Fault::Crash { process: renumber(process), restart_after_ms },
        Fault::Pause { process, for_ms } => Fault::Pause { process: renumber(process), for_ms },
        Fault::Suspend { process, for_ms } => Fault::Suspend { process: renumber(process), for_ms },
        Fault::Partition { process, for_ms } => Fault::Partition { process: renumber(process), for_ms },
        Fault::Latency { process, extra_ms, for_ms } => Fault::Latency { process: renumber(process), extra_ms, for_ms },
        Fault::Throttle { process, per_million, for_ms } => {
            Fault::Throttle { process: process.map(renumber), per_million, for_ms }
        }
        Fault::PartialBatches { process, per_million, for_ms } => {
            Fault::PartialBatches { process: process.map(renumber), per_million, for_ms }
        }
        Fault::ClockStep { process, delta_ms } => Fault::ClockStep { process: renumber(process), delta_ms },
        other @ (Fault::TableOutage { .. } | Fault::DeleteItem { .. } | Fault::ReplaceItem { .. }) => other,
    }
}

/// Each workload of a process that has more than one.
fn drop_kinds<S: Service>(report: &RunReport<S>, _: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    let mut out = Vec::new();
    for (id, process) in scenario.processes.iter().enumerate() {
        if process.kinds.len() <= 1 {
            continue;
        }
        for (index, kind) in process.kinds.iter().enumerate().rev() {
            let mut smaller = scenario.clone();
            smaller.processes[id].kinds.remove(index);
            out.push((format!("removed the workload {} of p{id}", scenario.service.kind_name(kind)), smaller));
        }
    }
    out
}

fn no_lost_answers<S: Service>(report: &RunReport<S>, _: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    if scenario.loss_ppm == 0 {
        return Vec::new();
    }
    let mut plain = scenario.clone();
    plain.loss_ppm = 0;
    vec![(String::from("no lost answers"), plain)]
}

/// Each fault and trigger with its length (or step) halved.
fn shorten_faults<S: Service>(report: &RunReport<S>, _: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    let mut out = Vec::new();
    for (index, scheduled) in scenario.faults.iter().enumerate() {
        let halved = match scheduled.fault.clone() {
            Fault::Crash { process, restart_after_ms } if restart_after_ms > 1 => {
                Fault::Crash { process, restart_after_ms: restart_after_ms / 2 }
            }
            Fault::Pause { process, for_ms } if for_ms > 1 => Fault::Pause { process, for_ms: for_ms / 2 },
            Fault::Suspend { process, for_ms } if for_ms > 1 => Fault::Suspend { process, for_ms: for_ms / 2 },
            Fault::Partition { process, for_ms } if for_ms > 1 => Fault::Partition { process, for_ms: for_ms / 2 },
            Fault::Latency { process, extra_ms, for_ms } if for_ms > 1 => {
                Fault::Latency { process, extra_ms, for_ms: for_ms / 2 }
            }
            Fault::Throttle { process, per_million, for_ms } if for_ms > 1 => {
                Fault::Throttle { process, per_million, for_ms: for_ms / 2 }
            }
            Fault::PartialBatches { process, per_million, for_ms } if for_ms > 1 => {
                Fault::PartialBatches { process, per_million, for_ms: for_ms / 2 }
            }
            Fault::TableOutage { table, for_ms } if for_ms > 1 => Fault::TableOutage { table, for_ms: for_ms / 2 },
            Fault::ClockStep { process, delta_ms } if delta_ms.abs() > 1 => {
                Fault::ClockStep { process, delta_ms: delta_ms / 2 }
            }
            _ => continue,
        };
        let mut shorter = scenario.clone();
        shorter.faults[index].fault = halved;
        let change = format!("halved fault {index}: {}", describe_fault(&shorter.faults[index]));
        out.push((change, shorter));
    }
    for (index, trigger) in scenario.triggers.iter().enumerate() {
        let halved = match trigger.reaction.clone() {
            Reaction::Pause { for_ms } if for_ms > 1 => Reaction::Pause { for_ms: for_ms / 2 },
            Reaction::Suspend { for_ms } if for_ms > 1 => Reaction::Suspend { for_ms: for_ms / 2 },
            Reaction::Crash { restart_after_ms } if restart_after_ms > 1 => {
                Reaction::Crash { restart_after_ms: restart_after_ms / 2 }
            }
            Reaction::Partition { for_ms } if for_ms > 1 => Reaction::Partition { for_ms: for_ms / 2 },
            Reaction::Throttle { per_million, for_ms } if for_ms > 1 => {
                Reaction::Throttle { per_million, for_ms: for_ms / 2 }
            }
            Reaction::ClockStep { delta_ms } if delta_ms.abs() > 1 => Reaction::ClockStep { delta_ms: delta_ms / 2 },
            Reaction::DelayAnswer { extra_ms } if extra_ms > 1 => Reaction::DelayAnswer { extra_ms: extra_ms / 2 },
            Reaction::DelayRequest { extra_ms } if extra_ms > 1 => Reaction::DelayRequest { extra_ms: extra_ms / 2 },
            Reaction::HoldUntilRead { min_ms } if min_ms > 1 => Reaction::HoldUntilRead { min_ms: min_ms / 2 },
            Reaction::Outage { kind, for_ms } if for_ms > 1 => Reaction::Outage { kind, for_ms: for_ms / 2 },
            _ => continue,
        };
        let mut shorter = scenario.clone();
        shorter.triggers[index].reaction = halved;
        let change = format!("halved trigger {index}: {}", describe_trigger(&shorter.triggers[index]));
        out.push((change, shorter));
    }
    out
}

/// Each process with a clock that is right and a network of the default latency.
fn plain_processes<S: Service>(report: &RunReport<S>, _: &str) -> Vec<(String, Scenario<S>)> {
    let scenario = report.scenario();
    let mut out = Vec::new();
    for (id, process) in scenario.processes.iter().enumerate() {
        let mut plainer = |change: String, edit: &dyn Fn(&mut crate::ProcessSpec<S::Kind>)| {
            let mut candidate = scenario.clone();
            edit(&mut candidate.processes[id]);
            out.push((change, candidate));
        };
        if process.clock.offset_ms != 0 {
            plainer(format!("p{id}'s wall clock right (was {:+} ms)", process.clock.offset_ms), &|p| {
                p.clock.offset_ms = 0
            });
        }
        if process.clock.drift_ppm != 0 {
            plainer(format!("p{id}'s clock without drift (was {:+} ppm)", process.clock.drift_ppm), &|p| {
                p.clock.drift_ppm = 0
            });
        }
        if process.net != NetSpec::default() {
            plainer(format!("p{id}'s network of the default latency"), &|p| p.net = NetSpec::default());
        }
    }
    out
}

/// A fault in a few words: `pause of p0 at 45.000 s for 40.000 s`.
pub fn describe_fault(scheduled: &ScheduledFault) -> String {
    let at = seconds(Duration::from_millis(scheduled.at_ms));
    let span = |ms: u64| seconds(Duration::from_millis(ms));
    match &scheduled.fault {
        Fault::Crash { process, restart_after_ms } => {
            format!("crash of p{process} at {at}, restart after {}", span(*restart_after_ms))
        }
        Fault::Pause { process, for_ms } => format!("pause of p{process} at {at} for {}", span(*for_ms)),
        Fault::Suspend { process, for_ms } => format!("suspension of p{process} at {at} for {}", span(*for_ms)),
        Fault::Partition { process, for_ms } => format!("partition of p{process} at {at} for {}", span(*for_ms)),
        Fault::Latency { process, extra_ms, for_ms } => {
            format!("latency +{extra_ms} ms of p{process} at {at} for {}", span(*for_ms))
        }
        Fault::Throttle { process, per_million, for_ms } => {
            let whom = crate::nemesis::whom(*process);
            format!("throttling of {whom} ({}%) at {at} for {}", crate::nemesis::percent(*per_million), span(*for_ms))
        }
        Fault::PartialBatches { process, per_million, for_ms } => {
            let whom = crate::nemesis::whom(*process);
            let share = crate::nemesis::percent(*per_million);
            format!("batches of {whom} processed in part ({share}%) at {at} for {}", span(*for_ms))
        }
        Fault::TableOutage { table, for_ms } => format!("outage of table {table} at {at} for {}", span(*for_ms)),
        Fault::DeleteItem { item } => format!("deletion of {item} at {at}"),
        Fault::ReplaceItem { item, for_ms } => {
            format!("an entity of another kind at the key of {item} at {at} for {}", span(*for_ms))
        }
        Fault::ClockStep { process, delta_ms } => format!("wall-clock step of p{process} by {delta_ms:+} ms at {at}"),
    }
}

/// A trigger in a few words.
pub fn describe_trigger(trigger: &Trigger) -> String {
    let whom = trigger.process.map_or(String::from("any process"), |p| format!("p{p}"));
    let item = trigger.item.as_deref().unwrap_or("any item");
    let label = trigger.label.as_deref().map(|l| format!(" ({l})")).unwrap_or_default();
    format!(
        "from {}, when {whom} {} {item}{label}: {:?}",
        seconds(Duration::from_millis(trigger.after_ms)),
        trigger.moment.describe(),
        trigger.reaction
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_go_from_everything_to_single_items() {
        assert_eq!(chunks(0), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(chunks(1), vec![0..1]);
        assert_eq!(chunks(4), vec![0..4, 0..2, 2..4, 0..1, 1..2, 2..3, 3..4]);
        assert_eq!(chunks(3), vec![0..3, 0..1, 1..2, 2..3]);
    }
}
