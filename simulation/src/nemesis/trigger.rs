//! Faults timed by the moments of the service's own requests, as well as by the clock.
//!
//! A protocol breaks in narrow windows: between a read and the conditional write that follows
//! it, between a write and its answer, between two writes that belong together. A fault at a
//! random time rarely lands in one. A [`Trigger`] waits for a [`Moment`] of a process's
//! requests (one left it; DynamoDB applied it; its answer reached it), on any item or on one
//! item, and then applies its [`Reaction`] at that very instant: pause, suspend or crash the
//! process, lose or delay the answer that is on its way, hold the request in the network until
//! another process has read or written the same item, partition or throttle it, step its
//! clock, delete the item, or take the service away for just shorter (or just longer) than a
//! bound the service promises to survive.
//!
//! A service that teaches the world its protocol (a [`Probe`](crate::probe::Probe)) also labels
//! the moments of its requests, such as `grant` or `renewal` for the writes of a lock, and may
//! announce when an item falls *due* (a lock may be taken over); triggers can wait for a label,
//! and stop a process until just before a due.
//!
//! Each trigger fires once, at the first matching moment after its time, so a scenario's
//! triggers are a list that a person can read, edit and shrink.

use std::fmt;

use crate::rng::SimRng;

/// A moment of one process's requests, seen from the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Moment {
    /// A write (PutItem, UpdateItem, DeleteItem, a batch or a transaction) left the process.
    WriteSent,
    /// A read left the process.
    ReadSent,
    /// DynamoDB applied a write; its answer is on the way back.
    WriteApplied,
    /// DynamoDB answered a read; its answer is on the way back.
    ReadApplied,
    /// The answer of a write that DynamoDB applied reached the process.
    WriteAnswered,
}

impl Moment {
    /// Every moment.
    pub const ALL: [Moment; 5] =
        [Moment::WriteSent, Moment::ReadSent, Moment::WriteApplied, Moment::ReadApplied, Moment::WriteAnswered];

    /// The moment in words, for the timeline: `p1.0 <words> Accounts[alice]`.
    pub fn describe(self) -> &'static str {
        match self {
            Moment::WriteSent => "sent a write of",
            Moment::ReadSent => "sent a read of",
            Moment::WriteApplied => "had its write applied to",
            Moment::ReadApplied => "had its read answered of",
            Moment::WriteAnswered => "heard its write applied to",
        }
    }

    /// The short name of scenario files: `write-sent`.
    pub fn name(self) -> &'static str {
        match self {
            Moment::WriteSent => "write-sent",
            Moment::ReadSent => "read-sent",
            Moment::WriteApplied => "write-applied",
            Moment::ReadApplied => "read-applied",
            Moment::WriteAnswered => "write-answered",
        }
    }

    /// Whether the moment is of a write.
    pub fn is_write(self) -> bool {
        matches!(self, Moment::WriteSent | Moment::WriteApplied | Moment::WriteAnswered)
    }
}

/// How a stop ends a race or a timed outage: a pause, a suspension or a crash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutageKind {
    /// The process is cut off the network.
    Partition,
    /// DynamoDB throttles every request of the process.
    Throttle,
    /// The service's table answers ResourceNotFoundException to everyone.
    Table,
}

