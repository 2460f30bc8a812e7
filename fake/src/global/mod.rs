//! Global tables, version 2019.11.21: replicas of a table in other regions of the same account,
//! on one fake.
//!
//! - `membership`: what a regional table knows of its global table (DescribeTable's `Replicas`).
//! - `replicas`: UpdateTable's `ReplicaUpdates`: a replica created, updated, deleted.
//! - `delivery`: each write of a replica reaching the others after the replication lag, the
//!   last writer winning.

pub(crate) mod delivery;
pub(crate) mod membership;
pub(crate) mod replicas;
