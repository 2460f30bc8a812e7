//! [`LockProbe`]: the lock library's knowledge of its own protocol, for the world.
//!
//! Through it the world records the ground truth of every write to a lock item (the item
//! before and after, read from the fake right after DynamoDB applied it), labels the moments of
//! the protocol (`lock` for every read and write of a lock item; `grant`, `renewal`, `release`
//! for what an applied write did; `waiting` for a read of a lock another process holds), and
//! announces when a lock falls due: a whole lease after a waiting process first read the
//! holder's record, when it may take the lock over. It also keeps what the processes of a run
//! share: the tokens they hand each other and the external store.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::Duration;

use aws_smithy_runtime_api::http::Headers;
use memchr::memmem::Finder;

use crate::gate::RunState;
use crate::history::{Actor, Nemesis, OpId, Phase, ProcessRef, Value};
use crate::item::ItemRef;
use crate::locks::external::ExternalStore;
use crate::locks::mailbox::Mailbox;
use crate::locks::notes::{ItemState, Lock, LockNote};
use crate::locks::operation::current_operation;
use crate::locks::truth::{LockTarget, Truth, WriteEffect, fnv};
use crate::locks::{LIBRARY_PREFIX, NAIVE_PREFIX, OP_HEADER};
use crate::probe::{Control, Far, Fate, Look, Outgoing, Probe, ProbeInit};

