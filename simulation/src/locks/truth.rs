//! What DynamoDB holds for each lock, as the lock library's probe sees it while the run goes on.
//!
//! `Truth` reads a lock item right after the fake applied or refused a write to it, notes
//! [`LockNote::Applied`] or [`LockNote::Refused`] with the item before and after, and keeps for
//! every lock its current state and the incarnation whose write gave it its owner. The checker
//! holds every write against these notes; the triggers of the nemesis ask who holds a lock.
//!
//! The read goes to the engine directly ([`FakeDynamoDb::read_attributes`]), past the network, the
//! fault rules and the request ids: it is the world looking, not a process.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_fake::FakeDynamoDb;
use memchr::memmem::Finder;

use crate::history::{Actor, OpId, ProcessRef, Recorder, Value};
use crate::item::ItemRef;
use crate::locks::item_options::{ItemAttributes, ItemOptions};
use crate::locks::notes::{ItemState, Lock, LockNote};
use crate::locks::{EXPIRY_ATTRIBUTE, PARTITION_KEY, SORT_KEY, TABLE};

/// The prefix of the partition key of a lock item of the library.
pub(crate) const LIBRARY_PREFIX: &str = "LOCK#";

/// The prefix of the partition key of a lock item of the naive lock.
pub(crate) const NAIVE_PREFIX: &str = "NAIVE#";

/// The lock whose item `item` is, if it is the item of a lock of the library or the naive lock.
pub(crate) fn lock_of_item(item: &ItemRef) -> Option<&str> {
    if item.table() != TABLE {
        return None;
    }
    let partition = item.key().strip_suffix("/LOCK")?;
    partition.strip_prefix(LIBRARY_PREFIX).or_else(|| partition.strip_prefix(NAIVE_PREFIX))
}

/// What a write applied to a lock item did, told apart by the item before and after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteEffect {
    /// A new owner, or the same owner with a raised fencing token.
    Grant,
    /// The same owner with a new record version.
    Renewal,
    /// The owner was removed, or the item deleted.
    Release,
    /// Nothing a lock protocol reads changed.
    Unchanged,
}

impl WriteEffect {
    /// The effect of a write that turned `before` into `after`.
    pub(crate) fn of(before: &ItemState, after: &ItemState) -> WriteEffect {
        match (before, after) {
            (
                ItemState::Held { owner: a, version: v, fence: f, .. },
                ItemState::Held { owner: b, version: w, fence: g, .. },
            ) if a == b => {
                if g > f {
                    WriteEffect::Grant
                } else if v != w {
                    WriteEffect::Renewal
                } else {
                    WriteEffect::Unchanged
                }
            }
            (_, ItemState::Held { .. }) => WriteEffect::Grant,
            (ItemState::Held { .. }, _) => WriteEffect::Release,
            (ItemState::Free { .. }, ItemState::Absent) => WriteEffect::Release,
            _ => WriteEffect::Unchanged,
        }
    }
}

/// A lock item a request is about: its lock name and its partition key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LockTarget {
    pub(crate) name: String,
    pub(crate) key: String,
}

impl LockTarget {
    /// The item of the lock, as the world names it.
    pub(crate) fn item(&self) -> ItemRef {
        ItemRef::of(TABLE, &self.key, Some("LOCK"))
    }

    /// The lock item `item` is, if it is one.
    pub(crate) fn of_item(item: &ItemRef) -> Option<LockTarget> {
        let name = lock_of_item(item)?;
        let key = item.key().strip_suffix("/LOCK")?;
        Some(LockTarget { name: name.to_owned(), key: key.to_owned() })
    }

