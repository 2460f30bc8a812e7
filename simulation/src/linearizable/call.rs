//! One operation of a history, as the checker sees it.

/// One operation of a history: when it was invoked, how it completed, what it asked and what it
/// returned.
///
/// Operations that certainly failed (Jepsen's `:fail`: the service refused them, so they had no
/// effect) are left out of the history by the caller.
#[derive(Debug)]
pub struct Call<'a, O, R> {
    /// The caller's number for the operation, which reports name it by (`#41`). Give each
    /// operation its own.
    pub id: u32,
    /// When it was invoked: any totally ordered time (the index of its invoke entry in the
    /// caller's history, or microseconds).
    pub invoked: u64,
    /// How it completed.
    pub completion: Completion<'a, R>,
    /// What it asked for.
    pub op: &'a O,
}

/// How an operation completed.
#[derive(Debug)]
pub enum Completion<'a, R> {
    /// It returned `ret` at time `at` (on the same clock as [`Call::invoked`], no earlier).
    Returned {
        /// When it returned.
        at: u64,
        /// What it returned.
        ret: &'a R,
    },
    /// Its answer is unknown (it was lost or timed out, or the process crashed): it may have
    /// taken effect at any time after its invoke, or never, and what it returned is not known.
    /// Jepsen's `:info`.
    Unknown,
}

impl<'a, O, R> Call<'a, O, R> {
    /// An operation invoked at `invoked` that returned `ret` at `completed`.
    pub fn returned(id: u32, invoked: u64, op: &'a O, completed: u64, ret: &'a R) -> Self {
        Call { id, invoked, completion: Completion::Returned { at: completed, ret }, op }
    }

    /// An operation invoked at `invoked` whose answer is unknown.
    pub fn unknown(id: u32, invoked: u64, op: &'a O) -> Self {
        Call { id, invoked, completion: Completion::Unknown, op }
    }

    /// When the operation returned; `None` when its answer is unknown.
    pub fn completed(&self) -> Option<u64> {
        match self.completion {
            Completion::Returned { at, .. } => Some(at),
            Completion::Unknown => None,
        }
    }

    /// What the operation returned; `None` when its answer is unknown.
    pub fn ret(&self) -> Option<&'a R> {
        match self.completion {
            Completion::Returned { ret, .. } => Some(ret),
            Completion::Unknown => None,
        }
    }
}

// Written out rather than derived: a derive would ask `O: Clone` and `R: Clone`, and a call holds
// only references to them.
impl<O, R> Clone for Call<'_, O, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<O, R> Copy for Call<'_, O, R> {}

impl<R> Clone for Completion<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Completion<'_, R> {}
