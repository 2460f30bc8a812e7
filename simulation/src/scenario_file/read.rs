//! From a file to a scenario: the checks that serde cannot make, each error at the table it
//! concerns.

use super::format::*;
use super::{MAX_PROCESSES, ScenarioFileError, top_level_span};
use crate::clock::ClockSpec;
use crate::faults::{Fault, ScheduledFault};
use crate::net::NetSpec;
use crate::roles::Role;
use crate::scenario::{LockKind, ProcessSpec, RoleKind, Scenario};
use crate::triggers::{Moment, Reaction, Trigger, Whom};

impl FileScenario {
    /// The scenario of the file, checked; `text` is the file, for the places of errors.
    pub(super) fn scenario(self, text: &str) -> Result<Scenario, ScenarioFileError> {
        let top = |field: &str, message: String| {
            ScenarioFileError::at(text, top_level_span(text, field), field.to_owned(), message)
        };
        in_range("duration_ms", self.duration_ms, 1_000, 86_400_000).map_err(|m| top("duration_ms", m))?;
        lease_in_range(self.lease_ms).map_err(|m| top("lease_ms", m))?;
        in_range("loss_ppm", u64::from(self.loss_ppm), 0, 1_000_000).map_err(|m| top("loss_ppm", m))?;
        if self.processes.is_empty() || self.processes.len() > MAX_PROCESSES {
            return Err(top(
                "processes",
                format!("a scenario has 1 to {MAX_PROCESSES} processes, not {}", self.processes.len()),
            ));
        }
        let n = self.processes.len();
        let mut processes = Vec::with_capacity(n);
        for (id, process) in self.processes.into_iter().enumerate() {
            let span = process.span();
            let here = |field: &str, message: String| {
                ScenarioFileError::at(text, Some(span.clone()), format!("processes[{id}].{field}"), message)
            };
            let process = process.into_inner();
            if let Some(lease_ms) = process.lease_ms {
                lease_in_range(lease_ms).map_err(|m| here("lease_ms", m))?;
            }
            let lease_ms = process.lease_ms.unwrap_or(self.lease_ms);
            if process.clock.drift_ppm.unsigned_abs() >= 1_000_000 {
                return Err(here(
                    "clock.drift_ppm",
                    format!("a drift of {} ppm stops or reverses the clock", process.clock.drift_ppm),
                ));
            }
            let net =
                NetSpec { latency_ms_min: process.net.latency_ms_min, latency_ms_max: process.net.latency_ms_max };
            if net.latency_ms_min > net.latency_ms_max || net.latency_ms_max > 60_000 {
                return Err(here(
                    "net",
                    format!(
                        "latency_ms_min ({}) must not exceed latency_ms_max ({}), nor that 60000",
                        net.latency_ms_min, net.latency_ms_max
                    ),
                ));
            }
            let mut roles = Vec::with_capacity(process.roles.len());
            for (index, role) in process.roles.into_iter().enumerate() {
                let span = role.span();
                let role = role.into_inner().role(lease_ms).map_err(|(field, message)| {
                    ScenarioFileError::at(text, Some(span), format!("processes[{id}].roles[{index}]{field}"), message)
                })?;
                roles.push(role);
            }
            processes.push(ProcessSpec {
                clock: ClockSpec {
                    offset_ms: process.clock.offset_ms,
                    drift_ppm: process.clock.drift_ppm,
                    uptime_ms: process.clock.uptime_ms,
                },
                net,
                roles,
                custom: Vec::new(),
                lease_ms: process.lease_ms,
            });
        }
        let mut faults = Vec::with_capacity(self.faults.len());
        for (index, fault) in self.faults.into_iter().enumerate() {
            let span = fault.span();
            let fault = fault.into_inner().fault(n).map_err(|(field, message)| {
                ScenarioFileError::at(text, Some(span), format!("faults[{index}]{field}"), message)
            })?;
            faults.push(fault);
        }
        let mut triggers = Vec::with_capacity(self.triggers.len());
        for (index, trigger) in self.triggers.into_iter().enumerate() {
            let span = trigger.span();
            let trigger = trigger.into_inner().trigger(n).map_err(|(field, message)| {
                ScenarioFileError::at(text, Some(span), format!("triggers[{index}]{field}"), message)
            })?;
            triggers.push(trigger);
        }
        let mut scenario = Scenario {
            seed: self.seed,
            lock: match self.lock {
                FileLock::Library => LockKind::Library,
                FileLock::Naive => LockKind::Naive,
            },
            duration_ms: self.duration_ms,
            safety_ms: 0,
            lease_ms: self.lease_ms,
            processes,
            loss_ppm: self.loss_ppm,
            faults,
            triggers,
        };
        scenario.safety_ms = match self.safety_ms {
            Some(safety_ms) if safety_ms > self.duration_ms => {
                return Err(top(
                    "safety_ms",
                    format!("the safety phase ({safety_ms} ms) is longer than the run ({} ms)", self.duration_ms),
                ));
            }
            Some(safety_ms) => safety_ms,
            None => crate::scenario::safety_ms(scenario.duration_ms, scenario.longest_lease_ms()),
        };
        Ok(scenario)
    }
}

