//! Entries of hand-made histories, for the tests of the checker.

use std::time::Duration;

use dynalease_sim::locks::history::{Actor, Entry, Event, LockId, LockRecord, LockState, ProcessRef};

use super::LEASE_MS;

/// The one lock of a hand-made history.
pub const LOCK: LockId = LockId(0);

/// Process `id`, first incarnation.
pub fn p(id: u16) -> ProcessRef {
    ProcessRef { id, incarnation: 0 }
}

/// `event` by `actor` at `ms`.
pub fn at(ms: u64, actor: Actor, event: Event) -> Entry {
    Entry { at: Duration::from_millis(ms), actor, event }
}

/// The item held by `owner` at record version `version`, with `fence`, for a lease of
/// [`LEASE_MS`].
pub fn held_by(owner: u32, version: u32, fence: u64) -> LockState {
    LockState::Held(LockRecord { owner, version, fence, lease_ms: LEASE_MS })
}
