//! Faults at times of the run: what the nemesis does to the world, and how a seed schedules them.
//!
//! - [`Fault`]: one fault with its target and duration.
//! - [`ScheduledFault`]: a fault at a time of the safety phase.
//! - [`FaultBounds`]: the most faults of each kind a run may get and how large they may be; a
//!   seed draws its own rates within them ([`FaultBounds::schedule`]).
//! - `ServerFaults`: the rules of the fake that are in force (throttling, a missing table), so
//!   that one ends without ending the others.
//!
//! The faults of the network and of the processes are the world's own (see [`crate::net`]);
//! throttling and a missing table are the fake's, injected through its fault rules. Sizes are
//! drawn against the service's time scale ([`Shape::scale_ms`]): the lease of a lock, the
//! timeout of a claim, whatever the protocol waits for.

use std::collections::BTreeMap;

use dynalease_fake::{FakeDynamoDb, FaultRule};

use crate::item::ItemRef;
use crate::rng::SimRng;

/// Whom a fault of `process` (or of every process, `None`) hits, in the words of timelines,
/// pictures and shrink steps: `p3` or `everyone`.
pub(crate) fn whom(process: Option<u16>) -> String {
    process.map_or(String::from("everyone"), |p| format!("p{p}"))
}

/// A probability in millionths as a percentage.
pub(crate) fn percent(per_million: u32) -> f64 {
    f64::from(per_million) / 10_000.0
}

/// One fault, with its target and how long it lasts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fault {
    /// The process is cut off mid-flight and releases nothing; a new incarnation starts later.
    Crash {
        /// The process.
        process: u16,
        /// How long until it restarts.
        restart_after_ms: u64,
    },
    /// The process stops (its clock runs on), then resumes.
    Pause {
        /// The process.
        process: u16,
        /// For how long.
        for_ms: u64,
    },
    /// The machine stops and its monotonic clock with it, then resumes.
    Suspend {
        /// The process.
        process: u16,
        /// For how long.
        for_ms: u64,
    },
    /// The process's requests and answers are dropped; its requests time out.
    Partition {
        /// The process.
        process: u16,
        /// For how long.
        for_ms: u64,
    },
    /// The process's network gets slower, each way.
    Latency {
        /// The process.
        process: u16,
        /// Added to every request and every answer.
        extra_ms: u64,
        /// For how long.
        for_ms: u64,
    },
    /// DynamoDB throttles the process's requests (ProvisionedThroughputExceededException).
    Throttle {
        /// The process, or `None` for every process.
        process: Option<u16>,
        /// The probability of each request, in millionths.
        per_million: u32,
        /// For how long.
        for_ms: u64,
    },
    /// DynamoDB processes batches of the process (or of every process) only in part: of a
    /// BatchWriteItem, the first request; of a BatchGetItem, the first key. The others come
    /// back as `UnprocessedItems` or `UnprocessedKeys`, which the SDK does not retry: the
    /// service must send them again.
    PartialBatches {
        /// The process, or `None` for every process.
        process: Option<u16>,
        /// The probability of each batch, in millionths.
        per_million: u32,
        /// For how long.
        for_ms: u64,
    },
    /// A table answers ResourceNotFoundException to everyone.
    TableOutage {
        /// The table.
        table: String,
        /// For how long.
        for_ms: u64,
    },
    /// An item is deleted, as by hand or by a time to live.
    DeleteItem {
        /// The item.
        item: ItemRef,
    },
    /// An item is replaced by an entity of another kind (its key, and `_type` `ENTITY`), as a
    /// program that writes its own entity at that key would; `for_ms` later it is deleted, and
    /// so at the heal.
    ReplaceItem {
        /// The item.
        item: ItemRef,
        /// How long the entity stays.
        for_ms: u64,
    },
    /// The machine's wall clock jumps, as NTP steps it.
    ClockStep {
        /// The process.
        process: u16,
        /// By how much, either way.
        delta_ms: i64,
    },
}

impl Fault {
    /// The process the fault targets, if it targets one.
    pub fn process(&self) -> Option<u16> {
        match self {
            Fault::Crash { process, .. }
            | Fault::Pause { process, .. }
            | Fault::Suspend { process, .. }
            | Fault::Partition { process, .. }
            | Fault::Latency { process, .. }
            | Fault::ClockStep { process, .. } => Some(*process),
            Fault::Throttle { process, .. } | Fault::PartialBatches { process, .. } => *process,
            Fault::TableOutage { .. } | Fault::DeleteItem { .. } | Fault::ReplaceItem { .. } => None,
        }
    }

    /// The kind of fault, for counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Fault::Crash { .. } => "crash",
            Fault::Pause { .. } => "pause",
            Fault::Suspend { .. } => "suspend",
            Fault::Partition { .. } => "partition",
            Fault::Latency { .. } => "latency",
            Fault::Throttle { .. } => "throttle",
            Fault::PartialBatches { .. } => "partial-batches",
            Fault::TableOutage { .. } => "table-outage",
            Fault::DeleteItem { .. } => "delete-item",
            Fault::ReplaceItem { .. } => "replace-item",
            Fault::ClockStep { .. } => "clock-step",
        }
    }
}

