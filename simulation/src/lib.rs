#![doc = include_str!("../README.md")]
//!
//! # The map of the crate
//!
//! From the bottom up, each layer using only those beneath it:
//!
//! - The parts of the world: [`clock`] ([`ClockSpec`], [`ProcessClock`]), [`SimRng`],
//!   [`net`] ([`NetSpec`]), [`ItemRef`], and the nemesis's vocabulary, [`nemesis`] (faults at
//!   times, and triggers timed by the moments of requests).
//! - The history of any service: [`history`] ([`History`](history::History),
//!   [`Value`](history::Value)).
//! - What a service is: [`Service`] with its [`Ctx`], [`Setup`], [`Run`] and [`Verdict`]; a
//!   [`Probe`](probe::Probe) for a service that teaches the world its protocol.
//! - The world: [`Scenario`] (from a seed and a [`Config`], or the proptest
//!   [`strategy`](scenario::strategy)), [`World`], [`RunReport`].
//! - Checkers: [`linearizable`] (a service's operations against a sequential model, per key),
//!   [`exactly_once`] (every acknowledged operation has one effect in the final state).
//! - The lock library as one service: [`locks`].
//! - Tools over runs: [`sweep()`](sweep::sweep), [`shrink`](mod@shrink), [`scenario_file`],
//!   [`timeline`], [`picture`], [`harness`] (the simulation in `cargo test`), [`cli`].
#![warn(missing_docs, unreachable_pub, missing_debug_implementations, rust_2018_idioms)]

pub mod cli;
pub mod clock;
mod ctx;
pub mod exactly_once;
mod gate;
pub mod harness;
pub mod history;
mod item;
pub mod linearizable;
pub mod locks;
pub mod nemesis;
pub mod net;
pub mod picture;
pub mod probe;
mod report;
mod report_json;
mod rng;
mod run;
pub mod scenario;
pub mod scenario_file;
mod sdk_error;
mod service;
mod setup;
pub mod shrink;
mod spec;
pub mod sweep;
mod tables;
pub mod timeline;
mod verdict;
mod world;

pub use clock::{ClockSpec, ProcessClock};
pub use ctx::{Ctx, Pending, Span};
pub use gate::RunState;
pub use item::ItemRef;
pub use nemesis::{Fault, FaultBounds, ScheduledFault};
pub use net::NetSpec;
pub use rng::SimRng;
pub use run::Run;
pub use scenario::Scenario;
pub use scenario_file::ScenarioFileError;
pub use sdk_error::sdk_error_words;
pub use service::{Service, SetupFuture, Workload};
pub use setup::{Setup, SetupError};
pub use spec::{Config, ProcessSpec};
pub use tables::{Item, Tables};
pub use verdict::{Inconclusive, Invariant, NOT_DETERMINISTIC, Verdict, Violation};
pub use world::{RunError, RunReport, START_TIME_SECS, World, start_time};
