//! [`World`]: one run of a scenario, on one current-thread tokio runtime with paused time.
//!
//! The world starts the fake DynamoDB, the external store and the processes, then drives the
//! nemesis through a queue of timed actions: the faults of the safety phase and their ends, the
//! heal, the crash of the liveness phase and the end. Everything else happens in the tasks of
//! the processes; the runtime's paused clock jumps from one timer to the next when every task
//! waits, so ten simulated minutes take milliseconds. The run is a pure function of its
//! scenario: per-process randomness comes from (seed, process, incarnation), iteration is over
//! ordered maps, every `select!` is `biased`, and the SDK's own randomness is seeded or unused.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dynalease_fake::{FakeDynamoDb, Fault as FakeFault, FaultRule};

use crate::check::{CheckContext, check};
use crate::clock::WorldClock;
use crate::external::ExternalStore;
use crate::faults::{Fault, ServerFaults};
use crate::history::{Actor, Event, History, Nemesis, Phase, ProcessRef, Recorder};
use crate::logs::LibraryEvents;
use crate::process::{Process, Shared};
use crate::report::RunReport;
use crate::rng::SimRng;
use crate::scenario::Scenario;
use crate::triggers::{Order, Reaction, Triggers};
use crate::truth::Truth;

/// The table of the locks and of the data the processes write.
pub const TABLE: &str = "Sim";
/// Its partition key.
pub const PARTITION_KEY: &str = "pk";
/// Its sort key.
pub const SORT_KEY: &str = "sk";
/// The true wall-clock time at the start of every run: 2024-06-01T00:00:00Z.
pub const START_TIME_SECS: u64 = 1_717_200_000;

/// One run of a scenario.
///
/// # Examples
///
/// ```
/// use dynalease_sim::{Config, Scenario, World};
///
/// let scenario = Scenario::from_seed(42, &Config { duration_ms: 60_000, ..Config::default() });
/// let report = World::new(scenario).run();
/// assert!(report.violations().is_empty(), "{}", report.failure_report());
/// println!("{}", report.summary());
/// ```
#[derive(Debug)]
pub struct World {
    scenario: Scenario,
}

/// A step of the nemesis.
#[derive(Debug)]
enum Action {
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
    /// The entity at the key of `lock` is deleted, unless the heal deleted it already.
    Repair {
        lock: String,
    },
    Heal,
    LivenessCrash,
    End,
}

/// The driver of the nemesis: the processes, the fake's fault rules, and what is in force.
struct Driver {
    shared: Shared,
    processes: Vec<Process>,
    server: ServerFaults,
    partitions: Vec<u32>,
    extra_ms: Vec<u64>,
    healed: bool,
    /// The locks whose item is an entity that is no lock.
    corrupted: std::collections::BTreeSet<String>,
    queue: BTreeMap<(u64, u64), Action>,
    next: u64,
}

impl World {
    /// A world that runs `scenario`.
    pub fn new(scenario: Scenario) -> Self {
        World { scenario }
    }

    /// Runs the scenario to its end and checks its history.
    pub fn run(self) -> RunReport {
        let (runtime, report, _) = self.execute();
        drop(runtime);
        report
    }

    /// Runs the scenario to its end, checks its history, and then runs `after` with a client
    /// of the DynamoDB as the run left it (on the run's paused clock, with no faults), to check
    /// data of your own: the items your workloads wrote, say.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease_sim::{Config, Scenario, World};
    ///
    /// let scenario = Scenario::from_seed(4, &Config { duration_ms: 60_000, ..Config::default() });
    /// let (report, tables) = World::new(scenario).run_then(|client| async move {
    ///     client.list_tables().send().await.map(|out| out.table_names().to_vec())
    /// });
    /// assert!(report.violations().is_empty());
    /// assert_eq!(tables.unwrap(), [dynalease_sim::TABLE]);
    /// ```
    pub fn run_then<T, F>(self, after: impl FnOnce(aws_sdk_dynamodb::Client) -> F) -> (RunReport, T)
    where
        F: std::future::Future<Output = T>,
    {
        let (runtime, report, fake) = self.execute();
        fake.clear_faults();
        let read = runtime.block_on(after(fake.client()));
        (report, read)
    }

    /// Runs the scenario and checks its history; hands back the runtime it ran on and the
    /// fake as the run left it.
    fn execute(self) -> (tokio::runtime::Runtime, RunReport, FakeDynamoDb) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .expect("a current-thread runtime with paused time");
        let run = || runtime.block_on(drive(&self.scenario));
        let (history, requests, fake) = tracing::subscriber::with_default(LibraryEvents, run);
        let verdict = check(&history, &CheckContext::from_scenario(&self.scenario));
        (runtime, RunReport::new(self.scenario, history, verdict, requests), fake)
    }
}

