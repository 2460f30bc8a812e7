//! From a scenario to a file: every field that shapes the run, defaults too.

use super::format::*;
use crate::nemesis::{Fault, Reaction, ScheduledFault, Trigger, Whom};
use crate::scenario::Scenario;
use crate::service::Service;
use crate::spec::ProcessSpec;

impl FileScenario {
    /// The file of `scenario`, every field spelled out.
    pub(super) fn of<S: Service>(scenario: &Scenario<S>) -> Self {
        let options = match toml::Value::try_from(&scenario.service) {
            Ok(toml::Value::Table(table)) if !table.is_empty() => Some(unspanned(table)),
            _ => None,
        };
        FileScenario {
            service: S::NAME.to_owned(),
            seed: scenario.seed,
            duration_ms: scenario.duration_ms,
            safety_ms: Some(scenario.safety_ms),
            loss_ppm: scenario.loss_ppm,
            options,
            processes: scenario.processes.iter().map(|p| unspanned(FileProcess::of(p))).collect(),
            faults: scenario.faults.iter().map(|f| unspanned(FileFault::of(f))).collect(),
            triggers: scenario.triggers.iter().map(|t| unspanned(FileTrigger::of(t))).collect(),
        }
    }
}

impl FileProcess {
    fn of<K: serde::Serialize>(process: &ProcessSpec<K>) -> Self {
        FileProcess {
            clock: FileClock {
                offset_ms: process.clock.offset_ms,
                drift_ppm: process.clock.drift_ppm,
                uptime_ms: process.clock.uptime_ms,
            },
            net: FileNet { latency_ms_min: process.net.latency_ms_min, latency_ms_max: process.net.latency_ms_max },
            kinds: process
                .kinds
                .iter()
                .map(|kind| {
                    let value = toml::Value::try_from(kind)
                        .unwrap_or_else(|err| toml::Value::String(format!("(cannot be written: {err})")));
                    unspanned(value)
                })
                .collect(),
        }
    }
}

impl FileFault {
    fn of(scheduled: &ScheduledFault) -> Self {
        let mut file = FileFault {
            at_ms: scheduled.at_ms,
            kind: FaultName::Crash,
            process: scheduled.fault.process(),
            for_ms: None,
            restart_after_ms: None,
            extra_ms: None,
            per_million: None,
            delta_ms: None,
            table: None,
            item: None,
        };
        match &scheduled.fault {
            Fault::Crash { restart_after_ms, .. } => file.restart_after_ms = Some(*restart_after_ms),
            Fault::Pause { for_ms, .. } => {
                file.kind = FaultName::Pause;
                file.for_ms = Some(*for_ms);
            }
            Fault::Suspend { for_ms, .. } => {
                file.kind = FaultName::Suspend;
                file.for_ms = Some(*for_ms);
            }
            Fault::Partition { for_ms, .. } => {
                file.kind = FaultName::Partition;
                file.for_ms = Some(*for_ms);
            }
            Fault::Latency { extra_ms, for_ms, .. } => {
                file.kind = FaultName::Latency;
                file.extra_ms = Some(*extra_ms);
                file.for_ms = Some(*for_ms);
            }
            Fault::Throttle { per_million, for_ms, .. } => {
                file.kind = FaultName::Throttle;
                file.per_million = Some(*per_million);
                file.for_ms = Some(*for_ms);
            }
            Fault::PartialBatches { per_million, for_ms, .. } => {
                file.kind = FaultName::PartialBatches;
                file.per_million = Some(*per_million);
                file.for_ms = Some(*for_ms);
            }
            Fault::TableOutage { table, for_ms } => {
                file.kind = FaultName::TableOutage;
                file.table = Some(table.clone());
                file.for_ms = Some(*for_ms);
            }
            Fault::DeleteItem { item } => {
                file.kind = FaultName::DeleteItem;
                file.item = Some(item.to_string());
            }
            Fault::ReplaceItem { item, for_ms } => {
                file.kind = FaultName::ReplaceItem;
                file.item = Some(item.to_string());
                file.for_ms = Some(*for_ms);
            }
            Fault::ClockStep { delta_ms, .. } => {
                file.kind = FaultName::ClockStep;
                file.delta_ms = Some(*delta_ms);
            }
        }
        file
    }
}

impl FileTrigger {
    fn of(trigger: &Trigger) -> Self {
        let mut file = FileTrigger {
            after_ms: trigger.after_ms,
            process: trigger.process,
            item: trigger.item.clone(),
            label: trigger.label.clone(),
            moment: trigger.moment,
            reaction: trigger.reaction.kind(),
            outage: None,
            for_ms: None,
            restart_after_ms: None,
            per_million: None,
            delta_ms: None,
            extra_ms: None,
            min_ms: None,
            lead_ms: None,
            suspend: None,
            by: None,
            writes: None,
            stop: None,
            then: None,
        };
        match &trigger.reaction {
            Reaction::Pause { for_ms } | Reaction::Suspend { for_ms } => file.for_ms = Some(*for_ms),
            Reaction::Crash { restart_after_ms } => {
                file.restart_after_ms = Some(*restart_after_ms);
            }
            Reaction::Partition { for_ms } => {
                file.for_ms = Some(*for_ms);
            }
            Reaction::Throttle { per_million, for_ms } => {
                file.per_million = Some(*per_million);
                file.for_ms = Some(*for_ms);
            }
            Reaction::ClockStep { delta_ms } => {
                file.delta_ms = Some(*delta_ms);
            }
            Reaction::DelayAnswer { extra_ms } => {
                file.extra_ms = Some(*extra_ms);
            }
            Reaction::LoseAnswer | Reaction::HoldUntilDue | Reaction::DeleteItem => {}
            Reaction::DelayRequest { extra_ms } => {
                file.extra_ms = Some(*extra_ms);
            }
            Reaction::HoldUntilRead { min_ms } => {
                file.min_ms = Some(*min_ms);
            }
            Reaction::Outage { kind, for_ms } => {
                file.outage = Some(*kind);
                file.for_ms = Some(*for_ms);
            }
            Reaction::StopUntilDue { lead_ms, suspend } => {
                file.lead_ms = Some(*lead_ms);
                file.suspend = Some(*suspend);
            }
            Reaction::Overtake { by, writes, stop } => {
                file.by = Some(*by);
                file.writes = Some(*writes);
                if let Some((whom, how)) = stop {
                    file.stop = Some(match whom {
                        Whom::Overtaker => WhomName::Overtaker,
                        Whom::Sender => WhomName::Sender,
                    });
                    let (then, for_ms) = match **how {
                        Reaction::Suspend { for_ms } => (StopName::Suspend, for_ms),
                        Reaction::Crash { restart_after_ms } => (StopName::Crash, restart_after_ms),
                        Reaction::Pause { for_ms } => (StopName::Pause, for_ms),
                        _ => (StopName::Pause, 0),
                    };
                    file.then = Some(then);
                    file.for_ms = Some(for_ms);
                }
            }
        }
        file
    }
}