fn in_range(what: &str, value: u64, low: u64, high: u64) -> Result<(), String> {
    if (low..=high).contains(&value) { Ok(()) } else { Err(format!("{what} is {value}, not within {low}..={high}")) }
}

fn lease_in_range(lease_ms: u64) -> Result<(), String> {
    if (1_000..=86_400_000).contains(&lease_ms) {
        Ok(())
    } else {
        Err(format!("a lease lasts from 1000 ms (1 s) to 86400000 ms (a day), not {lease_ms} ms"))
    }
}

/// An error of one field of a table: the field's path below the table, and what is wrong.
type FieldError = (String, String);

/// The fields present in a table of a kind, checked against the ones the kind has.
struct Fields<'a> {
    what: &'a str,
    present: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    fn new(what: &'a str, present: impl IntoIterator<Item = (&'static str, bool)>) -> Self {
        Fields { what, present: present.into_iter().filter(|(_, on)| *on).map(|(name, _)| name).collect() }
    }

    /// An error for the first field present that the kind does not have.
    fn only(&self, allowed: &[&str]) -> Result<(), FieldError> {
        match self.present.iter().find(|name| !allowed.contains(name)) {
            Some(name) => {
                let has = if allowed.is_empty() { String::from("none") } else { allowed.join(", ") };
                Err((format!(".{name}"), format!("{} has no `{name}` (its fields: {has})", self.what)))
            }
            None => Ok(()),
        }
    }
}

/// The value of a field the kind needs.
fn need<T>(what: &str, name: &str, value: Option<T>) -> Result<T, FieldError> {
    value.ok_or_else(|| (format!(".{name}"), format!("{what} needs `{name}`")))
}

/// A pace, which must leave the simulated time room to advance.
fn pace(name: &str, value: u64) -> Result<u64, FieldError> {
    if value < 100 {
        return Err((format!(".{name}"), format!("{name} is {value}, less than 100 ms")));
    }
    Ok(value)
}

fn process_of(name: &str, value: u16, n: usize) -> Result<u16, FieldError> {
    if usize::from(value) >= n {
        return Err((
            format!(".{name}"),
            format!("p{value} is not a process of this scenario, which has p0..p{}", n - 1),
        ));
    }
    Ok(value)
}

fn probability(value: u32) -> Result<u32, FieldError> {
    if value > 1_000_000 {
        return Err((String::from(".per_million"), format!("per_million is {value}, more than 1000000")));
    }
    Ok(value)
}

