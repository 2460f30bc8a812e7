//! Where the library reads time and waits.
//!
//! - [`Clock`]: a monotonic reading, a wall reading and a sleep, injected through
//!   [`LockTableOptions::clock`](crate::LockTableOptions::clock).
//! - [`TokioClock`]: the default, which follows tokio's clock, so a test with paused time moves
//!   leases, heartbeats and polls without sleeping.
//!
//! Every lease duration is measured on the monotonic reading, and every wait of the library goes
//! through [`Clock::sleep`]. The wall reading is used only for the time-to-live attribute.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

/// The future returned by [`Clock::sleep`].
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{Clock, Sleep, TokioClock};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let nap: Sleep = TokioClock::new().sleep(Duration::from_secs(1));
/// nap.await;
/// # }
/// ```
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A source of time for one process.
///
/// The library measures leases and waits only through this trait, so a simulation can give
/// each process a clock of its own, with an offset, a rate or pauses.
///
/// Implementations must keep [`monotonic`](Clock::monotonic) non-decreasing, and
/// [`sleep`](Clock::sleep) must complete once the monotonic reading has advanced by at least
/// the duration asked for.
///
/// # Examples
///
/// A clock that runs ahead of tokio's by a fixed offset, as a machine with a skewed clock:
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use dynalease::{Clock, Sleep, TokioClock};
///
/// #[derive(Debug, Default)]
/// struct Ahead(TokioClock);
///
/// impl Clock for Ahead {
///     fn monotonic(&self) -> Duration {
///         self.0.monotonic() + Duration::from_secs(3600)
///     }
///     fn wall(&self) -> SystemTime {
///         self.0.wall() + Duration::from_secs(3600)
///     }
///     fn sleep(&self, duration: Duration) -> Sleep {
///         self.0.sleep(duration)
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let clock = Ahead::default();
/// let before = clock.monotonic();
/// clock.sleep(Duration::from_secs(5)).await;
/// assert!(clock.monotonic() - before >= Duration::from_secs(5));
/// # }
/// ```
pub trait Clock: Send + Sync + fmt::Debug + 'static {
    /// The time elapsed since a fixed, arbitrary origin of this clock. Never goes back.
    fn monotonic(&self) -> Duration;

    /// The wall-clock time of this process.
    fn wall(&self) -> SystemTime;

    /// A future that completes once `duration` has passed on this clock.
    fn sleep(&self, duration: Duration) -> Sleep;
}

/// The default [`Clock`]: tokio's clock.
///
/// The monotonic reading is [`tokio::time::Instant`], the sleep is [`tokio::time::sleep`], and
/// the wall reading is the system time when the clock was first read plus the tokio time elapsed
/// since. Under `#[tokio::test(start_paused = true)]` all three follow the paused clock.
///
/// This is the one place in the library that reads real time.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{Clock, TokioClock};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let clock = TokioClock::new();
/// let start = clock.monotonic();
/// clock.sleep(Duration::from_secs(30)).await; // no real waiting: time is paused
/// assert_eq!(clock.monotonic() - start, Duration::from_secs(30));
/// # }
/// ```
#[derive(Default)]
pub struct TokioClock {
    origin: OnceLock<(tokio::time::Instant, SystemTime)>,
}

impl TokioClock {
    /// Creates a clock whose origin is its first reading.
    ///
    /// # Examples
    ///
    /// ```
    /// let clock = dynalease::TokioClock::new();
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    #[allow(clippy::disallowed_methods)] // The one real clock of the library.
    fn origin(&self) -> (tokio::time::Instant, SystemTime) {
        *self.origin.get_or_init(|| (tokio::time::Instant::now(), SystemTime::now()))
    }
}

impl fmt::Debug for TokioClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokioClock").finish_non_exhaustive()
    }
}

impl Clock for TokioClock {
    #[allow(clippy::disallowed_methods)] // The one real clock of the library.
    fn monotonic(&self) -> Duration {
        let (start, _) = self.origin();
        tokio::time::Instant::now().saturating_duration_since(start)
    }

    fn wall(&self) -> SystemTime {
        let (_, wall) = self.origin();
        wall + self.monotonic()
    }

    #[allow(clippy::disallowed_methods)] // The one real clock of the library.
    fn sleep(&self, duration: Duration) -> Sleep {
        Box::pin(tokio::time::sleep(duration))
    }
}
