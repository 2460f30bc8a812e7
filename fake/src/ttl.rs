//! Time to live: expired items stay readable until a sweep deletes them, as in DynamoDB.

use std::time::{Duration, SystemTime};

use crate::clock::epoch_secs;
use crate::engine::Engine;
use crate::number::Number;
use crate::value::Value;

/// Items whose expiry lies further back than this are never deleted (DynamoDB's five-year rule).
const IGNORED_AFTER_SECS: u64 = 5 * 365 * 24 * 3600;

/// When sweeps run: every `interval`, starting `interval` after `first`.
#[derive(Debug, Clone)]
pub(crate) struct SweepSchedule {
    pub(crate) interval: Duration,
    pub(crate) next: SystemTime,
}

impl SweepSchedule {
    pub(crate) fn new(start: SystemTime, interval: Duration) -> Self {
        SweepSchedule { interval, next: start + interval }
    }

    /// The time of the latest sweep due by `now`, if one is due; moves the schedule past it.
    pub(crate) fn due(&mut self, now: SystemTime) -> Option<SystemTime> {
        if now < self.next || self.interval.is_zero() {
            return None;
        }
        let behind = now.duration_since(self.next).unwrap_or_default();
        let steps = (behind.as_nanos() / self.interval.as_nanos().max(1)) as u32;
        let at = self.next + self.interval * steps;
        self.next = at + self.interval;
        Some(at)
    }
}

/// Deletes every item whose time-to-live attribute is a number of epoch seconds at or before
/// `cutoff`, in every table with time to live enabled. Returns how many it deleted.
pub(crate) fn sweep(engine: &mut Engine, cutoff: SystemTime) -> usize {
    let cutoff_secs = epoch_secs(cutoff);
    let now = Number::from_i64(cutoff_secs as i64);
    let oldest = Number::from_i64(cutoff_secs.saturating_sub(IGNORED_AFTER_SECS) as i64);
    let mut deleted = 0;
    for table in engine.tables.values_mut() {
        let Some(attribute) = table.ttl.attribute.clone().filter(|_| table.ttl.enabled) else { continue };
        let expired: Vec<_> = table
            .items
            .iter()
            .filter(|(_, item)| match item.get(&attribute) {
                Some(Value::N(at)) => at.compare(&now).is_le() && at.compare(&oldest).is_ge(),
                _ => false,
            })
            .map(|(key, _)| key.clone())
            .collect();
        for key in expired {
            table.expire(&key, cutoff);
            deleted += 1;
        }
    }
    deleted
}