impl FileRole {
    /// The role, with the defaults of its kind for a lease of `lease_ms` where a field is
    /// left out.
    fn role(self, lease_ms: u64) -> Result<Role, FieldError> {
        let what = match self.role {
            RoleName::Leader => "a leader",
            RoleName::StoreWriter => "a store writer",
            RoleName::Job => "a job",
            RoleName::TryLoop => "a try-loop",
            RoleName::TokenHolder => "a token holder",
            RoleName::ScopeHolder => "a scope holder",
            RoleName::Watcher => "a watcher",
        };
        let fields = Fields::new(
            what,
            [
                ("write_every_ms", self.write_every_ms.is_some()),
                ("resigns", self.resigns.is_some()),
                ("every_ms_max", self.every_ms_max.is_some()),
                ("timeout_ms", self.timeout_ms.is_some()),
                ("writes", self.writes.is_some()),
                ("steps", self.steps.is_some()),
            ],
        );
        let kind = match self.role {
            RoleName::Leader => RoleKind::Leader,
            RoleName::StoreWriter => RoleKind::StoreWriter,
            RoleName::Job => RoleKind::Job,
            RoleName::TryLoop => RoleKind::TryLoop,
            RoleName::TokenHolder => RoleKind::TokenHolder,
            RoleName::ScopeHolder => RoleKind::ScopeHolder,
            RoleName::Watcher => RoleKind::Watcher,
        };
        if self.lock.as_deref() == Some("") {
            return Err((String::from(".lock"), String::from("a lock has a name")));
        }
        let role = match (kind.role(lease_ms), self.lock) {
            (Role::Leader { lock, write_every_ms, resigns }, name) => {
                fields.only(&["write_every_ms", "resigns"])?;
                Role::Leader {
                    lock: name.unwrap_or(lock),
                    write_every_ms: pace("write_every_ms", self.write_every_ms.unwrap_or(write_every_ms))?,
                    resigns: self.resigns.unwrap_or(resigns),
                }
            }
            (Role::StoreWriter { lock, every_ms_max, writes }, name) => {
                fields.only(&["every_ms_max", "writes"])?;
                Role::StoreWriter {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                    writes: self.writes.unwrap_or(writes),
                }
            }
            (Role::Job { lock, every_ms_max, timeout_ms, writes }, name) => {
                fields.only(&["every_ms_max", "timeout_ms", "writes"])?;
                Role::Job {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                    timeout_ms: self.timeout_ms.unwrap_or(timeout_ms),
                    writes: self.writes.unwrap_or(writes),
                }
            }
            (Role::TryLoop { lock, every_ms_max }, name) => {
                fields.only(&["every_ms_max"])?;
                Role::TryLoop {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                }
            }
            (Role::TokenHolder { lock, every_ms_max, steps }, name) => {
                fields.only(&["every_ms_max", "steps"])?;
                Role::TokenHolder {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                    steps: self.steps.unwrap_or(steps),
                }
            }
            (Role::ScopeHolder { lock, every_ms_max, steps }, name) => {
                fields.only(&["every_ms_max", "steps"])?;
                Role::ScopeHolder {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                    steps: self.steps.unwrap_or(steps),
                }
            }
            (Role::Watcher { lock, every_ms_max }, name) => {
                fields.only(&["every_ms_max"])?;
                Role::Watcher {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                }
            }
        };
        Ok(role)
    }
}