/// A fault at a time of the safety phase.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScheduledFault {
    /// When, since the start of the run.
    pub at_ms: u64,
    /// What.
    pub fault: Fault,
}

/// The most faults of each kind one run may get, and the bounds of their sizes. Each seed
/// draws how many of each it gets, from zero to the maximum, and the loss rate of answers to
/// writes.
///
/// # Examples
///
/// ```
/// use dynalease_sim::FaultBounds;
///
/// let calm = FaultBounds::none();
/// assert_eq!(calm.crashes, 0);
/// let only_crashes = FaultBounds { crashes: 5, ..FaultBounds::none() };
/// # let _ = only_crashes;
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FaultBounds {
    /// Crashes, each followed by a restart.
    pub crashes: u32,
    /// Pauses.
    pub pauses: u32,
    /// Suspensions.
    pub suspends: u32,
    /// Network partitions of one process.
    pub partitions: u32,
    /// Latency spikes of one process.
    pub latency_spikes: u32,
    /// Throttling bursts.
    pub throttle_bursts: u32,
    /// Bursts of batches processed in part.
    pub partial_batches: u32,
    /// Outages of the table (ResourceNotFoundException).
    pub table_outages: u32,
    /// Deletions of an item the service names as one that may be deleted.
    pub deletions: u32,
    /// Such items replaced by an entity of another kind, for a while.
    pub corruptions: u32,
    /// Steps of a wall clock.
    pub clock_steps: u32,
    /// Faults timed by the protocol's moments ([`crate::nemesis::trigger`]).
    pub triggers: u32,
    /// The highest rate of lost answers to writes, in millionths.
    pub loss_ppm_max: u32,
}

impl Default for FaultBounds {
    /// Every kind of fault.
    fn default() -> Self {
        FaultBounds {
            crashes: 3,
            pauses: 4,
            suspends: 2,
            partitions: 3,
            latency_spikes: 3,
            throttle_bursts: 3,
            partial_batches: 2,
            table_outages: 1,
            deletions: 2,
            corruptions: 1,
            clock_steps: 2,
            triggers: 16,
            loss_ppm_max: 50_000,
        }
    }
}

impl FaultBounds {
    /// No faults at all.
    pub fn none() -> Self {
        FaultBounds {
            crashes: 0,
            pauses: 0,
            suspends: 0,
            partitions: 0,
            latency_spikes: 0,
            throttle_bursts: 0,
            partial_batches: 0,
            table_outages: 0,
            deletions: 0,
            corruptions: 0,
            clock_steps: 0,
            triggers: 0,
            loss_ppm_max: 0,
        }
    }

    /// These bounds with each kind of fault switched off with probability one half, as swarm
    /// testing does: some runs then meet only one or two kinds of trouble, which a mix of
    /// every kind would drown.
    pub fn swarm(&self, rng: &mut SimRng) -> FaultBounds {
        fn keep(rng: &mut SimRng, bound: u32) -> u32 {
            if rng.chance_ppm(500_000) { bound } else { 0 }
        }
        FaultBounds {
            crashes: keep(rng, self.crashes),
            pauses: keep(rng, self.pauses),
            suspends: keep(rng, self.suspends),
            partitions: keep(rng, self.partitions),
            latency_spikes: keep(rng, self.latency_spikes),
            throttle_bursts: keep(rng, self.throttle_bursts),
            table_outages: keep(rng, self.table_outages),
            deletions: keep(rng, self.deletions),
            clock_steps: keep(rng, self.clock_steps),
            triggers: if rng.chance_ppm(750_000) { self.triggers } else { 0 },
            loss_ppm_max: keep(rng, self.loss_ppm_max),
            corruptions: keep(rng, self.corruptions),
            partial_batches: keep(rng, self.partial_batches),
        }
    }