    /// The lock item a request body names in its key, if it is one of [`TABLE`] named by
    /// one of `prefixes`. A request to another table, or one that names the item by other
    /// keys (a lock table made for keys the table does not have), is not about a lock item.
    pub(crate) fn find(body: &[u8], prefixes: &[&str]) -> Option<LockTarget> {
        let needles = &*NEEDLES;
        if needles.table.find(body).is_none() || needles.sort.find(body).is_none() {
            return None;
        }
        // The key is a JSON string that starts with one of the prefixes.
        let start = needles.partition.find(body)? + needles.partition.needle().len();
        let len = body[start..].iter().position(|&b| b == b'"')?;
        let key = std::str::from_utf8(&body[start..start + len]).ok()?;
        let name = prefixes.iter().find_map(|prefix| key.strip_prefix(prefix))?;
        Some(LockTarget { name: name.to_owned(), key: key.to_owned() })
    }
}

/// What a request about a lock item carries, as the SDK writes JSON (without spaces): the name
/// of the table, the sort key of a lock item, and the start of its partition key; and the start of
/// a string value. Their searchers are made once: every request of a run is looked at.
struct Needles {
    table: Finder<'static>,
    sort: Finder<'static>,
    partition: Finder<'static>,
    string: Finder<'static>,
}

