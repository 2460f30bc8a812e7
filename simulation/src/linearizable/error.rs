//! A history the checker cannot read, or a model that breaks its own promise.

use std::fmt;

/// Why [`check`](super::check) gave no verdict: the history could not have happened, or the model
/// broke a promise it made. Neither says anything of the service.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CheckError {
    /// An operation returned before it was invoked.
    ReturnedBeforeInvoked {
        /// The operation's id.
        id: u32,
        /// When it was invoked.
        invoked: u64,
        /// When it returned.
        completed: u64,
    },
    /// The model said an operation only reads ([`Model::is_read_only`](super::Model::is_read_only)),
    /// but a step of it changed the state.
    NotReadOnly {
        /// The operation's id.
        id: u32,
        /// The operation, as `Debug` prints it.
        op: String,
        /// The state before the step, as `Debug` prints it.
        before: String,
        /// The state after the step, as `Debug` prints it.
        after: String,
    },
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::ReturnedBeforeInvoked { id, invoked, completed } => {
                write!(f, "operation #{id} returned at {completed}, before it was invoked at {invoked}")
            }
            CheckError::NotReadOnly { id, op, before, after } => write!(
                f,
                "the model says operation #{id} {op} only reads, but its step changed the state from {before} to {after}"
            ),
        }
    }
}

impl std::error::Error for CheckError {}
