#![doc = include_str!("../README.md")]
//!
//! # The map of the crate
//!
//! - [`World`] runs one [`Scenario`] and returns a [`RunReport`]; [`sweep()`](sweep::sweep)
//!   runs many seeds.
//! - [`scenario`]: [`Config`], [`Scenario`], [`ProcessSpec`], [`LockKind`], and the proptest
//!   [`strategy`](scenario::strategy).
//! - [`scenario_file`]: a scenario as a TOML file ([`Scenario::to_toml`], [`Scenario::from_toml`]).
//! - [`faults`]: [`Fault`], [`ScheduledFault`], [`FaultBounds`].
//! - [`workload`]: the [`Workload`] trait and [`ProcessCtx`], to put your own workload in the
//!   world; [`Role`] for the built-in ones.
//! - [`history`], [`timeline`], [`check`]: the record, its rendering, the checker;
//!   [`picture`]: a run drawn as an SVG timeline; [`RunReport::to_json`] for machines.
//! - [`shrink`](mod@shrink): from a failing run to the smallest scenario that still fails.
//! - [`clock`] ([`ClockSpec`], [`ProcessClock`]), [`net`] ([`NetSpec`]), [`naive`]: the parts
//!   of the world.
#![warn(missing_docs, unreachable_pub, missing_debug_implementations, rust_2018_idioms)]

pub mod check;
pub mod clock;
mod external;
pub mod faults;
mod gate;
pub mod history;
mod item_options;
pub mod linearizable;
mod logs;
pub mod naive;
pub mod net;
pub mod picture;
mod process;
mod report;
mod report_json;
mod rng;
mod roles;
pub mod scenario;
pub mod scenario_file;
pub mod shrink;
pub mod sweep;
pub mod timeline;
pub mod triggers;
mod truth;
pub mod workload;
mod world;

pub use clock::{ClockSpec, ProcessClock};
pub use faults::{Fault, FaultBounds, ScheduledFault};
pub use gate::RunState;
pub use net::NetSpec;
pub use report::RunReport;
pub use rng::SimRng;
pub use roles::Role;
pub use scenario::{Config, LockKind, ProcessSpec, Scenario};
pub use scenario_file::ScenarioFileError;
pub use workload::{Fence, Handoff, Held, Mailbox, ProcessCtx, TokenBelief, Workload, WorkloadFuture};
pub use world::{PARTITION_KEY, SORT_KEY, START_TIME_SECS, TABLE, World, start_time};
