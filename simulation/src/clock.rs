//! Time in the world: one global virtual clock, and a clock of its own for every machine.
//!
//! - [`WorldClock`]: the global time of a run, tokio's paused clock since the run started. Only
//!   the world reads it: to order the history and to drive the network and the faults.
//! - [`ClockSpec`]: how a machine's clock differs from the global one: an offset of its wall
//!   clock, a rate (drift in parts per million) and an uptime.
//! - [`ProcessClock`]: what a process reads and sleeps on, a [`dynalease::Clock`] and the SDK's
//!   time source and sleep. Its sleeps wait at the process's gate, and a suspended machine's
//!   monotonic clock stands still.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use aws_smithy_async::rt::sleep::{AsyncSleep, Sleep as SdkSleep};
use aws_smithy_async::time::TimeSource;

use crate::gate::Gate;

/// The global virtual time of a run: tokio's paused clock, counted from the start of the run.
#[derive(Clone, Copy, Debug)]
pub struct WorldClock {
    origin: tokio::time::Instant,
}

impl WorldClock {
    /// A clock whose zero is now. Must be called inside the runtime of the run.
    #[allow(clippy::disallowed_methods)] // The one global clock of the world.
    pub(crate) fn start() -> Self {
        WorldClock { origin: tokio::time::Instant::now() }
    }

    /// The time since the start of the run.
    #[allow(clippy::disallowed_methods)] // The one global clock of the world.
    pub fn now(&self) -> Duration {
        tokio::time::Instant::now().saturating_duration_since(self.origin)
    }

    /// Waits `duration` of global time.
    #[allow(clippy::disallowed_methods)] // The one global clock of the world.
    pub(crate) fn sleep(&self, duration: Duration) -> tokio::time::Sleep {
        tokio::time::sleep(duration)
    }

    /// Waits until `at` after the start of the run.
    #[allow(clippy::disallowed_methods)] // The one global clock of the world.
    pub(crate) fn sleep_until(&self, at: Duration) -> tokio::time::Sleep {
        tokio::time::sleep_until(self.origin + at)
    }
}

/// How the clock of one machine differs from the global clock.
///
/// # Examples
///
/// ```
/// use dynalease_sim::ClockSpec;
///
/// // A machine whose wall clock is 2.5 s ahead and runs 100 ppm fast.
/// let spec = ClockSpec { offset_ms: 2_500, drift_ppm: 100, uptime_ms: 3_600_000 };
/// assert!(!spec.is_nominal_rate());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ClockSpec {
    /// How far the wall clock is ahead of true time at the start (negative: behind).
    pub offset_ms: i64,
    /// How much faster the clock runs than true time, in parts per million (negative: slower).
    pub drift_ppm: i32,
    /// The monotonic reading at the start of the run: how long the machine has been up.
    pub uptime_ms: u64,
}

impl ClockSpec {
    /// Whether the clock runs at exactly the rate of true time.
    pub fn is_nominal_rate(&self) -> bool {
        self.drift_ppm == 0
    }

    /// `global` of true time, as this clock measures it.
    pub(crate) fn scale(&self, global: Duration) -> Duration {
        if self.drift_ppm == 0 {
            return global;
        }
        let rate = (1_000_000 + i128::from(self.drift_ppm)).max(1) as u128;
        Duration::from_nanos((global.as_nanos() * rate / 1_000_000).min(u128::from(u64::MAX)) as u64)
    }

    /// The true time it takes this clock to advance by `local`, rounded up.
    pub(crate) fn unscale(&self, local: Duration) -> Duration {
        if self.drift_ppm == 0 {
            return local;
        }
        let rate = (1_000_000 + i128::from(self.drift_ppm)).max(1) as u128;
        let nanos = (local.as_nanos() * 1_000_000).div_ceil(rate);
        Duration::from_nanos(nanos.min(u128::from(u64::MAX)) as u64)
    }
}

/// The clock of one machine: shared by the incarnations of its process, since a restart does
/// not reset the machine's clock.
#[derive(Debug)]
pub(crate) struct MachineClock {
    world: WorldClock,
    spec: ClockSpec,
    wall_start: SystemTime,
    state: Mutex<MachineState>,
}

#[derive(Debug)]
struct MachineState {
    /// The global time of the last change of rate or suspension.
    base_global: Duration,
    /// The monotonic reading at `base_global`.
    base_local: Duration,
    suspended: bool,
    /// Steps of the wall clock so far (as NTP would make), in milliseconds.
    wall_steps_ms: i64,
}

