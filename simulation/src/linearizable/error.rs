//! A history the checker cannot read.

use std::fmt;

/// A history the checker refuses, because no execution could have produced it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HistoryError {
    /// An operation returned before it was invoked.
    ReturnedBeforeInvoked {
        /// The operation's id.
        id: u32,
        /// When it was invoked.
        invoked: u64,
        /// When it returned.
        completed: u64,
    },
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryError::ReturnedBeforeInvoked { id, invoked, completed } => {
                write!(f, "operation #{id} returned at {completed}, before it was invoked at {invoked}")
            }
        }
    }
}

impl std::error::Error for HistoryError {}
