//! A deterministic world of lock contenders, faults and invariant checks for `dynalease`.
//!
//! Many simulated processes contend for locks in one in-memory DynamoDB
//! ([`dynalease_fake`]), through crashes, pauses, suspensions, clock offsets and drift,
//! partitions, latency, throttling, lost answers, deleted lock items and a table that goes
//! missing. Every request goes through the real `aws_sdk_dynamodb::Client`. The history of the
//! run is recorded in Jepsen's form and checked: fencing tokens rise, no two processes believe
//! in a lease at once (where their clocks allow it), every committed fenced write carries the
//! highest token, and the lock of a crashed holder is taken over in time. A run is a pure
//! function of its seed: `dynalease-sim run --seed N` replays it exactly.
//!
//! The map of the crate:
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
//!
//! # Examples
//!
//! One seed of the default scenario, shortened to two simulated minutes:
//!
//! ```
//! use dynalease_sim::{Config, Scenario, World};
//!
//! let config = Config { duration_ms: 120_000, ..Config::default() };
//! let report = World::new(Scenario::from_seed(7, &config)).run();
//! assert!(report.violations().is_empty(), "{}", report.failure_report());
//! assert_eq!(report.digest(), World::new(Scenario::from_seed(7, &config)).run().digest());
//! ```
//!
//! A workload of your own, beside the built-in ones:
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use dynalease_sim::{Config, ProcessCtx, ProcessSpec, Scenario, World, Workload, WorkloadFuture};
//!
//! /// Every 20 s, takes the "report" lock if it is free and writes under it.
//! #[derive(Debug)]
//! struct Reporter;
//!
//! impl Workload for Reporter {
//!     fn name(&self) -> String {
//!         String::from("reporter")
//!     }
//!     fn run(&self, ctx: ProcessCtx) -> WorkloadFuture {
//!         Box::pin(async move {
//!             loop {
//!                 ctx.sleep(Duration::from_secs(20)).await;
//!                 if let Some(held) = ctx.try_acquire("report").await {
//!                     ctx.fenced_write(&held).await;
//!                     ctx.release(held).await;
//!                 }
//!             }
//!         })
//!     }
//! }
//!
//! let mut scenario = Scenario::from_seed(3, &Config { duration_ms: 120_000, ..Config::default() });
//! for process in &mut scenario.processes {
//!     process.custom.push(Arc::new(Reporter));
//! }
//! let report = World::new(scenario).run();
//! assert!(report.violations().is_empty(), "{}", report.failure_report());
//! assert!(report.history().lock_id("report").is_some());
//! ```
#![warn(missing_docs, unreachable_pub, missing_debug_implementations, rust_2018_idioms)]

pub mod check;
pub mod clock;
mod external;
pub mod faults;
mod gate;
pub mod history;
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
pub use workload::{Held, ProcessCtx, TokenBelief, Workload, WorkloadFuture};
pub use world::{PARTITION_KEY, SORT_KEY, START_TIME_SECS, TABLE, World, start_time};
