//! The operations, one module per family.

pub(crate) mod backups;
pub(crate) mod batch;
pub(crate) mod capacity;
pub(crate) mod collection_metrics;
pub(crate) mod control;
pub(crate) mod items;
pub(crate) mod key_condition;
pub(crate) mod multi_attribute_key;
pub(crate) mod partiql;
pub(crate) mod policies;
pub(crate) mod query;
pub(crate) mod read;
pub(crate) mod recovery;
pub(crate) mod restore;
pub(crate) mod scan;
pub(crate) mod streams;
pub(crate) mod tags;
pub(crate) mod transact;
pub(crate) mod transfers;
pub(crate) mod write;