/// What the nemesis does at a trigger's moment, to the process of the moment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Reaction {
    /// Pauses the process (its clock runs on).
    Pause {
        /// For how long.
        for_ms: u64,
    },
    /// Suspends its machine (its monotonic clock stops).
    Suspend {
        /// For how long.
        for_ms: u64,
    },
    /// Crashes it.
    Crash {
        /// How long until it restarts.
        restart_after_ms: u64,
    },
    /// Cuts it off the network.
    Partition {
        /// For how long.
        for_ms: u64,
    },
    /// Has DynamoDB throttle its requests.
    Throttle {
        /// The probability of each request, in millionths.
        per_million: u32,
        /// For how long.
        for_ms: u64,
    },
    /// Steps its wall clock.
    ClockStep {
        /// By how much, either way.
        delta_ms: i64,
    },
    /// The answer of the write of the moment ([`Moment::WriteApplied`]) comes back this much
    /// later.
    DelayAnswer {
        /// Added to the way back.
        extra_ms: u64,
    },
    /// The answer of the write of the moment is lost, though DynamoDB applied it: the client
    /// sees a reset connection and may retry.
    LoseAnswer,
    /// The write of the moment ([`Moment::WriteSent`]) takes this much longer on its way to
    /// DynamoDB, so that whatever else is written meanwhile lands first.
    DelayRequest {
        /// Added to the way there.
        extra_ms: u64,
    },
    /// The write of the moment ([`Moment::WriteSent`]) is held in the network for at least
    /// `min_ms`, then delivered right after another process's next read of the same item, so
    /// that it lands between that read and whatever the reader writes next.
    HoldUntilRead {
        /// The shortest hold.
        min_ms: u64,
    },
    /// The write of the moment ([`Moment::WriteSent`]) is held in the network until its item
    /// falls due (as the service's probe announces: a lock that a waiting process may take
    /// over), and delivered right after the read that found it due.
    HoldUntilDue,
    /// Deletes the item of the moment.
    DeleteItem,
    /// Pauses (or suspends) the process of the moment, which the probe names as the holder of
    /// the item, and resumes it `lead_ms` before the item falls due for another process.
    StopUntilDue {
        /// How long before the due the process resumes.
        lead_ms: u64,
        /// Whether its machine is suspended instead of paused.
        suspend: bool,
    },
    /// The message of the moment (a request that leaves the process, or the answer of a write
    /// that DynamoDB applied) loses its turn: it is held in the network until `by` reads or
    /// writes of the same item by other processes have been applied (writes only, if
    /// `writes`), and delivered right after the last of them. Then `stop`, if any, stops the
    /// process whose read or write came last (the overtaker) or the process of the moment.
    Overtake {
        /// How many reads or writes of other processes pass it.
        by: u8,
        /// Whether only writes count.
        writes: bool,
        /// Who stops once it was delivered, and how (a pause, a suspension or a crash).
        stop: Option<(Whom, Box<Reaction>)>,
    },
    /// An outage that starts at the moment and lasts `for_ms`: sized at the edge of a promise
    /// of the service ([`Promise`]), just shorter or just longer than the bound it names.
    Outage {
        /// What is taken away.
        kind: OutageKind,
        /// For how long.
        for_ms: u64,
    },
}

/// Whom the stop of an [`Reaction::Overtake`] stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Whom {
    /// The process whose read or write passed the held message last.
    Overtaker,
    /// The process whose message was held.
    Sender,
}

impl Reaction {
    /// Whether the network applies it to the request of the moment, rather than the world.
    pub fn is_inline(&self) -> bool {
        matches!(
            self,
            Reaction::DelayAnswer { .. }
                | Reaction::LoseAnswer
                | Reaction::DelayRequest { .. }
                | Reaction::HoldUntilRead { .. }
                | Reaction::HoldUntilDue
                | Reaction::Overtake { .. }
        )
    }

    /// The kind of reaction, for counts and files.
    pub fn kind(&self) -> ReactionKind {
        match self {
            Reaction::Pause { .. } => ReactionKind::Pause,
            Reaction::Suspend { .. } => ReactionKind::Suspend,
            Reaction::Crash { .. } => ReactionKind::Crash,
            Reaction::Partition { .. } => ReactionKind::Partition,
            Reaction::Throttle { .. } => ReactionKind::Throttle,
            Reaction::ClockStep { .. } => ReactionKind::ClockStep,
            Reaction::DelayAnswer { .. } => ReactionKind::DelayAnswer,
            Reaction::LoseAnswer => ReactionKind::LoseAnswer,
            Reaction::DelayRequest { .. } => ReactionKind::DelayRequest,
            Reaction::HoldUntilRead { .. } => ReactionKind::HoldUntilRead,
            Reaction::HoldUntilDue => ReactionKind::HoldUntilDue,
            Reaction::DeleteItem => ReactionKind::DeleteItem,
            Reaction::StopUntilDue { .. } => ReactionKind::StopUntilDue,
            Reaction::Overtake { .. } => ReactionKind::Overtake,
            Reaction::Outage { .. } => ReactionKind::Outage,
        }
    }