impl MachineClock {
    pub(crate) fn new(world: WorldClock, spec: ClockSpec, wall_start: SystemTime) -> Self {
        MachineClock {
            world,
            spec,
            wall_start,
            state: Mutex::new(MachineState {
                base_global: world.now(),
                base_local: Duration::from_millis(spec.uptime_ms),
                suspended: false,
                wall_steps_ms: 0,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, MachineState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn monotonic_at(&self, state: &MachineState, global: Duration) -> Duration {
        if state.suspended {
            return state.base_local;
        }
        state.base_local + self.spec.scale(global.saturating_sub(state.base_global))
    }

    /// The monotonic reading: stands still while the machine is suspended.
    pub(crate) fn monotonic(&self) -> Duration {
        let now = self.world.now();
        self.monotonic_at(&self.state(), now)
    }

    /// The wall reading: the start time, the offset and its steps, and true time at the
    /// machine's rate. It runs on through a suspension, as a clock that NTP corrects after it.
    pub(crate) fn wall(&self) -> SystemTime {
        let steps_ms = self.state().wall_steps_ms;
        let elapsed = self.spec.scale(self.world.now());
        shift(self.wall_start + elapsed, self.spec.offset_ms + steps_ms)
    }

    /// Stops the monotonic clock.
    pub(crate) fn suspend(&self) {
        let now = self.world.now();
        let mut state = self.state();
        if !state.suspended {
            state.base_local = self.monotonic_at(&state, now);
            state.base_global = now;
            state.suspended = true;
        }
    }

    /// Starts the monotonic clock again where it stopped.
    pub(crate) fn resume(&self) {
        let now = self.world.now();
        let mut state = self.state();
        if state.suspended {
            state.base_global = now;
            state.suspended = false;
        }
    }

    /// Moves the wall clock by `delta_ms`.
    pub(crate) fn step_wall(&self, delta_ms: i64) {
        self.state().wall_steps_ms += delta_ms;
    }

    /// The global time it takes the monotonic clock to advance by `local`, if it runs.
    pub(crate) fn to_global(&self, local: Duration) -> Duration {
        self.spec.unscale(local)
    }
}

/// `time` moved by `delta_ms` milliseconds, either way.
fn shift(time: SystemTime, delta_ms: i64) -> SystemTime {
    let delta = Duration::from_millis(delta_ms.unsigned_abs());
    if delta_ms >= 0 { time + delta } else { time.checked_sub(delta).unwrap_or(SystemTime::UNIX_EPOCH) }
}

/// The clock of one incarnation of a process: its machine's clock, seen through its gate.
///
/// It is the [`dynalease::Clock`] of the process's `LockTable` and the time source and sleep of
/// its SDK client. A sleep completes once the monotonic clock has advanced by the duration and
/// the process runs: a paused process wakes late, a suspended one later still, since its
/// monotonic clock did not count the suspension; a crashed one never.
#[derive(Clone)]
pub struct ProcessClock {
    machine: Arc<MachineClock>,
    gate: Gate,
}

impl fmt::Debug for ProcessClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessClock").field("spec", &self.machine.spec).finish_non_exhaustive()
    }
}

impl ProcessClock {
    pub(crate) fn new(machine: Arc<MachineClock>, gate: Gate) -> Self {
        ProcessClock { machine, gate }
    }

    /// The monotonic reading of the machine.
    pub fn monotonic(&self) -> Duration {
        self.machine.monotonic()
    }

    /// The wall reading of the machine.
    pub fn wall(&self) -> SystemTime {
        self.machine.wall()
    }

    /// Completes once the monotonic clock has advanced by `duration` and the process runs.
    pub fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send + Sync + 'static {
        let machine = self.machine.clone();
        let gate = self.gate.clone();
        let target = machine.monotonic() + duration;
        async move {
            loop {
                gate.open().await;
                let now = machine.monotonic();
                if now >= target {
                    return;
                }
                machine.world.sleep(machine.to_global(target - now)).await;
            }
        }
    }
}

impl dynalease::Clock for ProcessClock {
    fn monotonic(&self) -> Duration {
        ProcessClock::monotonic(self)
    }

    fn wall(&self) -> SystemTime {
        ProcessClock::wall(self)
    }

    fn sleep(&self, duration: Duration) -> dynalease::Sleep {
        Box::pin(ProcessClock::sleep(self, duration))
    }
}

impl TimeSource for ProcessClock {
    fn now(&self) -> SystemTime {
        self.wall()
    }
}

impl AsyncSleep for ProcessClock {
    fn sleep(&self, duration: Duration) -> SdkSleep {
        SdkSleep::new(ProcessClock::sleep(self, duration))
    }
}

/// A global time as `12.345 s`.
pub fn seconds(at: Duration) -> String {
    format!("{}.{:03} s", at.as_secs(), at.subsec_millis())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::RunState;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap()
    }

    #[test]
    fn a_fast_clock_measures_more_than_true_time() {
        let spec = ClockSpec { offset_ms: 0, drift_ppm: 1_000, uptime_ms: 0 };
        assert_eq!(spec.scale(Duration::from_secs(1000)), Duration::from_secs(1001));
        assert_eq!(spec.unscale(Duration::from_secs(1001)), Duration::from_secs(1000));
        let nominal = ClockSpec::default();
        assert_eq!(nominal.unscale(Duration::from_nanos(7)), Duration::from_nanos(7));
    }

    #[test]
    fn a_suspended_machine_loses_the_suspension_on_its_monotonic_clock_only() {
        runtime().block_on(async {
            let world = WorldClock::start();
            let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
            let spec = ClockSpec { offset_ms: -500, drift_ppm: 0, uptime_ms: 10_000 };
            let machine = Arc::new(MachineClock::new(world, spec, start));
            let clock = ProcessClock::new(machine.clone(), Gate::new());
            assert_eq!(clock.monotonic(), Duration::from_secs(10));
            assert_eq!(clock.wall(), start - Duration::from_millis(500));

            machine.suspend();
            world.sleep(Duration::from_secs(30)).await;
            machine.resume();
            assert_eq!(clock.monotonic(), Duration::from_secs(10));
            assert_eq!(clock.wall(), start + Duration::from_millis(29_500));
        });
    }

    #[test]
    fn a_paused_process_sleeps_until_it_is_resumed() {
        runtime().block_on(async {
            let world = WorldClock::start();
            let machine = Arc::new(MachineClock::new(world, ClockSpec::default(), SystemTime::UNIX_EPOCH));
            let gate = Gate::new();
            let clock = ProcessClock::new(machine, gate.clone());
            gate.set(RunState::Paused);
            let resumer = {
                let gate = gate.clone();
                tokio::spawn(async move {
                    world.sleep(Duration::from_secs(50)).await;
                    gate.set(RunState::Running);
                })
            };
            clock.sleep(Duration::from_secs(10)).await;
            assert_eq!(world.now(), Duration::from_secs(50));
            resumer.await.unwrap();
        });
    }
}