/// What a refusal's answer says, searched for in every refusal.
static CONDITION_FAILED: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"ConditionalCheckFailed"));
static ITEM: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(br#""Item""#));

/// Bits of a lock request's third tag.
const WRITES_LOCK: u64 = 1 << 32;
const READS_LOCK: u64 = 1 << 33;
const REFUSED_WITH_ITEM: u64 = 1 << 34;

/// The lock library's probe of one run.
#[derive(Debug)]
pub struct LockProbe {
    pub(crate) truth: Truth,
    /// The lock whose holder the liveness test crashes.
    liveness_lock: Option<String>,
    pub(crate) mailbox: Mailbox,
    pub(crate) store: ExternalStore,
    /// Since when each waiting process has read the same record of each lock, in global time.
    watching: Mutex<BTreeMap<(u16, String), (ItemState, Duration)>>,
}

impl LockProbe {
    pub(crate) fn new(init: &ProbeInit<'_>, liveness_lock: Option<String>) -> Self {
        LockProbe {
            truth: Truth::new(init.fake.clone(), init.recorder.clone()),
            liveness_lock,
            mailbox: Mailbox::default(),
            store: ExternalStore::new(init.recorder.clone()),
            watching: Mutex::new(BTreeMap::new()),
        }
    }

    fn watching(&self) -> MutexGuard<'_, BTreeMap<(u16, String), (ItemState, Duration)>> {
        self.watching.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The tokens that processes hand each other, by lock.
    pub fn mailbox(&self) -> &Mailbox {
        &self.mailbox
    }

    /// `reader` read `target` while another process held it with `record`: it waits for the
    /// lock, which falls due a whole lease after it first read that record.
    fn read_held(&self, reader: ProcessRef, target: &LockTarget, record: &ItemState, far: &Far<'_>) {
        let ItemState::Held { lease_ms, .. } = record else { return };
        let now = far.recorder().now();
        let since = {
            let mut watching = self.watching();
            let key = (reader.id, target.name.clone());
            match watching.get(&key) {
                Some((seen, since)) if seen == record => *since,
                _ => {
                    watching.insert(key, (record.clone(), now));
                    now
                }
            }
        };
        far.due(&target.item(), version(record), reader, since + Duration::from_millis(*lease_ms));
    }
}

/// The number the world knows a holder's record by.
fn version(record: &ItemState) -> u64 {
    match record {
        ItemState::Held { owner, version, fence, .. } => {
            fnv(owner.as_bytes()) ^ fnv(version.as_bytes()).rotate_left(17) ^ fence.rotate_left(31)
        }
        _ => 0,
    }
}

impl Probe for LockProbe {
    fn sent(&self, request: &Outgoing<'_>, headers: &Headers) -> Look {
        let op = headers.get(OP_HEADER).and_then(|v| v.parse::<u32>().ok());
        let single = matches!(request.operation, "UpdateItem" | "PutItem" | "DeleteItem" | "GetItem");
        let target = if single { LockTarget::find(request.body, &[LIBRARY_PREFIX, NAIVE_PREFIX]) } else { None };
        let Some(target) = target else {
            // A fenced write: the world notes its commit.
            return Look { watch: op.is_some(), tags: [0, op.map_or(0, |op| u64::from(op) + 1), 0], ..Look::default() };
        };
        let item = Some(target.item());
        let committed = op.map_or(0, |op| u64::from(op) + 1);
        if request.operation == "GetItem" {
            return Look { item, label: Some("lock"), watch: true, tags: [0, committed, READS_LOCK], find: false };
        }
        let hash = fnv(request.body);
        let number = self.truth.sent(&target, request.process, hash, request.body);
        let acquiring = current_operation().map_or(0, |op| u64::from(op.0) + 1);
        Look {
            item,
            label: Some("lock"),
            watch: true,
            tags: [hash, committed | acquiring << 32, WRITES_LOCK | u64::from(number)],
            find: false,
        }
    }

    fn applied(
        &self,
        request: &Outgoing<'_>,
        look: &mut Look,
        status: u16,
        answer: &[u8],
        far: &Far<'_>,
    ) -> Option<&'static str> {
        let committed = look.tags[1] & 0xFFFF_FFFF;
        if status == 200 && committed > 0 {
            let op = OpId((committed - 1) as u32);
            far.recorder().note(Actor::Db, Value::new(LockNote::Committed { op }));
        }
        let target = look.item.as_ref().and_then(LockTarget::of_item)?;
        if look.tags[2] & READS_LOCK != 0 {
            if status != 200 || !far.triggers_active() {
                return None;
            }
            let (holder, record) = self.truth.holder(&target.name)?;
            if holder == request.process {
                return None;
            }
            self.read_held(request.process, &target, &record, far);
            return Some("waiting");
        }
        if status == 200 {
            let acquiring = look.tags[1] >> 32;
            let op = (acquiring > 0).then(|| OpId((acquiring - 1) as u32));
            return match self.truth.applied(&target, request.process, request.sent_at, look.tags[0], op) {
                WriteEffect::Grant => Some("grant"),
                WriteEffect::Renewal => Some("renewal"),
                WriteEffect::Release => Some("release"),
                WriteEffect::Unchanged => None,
            };
        }
        if CONDITION_FAILED.find(answer).is_some() {
            let number = self.truth.refused(&target, request.process, look.tags[0], request.body);
            // Only an answer that shows the item tells the process who holds the lock; without it
            // the process must read the item again to know.
            if ITEM.find(answer).is_some() {
                look.tags[2] = WRITES_LOCK | REFUSED_WITH_ITEM | u64::from(number);
            }
        }
        None
    }

    fn answered(&self, request: &Outgoing<'_>, look: &Look, fate: Fate, _: &Far<'_>) {
        if look.tags[2] & WRITES_LOCK == 0 {
            return;
        }
        let Some(target) = look.item.as_ref().and_then(LockTarget::of_item) else { return };
        let number = (look.tags[2] & 0xFFFF_FFFF) as u32;
        self.truth.answered(&target, request.process, number, fate == Fate::Heard(200));
        if look.tags[2] & REFUSED_WITH_ITEM != 0 && matches!(fate, Fate::Heard(_)) {
            self.truth.heard(&target, number);
        }
    }

    fn fault(&self, fault: &Nemesis, _: &Far<'_>) {
        if let Nemesis::DeleteItem(item) | Nemesis::ReplaceItem(item) = fault
            && let Some(target) = LockTarget::of_item(item)
        {
            self.truth.deleted(&target.name);
        }
    }

    fn phase(&self, phase: &Phase, control: &mut dyn Control) {
        if *phase != Phase::Liveness {
            return;
        }
        let Some(name) = &self.liveness_lock else { return };
        let victim = self.truth.last_grant(name).filter(|holder| {
            control.current(holder.id).is_some_and(|(current, state)| current == *holder && state == RunState::Running)
        });
        let note = LockNote::LivenessCrash { lock: Lock::new(name), victim };
        control.recorder().note(Actor::World, Value::new(note));
        if let Some(victim) = victim {
            control.crash(victim);
        }
    }

    fn holder(&self, item: &ItemRef) -> Option<(ProcessRef, u64)> {
        let target = LockTarget::of_item(item)?;
        let (holder, record) = self.truth.holder(&target.name)?;
        Some((holder, version(&record)))
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
