//! From a scenario to a file: every field that shapes the run, defaults too.

use super::format::*;
use crate::faults::{Fault, ScheduledFault};
use crate::roles::Role;
use crate::scenario::{LockKind, ProcessSpec, Scenario};
use crate::triggers::{Moment, Reaction, Trigger, Whom};

impl FileScenario {
    /// The file of `scenario`, every field spelled out.
    pub(super) fn of(scenario: &Scenario) -> Self {
        FileScenario {
            seed: scenario.seed,
            lock: match scenario.lock {
                LockKind::Library => FileLock::Library,
                LockKind::Naive => FileLock::Naive,
            },
            duration_ms: scenario.duration_ms,
            safety_ms: Some(scenario.safety_ms),
            lease_ms: scenario.lease_ms,
            loss_ppm: scenario.loss_ppm,
            processes: scenario.processes.iter().map(|p| unspanned(FileProcess::of(p))).collect(),
            faults: scenario.faults.iter().map(|f| unspanned(FileFault::of(f))).collect(),
            triggers: scenario.triggers.iter().map(|t| unspanned(FileTrigger::of(t))).collect(),
        }
    }
}

impl FileRole {
    fn of(role: &Role) -> Self {
        let mut file = FileRole {
            role: RoleName::Leader,
            lock: Some(role.lock().to_owned()),
            write_every_ms: None,
            resigns: None,
            every_ms_max: None,
            timeout_ms: None,
            writes: None,
            steps: None,
        };
        match role {
            Role::Leader { write_every_ms, resigns, .. } => {
                file.write_every_ms = Some(*write_every_ms);
                file.resigns = Some(*resigns);
            }
            Role::StoreWriter { every_ms_max, writes, .. } => {
                file.role = RoleName::StoreWriter;
                file.every_ms_max = Some(*every_ms_max);
                file.writes = Some(*writes);
            }
            Role::Job { every_ms_max, timeout_ms, writes, .. } => {
                file.role = RoleName::Job;
                file.every_ms_max = Some(*every_ms_max);
                file.timeout_ms = Some(*timeout_ms);
                file.writes = Some(*writes);
            }
            Role::TryLoop { every_ms_max, .. } => {
                file.role = RoleName::TryLoop;
                file.every_ms_max = Some(*every_ms_max);
            }
            Role::TokenHolder { every_ms_max, steps, .. } => {
                file.role = RoleName::TokenHolder;
                file.every_ms_max = Some(*every_ms_max);
                file.steps = Some(*steps);
            }
            Role::ScopeHolder { every_ms_max, steps, .. } => {
                file.role = RoleName::ScopeHolder;
                file.every_ms_max = Some(*every_ms_max);
                file.steps = Some(*steps);
            }
            Role::Watcher { every_ms_max, .. } => {
                file.role = RoleName::Watcher;
                file.every_ms_max = Some(*every_ms_max);
            }
        }
        file
    }
}

impl FileProcess {
    fn of(process: &ProcessSpec) -> Self {
        FileProcess {
            lease_ms: process.lease_ms,
            clock: FileClock {
                offset_ms: process.clock.offset_ms,
                drift_ppm: process.clock.drift_ppm,
                uptime_ms: process.clock.uptime_ms,
            },
            net: FileNet { latency_ms_min: process.net.latency_ms_min, latency_ms_max: process.net.latency_ms_max },
            roles: process.roles.iter().map(|r| unspanned(FileRole::of(r))).collect(),
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
            lock: None,
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
            Fault::TableOutage { for_ms } => {
                file.kind = FaultName::TableOutage;
                file.for_ms = Some(*for_ms);
            }
            Fault::DeleteItem { lock } => {
                file.kind = FaultName::DeleteItem;
                file.lock = Some(lock.clone());
            }
            Fault::CorruptItem { lock, for_ms } => {
                file.kind = FaultName::CorruptItem;
                file.lock = Some(lock.clone());
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
            lock: trigger.lock.clone(),
            moment: match trigger.moment {
                Moment::LockWriteSent => MomentName::LockWriteSent,
                Moment::Granted => MomentName::Granted,
                Moment::Renewed => MomentName::Renewed,
                Moment::RenewalAnswered => MomentName::RenewalAnswered,
                Moment::Waiting => MomentName::Waiting,
                Moment::LockReadSent => MomentName::LockReadSent,
                Moment::Released => MomentName::Released,
            },
            reaction: ReactionKind::Pause,
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
            Reaction::Pause { for_ms } => file.for_ms = Some(*for_ms),
            Reaction::Suspend { for_ms } => {
                file.reaction = ReactionKind::Suspend;
                file.for_ms = Some(*for_ms);
            }
            Reaction::Crash { restart_after_ms } => {
                file.reaction = ReactionKind::Crash;
                file.restart_after_ms = Some(*restart_after_ms);
            }
            Reaction::Partition { for_ms } => {
                file.reaction = ReactionKind::Partition;
                file.for_ms = Some(*for_ms);
            }
            Reaction::Throttle { per_million, for_ms } => {
                file.reaction = ReactionKind::Throttle;
                file.per_million = Some(*per_million);
                file.for_ms = Some(*for_ms);
            }
            Reaction::ClockStep { delta_ms } => {
                file.reaction = ReactionKind::ClockStep;
                file.delta_ms = Some(*delta_ms);
            }
            Reaction::DelayAnswer { extra_ms } => {
                file.reaction = ReactionKind::DelayAnswer;
                file.extra_ms = Some(*extra_ms);
            }
            Reaction::LoseAnswer => file.reaction = ReactionKind::LoseAnswer,
            Reaction::DelayRequest { extra_ms } => {
                file.reaction = ReactionKind::DelayRequest;
                file.extra_ms = Some(*extra_ms);
            }
            Reaction::HoldUntilRead { min_ms } => {
                file.reaction = ReactionKind::HoldUntilRead;
                file.min_ms = Some(*min_ms);
            }
            Reaction::HoldUntilTakeover => file.reaction = ReactionKind::HoldUntilTakeover,
            Reaction::DeleteItem => file.reaction = ReactionKind::DeleteItem,
            Reaction::StopUntilTakeover { lead_ms, suspend } => {
                file.reaction = ReactionKind::StopUntilTakeover;
                file.lead_ms = Some(*lead_ms);
                file.suspend = Some(*suspend);
            }
            Reaction::Overtake { by, writes, stop } => {
                file.reaction = ReactionKind::Overtake;
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
