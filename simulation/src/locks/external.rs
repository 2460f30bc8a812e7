//! The external store: a system outside DynamoDB that checks fencing tokens itself.
//!
//! It accepts a write whose token is at least the highest it has accepted for the lock, and
//! refuses a lower one, as a storage service that is handed the fencing token of a lease does.
//! Processes reach it over their network ([`Ctx::remote`](crate::Ctx::remote)), so partitions,
//! pauses and lost answers reach it too. Every accepted write is noted as it is applied.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::history::{Actor, OpId, Recorder, Value};
use crate::locks::notes::{Lock, LockNote};

/// A store that refuses writes with a lower fencing token than one it accepted.
#[derive(Debug)]
pub(crate) struct ExternalStore {
    highest: Mutex<BTreeMap<Lock, u64>>,
    recorder: Recorder,
}

impl ExternalStore {
    pub(crate) fn new(recorder: Recorder) -> Self {
        ExternalStore { highest: Mutex::new(BTreeMap::new()), recorder }
    }

    /// Applies the write `op` with `token` under `lock`: whether it was accepted.
    pub(crate) fn apply(&self, op: OpId, lock: &Lock, token: u64) -> bool {
        let mut highest = self.highest.lock().unwrap_or_else(|e| e.into_inner());
        let seen = highest.entry(lock.clone()).or_insert(0);
        if token < *seen {
            return false;
        }
        *seen = token;
        self.recorder.note(Actor::Store, Value::new(LockNote::StoreAccepted { op, lock: lock.clone(), token }));
        true
    }
}