    /// Whether it means anything at `moment`: the network's reactions need the request of the
    /// moment.
    pub fn fits(&self, moment: Moment) -> bool {
        match self {
            Reaction::DelayAnswer { .. } | Reaction::LoseAnswer => moment == Moment::WriteApplied,
            Reaction::DelayRequest { .. } | Reaction::HoldUntilRead { .. } | Reaction::HoldUntilDue => {
                moment == Moment::WriteSent
            }
            Reaction::Overtake { .. } => {
                matches!(moment, Moment::ReadSent | Moment::WriteSent | Moment::WriteApplied)
            }
            _ => true,
        }
    }
}

/// A fault that waits for a moment of a process's requests.
///
/// # Examples
///
/// Right after the first write of p0 that DynamoDB applies from 60 s on, lose its answer:
///
/// ```
/// use dynalease_sim::nemesis::{Moment, Reaction, Trigger};
///
/// let trigger = Trigger {
///     after_ms: 60_000,
///     process: Some(0),
///     item: None,
///     label: None,
///     moment: Moment::WriteApplied,
///     reaction: Reaction::LoseAnswer,
/// };
/// # let _ = trigger;
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Trigger {
    /// From when the trigger waits for its moment, since the start of the run.
    pub after_ms: u64,
    /// The process whose moment it is; `None` for any process.
    pub process: Option<u16>,
    /// The item of the moment (`Table[key]`, or a name the service's probe gives its items);
    /// `None` for any item.
    pub item: Option<String>,
    /// The label the service's probe gave the moment (`grant`, `renewal`, ...); `None` for any.
    pub label: Option<String>,
    /// The moment.
    pub moment: Moment,
    /// What happens then.
    pub reaction: Reaction,
}

/// A promise of the service that an outage may test at its edge: from `moment` (with `label`)
/// of a process, the service survives an outage shorter than `bound_ms`.
///
/// # Examples
///
/// A lease renewed every ten seconds, whose retries back off to five, survives an outage of up
/// to twenty seconds that starts right after a renewal was heard:
///
/// ```
/// use dynalease_sim::nemesis::{Moment, Promise};
///
/// use dynalease_sim::nemesis::OutageKind;
///
/// let promise = Promise {
///     name: "short outages survived",
///     moment: Moment::WriteAnswered,
///     label: Some("renewal"),
///     process: None,
///     bound_ms: 20_000,
///     outages: &[OutageKind::Partition, OutageKind::Throttle],
/// };
/// # let _ = promise;
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Promise {
    /// What the service promises, in words.
    pub name: &'static str,
    /// The moment that starts the promise's clock.
    pub moment: Moment,
    /// Its label, if any.
    pub label: Option<&'static str>,
    /// The process the bound is of; `None` for every process.
    pub process: Option<u16>,
    /// The longest outage the service promises to survive.
    pub bound_ms: u64,
    /// The kinds of outage the promise is about.
    pub outages: &'static [OutageKind],
}

