//! The driver of the nemesis: carries out the faults of the scenario at their times, the orders
//! of the triggers, the heal and the liveness phase.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;

use dynalease_fake::{FakeDynamoDb, Fault as FakeFault, FaultRule};

use crate::gate::RunState;
use crate::history::{Actor, Event, Nemesis, Phase, ProcessRef, Recorder};
use crate::item::ItemRef;
use crate::nemesis::{Fault, OutageKind, Reaction, ServerFaults};
use crate::probe::{Control, Far};
use crate::service::Service;
use crate::world::process::{Process, Shared};
use crate::world::triggers::Order;

/// A step of the nemesis.
#[derive(Debug)]
pub(crate) enum Action {
    Fault(Fault),
    Restart {
        process: u16,
    },
    Resume {
        process: u16,
        incarnation: u16,
    },
    PartitionEnd(u16),
    LatencyEnd {
        process: u16,
        extra_ms: u64,
    },
    ServerFaultEnd {
        rule: u64,
        end: Nemesis,
    },
    /// The entity at `item` is deleted, unless the heal deleted it already.
    Repair(ItemRef),
    Heal,
    Liveness,
    End,
}

/// The driver of the nemesis: the processes, the fake's fault rules, and what is in force.
pub(crate) struct Driver<S: Service> {
    pub(crate) shared: Shared<S>,
    pub(crate) processes: Vec<Process<S::Kind>>,
    server: ServerFaults,
    partitions: Vec<u32>,
    extra_ms: Vec<u64>,
    healed: bool,
    /// The items replaced by an entity of another kind.
    replaced: BTreeSet<ItemRef>,
    /// The items the nemesis may delete.
    deletable: BTreeSet<ItemRef>,
    pub(crate) queue: BTreeMap<(u64, u64), Action>,
    next: u64,
}

impl<S: Service> Driver<S> {
    pub(crate) fn new(shared: Shared<S>, processes: Vec<Process<S::Kind>>) -> Self {
        let n = processes.len();
        let deletable = shared.service.deletable().into_iter().collect();
        Driver {
            server: ServerFaults::new(shared.fake.clone()),
            shared,
            processes,
            partitions: vec![0; n],
            extra_ms: vec![0; n],
            healed: false,
            replaced: BTreeSet::new(),
            deletable,
            queue: BTreeMap::new(),
            next: 0,
        }
    }

    pub(crate) fn schedule(&mut self, at_ms: u64, action: Action) {
        self.queue.insert((at_ms, self.next), action);
        self.next += 1;
    }

    fn record(&self, nemesis: Nemesis) {
        self.shared.recorder.record(Actor::Nemesis, Event::Nemesis(nemesis));
    }

