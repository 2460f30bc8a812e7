//! What DynamoDB holds for each lock, as the world sees it while the run goes on.
//!
//! `Truth` reads a lock item right after the fake applied or refused a write to it, records
//! [`Event::Applied`] or [`Event::Refused`] with the item before and after, and keeps for every
//! lock its current state and the incarnation whose write gave it its owner. The checker holds
//! every write against these records; the triggers of the nemesis ask who holds a lock.
//!
//! The read goes to the engine directly ([`FakeDynamoDb::handle_json`]), past the network and
//! the fault rules: it is the world looking, not a process.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use dynalease_fake::FakeDynamoDb;

use crate::history::{Actor, Event, LockRecord, LockState, ProcessRef, Recorder, WriteEffect};
use crate::world::{PARTITION_KEY, SORT_KEY, TABLE};

/// A lock item a request is about: its lock name and its partition key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LockTarget {
    pub(crate) name: String,
    pub(crate) key: String,
}

impl LockTarget {
    /// The lock item a request body names in its key, if it names one of `prefixes`.
    pub(crate) fn find(body: &[u8], prefixes: &[&str]) -> Option<LockTarget> {
        for prefix in prefixes {
            let needle = format!("\"{prefix}");
            let Some(at) = find(body, needle.as_bytes()) else { continue };
            let start = at + 1;
            let len = body[start..].iter().position(|&b| b == b'"')?;
            let key = std::str::from_utf8(&body[start..start + len]).ok()?;
            let name = key.strip_prefix(prefix)?;
            return Some(LockTarget { name: name.to_owned(), key: key.to_owned() });
        }
        None
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// What the world knows of one lock.
#[derive(Clone, Copy, Debug, Default)]
struct LockTruth {
    state: LockState,
    /// The incarnation whose write gave the item its current owner.
    holder: Option<ProcessRef>,
}

#[derive(Debug, Default)]
struct State {
    locks: BTreeMap<String, LockTruth>,
    /// Requests the processes sent to DynamoDB.
    sent: usize,
    /// Request bodies by hash, numbered in the order they first reached DynamoDB.
    requests: BTreeMap<u64, u32>,
}

/// The live ground truth of the locks of a run.
#[derive(Debug)]
pub(crate) struct Truth {
    fake: FakeDynamoDb,
    recorder: Recorder,
    state: Mutex<State>,
}

/// What an applied write did, for the triggers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Observed {
    pub(crate) effect: WriteEffect,
}

impl Truth {
    pub(crate) fn new(fake: FakeDynamoDb, recorder: Recorder) -> Self {
        Truth { fake, recorder, state: Mutex::new(State::default()) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of a request: the same for the retries of one request, which the client
    /// sends with the same body.
    fn request(&self, hash: u64) -> u32 {
        let mut state = self.state();
        let next = state.requests.len() as u32 + 1;
        *state.requests.entry(hash).or_insert(next)
    }

    /// Records that DynamoDB applied the write of `by` to `target`, sent at `sent`, whose body
    /// hashes to `hash`.
    pub(crate) fn applied(&self, target: &LockTarget, by: ProcessRef, sent: Duration, hash: u64) -> Observed {
        let request = self.request(hash);
        let after = self.peek(target);
        let lock = self.recorder.lock(&target.name);
        let before = {
            let mut state = self.state();
            let truth = state.locks.entry(target.name.clone()).or_default();
            let before = truth.state;
            let effect = WriteEffect::of(&before, &after);
            truth.state = after;
            match effect {
                WriteEffect::Grant => truth.holder = Some(by),
                WriteEffect::Release => truth.holder = None,
                WriteEffect::Renewal | WriteEffect::Unchanged => {}
            }
            before
        };
        self.recorder.record(Actor::Db, Event::Applied { lock, by, sent, request, before, after });
        Observed { effect: WriteEffect::of(&before, &after) }
    }

    /// Records that DynamoDB refused the conditional write of `by` to `target`, whose body
    /// hashes to `hash`.
    pub(crate) fn refused(&self, target: &LockTarget, by: ProcessRef, hash: u64) {
        let request = self.request(hash);
        let state = self.peek(target);
        let lock = self.recorder.lock(&target.name);
        self.state().locks.entry(target.name.clone()).or_default().state = state;
        self.recorder.record(Actor::Db, Event::Refused { lock, by, request, state });
    }

    /// A process sent a request to DynamoDB.
    pub(crate) fn count_request(&self) {
        self.state().sent += 1;
    }

    /// How many requests the processes sent to DynamoDB.
    pub(crate) fn requests(&self) -> usize {
        self.state().sent
    }

    /// The nemesis deleted the item of `name`.
    pub(crate) fn deleted(&self, name: &str) {
        self.state().locks.insert(name.to_owned(), LockTruth::default());
    }

    /// The record of `name` and the incarnation that holds it, if the item has an owner.
    pub(crate) fn holder(&self, name: &str) -> Option<(ProcessRef, LockRecord)> {
        let state = self.state();
        let truth = state.locks.get(name)?;
        Some((truth.holder?, *truth.state.held()?))
    }

    /// Reads the item of `target` from the engine.
    fn peek(&self, target: &LockTarget) -> LockState {
        let body = format!(
            r#"{{"TableName":"{TABLE}","Key":{{"{PARTITION_KEY}":{{"S":{}}},"{SORT_KEY}":{{"S":"LOCK"}}}},"ConsistentRead":true}}"#,
            serde_json::Value::String(target.key.clone())
        );
        let (status, answer) = self.fake.handle_json("GetItem", body.as_bytes());
        if status != 200 {
            return LockState::Absent;
        }
        let Ok(json) = serde_json::from_slice::<serde_json::Value>(&answer) else { return LockState::Absent };
        let Some(item) = json.get("Item") else { return LockState::Absent };
        let string = |name: &str| item.get(name).and_then(|v| v.get("S")).and_then(|v| v.as_str());
        let number_text = |name: &str| item.get(name).and_then(|v| v.get("N")).and_then(|v| v.as_str());
        let number = |name: &str| number_text(name).and_then(|n| n.parse::<u64>().ok());
        let fence = number("fence").unwrap_or(0);
        match string("owner") {
            None => LockState::Free { fence },
            Some(owner) => LockState::Held(LockRecord {
                owner: self.recorder.intern(owner),
                version: string("rvn")
                    .or_else(|| number_text("expiresAtMs"))
                    .map_or(0, |version| self.recorder.intern(version)),
                fence,
                lease_ms: number("leaseMs").unwrap_or(0),
            }),
        }
    }
}

/// FNV-1a, 64 bits: the identity of a request body.
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_names_the_lock_item_in_its_key() {
        let body = br#"{"TableName":"Sim","Key":{"pk":{"S":"LOCK#leader"},"sk":{"S":"LOCK"}}}"#;
        let target = LockTarget::find(body, &["LOCK#", "NAIVE#"]).expect("a lock item");
        assert_eq!((target.name.as_str(), target.key.as_str()), ("leader", "LOCK#leader"));
        let naive = br#"{"Key":{"pk":{"S":"NAIVE#job"}}}"#;
        assert_eq!(LockTarget::find(naive, &["LOCK#", "NAIVE#"]).map(|t| t.name), Some(String::from("job")));
        assert_eq!(LockTarget::find(br#"{"Item":{"pk":{"S":"DATA#leader"}}}"#, &["LOCK#"]), None);
    }
}