/// The kinds of [`Reaction`], without their sizes: what a menu of triggers and a scenario file
/// name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReactionKind {
    /// [`Reaction::Pause`].
    Pause,
    /// [`Reaction::Suspend`].
    Suspend,
    /// [`Reaction::Crash`].
    Crash,
    /// [`Reaction::Partition`].
    Partition,
    /// [`Reaction::Throttle`].
    Throttle,
    /// [`Reaction::ClockStep`].
    ClockStep,
    /// [`Reaction::DelayAnswer`].
    DelayAnswer,
    /// [`Reaction::LoseAnswer`].
    LoseAnswer,
    /// [`Reaction::DelayRequest`].
    DelayRequest,
    /// [`Reaction::HoldUntilRead`].
    HoldUntilRead,
    /// [`Reaction::HoldUntilDue`].
    HoldUntilDue,
    /// [`Reaction::DeleteItem`].
    DeleteItem,
    /// [`Reaction::StopUntilDue`].
    StopUntilDue,
    /// [`Reaction::Overtake`].
    Overtake,
    /// [`Reaction::Outage`].
    Outage,
}

impl ReactionKind {
    /// The kebab-case name of files and counts: `lose-answer`.
    pub fn name(self) -> &'static str {
        match self {
            ReactionKind::Pause => "pause",
            ReactionKind::Suspend => "suspend",
            ReactionKind::Crash => "crash",
            ReactionKind::Partition => "partition",
            ReactionKind::Throttle => "throttle",
            ReactionKind::ClockStep => "clock-step",
            ReactionKind::DelayAnswer => "delay-answer",
            ReactionKind::LoseAnswer => "lose-answer",
            ReactionKind::DelayRequest => "delay-request",
            ReactionKind::HoldUntilRead => "hold-until-read",
            ReactionKind::HoldUntilDue => "hold-until-due",
            ReactionKind::DeleteItem => "delete-item",
            ReactionKind::StopUntilDue => "stop-until-due",
            ReactionKind::Overtake => "overtake",
            ReactionKind::Outage => "outage",
        }
    }

    /// A reaction of this kind at `moment`, sized against the time scale `scale_ms`.
    pub fn draw(self, moment: Moment, rng: &mut SimRng, scale_ms: u64) -> Reaction {
        let lease = scale_ms.max(1_000);
        match self {
            ReactionKind::Pause => Reaction::Pause { for_ms: rng.range(lease / 4, 2 * lease) },
            ReactionKind::Suspend => Reaction::Suspend { for_ms: rng.range(lease / 4, 2 * lease) },
            ReactionKind::Crash => Reaction::Crash { restart_after_ms: rng.range(1_000, 2 * lease) },
            ReactionKind::Partition => Reaction::Partition { for_ms: rng.range(lease / 2, 2 * lease) },
            // Half of them throttle every request, through what the protocol leaves for retries.
            ReactionKind::Throttle => Reaction::Throttle {
                per_million: if rng.chance_ppm(500_000) { 1_000_000 } else { rng.range(900_000, 1_000_000) as u32 },
                for_ms: rng.range(lease / 3, 3 * lease / 2),
            },
            // As a machine whose clock NTP corrects by much, or a virtual machine that resumes:
            // larger than any wait, either way.
            ReactionKind::ClockStep => {
                let step = rng.range(lease / 2, 2 * lease) as i64;
                Reaction::ClockStep { delta_ms: if rng.chance_ppm(500_000) { step } else { -step } }
            }
            ReactionKind::DelayAnswer => Reaction::DelayAnswer { extra_ms: rng.range(100, 3 * lease / 2) },
            ReactionKind::LoseAnswer => Reaction::LoseAnswer,
            ReactionKind::DelayRequest => Reaction::DelayRequest { extra_ms: rng.range(1, lease / 3) },
            ReactionKind::HoldUntilRead => Reaction::HoldUntilRead { min_ms: rng.range(lease / 2, lease) },
            ReactionKind::HoldUntilDue => Reaction::HoldUntilDue,
            ReactionKind::DeleteItem => Reaction::DeleteItem,
            ReactionKind::StopUntilDue => {
                Reaction::StopUntilDue { lead_ms: rng.range(0, lease / 2), suspend: rng.chance_ppm(500_000) }
            }
            ReactionKind::Overtake => {
                // Mostly one write that overtakes, and then a stop long enough that what the race
                // left behind outlasts the protocol's timeouts. A read is overtaken by another's
                // write, whose writer is then mostly the one to stop; an answer, by another's
                // write, and either may stop.
                let read = moment == Moment::ReadSent;
                let by = if rng.chance_ppm(800_000) { 1 } else { 2 };
                let writes = rng.chance_ppm(850_000);
                let stop = match rng.below(20) {
                    0..4 => None,
                    n => {
                        let overtaker = if read { n < 17 } else { n < 12 };
                        let whom = if overtaker { Whom::Overtaker } else { Whom::Sender };
                        let for_ms = rng.range(lease / 2, 2 * lease);
                        let how = match rng.below(5) {
                            0 | 1 => Reaction::Pause { for_ms },
                            2 | 3 => Reaction::Suspend { for_ms },
                            _ => Reaction::Crash { restart_after_ms: for_ms },
                        };
                        Some((whom, Box::new(how)))
                    }
                };
                Reaction::Overtake { by, writes, stop }
            }
            ReactionKind::Outage => {
                let kind = match rng.below(3) {
                    0 => OutageKind::Partition,
                    1 => OutageKind::Throttle,
                    _ => OutageKind::Table,
                };
                Reaction::Outage { kind, for_ms: rng.range(lease / 3, lease) }
            }
        }
    }
}

