//! The `dynalease` lock library as a service in the world: its workloads, its probe and its
//! checker, on the same public API any service has.
//!
//! - [`LockService`]: the service: the table `Sim`, the lease, which lock (the library or the
//!   deliberately naive one of [`naive`]), and the default mix of workloads.
//! - [`Role`], [`LockWorkload`]: the built-in workloads ([`roles`]), each with its lock, pace
//!   and lease.
//! - [`ProcessCtx`], [`Held`]: a lock workload's handle on its process ([`workload`]).
//! - [`LockProbe`]: the ground truth of every write to a lock item, the labels of the
//!   protocol's moments (`grant`, `renewal`, `release`, `waiting`), and the dues of takeovers.
//! - [`check`]: the lock checker, over the history read back by [`history::project`].

pub mod check;
mod external;
pub mod history;
mod incarnation;
mod item_options;
mod logs;
mod mailbox;
pub mod naive;
pub mod notes;
mod operation;
mod probe;
pub mod roles;
mod service;
mod table_calls;
pub(crate) mod truth;
pub mod workload;

pub use check::{CheckContext, ViolationKind};
pub use mailbox::{Handoff, Mailbox};
pub use notes::{Lock, LockCall, LockNote, LockValue};
pub use probe::LockProbe;
pub use roles::Role;
pub use service::{
    BATCH_LOCK, CACHE_LOCK, JOB_LOCK, LEADER_LOCK, LEDGER_LOCK, LockKind, LockService, LockWorkload, RoleKind,
};
pub(crate) use truth::{LIBRARY_PREFIX, NAIVE_PREFIX};
pub use workload::{Fence, Held, ProcessCtx, TokenBelief, WorkloadFuture};

/// The table of the locks and of the data the processes write.
pub const TABLE: &str = "Sim";
/// Its partition key.
pub const PARTITION_KEY: &str = "pk";
/// Its sort key.
pub const SORT_KEY: &str = "sk";
/// The attribute the lock items of a process with the expiry option expire by.
pub(crate) const EXPIRY_ATTRIBUTE: &str = "expiresAt";
/// The HTTP header that names the operation ([`OpId`](crate::history::OpId)) of a fenced
/// write: when DynamoDB commits a request that carries it, the probe notes
/// [`LockNote::Committed`] for that operation. Set it on the fenced writes of a workload of
/// your own with `.customize().mutate_request(..)`.
pub const OP_HEADER: &str = "x-dynalease-sim-op";
