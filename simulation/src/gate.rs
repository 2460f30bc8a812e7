//! [`Gate`]: whether one incarnation of a process runs, and the wait for it to run again.
//!
//! Every wait of a simulated process (its clock's sleeps, its requests and their answers) passes
//! the gate of its incarnation: a paused or suspended process makes no progress until it is
//! resumed, and a crashed one never again.
//!
//! The waiters are woken through one `tokio::sync::Notify`, in the order they started to wait.
//! (A `tokio::sync::watch` channel would not do: it spreads its receivers over several
//! notifiers chosen at random, so the order in which a resumed process's tasks run, and with
//! it the whole run, would change from one run to the next.)

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;

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
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    state: Mutex<RunState>,
    changed: Notify,
}

impl Gate {
    pub(crate) fn new() -> Self {
        Gate { inner: Arc::new(Inner { state: Mutex::new(RunState::Running), changed: Notify::new() }) }
    }

    fn lock(&self) -> MutexGuard<'_, RunState> {
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn state(&self) -> RunState {
        *self.lock()
    }

    pub(crate) fn set(&self, state: RunState) {
        *self.lock() = state;
        self.inner.changed.notify_waiters();
    }

    /// Completes once the incarnation runs; never, once it has crashed.
    pub(crate) async fn open(&self) {
        loop {
            let changed = self.inner.changed.notified();
            if self.state() == RunState::Running {
                return;
            }
            changed.await;
        }
    }
}
