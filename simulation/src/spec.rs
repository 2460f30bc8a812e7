//! The parts of a scenario that do not depend on the service: [`Config`], the shape of the
//! runs of a sweep, and [`ProcessSpec`], one process's machine and what it runs.

use crate::clock::ClockSpec;
use crate::nemesis::FaultBounds;
use crate::net::NetSpec;

/// The shape of the runs of a sweep: how many processes, how long, the bounds of clock skew,
/// drift and latency, and of faults. What the service itself varies from seed to seed (the
/// lease of a lock, say) is the service's own ([`Service::for_seed`](crate::Service::for_seed)).
///
/// # Examples
///
/// ```
/// use dynalease_sim::Config;
///
/// let config = Config { processes: 3, duration_ms: 120_000, ..Config::default() };
/// # let _ = config;
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// How many processes.
    pub processes: u16,
    /// How long a run lasts in simulated time, safety and liveness phases together.
    pub duration_ms: u64,
    /// The largest offset of a machine's wall clock, either way.
    pub skew_ms_max: u64,
    /// The largest drift of a machine's clock, either way.
    pub drift_ppm_max: u32,
    /// The largest usual one-way latency.
    pub latency_ms_max: u64,
    /// The bounds of the faults of the safety phase.
    pub faults: FaultBounds,
    /// Whether each seed switches off a random part of the kinds of faults, and draws whether
    /// some networks are slow (swarm testing), instead of drawing every kind up to its bound.
    pub swarm: bool,
}

impl Default for Config {
    /// The default scenario: 5 processes, 10 simulated minutes, every kind of fault.
    fn default() -> Self {
        Config {
            processes: 5,
            duration_ms: 600_000,
            skew_ms_max: 30_000,
            drift_ppm_max: 500,
            latency_ms_max: 20,
            faults: FaultBounds::default(),
            swarm: true,
        }
    }
}

/// One simulated process: its machine's clock and network, and the kinds of workload it runs
/// (a type of the service's: [`Service::Kind`](crate::Service::Kind)).
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessSpec<K> {
    /// The clock of its machine.
    pub clock: ClockSpec,
    /// The usual latency of its network.
    pub net: NetSpec,
    /// Its workloads, each run as a task of every incarnation.
    pub kinds: Vec<K>,
}

impl<K> ProcessSpec<K> {
    /// A process with a nominal clock, the default network and the workloads `kinds`.
    pub fn new(kinds: Vec<K>) -> Self {
        ProcessSpec { clock: ClockSpec::default(), net: NetSpec::default(), kinds }
    }
}