impl FileFault {
    fn fault(self, n: usize) -> Result<ScheduledFault, FieldError> {
        let (what, allowed): (&str, &[&str]) = match self.kind {
            FaultName::Crash => ("a crash", &["process", "restart_after_ms"]),
            FaultName::Pause => ("a pause", &["process", "for_ms"]),
            FaultName::Suspend => ("a suspension", &["process", "for_ms"]),
            FaultName::Partition => ("a partition", &["process", "for_ms"]),
            FaultName::Latency => ("a latency spike", &["process", "extra_ms", "for_ms"]),
            FaultName::Throttle => ("a throttling burst", &["process", "per_million", "for_ms"]),
            FaultName::TableOutage => ("a table outage", &["for_ms"]),
            FaultName::DeleteItem => ("a deletion", &["lock"]),
            FaultName::CorruptItem => ("an entity at a lock's key", &["lock", "for_ms"]),
            FaultName::ClockStep => ("a clock step", &["process", "delta_ms"]),
        };
        let fields = Fields::new(
            what,
            [
                ("process", self.process.is_some()),
                ("for_ms", self.for_ms.is_some()),
                ("restart_after_ms", self.restart_after_ms.is_some()),
                ("extra_ms", self.extra_ms.is_some()),
                ("per_million", self.per_million.is_some()),
                ("delta_ms", self.delta_ms.is_some()),
                ("lock", self.lock.is_some()),
            ],
        );
        fields.only(allowed)?;
        let process = || need(what, "process", self.process).and_then(|p| process_of("process", p, n));
        let for_ms = || need(what, "for_ms", self.for_ms);
        let fault = match self.kind {
            FaultName::Crash => Fault::Crash {
                process: process()?,
                restart_after_ms: need(what, "restart_after_ms", self.restart_after_ms)?,
            },
            FaultName::Pause => Fault::Pause { process: process()?, for_ms: for_ms()? },
            FaultName::Suspend => Fault::Suspend { process: process()?, for_ms: for_ms()? },
            FaultName::Partition => Fault::Partition { process: process()?, for_ms: for_ms()? },
            FaultName::Latency => Fault::Latency {
                process: process()?,
                extra_ms: need(what, "extra_ms", self.extra_ms)?,
                for_ms: for_ms()?,
            },
            FaultName::Throttle => Fault::Throttle {
                process: self.process.map(|p| process_of("process", p, n)).transpose()?,
                per_million: probability(need(what, "per_million", self.per_million)?)?,
                for_ms: for_ms()?,
            },
            FaultName::TableOutage => Fault::TableOutage { for_ms: for_ms()? },
            FaultName::DeleteItem => Fault::DeleteItem { lock: need(what, "lock", self.lock)? },
            FaultName::CorruptItem => Fault::CorruptItem { lock: need(what, "lock", self.lock)?, for_ms: for_ms()? },
            FaultName::ClockStep => {
                Fault::ClockStep { process: process()?, delta_ms: need(what, "delta_ms", self.delta_ms)? }
            }
        };
        Ok(ScheduledFault { at_ms: self.at_ms, fault })
    }
}

