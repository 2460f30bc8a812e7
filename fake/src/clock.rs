//! The fake's clock: a wall reading for timestamps and TTL, and sleeps for latency and sweeps.
//!
//! - [`FakeClock`]: what the fake reads its time from.
//! - [`TokioClock`]: the default, which follows tokio's clock.
//! - [`ControlledClock`]: a clock a test steers (frozen, set, advanced), as `dynalease-fake
//!   serve` and its control API do.

use std::fmt::{self, Debug};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// A boxed future that completes after a sleep.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + Sync + 'static>>;

/// Where the fake reads the time and how it waits.
///
/// The default, [`TokioClock`], follows tokio's clock, so a test with
/// `#[tokio::test(start_paused = true)]` moves the fake's time with its own.
pub trait FakeClock: Send + Sync + Debug + 'static {
    /// The current wall-clock time.
    fn now(&self) -> SystemTime;
    /// A future that completes after `duration` of this clock's time.
    fn sleep(&self, duration: Duration) -> Sleep;
    /// This clock as a [`ControlledClock`], if it is one: then the fake's time can be frozen, set
    /// and advanced ([`FakeDynamoDb::advance_clock`](crate::FakeDynamoDb::advance_clock) and its
    /// siblings).
    fn controlled(&self) -> Option<&ControlledClock> {
        None
    }
}

/// Wall time = a start time plus the time tokio's clock has advanced since the clock was made.
#[derive(Debug, Clone)]
pub struct TokioClock {
    origin: tokio::time::Instant,
    start: SystemTime,
}

impl TokioClock {
    /// A clock whose wall reading starts at `start` now.
    pub fn starting_at(start: SystemTime) -> Self {
        #[allow(clippy::disallowed_methods)] // The one default clock of the fake.
        let origin = tokio::time::Instant::now();
        TokioClock { origin, start }
    }

    /// A clock that starts at the real time of day: the one place the fake reads the system clock.
    pub fn real_start() -> Self {
        #[allow(clippy::disallowed_methods)] // The default start time of the default clock.
        let start = SystemTime::now();
        Self::starting_at(start)
    }
}

impl FakeClock for TokioClock {
    fn now(&self) -> SystemTime {
        self.start + self.origin.elapsed()
    }

    fn sleep(&self, duration: Duration) -> Sleep {
        // The sleep is made when first polled, so the clock may be called outside a runtime.
        Box::pin(async move {
            #[allow(clippy::disallowed_methods)] // The one default clock of the fake.
            tokio::time::sleep(duration).await
        })
    }
}

/// A future that completes after `duration` of tokio's clock: the real time of a server, whatever
/// the fake's clock says. What a connection waits for (an idle timeout, a shutdown's grace) waits
/// on it, so that nothing hangs on a frozen fake clock.
pub(crate) fn tokio_sleep(duration: Duration) -> Sleep {
    Box::pin(async move {
        #[allow(clippy::disallowed_methods)] // The one default clock of the fake.
        tokio::time::sleep(duration).await
    })
}

/// A clock a test steers: it runs with tokio's clock (the real time of a server), or stands still
/// while frozen; it can be set to a later time or advanced by a duration, running or frozen.
///
/// Its [`sleep`](FakeClock::sleep) always waits on tokio's clock, so that a latency fault or a
/// retry's backoff is served in real time while the clock is frozen instead of waiting for ever.
///
/// ```
/// # #[tokio::main(flavor = "current_thread", start_paused = true)] async fn main() {
/// use std::time::{Duration, SystemTime};
/// use dynalease_fake::{ControlledClock, FakeClock};
///
/// let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
/// let clock = ControlledClock::frozen_at(start);
/// clock.advance(Duration::from_secs(3600));
/// assert_eq!(clock.now(), start + Duration::from_secs(3600));
/// # }
/// ```
pub struct ControlledClock {
    state: Mutex<Steering>,
}

/// Where a [`ControlledClock`] stands: `base`, plus tokio's time since `since` while it runs.
#[derive(Debug, Clone, Copy)]
struct Steering {
    base: SystemTime,
    since: Option<tokio::time::Instant>,
}

impl Steering {
    fn now(&self) -> SystemTime {
        match self.since {
            Some(since) => self.base + since.elapsed(),
            None => self.base,
        }
    }
}

/// Why a [`ControlledClock`] (or the fake's clock) refused a change.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClockError {
    /// The clock moves forward only: what fell due (time-to-live deletions, trimmed stream
    /// records) cannot be undone.
    Backwards {
        /// The clock's time.
        now: SystemTime,
        /// The earlier time asked for.
        asked: SystemTime,
    },
    /// The fake was built with a clock of its own, not a [`ControlledClock`].
    NotControlled,
}

