//! Steering the fake's time: a fake built with a [`ControlledClock`] is frozen, set, advanced
//! and let run through these methods, which make what fell due in between before they return.
//! The control API steers an account's clock alone too (`?account=ID`): the account then has a
//! clock of its own, so that test workers in accounts of their own move time apart.

use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use crate::accounts::Account;
use crate::clock::{ClockError, ControlledClock, FakeClock, epoch_secs};
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
        self.steer(None, Step::Freeze)
    }

    /// Lets the fake's clock run again from where it stands.
    pub fn resume_clock(&self) -> Result<ClockReading, ClockError> {
        self.steer(None, Step::Resume)
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
        self.steer(None, Step::Advance(by))
    }

    /// Sets the fake's clock to `to`, which must not be before its time, making what fell due
    /// in between as [`advance_clock`](Self::advance_clock) does.
    pub fn set_clock(&self, to: SystemTime) -> Result<ClockReading, ClockError> {
        self.steer(None, Step::Set(to))
    }

    /// The time of the account `account`: its own clock's, once a control request has steered
    /// it alone, else the fake's.
    pub(crate) fn now_in(&self, account: &str) -> SystemTime {
        if !self.shared.own_clocks.load(Ordering::Acquire) {
            return self.now();
        }
        self.lock_accounts().now_of(account, &*self.shared.clock)
    }

    /// Makes `step` on the clock of `account`, or on the fake's without one, and what fell due
    /// before it answers.
    ///
    /// The first step of an account's clock gives the account a clock of its own, from the fake's
    /// reading; from then on its steps move that clock alone, while a step of the fake's clock
    /// moves every account's (an account ahead of a time the fake's clock is set to stays
    /// ahead). Reading an account that has no clock of its own reads the fake's.
    pub(crate) fn steer(&self, account: Option<&str>, step: Step) -> Result<ClockReading, ClockError> {
        let base = self.controlled_clock().ok_or(ClockError::NotControlled)?;
        // The engines are held while the clock moves, so that no request lands between the move
        // and the deletions it makes due.
        let mut accounts = self.lock_accounts();
        let lag = accounts.replication_lag;
        let Some(id) = account else {
            let reading = step.apply(base)?;
            for (id, account) in accounts.accounts_by_id_mut() {
                if let Some(own) = &account.clock {
                    match step {
                        Step::Set(to) if to < own.now() => {}
                        step => drop(step.apply(own)),
                    }
                }
                if step.moves() {
                    let now = account.now(base);
                    let stalled = |region: &str, table: &str| self.replication_stalled(id, region, table);
                    catch_up(account, now, lag, &stalled);
                }
            }
            return Ok(reading);
        };
        if step == Step::Read && accounts.account(id).is_none_or(|account| account.clock.is_none()) {
            return Ok(ClockReading { now: base.now(), frozen: base.is_frozen() });
        }
        let account = accounts.account_mut(id, base.now());
        let reading = step.apply(account.own_clock(base))?;
        self.shared.own_clocks.store(true, Ordering::Release);
        if step.moves() {
            let stalled = |region: &str, table: &str| self.replication_stalled(id, region, table);
            catch_up(account, reading.now, lag, &stalled);
        }
        Ok(reading)
    }
}

/// One step of a clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Reads it.
    Read,
    /// Stops it.
    Freeze,
    /// Lets it run.
    Resume,
    /// Moves it forward by a duration.
    Advance(Duration),
    /// Moves it forward to a time.
    Set(SystemTime),
}

impl Step {
    /// Makes the step on `clock`; its reading after.
    fn apply(self, clock: &ControlledClock) -> Result<ClockReading, ClockError> {
        let now = match self {
            Step::Read => clock.now(),
            Step::Freeze => clock.freeze(),
            Step::Resume => clock.resume(),
            Step::Advance(by) => clock.advance(by),
            Step::Set(to) => clock.set(to)?,
        };
        Ok(ClockReading { now, frozen: clock.is_frozen() })
    }

    /// Whether the step moves the clock forward, which may make sweeps due.
    fn moves(self) -> bool {
        matches!(self, Step::Advance(_) | Step::Set(_))
    }
}

/// Runs, in order, every sweep of `account` due by `now` that deletes an item (in any of its
/// regions), then moves its schedule past `now`; the writes of its global tables due in between
/// reach their replicas in turn (those that `stalled` holds back wait).
fn catch_up(account: &mut Account, now: SystemTime, lag: Duration, stalled: &dyn Fn(&str, &str) -> bool) {
    for slot in sweep_slots(account, now) {
        account.deliver(slot, stalled);
        account.sweep(slot);
        account.sweeps.next = slot + account.sweeps.interval;
        account.collect(lag);
    }
    account.sweep_due(now);
    account.collect(lag);
    account.deliver(now, stalled);
}

/// The times of the sweeps of `account` due by `now` that delete an item, in order.
fn sweep_slots(account: &Account, now: SystemTime) -> Vec<SystemTime> {
    let schedule = &account.sweeps;
    if schedule.interval.is_zero() {
        return Vec::new();
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
    slots
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
