//! The nemesis's vocabulary: faults at times ([`fault`]) and faults timed by the moments of the
//! service's own requests ([`trigger`]), and how a seed draws them. The world carries them out.

pub mod fault;
pub mod trigger;

pub use fault::{Fault, FaultBounds, ScheduledFault, Shape};
pub(crate) use fault::{ServerFaults, percent, whom};
pub use trigger::{DEFAULT_MENU, MenuItem, Moment, OutageKind, Promise, Reaction, ReactionKind, Trigger, Whom};