impl fmt::Display for ReactionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One entry of a menu of triggers: a moment (with a label, if the probe gives one) and the
/// kind of reaction that opens a window there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MenuItem {
    /// The moment.
    pub moment: Moment,
    /// The label the moment must carry, if any.
    pub label: Option<&'static str>,
    /// The reaction.
    pub reaction: ReactionKind,
}

impl MenuItem {
    /// `reaction` at `moment`, of any label.
    pub const fn at(moment: Moment, reaction: ReactionKind) -> Self {
        MenuItem { moment, label: None, reaction }
    }

    /// `reaction` at `moment` with `label`.
    pub const fn labelled(moment: Moment, label: &'static str, reaction: ReactionKind) -> Self {
        MenuItem { moment, label: Some(label), reaction }
    }
}

/// The windows where services that keep their state in DynamoDB are known to break, and the
/// faults that open them: the menu a service draws its triggers from unless it gives its own.
pub const DEFAULT_MENU: &[MenuItem] = &[
    // A read overtaken by another's write, between it and the conditional write that follows.
    MenuItem::at(Moment::ReadSent, ReactionKind::Overtake),
    MenuItem::at(Moment::ReadSent, ReactionKind::Overtake),
    // A write overtaken, and its answer held past another's write.
    MenuItem::at(Moment::WriteSent, ReactionKind::Overtake),
    MenuItem::at(Moment::WriteApplied, ReactionKind::Overtake),
    // A write applied whose answer is lost (the SDK retries it) or comes late.
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::LoseAnswer),
    MenuItem::at(Moment::WriteApplied, ReactionKind::DelayAnswer),
    // A process stopped between its read and its write, or between two writes.
    MenuItem::at(Moment::ReadApplied, ReactionKind::Pause),
    MenuItem::at(Moment::ReadApplied, ReactionKind::Crash),
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Crash),
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Crash),
    MenuItem::at(Moment::WriteSent, ReactionKind::Pause),
    MenuItem::at(Moment::WriteSent, ReactionKind::Crash),
    MenuItem::at(Moment::WriteSent, ReactionKind::DelayRequest),
    MenuItem::at(Moment::WriteSent, ReactionKind::HoldUntilRead),
    // Throttled or cut off right after a write, and clocks that jump while a process waits.
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Throttle),
    MenuItem::at(Moment::WriteAnswered, ReactionKind::Partition),
    MenuItem::at(Moment::ReadApplied, ReactionKind::ClockStep),
];