    fn far(&self) -> Far<'_> {
        Far { fake: &self.shared.fake, recorder: &self.shared.recorder, triggers: &self.shared.triggers }
    }

    pub(crate) fn apply(&mut self, now_ms: u64, action: Action) {
        match action {
            Action::Fault(fault) => self.start(now_ms, fault),
            Action::Restart { process } => {
                let shared = &self.shared;
                if let Some(p) = self.processes.get_mut(usize::from(process)) {
                    p.restart(shared);
                }
            }
            Action::Resume { process, incarnation } => {
                let recorder = self.shared.recorder.clone();
                if let Some(p) = self.processes.get_mut(usize::from(process)) {
                    p.resume(&recorder, incarnation);
                }
            }
            Action::PartitionEnd(process) => {
                if self.healed {
                    return;
                }
                let count = &mut self.partitions[usize::from(process)];
                *count = count.saturating_sub(1);
                if *count == 0 {
                    self.processes[usize::from(process)].network.set_partitioned(false);
                    self.record(Nemesis::PartitionHealed(process));
                }
            }
            Action::LatencyEnd { process, extra_ms } => {
                if self.healed {
                    return;
                }
                let extra = &mut self.extra_ms[usize::from(process)];
                *extra = extra.saturating_sub(extra_ms);
                let extra = *extra;
                self.processes[usize::from(process)].network.set_extra_latency_ms(extra);
                if extra == 0 {
                    self.record(Nemesis::LatencyHealed(process));
                }
            }
            Action::ServerFaultEnd { rule, end } => {
                if self.healed {
                    return;
                }
                self.server.remove(rule);
                self.record(end);
            }
            Action::Repair(item) => {
                if self.replaced.contains(&item) {
                    self.delete_item(&item);
                }
            }
            Action::Heal => self.heal(),
            Action::Liveness => self.liveness(),
            Action::End => {}
        }
    }

    /// Carries out an order of the triggers.
    pub(crate) fn order(&mut self, now_ms: u64, order: Order) {
        if self.healed {
            return;
        }
        match order {
            Order::ResumeAt { process, at_ms } => {
                self.schedule(
                    at_ms.max(now_ms),
                    Action::Resume { process: process.id, incarnation: process.incarnation },
                );
            }
            Order::React { process, item, reaction } => {
                let id = process.id;
                let fault = match reaction {
                    Reaction::Pause { for_ms } => Fault::Pause { process: id, for_ms },
                    Reaction::Suspend { for_ms } => Fault::Suspend { process: id, for_ms },
                    Reaction::Crash { restart_after_ms } => Fault::Crash { process: id, restart_after_ms },
                    Reaction::Partition { for_ms } => Fault::Partition { process: id, for_ms },
                    Reaction::Throttle { per_million, for_ms } => {
                        Fault::Throttle { process: Some(id), per_million, for_ms }
                    }
                    Reaction::ClockStep { delta_ms } => Fault::ClockStep { process: id, delta_ms },
                    Reaction::DeleteItem => match item {
                        Some(item) if self.deletable.contains(&item) => Fault::DeleteItem { item },
                        _ => return,
                    },
                    Reaction::Outage { kind, for_ms } => match kind {
                        OutageKind::Partition => Fault::Partition { process: id, for_ms },
                        OutageKind::Throttle => Fault::Throttle { process: Some(id), per_million: 1_000_000, for_ms },
                        OutageKind::Table => {
                            let table = match &item {
                                Some(item) => item.table().to_owned(),
                                None => match self.shared.service.tables().first() {
                                    Some(table) => table.clone(),
                                    None => return,
                                },
                            };
                            Fault::TableOutage { table, for_ms }
                        }
                    },
                    Reaction::StopUntilDue { lead_ms, suspend } => {
                        if let Some(item) = item {
                            self.stop_until_due(now_ms, process, item, lead_ms, suspend);
                        }
                        return;
                    }
                    _ => return,
                };
                self.start(now_ms, fault);
            }
        }
    }

    /// Stops `process` and resumes it `lead_ms` before `item` falls due for another process,
    /// or after twice the service's time scale if nobody waits for it.
    fn stop_until_due(&mut self, now_ms: u64, process: ProcessRef, item: ItemRef, lead_ms: u64, suspend: bool) {
        let recorder = self.shared.recorder.clone();
        let Some(p) = self.processes.get_mut(usize::from(process.id)) else { return };
        if p.current() != process || !p.pause(&recorder, suspend) {
            return;
        }
        let longest = self.shared.hold_max.as_millis() as u64;
        self.schedule(now_ms + longest, Action::Resume { process: process.id, incarnation: process.incarnation });
        let holder = self.shared.probe.as_ref().and_then(|probe| probe.holder(&item));
        if let Some((holder, version)) = holder
            && holder == process
        {
            self.shared.triggers.stopped_until_due(process, item, version, lead_ms);
        }
    }

    fn start(&mut self, now_ms: u64, fault: Fault) {
        let n = self.processes.len() as u16;
        if fault.process().is_some_and(|p| p >= n) {
            return;
        }
        let recorder = self.shared.recorder.clone();
        match fault {
            Fault::Crash { process, restart_after_ms } => {
                let p = &mut self.processes[usize::from(process)];
                if p.state() == RunState::Crashed {
                    return;
                }
                p.crash(&recorder);
                self.schedule(now_ms + restart_after_ms, Action::Restart { process });
            }
            Fault::Pause { process, for_ms } | Fault::Suspend { process, for_ms } => {
                let suspend = matches!(fault, Fault::Suspend { .. });
                let p = &mut self.processes[usize::from(process)];
                let incarnation = p.current().incarnation;
                if p.pause(&recorder, suspend) {
                    self.schedule(now_ms + for_ms, Action::Resume { process, incarnation });
                }
            }
            Fault::Partition { process, for_ms } => {
                self.partitions[usize::from(process)] += 1;
                self.processes[usize::from(process)].network.set_partitioned(true);
                self.record(Nemesis::Partition(process));
                self.schedule(now_ms + for_ms, Action::PartitionEnd(process));
            }
            Fault::Latency { process, extra_ms, for_ms } => {
                self.extra_ms[usize::from(process)] += extra_ms;
                let extra = self.extra_ms[usize::from(process)];
                self.processes[usize::from(process)].network.set_extra_latency_ms(extra);
                self.record(Nemesis::Latency { process, extra_ms });
                self.schedule(now_ms + for_ms, Action::LatencyEnd { process, extra_ms });
            }
            Fault::Throttle { process, per_million, for_ms } => {
                let mut rule = FaultRule::new(FakeFault::Throttle).probability(f64::from(per_million) / 1_000_000.0);
                if let Some(p) = process {
                    rule = rule.client(format!("p{p}"));
                }
                let id = self.server.add(rule);
                self.record(Nemesis::Throttle { process, per_million });
                self.schedule(now_ms + for_ms, Action::ServerFaultEnd { rule: id, end: Nemesis::ThrottleEnded });
            }
            Fault::PartialBatches { process, per_million, for_ms } => {
                let mut rule =
                    FaultRule::new(FakeFault::Unprocessed(1)).probability(f64::from(per_million) / 1_000_000.0);
                if let Some(p) = process {
                    rule = rule.client(format!("p{p}"));
                }
                let id = self.server.add(rule);
                self.record(Nemesis::PartialBatches { process, per_million });
                let end = Nemesis::PartialBatchesEnded;
                self.schedule(now_ms + for_ms, Action::ServerFaultEnd { rule: id, end });
            }
            Fault::TableOutage { table, for_ms } => {
                let id = self.server.add(FaultRule::new(FakeFault::ResourceNotFound).table(&table));
                self.record(Nemesis::TableOutage(table.clone()));
                self.schedule(now_ms + for_ms, Action::ServerFaultEnd { rule: id, end: Nemesis::TableBack(table) });
            }
            Fault::DeleteItem { item } => self.delete_item(&item),
            Fault::ReplaceItem { item, for_ms } => {
                if self.replace_item(&item) {
                    let nemesis = Nemesis::ReplaceItem(item.clone());
                    self.record(nemesis.clone());
                    if let Some(probe) = &self.shared.probe {
                        probe.fault(&nemesis, &self.far());
                    }
                    self.replaced.insert(item.clone());
                    self.schedule(now_ms + for_ms, Action::Repair(item));
                }
            }
            Fault::ClockStep { process, delta_ms } => {
                self.processes[usize::from(process)].step_wall(&recorder, delta_ms);
            }
        }
    }

    /// The key of `item` as DynamoDB's JSON: its table's key attributes with their values.
    fn key_json(&self, item: &ItemRef) -> Option<serde_json::Map<String, serde_json::Value>> {
        let (partition, sort) = self.shared.catalog.key_names(item.table())?;
        let mut key = serde_json::Map::new();
        let (first, second) = match sort {
            Some(_) => {
                let (a, b) = item.key().rsplit_once('/')?;
                (a, Some(b))
            }
            None => (item.key(), None),
        };
        key.insert(partition.to_owned(), serde_json::json!({"S": first}));
        if let (Some(sort), Some(value)) = (sort, second) {
            key.insert(sort.to_owned(), serde_json::json!({"S": value}));
        }
        Some(key)
    }

    /// Puts an entity of another kind at the key of `item`.
    fn replace_item(&self, item: &ItemRef) -> bool {
        let Some(mut attributes) = self.key_json(item) else { return false };
        attributes.insert(String::from("_type"), serde_json::json!({"S": "ENTITY"}));
        let request = serde_json::json!({"TableName": item.table(), "Item": attributes});
        self.fake().handle_json("PutItem", request.to_string().as_bytes()).0 == 200
    }

    /// Deletes `item`.
    fn delete_item(&mut self, item: &ItemRef) {
        let Some(key) = self.key_json(item) else { return };
        let request = serde_json::json!({"TableName": item.table(), "Key": key});
        let (status, _) = self.fake().handle_json("DeleteItem", request.to_string().as_bytes());
        if status == 200 {
            let nemesis = Nemesis::DeleteItem(item.clone());
            self.record(nemesis.clone());
            if let Some(probe) = &self.shared.probe {
                probe.fault(&nemesis, &self.far());
            }
            self.replaced.remove(item);
        }
    }

    fn fake(&self) -> &FakeDynamoDb {
        &self.shared.fake
    }

    /// Ends every fault: the fake's rules, partitions, latency spikes and lost answers; resumes
    /// paused processes and restarts crashed ones.
    fn heal(&mut self) {
        let replaced: Vec<ItemRef> = self.replaced.iter().cloned().collect();
        for item in replaced {
            self.delete_item(&item);
        }
        self.healed = true;
        self.shared.healed.store(true, Ordering::Relaxed);
        self.shared.triggers.disarm();
        self.server.clear();
        let recorder = self.shared.recorder.clone();
        for p in &mut self.processes {
            p.network.set_partitioned(false);
            p.network.set_extra_latency_ms(0);
            p.network.set_loss_ppm(0);
            let incarnation = p.current().incarnation;
            p.resume(&recorder, incarnation);
            p.restart(&self.shared);
        }
        recorder.record(Actor::World, Event::Phase(Phase::Healed));
        self.phase(Phase::Healed);
    }

    /// The liveness test of the service starts.
    fn liveness(&mut self) {
        self.shared.recorder.record(Actor::World, Event::Phase(Phase::Liveness));
        self.phase(Phase::Liveness);
    }

    fn phase(&mut self, phase: Phase) {
        if let Some(probe) = self.shared.probe.clone() {
            probe.phase(&phase, self);
        }
    }
}

impl<S: Service> Control for Driver<S> {
    fn current(&self, id: u16) -> Option<(ProcessRef, RunState)> {
        self.processes.get(usize::from(id)).map(|p| (p.current(), p.state()))
    }

    fn crash(&mut self, process: ProcessRef) {
        let recorder = self.shared.recorder.clone();
        if let Some(p) = self.processes.get_mut(usize::from(process.id))
            && p.current() == process
            && p.state() == RunState::Running
        {
            p.crash(&recorder);
        }
    }

    fn recorder(&self) -> &Recorder {
        &self.shared.recorder
    }
}
