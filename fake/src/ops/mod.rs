//! The operations, one module per family.

pub(crate) mod capacity;
pub(crate) mod control;
pub(crate) mod items;
pub(crate) mod read;
pub(crate) mod transact;
pub(crate) mod write;
