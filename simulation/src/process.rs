//! A simulated process: a machine (its clock and its network) and the incarnations of the
//! process that runs on it.
//!
//! Each incarnation has its own gate, SDK client, `LockTable` and tasks. A crash closes the
//! gate for good (nothing it sends afterwards reaches DynamoDB, no answer reaches it), records
//! the crash, and aborts its tasks: the leases they held are dropped into a network that
//! delivers nothing, so nothing is released. A restart boots a new incarnation on the same
//! machine, whose clock runs on.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use dynalease::{LockTable, LockTableOptions, ProcessLocks, SeededIds, TableRef};
use dynalease_fake::FakeDynamoDb;

use crate::clock::{MachineClock, ProcessClock, WorldClock};
use crate::external::ExternalStore;
use crate::gate::{Gate, RunState};
use crate::history::{Actor, Event, Nemesis, ProcessRef, Recorder};
use crate::item_options::ItemOptions;
use crate::naive::NaiveLocks;
use crate::net::{Link, Network, SimConnector};
use crate::rng::SimRng;
use crate::scenario::{LockKind, ProcessSpec};
use crate::triggers::Triggers;
use crate::truth::Truth;
use crate::workload::{Incarnation, Locks, Mailbox, ProcessCtx, Tasks};
use crate::world::{PARTITION_KEY, SORT_KEY, TABLE};

/// What the processes of a world share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) clock: WorldClock,
    pub(crate) recorder: Recorder,
    pub(crate) fake: FakeDynamoDb,
    pub(crate) store: Arc<ExternalStore>,
    pub(crate) truth: Arc<Truth>,
    pub(crate) triggers: Arc<Triggers>,
    pub(crate) lock: LockKind,
    pub(crate) lease: Duration,
    pub(crate) seed: u64,
    pub(crate) start_time: SystemTime,
    pub(crate) mailbox: Arc<Mailbox>,
    pub(crate) healed: Arc<std::sync::atomic::AtomicBool>,
}

/// Streams of a process's randomness.
const STREAM_NET: u64 = 10;
const STREAM_IDS: u64 = 11;
const STREAM_CLIENT: u64 = 12;
const STREAM_OPTIONS: u64 = 13;
const STREAM_RETRIES: u64 = 14;

/// One simulated process and its machine.
pub(crate) struct Process {
    pub(crate) id: u16,
    spec: ProcessSpec,
    machine: Arc<MachineClock>,
    pub(crate) network: Arc<Network>,
    incarnation: u16,
    gate: Gate,
    tasks: Tasks,
}

impl Process {
    /// The machine, and the first incarnation of its process.
    pub(crate) fn start(shared: &Shared, id: u16, spec: ProcessSpec, loss_ppm: u32) -> Self {
        let machine = Arc::new(MachineClock::new(shared.clock, spec.clock, shared.start_time));
        let rng = SimRng::derive(shared.seed, &[STREAM_NET, u64::from(id)]);
        let network = Arc::new(Network::new(spec.net, loss_ppm, rng));
        let mut process =
            Process { id, spec, machine, network, incarnation: 0, gate: Gate::new(), tasks: Tasks::default() };
        process.boot(shared);
        process
    }

    /// The current incarnation.
    pub(crate) fn current(&self) -> ProcessRef {
        ProcessRef { id: self.id, incarnation: self.incarnation }
    }

    pub(crate) fn state(&self) -> RunState {
        self.gate.state()
    }

    /// The lease of the process's locks.
    pub(crate) fn lease(&self, shared: &Shared) -> Duration {
        self.spec.lease_ms.map_or(shared.lease, Duration::from_millis)
    }

