//! What the checker says of a history.

use std::fmt;

/// What [`check`](super::check) says of a history.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Every partition of the history has an order that the model explains.
    Linearizable(Linearizable),
    /// A partition of the history has no order that the model explains.
    Violation(Violation),
    /// The search of a partition ran out of its [`Budget`](super::Budget) before it found an
    /// answer: the history is neither shown linearizable nor shown not to be.
    TooLarge(TooLarge),
}

impl Verdict {
    /// Whether the history was shown linearizable (a [`TooLarge`] history is not).
    pub fn is_linearizable(&self) -> bool {
        matches!(self, Verdict::Linearizable(_))
    }

    /// The violation, if the history has one.
    pub fn violation(&self) -> Option<&Violation> {
        match self {
            Verdict::Violation(violation) => Some(violation),
            _ => None,
        }
    }

    /// The partition that was too large, if the search ran out of its budget.
    pub fn too_large(&self) -> Option<&TooLarge> {
        match self {
            Verdict::TooLarge(too_large) => Some(too_large),
            _ => None,
        }
    }
}

/// A history shown linearizable, and how much the search explored to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linearizable {
    /// How many partitions (keys) the history was checked in.
    pub partitions: usize,
    /// How many operations the history has.
    pub operations: usize,
    /// The states the search explored, over all partitions.
    pub states_explored: u64,
}

/// A partition that no order of its operations explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The key of the partition ([`Model::partition`](super::Model::partition)); `None` for the
    /// history as one whole.
    pub partition: Option<String>,
    /// How many operations the partition has.
    pub operations: usize,
    /// The operations that no order could place next at the deepest point the search reached:
    /// each returned something the model does not give there.
    pub unexplained: Vec<u32>,
    /// The longest order of operations the model explains that the search found, first to last:
    /// the last good point. It may hold operations whose answer is unknown, placed where their
    /// effect explains what others saw.
    pub longest_order: Vec<u32>,
    /// The states the search explored in the partition.
    pub states_explored: u64,
    /// The violation in words: the operations that cannot be explained, the longest order, and
    /// the state it leaves.
    pub message: String,
}

/// A partition the search could not decide within its budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    /// The key of the partition; `None` for the history as one whole.
    pub partition: Option<String>,
    /// How many operations the partition has.
    pub operations: usize,
    /// The states the search explored before the budget ran out.
    pub states_explored: u64,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Linearizable(linearizable) => linearizable.fmt(f),
            Verdict::Violation(violation) => violation.fmt(f),
            Verdict::TooLarge(too_large) => too_large.fmt(f),
        }
    }
}

impl fmt::Display for Linearizable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Linearizable { partitions, operations, states_explored } = self;
        write!(
            f,
            "linearizable: {operations} operations in {partitions} partition{}, {states_explored} states explored",
            if *partitions == 1 { "" } else { "s" }
        )
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the {} operations{} are too many for the search: {} states explored without an answer \
             (check a shorter history, or give the search a larger budget)",
            self.operations,
            on_key(self.partition.as_deref()),
            self.states_explored
        )
    }
}

/// " on key `k`", or nothing for the history as one whole.
pub(super) fn on_key(partition: Option<&str>) -> String {
    partition.map(|key| format!(" on key `{key}`")).unwrap_or_default()
}