async fn drive(scenario: &Scenario) -> (History, usize, FakeDynamoDb) {
    fastrand::seed(SimRng::derive(scenario.seed, &[0xFA57]).next_u64());
    let clock = WorldClock::start();
    let recorder = Recorder::new(clock);
    let start_time = start_time();
    // No request log: the world counts requests itself, and reads lock items past the log.
    let fake = FakeDynamoDb::builder()
        .seed(scenario.seed)
        .start_time(start_time)
        .ttl_sweep_interval(Duration::ZERO)
        .request_log_limit(0)
        .build();
    fake.create_table(crate::world::TABLE, PARTITION_KEY, Some(SORT_KEY));
    let mut locks: Vec<&str> = scenario.processes.iter().flat_map(|p| p.roles.iter().map(|r| r.lock())).collect();
    locks.sort_unstable();
    locks.dedup();
    for lock in locks {
        recorder.lock(lock);
    }
    let triggers = Arc::new(Triggers::new(clock, recorder.clone(), scenario.triggers.clone()));
    let shared = Shared {
        clock,
        recorder: recorder.clone(),
        fake: fake.clone(),
        store: Arc::new(ExternalStore::new(recorder.clone())),
        truth: Arc::new(Truth::new(fake.clone(), recorder.clone())),
        triggers: triggers.clone(),
        lock: scenario.lock,
        lease: scenario.lease(),
        seed: scenario.seed,
        start_time,
        mailbox: Arc::default(),
        healed: Arc::default(),
    };
    recorder.record(Actor::World, Event::Phase(Phase::Safety));
    let processes = scenario
        .processes
        .iter()
        .enumerate()
        .map(|(id, spec)| Process::start(&shared, id as u16, spec.clone(), scenario.loss_ppm))
        .collect::<Vec<_>>();
    let n = processes.len();
    let mut nemesis = Driver {
        shared,
        processes,
        server: ServerFaults::new(fake),
        partitions: vec![0; n],
        extra_ms: vec![0; n],
        healed: false,
        corrupted: std::collections::BTreeSet::new(),
        queue: BTreeMap::new(),
        next: 0,
    };
    for fault in &scenario.faults {
        if fault.at_ms < scenario.safety_ms {
            nemesis.schedule(fault.at_ms, Action::Fault(fault.fault.clone()));
        }
    }
    nemesis.schedule(scenario.safety_ms, Action::Heal);
    if scenario.checks_liveness() {
        nemesis.schedule(scenario.liveness_crash_ms(), Action::LivenessCrash);
    }
    nemesis.schedule(scenario.duration_ms, Action::End);

    while let Some(((at_ms, _), _)) = nemesis.queue.first_key_value() {
        let at_ms = *at_ms;
        tokio::select! {
            biased;
            () = triggers.orders.notified() => {
                let now_ms = clock.now().as_millis() as u64;
                while let Some(order) = triggers.next_order() {
                    nemesis.order(now_ms, order, scenario);
                }
            }
            () = clock.sleep_until(Duration::from_millis(at_ms)) => {
                let Some((_, action)) = nemesis.queue.pop_first() else { break };
                if let Action::End = action {
                    break;
                }
                nemesis.apply(at_ms, action, scenario);
            }
        }
    }
    for process in &mut nemesis.processes {
        process.stop();
    }
    (recorder.finish(), nemesis.shared.truth.requests(), nemesis.shared.fake.clone())
}

impl Driver {
    fn schedule(&mut self, at_ms: u64, action: Action) {
        self.queue.insert((at_ms, self.next), action);
        self.next += 1;
    }

    fn record(&self, nemesis: Nemesis) {
        self.shared.recorder.record(Actor::Nemesis, Event::Nemesis(nemesis));
    }

    fn process(&mut self, id: u16) -> Option<&mut Process> {
        self.processes.get_mut(usize::from(id))
    }

    fn apply(&mut self, now_ms: u64, action: Action, scenario: &Scenario) {
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
                if let Some(p) = self.process(process) {
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
            Action::Repair { lock } => {
                if self.corrupted.contains(&lock) {
                    self.delete_item(&lock);
                }
            }
            Action::Heal => self.heal(),
            Action::LivenessCrash => self.liveness_crash(scenario),
            Action::End => {}
        }
    }