impl FileTrigger {
    fn trigger(self, n: usize) -> Result<Trigger, FieldError> {
        let (what, allowed): (&str, &[&str]) = match self.reaction {
            ReactionKind::Pause => ("a pause", &["for_ms"]),
            ReactionKind::Suspend => ("a suspension", &["for_ms"]),
            ReactionKind::Crash => ("a crash", &["restart_after_ms"]),
            ReactionKind::Partition => ("a partition", &["for_ms"]),
            ReactionKind::Throttle => ("a throttling burst", &["per_million", "for_ms"]),
            ReactionKind::ClockStep => ("a clock step", &["delta_ms"]),
            ReactionKind::DelayAnswer => ("a delayed answer", &["extra_ms"]),
            ReactionKind::LoseAnswer => ("a lost answer", &[]),
            ReactionKind::DelayRequest => ("a delayed request", &["extra_ms"]),
            ReactionKind::HoldUntilRead => ("a write held until a read", &["min_ms"]),
            ReactionKind::HoldUntilTakeover => ("a write held until a takeover", &[]),
            ReactionKind::DeleteItem => ("a deletion", &[]),
            ReactionKind::StopUntilTakeover => ("a stop until the takeover", &["lead_ms", "suspend"]),
            ReactionKind::Overtake => ("an overtaken message", &["by", "writes", "stop", "then", "for_ms"]),
        };
        let fields = Fields::new(
            what,
            [
                ("for_ms", self.for_ms.is_some()),
                ("restart_after_ms", self.restart_after_ms.is_some()),
                ("per_million", self.per_million.is_some()),
                ("delta_ms", self.delta_ms.is_some()),
                ("extra_ms", self.extra_ms.is_some()),
                ("min_ms", self.min_ms.is_some()),
                ("lead_ms", self.lead_ms.is_some()),
                ("suspend", self.suspend.is_some()),
                ("by", self.by.is_some()),
                ("writes", self.writes.is_some()),
                ("stop", self.stop.is_some()),
                ("then", self.then.is_some()),
            ],
        );
        fields.only(allowed)?;
        if let Some(process) = self.process {
            process_of("process", process, n)?;
        }
        let for_ms = || need(what, "for_ms", self.for_ms);
        let reaction = match self.reaction {
            ReactionKind::Pause => Reaction::Pause { for_ms: for_ms()? },
            ReactionKind::Suspend => Reaction::Suspend { for_ms: for_ms()? },
            ReactionKind::Crash => {
                Reaction::Crash { restart_after_ms: need(what, "restart_after_ms", self.restart_after_ms)? }
            }
            ReactionKind::Partition => Reaction::Partition { for_ms: for_ms()? },
            ReactionKind::Throttle => Reaction::Throttle {
                per_million: probability(need(what, "per_million", self.per_million)?)?,
                for_ms: for_ms()?,
            },
            ReactionKind::ClockStep => Reaction::ClockStep { delta_ms: need(what, "delta_ms", self.delta_ms)? },
            ReactionKind::DelayAnswer => Reaction::DelayAnswer { extra_ms: need(what, "extra_ms", self.extra_ms)? },
            ReactionKind::LoseAnswer => Reaction::LoseAnswer,
            ReactionKind::DelayRequest => Reaction::DelayRequest { extra_ms: need(what, "extra_ms", self.extra_ms)? },
            ReactionKind::HoldUntilRead => Reaction::HoldUntilRead { min_ms: need(what, "min_ms", self.min_ms)? },
            ReactionKind::HoldUntilTakeover => Reaction::HoldUntilTakeover,
            ReactionKind::DeleteItem => Reaction::DeleteItem,
            ReactionKind::StopUntilTakeover => Reaction::StopUntilTakeover {
                lead_ms: self.lead_ms.unwrap_or(0),
                suspend: self.suspend.unwrap_or(false),
            },
            ReactionKind::Overtake => {
                let by = self.by.unwrap_or(1);
                if by == 0 {
                    return Err((String::from(".by"), String::from("at least one read or write passes the message")));
                }
                let stop = match (self.stop, self.then) {
                    (None, None) => None,
                    (Some(whom), Some(how)) => {
                        let for_ms = need(what, "for_ms", self.for_ms)?;
                        let how = match how {
                            StopName::Pause => Reaction::Pause { for_ms },
                            StopName::Suspend => Reaction::Suspend { for_ms },
                            StopName::Crash => Reaction::Crash { restart_after_ms: for_ms },
                        };
                        let whom = match whom {
                            WhomName::Overtaker => Whom::Overtaker,
                            WhomName::Sender => Whom::Sender,
                        };
                        Some((whom, Box::new(how)))
                    }
                    (Some(_), None) => {
                        return Err((String::from(".then"), String::from("a stop says how: pause, suspend or crash")));
                    }
                    (None, Some(_)) => {
                        return Err((String::from(".stop"), String::from("a stop says whom: overtaker or sender")));
                    }
                };
                Reaction::Overtake { by, writes: self.writes.unwrap_or(true), stop }
            }
        };
        let moment = match self.moment {
            MomentName::LockWriteSent => Moment::LockWriteSent,
            MomentName::Granted => Moment::Granted,
            MomentName::Renewed => Moment::Renewed,
            MomentName::RenewalAnswered => Moment::RenewalAnswered,
            MomentName::Waiting => Moment::Waiting,
            MomentName::LockReadSent => Moment::LockReadSent,
            MomentName::Released => Moment::Released,
        };
        Ok(Trigger { after_ms: self.after_ms, process: self.process, lock: self.lock, moment, reaction })
    }
}
