#![doc = include_str!("../README.md")]
//!
//! # The map of the crate
//!
//! - [`FakeDynamoDb`]: the fake itself; [`FakeDynamoDb::client`] gives a ready SDK client.
//! - [`FakeClock`], [`TokioClock`]: where its time comes from (by default, tokio's clock);
//!   [`ControlledClock`]: a clock a test freezes, sets and advances
//!   ([`FakeDynamoDb::advance_clock`]).
//! - [`Snapshot`]: every table as one JSON document, to save and to start from.
//! - [`Fault`], [`FaultRule`]: seeded, scriptable faults.
//! - [`RequestRecord`]: one entry of [`FakeDynamoDb::request_log`].
//! - [`ItemChange`], [`ChangeKind`]: an item change, as [`FakeDynamoDb::observe_item_changes`]
//!   shows it; [`FakeDynamoDb::streams_client`] reads the tables' DynamoDB Streams.
//! - [`serve`], [`serve_with`]: the fake over real HTTP/1.1 with its control API (also the binary
//!   `dynalease-fake serve`).
//!
//! A conditional put, refused the second time:
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use aws_sdk_dynamodb::types::AttributeValue;
//! use dynalease_fake::FakeDynamoDb;
//!
//! let fake = FakeDynamoDb::new();
//! fake.create_table("Shop", "pk", None);
//! let client = fake.client();
//! let put = client.put_item().table_name("Shop")
//!     .item("pk", AttributeValue::S("a".into()))
//!     .condition_expression("attribute_not_exists(pk)");
//! put.clone().send().await.unwrap();
//! let err = put.send().await.unwrap_err();
//! assert!(err.into_service_error().is_conditional_check_failed_exception());
//! # }
//! ```
#![warn(missing_docs, missing_debug_implementations, rust_2018_idioms)]

mod accounts;
#[cfg(feature = "mimalloc")]
mod allocator;
mod backup;
mod clock;
mod connector;
mod control;
mod definition;
mod engine;
mod error;
mod expr;
mod fake;
mod faults;
mod global;
mod in_process;
mod index;
mod item;
mod json;
mod legacy;
mod limits;
mod log;
mod number;
mod operation;
mod ops;
mod partiql;
mod partition;
mod place;
mod policy;
mod request;
mod request_id;
mod server;
mod signature;
mod snapshot;
mod stale;
mod stream;
mod table;
mod time_control;
mod transfer;
mod ttl;
mod validate;
mod value;
mod warm;

#[cfg(feature = "mimalloc")]
pub use allocator::Allocator;
pub use clock::{ClockError, ControlledClock, FakeClock, Sleep, TokioClock};
pub use connector::FakeHttpClient;
pub use fake::{FakeDynamoDb, FakeDynamoDbBuilder};
pub use faults::{Fault, FaultRule};
pub use log::RequestRecord;
pub use server::{ControlAccess, ServeOptions, serve, serve_with};
pub use snapshot::{Snapshot, SnapshotError};
pub use stream::{ChangeKind, ItemChange};
pub use time_control::ClockReading;
pub use transfer::S3Config;
