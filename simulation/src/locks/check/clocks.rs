//! The monotonic clocks of the machines, rebuilt from the history: each runs at its rate
//! and stands still while its machine is suspended, as the world's machine clocks do.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::clock::ClockSpec;
use crate::locks::history::{Entry, Event, Nemesis};

/// Spans of global time, `[start, end)`, sorted.
type Spans = Vec<(Duration, Duration)>;

/// The clocks of every machine of a run, and when each process was stopped.
#[derive(Debug, Default)]
pub(super) struct Machines {
    drift_ppm: Vec<i32>,
    /// When each machine was suspended: its monotonic clock stood still.
    suspended: BTreeMap<u16, Spans>,
    /// When each process was paused or suspended: it ran nothing.
    stopped: BTreeMap<u16, Spans>,
}

impl Machines {
    pub(super) fn new(entries: &[Entry], drift_ppm: &[i32], end: Duration) -> Self {
        let mut suspended: BTreeMap<u16, Spans> = BTreeMap::new();
        let mut stopped: BTreeMap<u16, Spans> = BTreeMap::new();
        let mut open_suspend: BTreeMap<u16, Duration> = BTreeMap::new();
        let mut open_stop: BTreeMap<u16, Duration> = BTreeMap::new();
        for entry in entries {
            let Event::Nemesis(nemesis) = &entry.event else { continue };
            match nemesis {
                Nemesis::Suspend(p) => {
                    open_suspend.entry(p.id).or_insert(entry.at);
                    open_stop.entry(p.id).or_insert(entry.at);
                }
                Nemesis::Pause(p) => {
                    open_stop.entry(p.id).or_insert(entry.at);
                }
                Nemesis::Resume(p) | Nemesis::Crash(p) => {
                    if let Some(since) = open_suspend.remove(&p.id) {
                        suspended.entry(p.id).or_default().push((since, entry.at));
                    }
                    if let Some(since) = open_stop.remove(&p.id) {
                        stopped.entry(p.id).or_default().push((since, entry.at));
                    }
                }
                _ => {}
            }
        }
        for (id, since) in open_suspend {
            suspended.entry(id).or_default().push((since, end));
        }
        for (id, since) in open_stop {
            stopped.entry(id).or_default().push((since, end));
        }
        Machines { drift_ppm: drift_ppm.to_vec(), suspended, stopped }
    }

    /// The drift of a machine's clock.
    pub(super) fn drift(&self, id: u16) -> i32 {
        self.drift_ppm.get(usize::from(id)).copied().unwrap_or(0)
    }

    fn spec(&self, id: u16) -> ClockSpec {
        ClockSpec { offset_ms: 0, drift_ppm: self.drift(id), uptime_ms: 0 }
    }

    fn suspensions(&self, id: u16) -> &[(Duration, Duration)] {
        self.suspended.get(&id).map_or(&[], Vec::as_slice)
    }

    /// The monotonic reading of machine `id` at global time `at`, counted from the start of the
    /// run: what its clock measured of the time it was not suspended.
    pub(super) fn monotonic(&self, id: u16, at: Duration) -> Duration {
        let spec = self.spec(id);
        let mut reading = Duration::ZERO;
        let mut from = Duration::ZERO;
        for &(start, end) in self.suspensions(id) {
            if start >= at {
                break;
            }
            reading += spec.scale(start.saturating_sub(from));
            from = end.min(at).max(from);
        }
        reading + spec.scale(at.saturating_sub(from))
    }

    /// The first global time, not before `from`, at which the monotonic clock of machine `id`
    /// reads `target` or more.
    pub(super) fn when(&self, id: u16, target: Duration, from: Duration) -> Duration {
        let spec = self.spec(id);
        let mut at = from;
        let mut reading = self.monotonic(id, from);
        if reading >= target {
            return from;
        }
        for &(start, end) in self.suspensions(id) {
            if end <= at {
                continue;
            }
            if start > at {
                let span = spec.scale(start - at);
                if reading + span >= target {
                    return at + spec.unscale(target - reading);
                }
                reading += span;
            }
            at = at.max(end);
        }
        at + spec.unscale(target - reading)
    }

    /// Whether machine `id` was suspended at any time in `[from, to]`.
    pub(super) fn suspended_within(&self, id: u16, from: Duration, to: Duration) -> bool {
        self.suspensions(id).iter().any(|&(start, end)| start <= to && end > from)
    }

    /// Whether process `id` was paused or suspended at any time in `[from, to]`.
    pub(super) fn stopped_within(&self, id: u16, from: Duration, to: Duration) -> bool {
        self.stopped.get(&id).is_some_and(|spans| spans.iter().any(|&(start, end)| start <= to && end > from))
    }

    /// If process `id` was stopped at `at`, when it ran again.
    pub(super) fn stopped_at(&self, id: u16, at: Duration) -> Option<Duration> {
        self.stopped.get(&id)?.iter().find(|&&(start, end)| start <= at && at < end).map(|&(_, end)| end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locks::history::{Actor, ProcessRef};

    fn nemesis(ms: u64, nemesis: Nemesis) -> Entry {
        Entry { at: Duration::from_millis(ms), actor: Actor::Nemesis, event: Event::Nemesis(nemesis) }
    }

    #[test]
    fn a_suspended_clock_stands_still_and_a_fast_one_gains() {
        let p = ProcessRef { id: 0, incarnation: 0 };
        let entries = [nemesis(10_000, Nemesis::Suspend(p)), nemesis(30_000, Nemesis::Resume(p))];
        let machines = Machines::new(&entries, &[0, 1_000], Duration::from_secs(100));
        let s = Duration::from_secs;
        assert_eq!(machines.monotonic(0, s(5)), s(5));
        assert_eq!(machines.monotonic(0, s(20)), s(10));
        assert_eq!(machines.monotonic(0, s(40)), s(20));
        assert_eq!(machines.when(0, s(15), s(0)), s(35));
        assert_eq!(machines.when(0, s(10), s(12)), s(12));
        assert_eq!(machines.when(0, s(11), s(12)), s(31));
        assert_eq!(machines.monotonic(1, s(1000)), s(1001));
        assert_eq!(machines.when(1, s(1001), s(0)), s(1000));
        assert!(machines.suspended_within(0, s(25), s(50)));
        assert!(!machines.suspended_within(0, s(30), s(50)));
        assert_eq!(machines.stopped_at(0, s(29)), Some(s(30)));
    }
}
