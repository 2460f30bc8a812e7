//! Steering the fake's time: a fake built with a [`ControlledClock`] is frozen, set, advanced
//! and let run through these methods, which make what fell due in between before they return.

use std::time::{Duration, SystemTime};

use crate::accounts::Account;
use crate::clock::{ClockError, ControlledClock, epoch_secs};
use crate::engine::Engine;
use crate::fake::FakeDynamoDb;
use crate::value::Value;

/// Where the fake's clock stands, as the time-steering methods answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClockReading {
    /// The fake's time.
    pub now: SystemTime,
    /// Whether the clock stands still.
    pub frozen: bool,
}

impl FakeDynamoDb {
    /// The fake's clock as a [`ControlledClock`], if it was built with one
    /// ([`FakeDynamoDbBuilder::clock`](crate::FakeDynamoDbBuilder::clock)).
    pub fn controlled_clock(&self) -> Option<&ControlledClock> {
        self.shared.clock.controlled()
    }

    /// Where the fake's clock stands; a clock other than a [`ControlledClock`] reads as running.
    pub fn clock_reading(&self) -> ClockReading {
        let frozen = self.controlled_clock().is_some_and(ControlledClock::is_frozen);
        ClockReading { now: self.now(), frozen }
    }

    /// Stops the fake's clock.
    pub fn freeze_clock(&self) -> Result<ClockReading, ClockError> {
        let clock = self.controlled_clock().ok_or(ClockError::NotControlled)?;
        let now = clock.freeze();
        Ok(ClockReading { now, frozen: true })
    }

    /// Lets the fake's clock run again from where it stands.
    pub fn resume_clock(&self) -> Result<ClockReading, ClockError> {
        let clock = self.controlled_clock().ok_or(ClockError::NotControlled)?;
        let now = clock.resume();
        Ok(ClockReading { now, frozen: false })
    }

    /// Moves the fake's clock forward by `by`, and before answering makes, in order, what fell
    /// due in between: each time-to-live sweep that deletes items runs at its own time (so its
    /// stream records carry that time, and the streams roll their shards over and trim in turn);
    /// table, index and stream statuses and shard iterators read the new time from here on.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
    /// use std::sync::Arc;
    /// use std::time::{Duration, SystemTime};
    /// use dynalease_fake::{ControlledClock, FakeDynamoDb};
    ///
    /// let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    /// let fake = FakeDynamoDb::builder().clock(Arc::new(ControlledClock::frozen_at(start))).build();
    /// let reading = fake.advance_clock(Duration::from_secs(2 * 86_400)).unwrap();
    /// assert_eq!(reading.now, start + Duration::from_secs(2 * 86_400));
    /// # }
    /// ```
    pub fn advance_clock(&self, by: Duration) -> Result<ClockReading, ClockError> {
        let clock = self.controlled_clock().ok_or(ClockError::NotControlled)?;
        // The engines are held while the clock moves, so that no request lands between the move
        // and the deletions it makes due.
        let mut accounts = self.lock_accounts();
        let now = clock.advance(by);
        accounts.accounts_mut().for_each(|account| catch_up(account, now));
        Ok(ClockReading { now, frozen: clock.is_frozen() })
    }

    /// Sets the fake's clock to `to`, which must not be before its time, making what fell due
    /// in between as [`advance_clock`](Self::advance_clock) does.
    pub fn set_clock(&self, to: SystemTime) -> Result<ClockReading, ClockError> {
        let clock = self.controlled_clock().ok_or(ClockError::NotControlled)?;
        let mut accounts = self.lock_accounts();
        let now = clock.set(to)?;
        accounts.accounts_mut().for_each(|account| catch_up(account, now));
        Ok(ClockReading { now, frozen: clock.is_frozen() })
    }
}

/// Runs, in order, every sweep of `account` due by `now` that deletes an item (in any of its
/// regions), then moves its schedule past `now`.
fn catch_up(account: &mut Account, now: SystemTime) {
    let schedule = &account.sweeps;
    if schedule.interval.is_zero() {
        return;
    }
    let now_secs = epoch_secs(now);
    let mut slots: Vec<SystemTime> = account
        .regions
        .values()
        .flat_map(expiries)
        .filter(|&at| at <= now_secs)
        .map(|at| {
            let expiry = SystemTime::UNIX_EPOCH + Duration::from_secs(at);
            let behind = expiry.duration_since(schedule.next).unwrap_or_default();
            let steps = behind.as_nanos().div_ceil(schedule.interval.as_nanos().max(1));
            schedule.next + schedule.interval * u32::try_from(steps).unwrap_or(u32::MAX)
        })
        .filter(|&slot| slot <= now)
        .collect();
    slots.sort_unstable();
    slots.dedup();
    for slot in slots {
        account.sweep(slot);
        account.sweeps.next = slot + account.sweeps.interval;
    }
    account.sweep_due(now);
}

/// The expiry times, in whole epoch seconds (rounded up), of the items of every table with time
/// to live enabled.
fn expiries(engine: &Engine) -> impl Iterator<Item = u64> + '_ {
    engine.tables.values().flat_map(|table| {
        let attribute = table.ttl.attribute.as_deref().filter(|_| table.ttl.enabled);
        table.items.values().filter_map(move |item| match item.get(attribute?) {
            Some(Value::N(at)) => at.to_string().parse::<f64>().ok().filter(|at| *at >= 0.0).map(|at| at.ceil() as u64),
            _ => None,
        })
    })
}
