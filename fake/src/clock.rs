//! The fake's clock: a wall reading for timestamps and TTL, and sleeps for latency and sweeps.

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
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
