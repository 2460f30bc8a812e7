//! [`Mailbox`]: the tokens of the process-lock shape that processes hand each other.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use dynalease::ProcessLockToken;

use crate::history::ProcessRef;

/// A token that one process hands another: the token of [`ProcessLocks`](dynalease::ProcessLocks), with what the
/// receiver needs to know of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handoff {
    /// The token.
    pub token: ProcessLockToken,
    /// Its fencing token.
    pub fence: u64,
    /// The duration its lock was last written with.
    pub duration: Duration,
    /// The incarnation that hands it over.
    pub from: ProcessRef,
}

/// Tokens that processes hand each other, by lock, shared by the whole world.
#[derive(Debug, Default)]
pub struct Mailbox(Mutex<BTreeMap<String, VecDeque<Handoff>>>);

impl Mailbox {
    fn slots(&self) -> MutexGuard<'_, BTreeMap<String, VecDeque<Handoff>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Posts `handoff` for the next process that takes a token of `lock`.
    pub fn post(&self, lock: &str, handoff: Handoff) {
        self.slots().entry(lock.to_owned()).or_default().push_back(handoff);
    }

    /// The oldest token of `lock` posted by another process than `taker`, if any.
    pub fn take(&self, lock: &str, taker: u16) -> Option<Handoff> {
        let mut slots = self.slots();
        let queue = slots.get_mut(lock)?;
        let at = queue.iter().position(|h| h.from.id != taker)?;
        queue.remove(at)
    }
}