    /// Draws a schedule of faults for a run of the shape `shape`, sorted by time.
    pub fn schedule(&self, rng: &mut SimRng, shape: &Shape<'_>) -> Vec<ScheduledFault> {
        let mut faults = Vec::new();
        let Shape { safety_ms, processes, scale_ms: lease_ms, skew_ms_max, tables, deletable } = *shape;
        if processes == 0 || safety_ms == 0 {
            return faults;
        }
        let n = u64::from(processes);
        let last = safety_ms.saturating_sub(1);
        let mut add = |rng: &mut SimRng, count: u32, make: &mut dyn FnMut(&mut SimRng) -> Option<Fault>| {
            for _ in 0..rng.range(0, u64::from(count)) {
                let at_ms = rng.range(0, last);
                if let Some(fault) = make(rng) {
                    faults.push(ScheduledFault { at_ms, fault });
                }
            }
        };
        add(rng, self.crashes, &mut |rng| {
            Some(Fault::Crash { process: rng.below(n) as u16, restart_after_ms: rng.range(1_000, 2 * lease_ms) })
        });
        add(rng, self.pauses, &mut |rng| {
            Some(Fault::Pause { process: rng.below(n) as u16, for_ms: rng.range(lease_ms / 4, 2 * lease_ms) })
        });
        add(rng, self.suspends, &mut |rng| {
            Some(Fault::Suspend { process: rng.below(n) as u16, for_ms: rng.range(lease_ms / 4, 2 * lease_ms) })
        });
        add(rng, self.partitions, &mut |rng| {
            Some(Fault::Partition { process: rng.below(n) as u16, for_ms: rng.range(1_000, lease_ms + 5_000) })
        });
        add(rng, self.latency_spikes, &mut |rng| {
            Some(Fault::Latency {
                process: rng.below(n) as u16,
                extra_ms: rng.range(100, 3_000),
                for_ms: rng.range(5_000, 60_000),
            })
        });
        add(rng, self.throttle_bursts, &mut |rng| {
            let process = if rng.chance_ppm(250_000) { None } else { Some(rng.below(n) as u16) };
            // One burst in three throttles every request, for up to two leases: a holder's
            // renewals then fail through what its lease leaves for retries, or beyond.
            let (per_million, for_ms) = if rng.chance_ppm(333_333) {
                (1_000_000, rng.range(lease_ms / 4, 2 * lease_ms))
            } else {
                (rng.range(300_000, 950_000) as u32, rng.range(2_000, 40_000))
            };
            Some(Fault::Throttle { process, per_million, for_ms })
        });
        // Half of the outages are brief; the others last up to a lease, which no lease outlives:
        // a renewal that finds the table gone ends its lease.
        add(rng, self.table_outages, &mut |rng| {
            let for_ms = if rng.chance_ppm(500_000) {
                rng.range(500, 5_000)
            } else {
                rng.range(lease_ms / 3, lease_ms.max(1_000))
            };
            let table = if tables.len() == 1 { tables[0].clone() } else { rng.pick(tables)?.clone() };
            Some(Fault::TableOutage { table, for_ms })
        });
        add(rng, self.deletions, &mut |rng| rng.pick(deletable).map(|item| Fault::DeleteItem { item: item.clone() }));
        // Small steps, as NTP slews a clock back into line, and large ones, as a clock set by
        // hand or a virtual machine resumed with the time of its host: longer than any wait.
        add(rng, self.clock_steps, &mut |rng| {
            let largest = if rng.chance_ppm(500_000) { skew_ms_max.max(1) / 2 } else { 2 * lease_ms };
            Some(Fault::ClockStep { process: rng.below(n) as u16, delta_ms: rng.signed(largest) })
        });
        add(rng, self.corruptions, &mut |rng| {
            let item = rng.pick(deletable)?.clone();
            Some(Fault::ReplaceItem { item, for_ms: rng.range(lease_ms / 2, 2 * lease_ms) })
        });
        add(rng, self.partial_batches, &mut |rng| {
            let process = if rng.chance_ppm(250_000) { None } else { Some(rng.below(n) as u16) };
            let per_million = if rng.chance_ppm(333_333) { 1_000_000 } else { rng.range(200_000, 900_000) as u32 };
            Some(Fault::PartialBatches { process, per_million, for_ms: rng.range(2_000, 2 * lease_ms) })
        });
        faults.sort_by_key(|f| f.at_ms);
        faults
    }
}

/// What the schedule of faults of a run is drawn for.
#[derive(Clone, Copy, Debug)]
pub struct Shape<'a> {
    /// The length of the safety phase.
    pub safety_ms: u64,
    /// How many processes.
    pub processes: u16,
    /// The time scale of the service's protocol: faults last from a fraction of it to a few.
    pub scale_ms: u64,
    /// The largest offset of a machine's wall clock.
    pub skew_ms_max: u64,
    /// The service's tables, which outages take away.
    pub tables: &'a [String],
    /// The items the nemesis may delete or replace.
    pub deletable: &'a [ItemRef],
}

/// The fault rules of the fake that are in force, each with an id, so that one can end while
/// the others go on.
#[derive(Debug)]
pub(crate) struct ServerFaults {
    fake: FakeDynamoDb,
    active: BTreeMap<u64, FaultRule>,
    next: u64,
}

impl ServerFaults {
    pub(crate) fn new(fake: FakeDynamoDb) -> Self {
        ServerFaults { fake, active: BTreeMap::new(), next: 0 }
    }

    /// Puts `rule` in force; returns its id.
    pub(crate) fn add(&mut self, rule: FaultRule) -> u64 {
        let id = self.next;
        self.next += 1;
        self.active.insert(id, rule);
        self.install();
        id
    }

    /// Ends the rule `id`.
    pub(crate) fn remove(&mut self, id: u64) {
        if self.active.remove(&id).is_some() {
            self.install();
        }
    }

    /// Ends every rule.
    pub(crate) fn clear(&mut self) {
        self.active.clear();
        self.install();
    }

    fn install(&self) {
        self.fake.clear_faults();
        for rule in self.active.values() {
            self.fake.inject(rule.clone());
        }
    }
}
