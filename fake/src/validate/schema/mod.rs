//! The schema of every operation's input, one file per group of operations.

pub(crate) mod backups;
pub(crate) mod batch;
pub(crate) mod common;
pub(crate) mod items;
pub(crate) mod partiql;
pub(crate) mod policies;
pub(crate) mod reads;
pub(crate) mod streams;
pub(crate) mod tables;
pub(crate) mod transact;
pub(crate) mod transfers;
