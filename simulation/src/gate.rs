//! [`Gate`]: whether one incarnation of a process runs, and the wait for it to run again.
//!
//! Every wait of a simulated process (its clock's sleeps, its requests and their answers) passes
//! the gate of its incarnation: a paused or suspended process makes no progress until it is
//! resumed, and a crashed one never again.

use std::sync::Arc;

use tokio::sync::watch;

/// The state of one incarnation of a process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RunState {
    /// It runs.
    Running,
    /// Stopped, as by SIGSTOP or a long garbage collection: its clock keeps running.
    Paused,
    /// Stopped, as a suspended virtual machine: its monotonic clock does not run either.
    Suspended,
    /// Gone: it sends nothing, hears nothing and never runs again.
    Crashed,
}

/// The gate of one incarnation. Clones share it.
#[derive(Clone, Debug)]
pub(crate) struct Gate {
    state: Arc<watch::Sender<RunState>>,
}

impl Gate {
    pub(crate) fn new() -> Self {
        Gate { state: Arc::new(watch::Sender::new(RunState::Running)) }
    }

    pub(crate) fn state(&self) -> RunState {
        *self.state.borrow()
    }

    pub(crate) fn set(&self, state: RunState) {
        self.state.send_replace(state);
    }

    /// Completes once the incarnation runs; never, once it has crashed.
    pub(crate) async fn open(&self) {
        if self.state() == RunState::Running {
            return;
        }
        let mut states = self.state.subscribe();
        // The sender lives as long as this gate, so the wait ends only when the state is Running.
        let _ = states.wait_for(|state| *state == RunState::Running).await;
    }
}
