//! The operation a task of a lock workload acquires a lock for: the world ties the grants
//! DynamoDB makes for that task's requests to it.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::history::OpId;

tokio::task_local! {
    /// The operation whose requests a task sends, while it acquires: the world ties the grants
    /// DynamoDB makes for those requests to it.
    pub(crate) static OPERATION: Arc<Mutex<Option<OpId>>>;
}

/// The operation the current task acquires a lock for, if any.
pub(crate) fn current_operation() -> Option<OpId> {
    OPERATION.try_with(|op| *lock_pending(op)).ok().flatten()
}

/// The operation `pending` holds, under its lock.
pub(crate) fn lock_pending(pending: &Mutex<Option<OpId>>) -> MutexGuard<'_, Option<OpId>> {
    pending.lock().unwrap_or_else(|e| e.into_inner())
}