    /// Carries out an order of the triggers.
    fn order(&mut self, now_ms: u64, order: Order, scenario: &Scenario) {
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
            Order::React { process, lock, reaction } => {
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
                    Reaction::DeleteItem if scenario.deletable_locks().contains(&lock) => Fault::DeleteItem { lock },
                    Reaction::StopUntilTakeover { lead_ms, suspend } => {
                        self.stop_until_takeover(now_ms, process, &lock, lead_ms, suspend, scenario);
                        return;
                    }
                    _ => return,
                };
                self.start(now_ms, fault);
            }
        }
    }

    /// Stops `process` and resumes it `lead_ms` before a takeover of `lock` is due, or after
    /// two leases if nobody waits for the lock.
    fn stop_until_takeover(
        &mut self,
        now_ms: u64,
        process: ProcessRef,
        lock: &str,
        lead_ms: u64,
        suspend: bool,
        scenario: &Scenario,
    ) {
        let recorder = self.shared.recorder.clone();
        let Some(p) = self.processes.get_mut(usize::from(process.id)) else { return };
        if p.current() != process || !p.pause(&recorder, suspend) {
            return;
        }
        let longest = 2 * scenario.lease_ms_of(process.id);
        self.schedule(now_ms + longest, Action::Resume { process: process.id, incarnation: process.incarnation });
        if let Some((holder, record)) = self.shared.truth.holder(lock)
            && holder == process
        {
            self.shared.triggers.stopped_until_takeover(process, lock, record, lead_ms);
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
                if p.state() == crate::gate::RunState::Crashed {
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
            Fault::TableOutage { for_ms } => {
                let id = self.server.add(FaultRule::new(FakeFault::ResourceNotFound).table(TABLE));
                self.record(Nemesis::TableOutage);
                self.schedule(now_ms + for_ms, Action::ServerFaultEnd { rule: id, end: Nemesis::TableBack });
            }
            Fault::DeleteItem { lock } => self.delete_item(&lock),
            Fault::CorruptItem { lock, for_ms } => {
                // An entity of another kind at the lock's key, with a name and no owner.
                let item = serde_json::json!({
                    "TableName": TABLE,
                    "Item": {
                        PARTITION_KEY: {"S": format!("{}{lock}", self.lock_prefix())},
                        SORT_KEY: {"S": "LOCK"},
                        "_type": {"S": "ENTITY"},
                        "name": {"S": lock},
                    },
                });
                let (status, _) = self.server_fake().handle_json("PutItem", item.to_string().as_bytes());
                if status == 200 {
                    self.shared.truth.deleted(&lock);
                    let id = recorder.lock(&lock);
                    self.record(Nemesis::CorruptItem(id));
                    self.corrupted.insert(lock.clone());
                    self.schedule(now_ms + for_ms, Action::Repair { lock });
                }
            }
            Fault::ClockStep { process, delta_ms } => {
                self.processes[usize::from(process)].step_wall(&recorder, delta_ms);
            }
        }
    }

    /// Deletes the item of `lock`: its fencing token starts at 1 again.
    fn delete_item(&mut self, lock: &str) {
        let key = serde_json::json!({
            "TableName": TABLE,
            "Key": {
                PARTITION_KEY: {"S": format!("{}{lock}", self.lock_prefix())},
                SORT_KEY: {"S": "LOCK"},
            },
        });
        let (status, _) = self.server_fake().handle_json("DeleteItem", key.to_string().as_bytes());
        if status == 200 {
            self.shared.truth.deleted(lock);
            let id = self.shared.recorder.lock(lock);
            self.record(Nemesis::DeleteItem(id));
            self.corrupted.remove(lock);
        }
    }

    fn lock_prefix(&self) -> &'static str {
        match self.shared.lock {
            crate::scenario::LockKind::Library => crate::net::LIBRARY_PREFIX,
            crate::scenario::LockKind::Naive => crate::net::NAIVE_PREFIX,
        }
    }

    fn server_fake(&self) -> &FakeDynamoDb {
        &self.shared.fake
    }

    /// Ends every fault: the fake's rules, partitions, latency spikes and lost answers; resumes
    /// paused processes and restarts crashed ones.
    fn heal(&mut self) {
        let corrupted: Vec<String> = self.corrupted.iter().cloned().collect();
        for lock in corrupted {
            self.delete_item(&lock);
        }
        self.healed = true;
        self.shared.healed.store(true, std::sync::atomic::Ordering::Relaxed);
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
    }

    /// Crashes the holder of the liveness lock, for good.
    fn liveness_crash(&mut self, scenario: &Scenario) {
        let Some(name) = scenario.liveness_lock() else { return };
        let recorder = self.shared.recorder.clone();
        let lock = recorder.lock(name);
        let holder = recorder.last_grant(lock);
        let victim = holder.filter(|holder| {
            self.processes
                .get(usize::from(holder.id))
                .is_some_and(|p| p.current() == *holder && p.state() == crate::gate::RunState::Running)
        });
        recorder.record(Actor::World, Event::Phase(Phase::LivenessCrash { lock, victim }));
        if let Some(victim) = victim {
            self.processes[usize::from(victim.id)].crash(&recorder);
        }
    }
}

/// The true wall-clock time at the start of every run.
pub fn start_time() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(START_TIME_SECS)
}
