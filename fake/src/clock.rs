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
