//! From a file to a scenario: the checks that serde cannot make, each error at the table it
//! concerns.

use super::format::*;
use super::{MAX_PROCESSES, ScenarioFileError, top_level_span};
use crate::clock::ClockSpec;
use crate::item::ItemRef;
use crate::nemesis::{Fault, Reaction, ScheduledFault, Trigger, Whom};
use crate::net::NetSpec;
use crate::scenario::Scenario;
use crate::service::Service;
use crate::spec::ProcessSpec;

impl FileScenario {
    /// The scenario of the file, checked; `text` is the file, for the places of errors.
    pub(super) fn scenario<S: Service>(self, text: &str) -> Result<Scenario<S>, ScenarioFileError> {
        let top = |field: &str, message: String| {
            ScenarioFileError::at(text, top_level_span(text, field), field.to_owned(), message)
        };
        if self.service != S::NAME {
            return Err(top(
                "service",
                format!(
                    "the file is a scenario of the service `{}`, not of `{}`, which this program runs",
                    self.service,
                    S::NAME
                ),
            ));
        }
        in_range("duration_ms", self.duration_ms, 1_000, 86_400_000).map_err(|m| top("duration_ms", m))?;
        in_range("loss_ppm", u64::from(self.loss_ppm), 0, 1_000_000).map_err(|m| top("loss_ppm", m))?;
        let (options, options_span) = match self.options {
            Some(options) => {
                let span = options.span();
                (options.into_inner(), Some(span))
            }
            None => (toml::Table::new(), None),
        };
        let service: S = serde_path_to_error::deserialize(toml::Value::Table(options)).map_err(|err| {
            let field = format!("options.{}", err.path()).trim_end_matches('.').to_owned();
            ScenarioFileError::at(text, options_span.clone(), field, err.into_inner().message().trim_end().to_owned())
        })?;
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
            let mut kinds = Vec::with_capacity(process.kinds.len());
            for (index, kind) in process.kinds.into_iter().enumerate() {
                let span = kind.span();
                let kind: S::Kind = serde_path_to_error::deserialize(kind.into_inner()).map_err(|err| {
                    let path = err.path().to_string();
                    let field = if path == "." { String::new() } else { format!(".{path}") };
                    ScenarioFileError::at(
                        text,
                        Some(span.clone()),
                        format!("processes[{id}].kinds[{index}]{field}"),
                        err.into_inner().message().trim_end().to_owned(),
                    )
                })?;
                kinds.push(kind);
            }
            processes.push(ProcessSpec {
                clock: ClockSpec {
                    offset_ms: process.clock.offset_ms,
                    drift_ppm: process.clock.drift_ppm,
                    uptime_ms: process.clock.uptime_ms,
                },
                net,
                kinds,
            });
        }
        let tables = service.tables();
        let mut faults = Vec::with_capacity(self.faults.len());
        for (index, fault) in self.faults.into_iter().enumerate() {
            let span = fault.span();
            let fault = fault.into_inner().fault(n, &tables).map_err(|(field, message)| {
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
        let safety_ms = match self.safety_ms {
            Some(safety_ms) if safety_ms > self.duration_ms => {
                return Err(top(
                    "safety_ms",
                    format!("the safety phase ({safety_ms} ms) is longer than the run ({} ms)", self.duration_ms),
                ));
            }
            Some(safety_ms) => safety_ms,
            None => crate::scenario::safety_ms(self.duration_ms, service.healed_ms(&processes)),
        };
        Ok(Scenario {
            seed: self.seed,
            service,
            duration_ms: self.duration_ms,
            safety_ms,
            processes,
            loss_ppm: self.loss_ppm,
            faults,
            triggers,
        })
    }
}

fn in_range(what: &str, value: u64, low: u64, high: u64) -> Result<(), String> {
    if (low..=high).contains(&value) { Ok(()) } else { Err(format!("{what} is {value}, not within {low}..={high}")) }
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

fn process_of(name: &str, value: u16, n: usize) -> Result<u16, FieldError> {
    if usize::from(value) >= n {
        return Err((
            format!(".{name}"),
            format!("p{value} is not a process of this scenario, which has p0..p{}", n - 1),
        ));
    }
    Ok(value)
}

/// The item a fault names.
fn item(what: &str, text: Option<String>) -> Result<ItemRef, FieldError> {
    need(what, "item", text)?.parse().map_err(|e| (String::from(".item"), e))
}

fn probability(value: u32) -> Result<u32, FieldError> {
    if value > 1_000_000 {
        return Err((String::from(".per_million"), format!("per_million is {value}, more than 1000000")));
    }
    Ok(value)
}

impl FileFault {
    fn fault(self, n: usize, tables: &[String]) -> Result<ScheduledFault, FieldError> {
        let (what, allowed): (&str, &[&str]) = match self.kind {
            FaultName::Crash => ("a crash", &["process", "restart_after_ms"]),
            FaultName::Pause => ("a pause", &["process", "for_ms"]),
            FaultName::Suspend => ("a suspension", &["process", "for_ms"]),
            FaultName::Partition => ("a partition", &["process", "for_ms"]),
            FaultName::Latency => ("a latency spike", &["process", "extra_ms", "for_ms"]),
            FaultName::Throttle => ("a throttling burst", &["process", "per_million", "for_ms"]),
            FaultName::PartialBatches => ("a burst of partial batches", &["process", "per_million", "for_ms"]),
            FaultName::TableOutage => ("a table outage", &["table", "for_ms"]),
            FaultName::DeleteItem => ("a deletion", &["item"]),
            FaultName::ReplaceItem => ("an entity of another kind at an item's key", &["item", "for_ms"]),
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
                ("table", self.table.is_some()),
                ("item", self.item.is_some()),
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
            FaultName::PartialBatches => Fault::PartialBatches {
                process: self.process.map(|p| process_of("process", p, n)).transpose()?,
                per_million: probability(need(what, "per_million", self.per_million)?)?,
                for_ms: for_ms()?,
            },
            FaultName::TableOutage => {
                let table = match (self.table, tables) {
                    (Some(table), _) => table,
                    (None, [only]) => only.clone(),
                    (None, _) => {
                        return Err((String::from(".table"), format!("{what} needs `table`: the service has several")));
                    }
                };
                Fault::TableOutage { table, for_ms: for_ms()? }
            }
            FaultName::DeleteItem => Fault::DeleteItem { item: item(what, self.item)? },
            FaultName::ReplaceItem => Fault::ReplaceItem { item: item(what, self.item)?, for_ms: for_ms()? },
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
            ReactionKind::HoldUntilDue => ("a write held until its item falls due", &[]),
            ReactionKind::DeleteItem => ("a deletion", &[]),
            ReactionKind::StopUntilDue => ("a stop until the item falls due", &["lead_ms", "suspend"]),
            ReactionKind::Overtake => ("an overtaken message", &["by", "writes", "stop", "then", "for_ms"]),
            ReactionKind::Outage => ("an outage", &["outage", "for_ms"]),
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
                ("outage", self.outage.is_some()),
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
            ReactionKind::HoldUntilDue => Reaction::HoldUntilDue,
            ReactionKind::DeleteItem => Reaction::DeleteItem,
            ReactionKind::Outage => Reaction::Outage { kind: need(what, "outage", self.outage)?, for_ms: for_ms()? },
            ReactionKind::StopUntilDue => {
                Reaction::StopUntilDue { lead_ms: self.lead_ms.unwrap_or(0), suspend: self.suspend.unwrap_or(false) }
            }
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
        if let Some(item) = &self.item {
            item.parse::<ItemRef>().map_err(|e| (String::from(".item"), e))?;
        }
        if !reaction.fits(self.moment) {
            return Err((
                String::from(".reaction"),
                format!("{what} cannot happen at the moment `{}`", self.moment.name()),
            ));
        }
        Ok(Trigger {
            after_ms: self.after_ms,
            process: self.process,
            item: self.item,
            label: self.label,
            moment: self.moment,
            reaction,
        })
    }
}