static NEEDLES: LazyLock<Needles> = LazyLock::new(|| {
    let finder = |needle: String| Finder::new(needle.as_bytes()).into_owned();
    Needles {
        table: finder(format!(r#""TableName":"{TABLE}""#)),
        sort: finder(format!(r#""{SORT_KEY}":{{"S":"LOCK"}}"#)),
        partition: finder(format!(r#""{PARTITION_KEY}":{{"S":""#)),
        string: finder(String::from(r#"{"S":""#)),
    }
});

/// What the world knows of one lock.
#[derive(Clone, Debug, Default)]
struct LockTruth {
    state: ItemState,
    /// The incarnation whose write gave the item its current owner.
    holder: Option<ProcessRef>,
}

#[derive(Debug, Default)]
struct State {
    locks: BTreeMap<String, LockTruth>,
    /// The owner ids of the leases granted on each lock, in the order they were granted.
    owners: BTreeMap<String, Vec<Arc<str>>>,
    /// Request bodies by hash, numbered in the order they first reached DynamoDB.
    requests: BTreeMap<u64, u32>,
    /// The options each incarnation of the library writes lock items with.
    options: BTreeMap<ProcessRef, ItemOptions>,
    /// The incarnation DynamoDB last granted each lock to.
    grants: BTreeMap<String, ProcessRef>,
}

/// The live ground truth of the locks of a run.
#[derive(Debug)]
pub(crate) struct Truth {
    fake: FakeDynamoDb,
    recorder: Recorder,
    state: Mutex<State>,
}

impl Truth {
    pub(crate) fn new(fake: FakeDynamoDb, recorder: Recorder) -> Self {
        Truth { fake, recorder, state: Mutex::new(State::default()) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn note(&self, actor: Actor, note: LockNote) {
        self.recorder.note(actor, Value::new(note));
    }

    /// The number of a request: the same for the retries of one request, which the client
    /// sends with the same body.
    fn request(&self, hash: u64) -> u32 {
        let mut state = self.state();
        let next = state.requests.len() as u32 + 1;
        *state.requests.entry(hash).or_insert(next)
    }

    /// Holds the writes of `process` to what `options` promise of the lock items they leave.
    pub(crate) fn writes_with(&self, process: ProcessRef, options: ItemOptions) {
        self.state().options.insert(process, options);
    }

    /// Notes that DynamoDB applied the write of `by` to `target`, sent at `sent` for the
    /// operation `op`, whose body hashes to `hash`. Returns what it did.
    pub(crate) fn applied(
        &self,
        target: &LockTarget,
        by: ProcessRef,
        sent: Duration,
        hash: u64,
        op: Option<OpId>,
    ) -> WriteEffect {
        let request = self.request(hash);
        let (after, label, expiry) = self.peek_with_options(target);
        let (before, options, effect) = {
            let mut state = self.state();
            let truth = state.locks.entry(target.name.clone()).or_default();
            let before = std::mem::replace(&mut truth.state, after.clone());
            let effect = WriteEffect::of(&before, &after);
            match effect {
                WriteEffect::Grant => {
                    truth.holder = Some(by);
                    state.grants.insert(target.name.clone(), by);
                }
                WriteEffect::Release => truth.holder = None,
                WriteEffect::Renewal | WriteEffect::Unchanged => {}
            }
            if effect == WriteEffect::Grant
                && let ItemState::Held { owner, .. } = &after
            {
                let owners = state.owners.entry(target.name.clone()).or_default();
                if !owners.contains(owner) {
                    owners.push(owner.clone());
                }
            }
            (before, state.options.get(&by).cloned(), effect)
        };
        let held = matches!(after, ItemState::Held { .. });
        let lock = Lock::new(&target.name);
        self.note(Actor::Db, LockNote::Applied { lock: lock.clone(), by, sent, request, op, before, after });
        let attributes = ItemAttributes { held, label: label.as_deref(), expiry: expiry.as_deref() };
        if let Some(broken) = options.and_then(|options| options.broken_by(&attributes, self.fake.now())) {
            self.note(Actor::Process(by), LockNote::Broken { lock, what: broken });
        }
        effect
    }

    /// Notes that DynamoDB refused the conditional write `body` of `by` to `target`, whose
    /// body hashes to `hash`. Returns the number of the request.
    pub(crate) fn refused(&self, target: &LockTarget, by: ProcessRef, hash: u64, body: &[u8]) -> u32 {
        let request = self.request(hash);
        let state = self.peek(target);
        self.state().locks.entry(target.name.clone()).or_default().state = state.clone();
        let names = self.named(target, body);
        self.note(Actor::Db, LockNote::Refused { lock: Lock::new(&target.name), by, request, state, names });
        request
    }

    /// The owner of a lease granted on `target` that the request `body` names (in its condition,
    /// as a renewal or a release does), if it names one: of the string values of the body, the
    /// one that is the owner granted last.
    fn named(&self, target: &LockTarget, body: &[u8]) -> Option<Arc<str>> {
        let state = self.state();
        let owners = state.owners.get(&target.name)?;
        let mut best: Option<usize> = None;
        for value in strings(body) {
            if let Some(at) = owners.iter().rposition(|owner| owner.as_bytes() == value) {
                best = Some(best.map_or(at, |b| b.max(at)));
            }
        }
        best.map(|at| owners[at].clone())
    }

    /// Notes that the write `body` of `by` to `target`, whose body hashes to `hash`, left its
    /// process. Returns the number of the request.
    pub(crate) fn sent(&self, target: &LockTarget, by: ProcessRef, hash: u64, body: &[u8]) -> u32 {
        let request = self.request(hash);
        let names = self.named(target, body);
        self.note(Actor::Process(by), LockNote::Sent { lock: Lock::new(&target.name), request, names });
        request
    }

    /// The answer to an attempt of the request `request` to `target` reached `by`, or its
    /// client gave up on it: `ok` if DynamoDB applied it.
    pub(crate) fn answered(&self, target: &LockTarget, by: ProcessRef, request: u32, ok: bool) {
        self.note(Actor::Process(by), LockNote::Answered { lock: Lock::new(&target.name), request, ok });
    }

    /// The answer of the refused request `request` to `target` reached its process.
    pub(crate) fn heard(&self, target: &LockTarget, request: u32) {
        self.note(Actor::Db, LockNote::Heard { lock: Lock::new(&target.name), request });
    }

    /// The incarnation DynamoDB last granted `name` to.
    pub(crate) fn last_grant(&self, name: &str) -> Option<ProcessRef> {
        self.state().grants.get(name).copied()
    }

    /// The nemesis deleted the item of `name`, or replaced it by an entity that is no lock.
    pub(crate) fn deleted(&self, name: &str) {
        self.state().locks.insert(name.to_owned(), LockTruth::default());
    }

    /// The state of the item of `name` and the incarnation that holds it, if the item has an
    /// owner.
    pub(crate) fn holder(&self, name: &str) -> Option<(ProcessRef, ItemState)> {
        let state = self.state();
        let truth = state.locks.get(name)?;
        match &truth.state {
            ItemState::Held { .. } => Some((truth.holder?, truth.state.clone())),
            _ => None,
        }
    }

    fn key(target: &LockTarget) -> HashMap<String, AttributeValue> {
        HashMap::from([
            (PARTITION_KEY.to_owned(), AttributeValue::S(target.key.clone())),
            (SORT_KEY.to_owned(), AttributeValue::S(String::from("LOCK"))),
        ])
    }

    /// Reads the item of `target` from the engine.
    fn peek(&self, target: &LockTarget) -> ItemState {
        self.peek_with_options(target).0
    }

    /// Reads the item of `target` from the engine, with the holder label and the expiry that
    /// the options of its writer leave on it.
    fn peek_with_options(&self, target: &LockTarget) -> (ItemState, Option<String>, Option<String>) {
        let names = ["owner", "rvn", "fence", "leaseMs", "expiresAtMs", HOLDER_ATTRIBUTE, EXPIRY_ATTRIBUTE];
        let Some(item) = self.fake.read_attributes(TABLE, &Self::key(target), &names) else {
            return (ItemState::Absent, None, None);
        };
        let text = |i: usize| item[i].as_ref().and_then(|value| value.as_s().ok());
        let number = |i: usize| item[i].as_ref().and_then(|value| value.as_n().ok());
        let fence = number(2).and_then(|n| n.parse().ok()).unwrap_or(0);
        let state = match text(0) {
            None => ItemState::Free { fence },
            Some(owner) => ItemState::Held {
                owner: Arc::from(owner.as_str()),
                version: Arc::from(text(1).or(number(4)).map_or("", String::as_str)),
                fence,
                lease_ms: number(3).and_then(|n| n.parse().ok()).unwrap_or(0),
            },
        };
        (state, text(5).cloned(), number(6).cloned())
    }
}

/// The attribute of the library's lock items that holds the holder label.
const HOLDER_ATTRIBUTE: &str = "holder";

/// The string values of a request body as the SDK writes them (`{"S":"..."}`), up to their
/// first quote.
fn strings(body: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = body;
    let needle = &NEEDLES.string;
    std::iter::from_fn(move || {
        let start = needle.find(rest)? + needle.needle().len();
        let len = memchr::memchr(b'"', &rest[start..])?;
        let value = &rest[start..start + len];
        rest = &rest[start + len..];
        Some(value)
    })
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
        let naive = br#"{"TableName":"Sim","Key":{"sk":{"S":"LOCK"},"pk":{"S":"NAIVE#job"}}}"#;
        assert_eq!(LockTarget::find(naive, &["LOCK#", "NAIVE#"]).map(|t| t.name), Some(String::from("job")));
        let data = br#"{"TableName":"Sim","Item":{"pk":{"S":"DATA#leader"},"sk":{"S":"LOCK"}}}"#;
        assert_eq!(LockTarget::find(data, &["LOCK#"]), None);
    }

    #[test]
    fn a_request_by_other_keys_or_to_another_table_is_not_about_a_lock_item() {
        for body in [
            &br#"{"TableName":"Sim","Key":{"id":{"S":"LOCK#leader"},"sk":{"S":"LOCK"}}}"#[..],
            br#"{"TableName":"Sim","Key":{"pk":{"S":"LOCK#leader"},"range":{"S":"LOCK"}}}"#,
            br#"{"TableName":"Sim","Key":{"pk":{"S":"LOCK#leader"}}}"#,
            br#"{"TableName":"Simple","Key":{"pk":{"S":"LOCK#leader"},"sk":{"S":"LOCK"}}}"#,
        ] {
            assert_eq!(LockTarget::find(body, &["LOCK#"]), None, "{}", String::from_utf8_lossy(body));
        }
    }
}
