//! [`Service`]: a service of your own, run as processes in the world.
//!
//! A service brings its tables ([`Service::setup`]), the kinds of workload its processes run
//! ([`Service::Kind`], [`Service::run`]), the operations it records ([`Service::Op`],
//! [`Service::Ret`]) and its invariants ([`Service::check`]). The world gives each process its
//! own clock, network, SDK client and crashes, and every fault of the nemesis; the history and
//! every table as the run left it go to the checker.
//!
//! The service value itself is its options: serde writes it into scenario files, and a file
//! runs the service it names with the options it gives.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::ctx::Ctx;
use crate::item::ItemRef;
use crate::nemesis::{DEFAULT_MENU, MenuItem, Promise};
use crate::probe::{Probe, ProbeInit};
use crate::rng::SimRng;
use crate::run::Run;
use crate::setup::{Setup, SetupError};
use crate::spec::ProcessSpec;
use crate::verdict::{Invariant, Verdict};

/// The future of a workload.
pub type Workload = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// The future of a service's setup.
pub type SetupFuture = Pin<Box<dyn Future<Output = Result<(), SetupError>> + Send + 'static>>;

/// A service to run in the world. See the [crate docs](crate), and the examples in
/// `simulation/examples/` (an id allocator, a job queue, money transfers, optimistic locking).
pub trait Service: Clone + fmt::Debug + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// What one operation asks for, as the history records it.
    type Op: Clone + fmt::Debug + Serialize + Send + Sync + 'static;
    /// What an operation returns.
    type Ret: Clone + fmt::Debug + Serialize + Send + Sync + 'static;
    /// A kind of workload, with its parameters: what a process runs. Scenario files write it as
    /// TOML: an enum or a struct with fields, not a unit struct (TOML has no unit).
    type Kind: Clone + fmt::Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static;

    /// The service's name, as scenario files and reports name it.
    const NAME: &'static str;

    /// Makes the tables, indexes, streams, time to live and seed data the run starts from.
    fn setup(&self, setup: Setup) -> SetupFuture;

    /// The names of the tables the setup makes, which table outages may take away.
    fn tables(&self) -> Vec<String>;

    /// The workloads of each of `processes` processes, for a scenario drawn from a seed.
    fn assign(&self, rng: &mut SimRng, processes: u16) -> Vec<Vec<Self::Kind>>;

    /// Runs the workload `kind` in one incarnation of a process, until the process crashes or
    /// the run ends; a crash drops the future, as a killed process stops mid-flight.
    fn run(&self, kind: &Self::Kind, ctx: Ctx<Self::Op, Self::Ret>) -> Workload;

    /// Holds a run to the service's invariants.
    fn check(&self, run: &Run<'_, Self::Kind>) -> Verdict;

    /// Every invariant [`check`](Self::check) may report, for the summary.
    fn invariants(&self) -> Vec<Invariant>;

    /// The service drawn for one seed from these options (a lease from a range, say).
    fn for_seed(&self, rng: &mut SimRng) -> Self {
        let _ = rng;
        self.clone()
    }

    /// The time scale of the protocol (a lease, a claim's timeout): faults last from a fraction
    /// of it to a few.
    fn scale(&self) -> Duration {
        Duration::from_secs(30)
    }

    /// How long the healed phase after the faults lasts at least, for the liveness the service
    /// promises.
    fn healed_ms(&self, processes: &[ProcessSpec<Self::Kind>]) -> u64 {
        let _ = processes;
        3 * self.scale().as_millis() as u64 + 15_000
    }

    /// When the liveness test starts ([`Phase::Liveness`](crate::history::Phase::Liveness)), if
    /// the service has one for these processes.
    fn liveness_ms(&self, safety_ms: u64, duration_ms: u64, processes: &[ProcessSpec<Self::Kind>]) -> Option<u64> {
        let _ = (safety_ms, duration_ms, processes);
        None
    }

    /// The menu of triggers a seed draws from.
    fn menu(&self) -> &'static [MenuItem] {
        DEFAULT_MENU
    }

    /// The items triggers may focus on.
    fn items(&self) -> Vec<String> {
        Vec::new()
    }

    /// The items the nemesis may delete or replace by an entity of another kind.
    fn deletable(&self) -> Vec<ItemRef> {
        Vec::new()
    }

    /// Promises whose edges outages test.
    fn promises(&self, processes: &[ProcessSpec<Self::Kind>]) -> Vec<Promise> {
        let _ = processes;
        Vec::new()
    }

    /// The service's probe for one run.
    fn probe(&self, init: &ProbeInit<'_>) -> Option<Arc<dyn Probe>> {
        let _ = init;
        None
    }

    /// The tracing subscriber the run goes on under; by default none, so that no log event of
    /// the SDK draws from its random numbers.
    fn subscriber(&self) -> Option<tracing::Dispatch> {
        None
    }

    /// How often the fake deletes expired items (time to live), if it does.
    fn ttl_sweep(&self) -> Option<Duration> {
        Some(Duration::from_secs(60))
    }

    /// Whether the world records the steps of every DynamoDB request in the history (the
    /// timeline then shows them). A service whose probe records what it needs says no.
    fn records_requests(&self) -> bool {
        true
    }

    /// The kind of workload in a few words, for the summary.
    fn kind_name(&self, kind: &Self::Kind) -> String {
        format!("{kind:?}")
    }
}