    /// Starts the workloads of the current incarnation, with a new client and `LockTable`.
    fn boot(&mut self, shared: &Shared) {
        let process = self.current();
        let path = |stream: u64| [stream, u64::from(self.id), u64::from(self.incarnation)];
        let clock = ProcessClock::new(self.machine.clone(), self.gate.clone());
        let lease = self.lease(shared);
        let link = Arc::new(Link::new(
            process,
            self.gate.clone(),
            self.network.clone(),
            shared.clock,
            shared.recorder.clone(),
            shared.truth.clone(),
            shared.triggers.clone(),
            2 * lease,
        ));
        let http = SimConnector::new(shared.fake.http_client_named(&format!("p{}", self.id)), link.clone());
        // The fake's configuration retries without jitter, with a token bucket of the client's
        // own. The SDK draws the idempotency tokens of the client from a generator it seeds
        // from the thread-local one when the client is built: seed that for this incarnation.
        fastrand::seed(SimRng::derive(shared.seed, &path(STREAM_CLIENT)).next_u64());
        let mut config =
            shared.fake.client_config().http_client(http).time_source(clock.clone()).sleep_impl(clock.clone());
        // One client in three does not retry, as some services configure theirs: a throttled or
        // failed renewal then comes back at once, and the library's own retries are all there is.
        if SimRng::derive(shared.seed, &path(STREAM_RETRIES)).chance_ppm(333_333) {
            config = config.retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled());
        }
        let config = config.build();
        let client = aws_sdk_dynamodb::Client::from_conf(config);
        let ids = Arc::new(SeededIds::new(SimRng::derive(shared.seed, &path(STREAM_IDS)).next_u64()));
        let (options, item_options) =
            incarnation_options(&mut SimRng::derive(shared.seed, &path(STREAM_OPTIONS)), process);
        let options = options.clock(Arc::new(clock.clone())).id_source(ids.clone());
        let lock_table = LockTable::new(
            TableRef::builder(client.clone(), TABLE)
                .partition_key(PARTITION_KEY)
                .sort_key(SORT_KEY)
                .build()
                .expect("a table of names"),
            options,
        )
        .expect("the options of a simulated process are valid");
        let locks = match shared.lock {
            LockKind::Library => {
                shared.truth.writes_with(process, item_options);
                Locks::Library
            }
            LockKind::Naive => Locks::Naive(NaiveLocks::new(client.clone(), clock.clone(), ids)),
        };
        let incarnation = Arc::new(Incarnation {
            process,
            clock,
            client,
            process_locks: ProcessLocks::new(lock_table.clone()),
            lock_table,
            locks,
            link,
            recorder: shared.recorder.clone(),
            store: shared.store.clone(),
            tasks: self.tasks.clone(),
            lease,
            seed: shared.seed,
            mailbox: shared.mailbox.clone(),
            healed: shared.healed.clone(),
        });
        for (index, workload) in self.spec.workloads().into_iter().enumerate() {
            let ctx = ProcessCtx::new(incarnation.clone(), index as u16);
            self.tasks.spawn(workload.run(ctx));
        }
    }

    fn nemesis(&self, recorder: &Recorder, nemesis: Nemesis) {
        recorder.record(Actor::Nemesis, Event::Nemesis(nemesis));
    }

    /// Cuts the current incarnation off; its open operations end as `Info`.
    pub(crate) fn crash(&mut self, recorder: &Recorder) {
        if self.state() == RunState::Crashed {
            return;
        }
        self.gate.set(RunState::Crashed);
        self.machine.resume();
        self.nemesis(recorder, Nemesis::Crash(self.current()));
        recorder.crashed(self.current());
        self.tasks.abort_all();
    }

    /// Boots a new incarnation, if the process is down.
    pub(crate) fn restart(&mut self, shared: &Shared) {
        if self.state() != RunState::Crashed {
            return;
        }
        self.incarnation += 1;
        self.gate = Gate::new();
        self.tasks = Tasks::default();
        self.nemesis(&shared.recorder, Nemesis::Restart(self.current()));
        self.boot(shared);
    }

    /// Stops a running process, its monotonic clock too if `suspend`.
    pub(crate) fn pause(&mut self, recorder: &Recorder, suspend: bool) -> bool {
        if self.state() != RunState::Running {
            return false;
        }
        if suspend {
            self.machine.suspend();
            self.gate.set(RunState::Suspended);
            self.nemesis(recorder, Nemesis::Suspend(self.current()));
        } else {
            self.gate.set(RunState::Paused);
            self.nemesis(recorder, Nemesis::Pause(self.current()));
        }
        true
    }

    /// Resumes the incarnation `incarnation` if it is paused or suspended.
    pub(crate) fn resume(&mut self, recorder: &Recorder, incarnation: u16) {
        if incarnation != self.incarnation || !matches!(self.state(), RunState::Paused | RunState::Suspended) {
            return;
        }
        self.machine.resume();
        self.gate.set(RunState::Running);
        self.nemesis(recorder, Nemesis::Resume(self.current()));
    }

    /// Steps the machine's wall clock.
    pub(crate) fn step_wall(&self, recorder: &Recorder, delta_ms: i64) {
        self.machine.step_wall(delta_ms);
        self.nemesis(recorder, Nemesis::ClockStep { process: self.id, delta_ms });
    }

    /// Ends the process at the end of the run, without recording a crash.
    pub(crate) fn stop(&mut self) {
        self.gate.set(RunState::Crashed);
        self.tasks.abort_all();
    }
}

/// The options of an incarnation's `LockTable`, drawn for each: most name their holder and some
/// do not, since a label is never part of a condition and processes with and without one
/// contend as equals; half write an expiry on their lock items, with the shortest retention or
/// the recommended one.
fn incarnation_options(rng: &mut SimRng, process: ProcessRef) -> (LockTableOptions, ItemOptions) {
    let mut options = LockTableOptions::default();
    let mut item = ItemOptions { label: None, retention: None };
    if rng.chance_ppm(750_000) {
        let label = process.to_string();
        options = options.holder_label(label.clone());
        item.label = Some(label);
    }
    if rng.chance_ppm(500_000) {
        let retention =
            if rng.chance_ppm(500_000) { LockTableOptions::MIN_RETENTION } else { LockTableOptions::DEFAULT_RETENTION };
        options = options.time_to_live(EXPIRY_ATTRIBUTE, retention);
        item.retention = Some(retention);
    }
    (options, item)
}

/// The attribute the lock items of a process with the expiry option expire by.
pub(crate) const EXPIRY_ATTRIBUTE: &str = "expiresAt";
