//! A simulated process: a machine (its clock and its network) and the incarnations of the
//! process that runs on it.
//!
//! Each incarnation has its own gate, SDK client and tasks. A crash closes the gate for good
//! (nothing it sends afterwards reaches DynamoDB, no answer reaches it), records the crash, and
//! aborts its tasks: what they held is dropped into a network that delivers nothing. A restart
//! boots a new incarnation on the same machine, whose clock runs on.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use dynalease_fake::FakeDynamoDb;

use crate::clock::{MachineClock, ProcessClock, WorldClock};
use crate::ctx::{Ctx, Incarnation, Tasks};
use crate::gate::{Gate, RunState};
use crate::history::{Actor, Event, Nemesis, ProcessRef, Recorder};
use crate::net::{Link, Network};
use crate::probe::Probe;
use crate::rng::SimRng;
use crate::service::Service;
use crate::spec::ProcessSpec;
use crate::world::connector::{Catalog, SimConnector};
use crate::world::triggers::Triggers;

/// What the processes of a world share.
#[derive(Debug)]
pub(crate) struct Shared<S: Service> {
    pub(crate) service: S,
    pub(crate) clock: WorldClock,
    pub(crate) recorder: Recorder,
    pub(crate) fake: FakeDynamoDb,
    pub(crate) triggers: Arc<Triggers>,
    pub(crate) probe: Option<Arc<dyn Probe>>,
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) seed: u64,
    pub(crate) start_time: SystemTime,
    pub(crate) healed: Arc<AtomicBool>,
    /// The longest a message is held in the network for a trigger.
    pub(crate) hold_max: Duration,
    pub(crate) requests: Arc<std::sync::atomic::AtomicUsize>,
}

/// Streams of a process's randomness.
const STREAM_NET: u64 = 10;
const STREAM_CLIENT: u64 = 12;
const STREAM_RETRIES: u64 = 14;

/// One simulated process and its machine.
pub(crate) struct Process<K> {
    pub(crate) id: u16,
    spec: ProcessSpec<K>,
    machine: Arc<MachineClock>,
    pub(crate) network: Arc<Network>,
    incarnation: u16,
    gate: Gate,
    tasks: Tasks,
}

impl<K: Clone> Process<K> {
    /// The machine, and the first incarnation of its process.
    pub(crate) fn start<S: Service<Kind = K>>(
        shared: &Shared<S>,
        id: u16,
        spec: ProcessSpec<K>,
        loss_ppm: u32,
    ) -> Self {
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

    /// Starts the workloads of the current incarnation, with a new client.
    fn boot<S: Service<Kind = K>>(&mut self, shared: &Shared<S>) {
        let process = self.current();
        let path = |stream: u64| [stream, u64::from(self.id), u64::from(self.incarnation)];
        let clock = ProcessClock::new(self.machine.clone(), self.gate.clone());
        let link = Arc::new(Link::new(
            process,
            self.gate.clone(),
            self.network.clone(),
            shared.clock,
            shared.triggers.clone(),
            shared.hold_max,
        ));
        let http = SimConnector::new(
            shared.fake.http_client_named(&format!("p{}", self.id)),
            link.clone(),
            shared.fake.clone(),
            shared.probe.clone(),
            shared.catalog.clone(),
            shared.recorder.clone(),
            shared.requests.clone(),
        );
        // The fake's configuration retries without jitter, with a token bucket of the client's
        // own. The SDK draws the idempotency tokens of the client from a generator it seeds
        // from the thread-local one when the client is built: seed that for this incarnation.
        fastrand::seed(SimRng::derive(shared.seed, &path(STREAM_CLIENT)).next_u64());
        let mut config =
            shared.fake.client_config().http_client(http).time_source(clock.clone()).sleep_impl(clock.clone());
        // One client in three does not retry, as some services configure theirs: a throttled or
        // failed request then comes back at once, and the service's own retries are all there is.
        if SimRng::derive(shared.seed, &path(STREAM_RETRIES)).chance_ppm(333_333) {
            config = config.retry_config(aws_sdk_dynamodb::config::retry::RetryConfig::disabled());
        }
        let client = aws_sdk_dynamodb::Client::from_conf(config.build());
        let incarnation = Arc::new(Incarnation {
            process,
            clock,
            client,
            link,
            recorder: shared.recorder.clone(),
            tasks: self.tasks.clone(),
            seed: shared.seed,
            healed: shared.healed.clone(),
            probe: shared.probe.clone(),
            locals: Mutex::new(Vec::new()),
        });
        for (index, kind) in self.spec.kinds.iter().enumerate() {
            let ctx = Ctx::new(incarnation.clone(), index as u16);
            self.tasks.spawn(shared.service.run(kind, ctx));
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
    pub(crate) fn restart<S: Service<Kind = K>>(&mut self, shared: &Shared<S>) {
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
