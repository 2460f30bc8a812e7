//! How far the search may go before it gives up.

/// A bound on the search: how many states it may explore in each partition (each a step of the
/// model from a configuration the search reached) before it reports the history as
/// [`TooLarge`](super::Verdict::TooLarge).
///
/// The memo of visited configurations holds at most one entry per state explored, so the budget
/// bounds the memory of the search too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    states_max: u64,
}

impl Budget {
    /// The budget the checker uses unless told otherwise: a million states per partition, a
    /// seventh of a second of one core for a small state (the module's figures).
    pub const DEFAULT_STATES: u64 = 1_000_000;

    /// A budget of `states_max` states explored per partition.
    pub const fn states(states_max: u64) -> Self {
        Budget { states_max }
    }

    /// How many states the search may explore in one partition.
    pub const fn states_max(&self) -> u64 {
        self.states_max
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::states(Budget::DEFAULT_STATES)
    }
}
