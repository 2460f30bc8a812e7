//! DynamoDB Streams: the change log of a table and what the four Streams operations read of it.
//!
//! - [`Changes`]: what a table does with each item it stores, replaces or removes. Every write
//!   path (PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems, TTL deletions)
//!   changes items through [`Table`](crate::table::Table)'s few mutating methods, and those hand
//!   each change here: a table without a stream or an observer has no `Changes` and pays one
//!   branch.
//! - [`Stream`]: one stream, its shards and its records, trimmed after 24 hours on the fake's
//!   clock; `shard`: one shard.
//! - `iterator`: shard iterators as text that carries its own position and issue time.
//! - `observer`: [`ItemChange`], the public view of a change for in-process observers.
//! - `arn`: stream ARNs and labels.

mod arn;
mod changes;
mod iterator;
mod observer;
mod shard;
mod streams;

use std::time::Duration;

pub(crate) use arn::{StreamArn, stream_label_after, table_in};
pub(crate) use changes::{Changes, Origin, Outgoing, Replicated, Version};
pub(crate) use iterator::ShardIterator;
pub use observer::{ChangeKind, ItemChange};
pub(crate) use observer::{Observer, from_sdk_key, to_sdk, to_sdk_item};
pub(crate) use shard::Shard;
pub(crate) use streams::{Stream, ViewType};

/// How long a stream keeps a record: 24 hours.
pub(crate) const RETENTION: Duration = Duration::from_secs(24 * 3600);

/// How long a shard iterator may be used after it was issued: 15 minutes.
pub(crate) const ITERATOR_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// How long a shard takes records before it is closed and a child shard takes over: DynamoDB
/// rolls its shards over every few hours; the fake does it every four.
pub(crate) const SHARD_LIFETIME: Duration = Duration::from_secs(4 * 3600);

/// The most records one GetRecords answers.
pub(crate) const MAX_RECORDS: usize = 1000;

/// The most bytes of records one GetRecords answers: 1 MB.
pub(crate) const MAX_RECORD_BYTES: usize = 1024 * 1024;