/// What the triggers of a run are drawn for.
#[derive(Clone, Copy, Debug)]
pub struct Draw<'a> {
    /// The most triggers.
    pub count_max: u32,
    /// The length of the safety phase.
    pub safety_ms: u64,
    /// How many processes.
    pub processes: u16,
    /// The time scale of the service's protocol.
    pub scale_ms: u64,
    /// The items a run may focus its triggers on (`Table[key]` or the probe's names).
    pub items: &'a [String],
    /// The menu.
    pub menu: &'a [MenuItem],
    /// The promises whose edges outages test.
    pub promises: &'a [Promise],
}

/// Draws up to `draw.count_max` triggers from a part of the menu that the seed draws too
/// (swarm testing again: some runs meet one kind of timed trouble many times). Half of the
/// runs focus their triggers on one item, and the others half of their triggers, so that an
/// item whose moments are rare gets its share. A run with promises gives some of its triggers
/// to outages at their edges, just shorter or just longer than the bound.
pub fn draw(rng: &mut SimRng, draw: &Draw<'_>) -> Vec<Trigger> {
    let Draw { count_max, safety_ms, processes, scale_ms, items, menu, promises } = *draw;
    if count_max == 0 || safety_ms == 0 || processes == 0 || menu.is_empty() {
        return Vec::new();
    }
    let focus = rng.chance_ppm(500_000).then(|| rng.pick(items).cloned()).flatten();
    let share = if focus.is_some() { 150_000 } else { 400_000 };
    let mut chosen: Vec<MenuItem> = menu.iter().copied().filter(|_| rng.chance_ppm(share)).collect();
    if chosen.is_empty() {
        chosen.extend(rng.pick(menu).copied());
    }
    let count = rng.range(1, u64::from(count_max));
    let mut triggers: Vec<Trigger> = (0..count)
        .filter_map(|_| {
            let item = *rng.pick(&chosen)?;
            let process = if rng.chance_ppm(500_000) { None } else { Some(rng.below(u64::from(processes)) as u16) };
            let on = match &focus {
                Some(focus) => Some(focus.clone()),
                None if rng.chance_ppm(500_000) => None,
                None => rng.pick(items).cloned(),
            };
            Some(Trigger {
                after_ms: rng.range(0, safety_ms.saturating_sub(1)),
                process,
                item: on,
                label: item.label.map(str::to_owned),
                moment: item.moment,
                reaction: item.reaction.draw(item.moment, rng, scale_ms),
            })
        })
        .collect();
    // The edges of the promises: one run in three tests one, up to three times.
    if !promises.is_empty() && rng.chance_ppm(333_333) {
        for _ in 0..rng.range(1, 3) {
            let Some(promise) = rng.pick(promises) else { break };
            triggers.push(edge(rng, promise, safety_ms, processes));
        }
    }
    triggers.sort_by_key(|t| t.after_ms);
    triggers
}

/// An outage at the edge of `promise`: starting at its moment, lasting just shorter than its
/// bound (three times in four) or just longer.
fn edge(rng: &mut SimRng, promise: &Promise, safety_ms: u64, processes: u16) -> Trigger {
    let margin = (promise.bound_ms / 50).clamp(50, 2_000);
    let for_ms = if rng.chance_ppm(750_000) {
        promise.bound_ms.saturating_sub(rng.range(1, margin))
    } else {
        promise.bound_ms + rng.range(1, margin)
    };
    let kind = rng.pick(promise.outages).copied().unwrap_or(OutageKind::Partition);
    let process = promise.process.or_else(|| Some(rng.below(u64::from(processes.max(1))) as u16));
    Trigger {
        after_ms: rng.range(0, safety_ms.saturating_sub(1)),
        process,
        item: None,
        label: promise.label.map(str::to_owned),
        moment: promise.moment,
        reaction: Reaction::Outage { kind, for_ms },
    }
}
