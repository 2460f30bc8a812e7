//! [`Run`]: what a service's checker is handed: the history, every table as the run left it,
//! the processes and the phases of the run, and the service's probe.

use std::time::Duration;

use crate::history::{History, Operation};
use crate::probe::Probe;
use crate::spec::ProcessSpec;
use crate::tables::Tables;

/// One finished run, as a checker sees it. `K` is the service's kind of workload.
#[derive(Debug)]
pub struct Run<'a, K> {
    pub(crate) seed: u64,
    pub(crate) history: &'a History,
    pub(crate) tables: &'a Tables,
    pub(crate) processes: &'a [ProcessSpec<K>],
    pub(crate) duration_ms: u64,
    pub(crate) safety_ms: u64,
    pub(crate) probe: Option<&'a dyn Probe>,
}

impl<'a, K> Run<'a, K> {
    /// A run of `history` and `tables`, for checking histories the world did not record, such
    /// as in tests of a checker.
    pub fn new(history: &'a History, tables: &'a Tables, processes: &'a [ProcessSpec<K>]) -> Self {
        Run { seed: 0, history, tables, processes, duration_ms: 0, safety_ms: 0, probe: None }
    }

    /// The seed of the run.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The history.
    pub fn history(&self) -> &'a History {
        self.history
    }

    /// Every table as the run left it.
    pub fn tables(&self) -> &'a Tables {
        self.tables
    }

    /// The processes.
    pub fn processes(&self) -> &'a [ProcessSpec<K>] {
        self.processes
    }

    /// How long the run lasted.
    pub fn duration(&self) -> Duration {
        Duration::from_millis(self.duration_ms)
    }

    /// When every fault was healed.
    pub fn healed_at(&self) -> Duration {
        Duration::from_millis(self.safety_ms)
    }

    /// The operations of type `O` with results of type `R`, in the order they were invoked.
    pub fn operations<O: 'static, R: 'static>(&self) -> Vec<Operation<'a, O, R>> {
        self.history.operations::<O, R>()
    }

    /// The service's probe, as its own type.
    pub fn probe<T: Probe>(&self) -> Option<&'a T> {
        self.probe.and_then(|probe| probe.as_any().downcast_ref::<T>())
    }
}