impl fmt::Display for ClockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockError::Backwards { now, asked } => write!(
                f,
                "the clock only moves forward: {} is before its time, {}",
                humantime::format_rfc3339_millis(*asked),
                humantime::format_rfc3339_millis(*now)
            ),
            ClockError::NotControlled => {
                write!(f, "this fake's clock is not a ControlledClock: it cannot be frozen, set or advanced")
            }
        }
    }
}

impl std::error::Error for ClockError {}

impl ControlledClock {
    /// A clock that reads `start` now and runs with tokio's clock from here.
    pub fn running_from(start: SystemTime) -> Self {
        #[allow(clippy::disallowed_methods)] // The one default clock of the fake.
        let since = Some(tokio::time::Instant::now());
        ControlledClock { state: Mutex::new(Steering { base: start, since }) }
    }

    /// A clock that reads the real time of day now and runs with tokio's clock from here.
    pub fn from_real_time() -> Self {
        #[allow(clippy::disallowed_methods)] // The default start time of the fake's clocks.
        let start = SystemTime::now();
        Self::running_from(start)
    }

    /// A clock that reads `start` until it is advanced, set or let run.
    pub fn frozen_at(start: SystemTime) -> Self {
        ControlledClock { state: Mutex::new(Steering { base: start, since: None }) }
    }

    fn steering(&self) -> MutexGuard<'_, Steering> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether the clock stands still.
    pub fn is_frozen(&self) -> bool {
        self.steering().since.is_none()
    }

    /// Stops the clock at its current reading; returns it.
    pub fn freeze(&self) -> SystemTime {
        let mut steering = self.steering();
        steering.base = steering.now();
        steering.since = None;
        steering.base
    }

    /// Lets a frozen clock run again from its reading (a running clock runs on); returns it.
    pub fn resume(&self) -> SystemTime {
        let mut steering = self.steering();
        if steering.since.is_none() {
            #[allow(clippy::disallowed_methods)] // The one default clock of the fake.
            let since = tokio::time::Instant::now();
            steering.since = Some(since);
        }
        steering.now()
    }

    /// Moves the clock forward by `by`, whether it runs or not; returns the new reading.
    pub fn advance(&self, by: Duration) -> SystemTime {
        let mut steering = self.steering();
        steering.base += by;
        steering.now()
    }

    /// Puts the clock at `to`, earlier or later, standing still (`frozen` true), running (false)
    /// or as it was (`None`): for a fake that starts over with no table, where nothing that fell
    /// due is left to undo. A clock put there standing still reads `to` exactly.
    pub(crate) fn restart_at(&self, to: SystemTime, frozen: Option<bool>) {
        let mut steering = self.steering();
        steering.base = to;
        let running = frozen.map_or(steering.since.is_some(), |frozen| !frozen);
        steering.since = if running {
            #[allow(clippy::disallowed_methods)] // The one default clock of the fake.
            let since = tokio::time::Instant::now();
            Some(since)
        } else {
            None
        };
    }

    /// Sets the clock to `to`, which must not be before its reading; a running clock runs on
    /// from there. Returns the new reading.
    pub fn set(&self, to: SystemTime) -> Result<SystemTime, ClockError> {
        let mut steering = self.steering();
        let now = steering.now();
        if to < now {
            return Err(ClockError::Backwards { now, asked: to });
        }
        steering.base += to.duration_since(now).unwrap_or_default();
        Ok(steering.now())
    }
}

impl Debug for ControlledClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let steering = *self.steering();
        f.debug_struct("ControlledClock")
            .field("now", &steering.now())
            .field("frozen", &steering.since.is_none())
            .finish()
    }
}

impl FakeClock for ControlledClock {
    fn now(&self) -> SystemTime {
        self.steering().now()
    }

    fn sleep(&self, duration: Duration) -> Sleep {
        tokio_sleep(duration)
    }

    fn controlled(&self) -> Option<&ControlledClock> {
        Some(self)
    }
}

/// Whole seconds since the Unix epoch.
pub(crate) fn epoch_secs(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// Seconds since the Unix epoch with millisecond precision, as DynamoDB writes timestamps.
pub(crate) fn epoch_timestamp(time: SystemTime) -> serde_json::Value {
    let millis = time.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    let text = format!("{}.{:03}", millis / 1000, millis % 1000);
    serde_json::Value::Number(text.parse().unwrap_or_else(|_| serde_json::Number::from(0)))
}

/// The proleptic Gregorian (year, month 1-12, day 1-31) of a count of days since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Eras of 400 years (146,097 days) starting on 0000-03-01, so that leap days fall last.
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 { month_from_march + 3 } else { month_from_march - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A time as DynamoDB writes a stream's label: UTC to the millisecond, `2024-06-01T00:00:00.000`.
pub(crate) fn stream_label(time: SystemTime) -> String {
    let millis = time.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    let (secs, millis) = ((millis / 1000) as u64, (millis % 1000) as u32);
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    let time_of_day = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}",
        time_of_day / 3600,
        time_of_day / 60 % 60,
        time_of_day % 60
    )
}
