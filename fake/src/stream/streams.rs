//! One stream of a table: its view type, its status, its shards.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

use serde_json::json;

use super::shard::{Record, Shard};
use super::{ChangeKind, RETENTION, SHARD_LIFETIME};
use crate::faults::SplitMix;
use crate::json::Answer;
use crate::table::KeySchema;
use crate::value::{Item, item_size};

/// What a stream's records carry of the item: `StreamViewType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewType {
    KeysOnly,
    NewImage,
    OldImage,
    NewAndOldImages,
}

impl ViewType {
    /// The view type of this name, as DynamoDB spells it.
    pub(crate) fn parse(text: &str) -> Option<ViewType> {
        Some(match text {
            "KEYS_ONLY" => ViewType::KeysOnly,
            "NEW_IMAGE" => ViewType::NewImage,
            "OLD_IMAGE" => ViewType::OldImage,
            "NEW_AND_OLD_IMAGES" => ViewType::NewAndOldImages,
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            ViewType::KeysOnly => "KEYS_ONLY",
            ViewType::NewImage => "NEW_IMAGE",
            ViewType::OldImage => "OLD_IMAGE",
            ViewType::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    fn keeps_new(self) -> bool {
        matches!(self, ViewType::NewImage | ViewType::NewAndOldImages)
    }

    fn keeps_old(self) -> bool {
        matches!(self, ViewType::OldImage | ViewType::NewAndOldImages)
    }
}

/// `StreamStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamStatus {
    Enabling,
    Enabled,
    Disabling,
    Disabled,
}

impl StreamStatus {
    pub(crate) fn name(self) -> &'static str {
        match self {
            StreamStatus::Enabling => "ENABLING",
            StreamStatus::Enabled => "ENABLED",
            StreamStatus::Disabling => "DISABLING",
            StreamStatus::Disabled => "DISABLED",
        }
    }
}

/// A stream: created with its table or by UpdateTable, disabled by UpdateTable or DeleteTable,
/// gone 24 hours after it was disabled.
#[derive(Debug, Clone)]
pub(crate) struct Stream {
    pub(crate) arn: String,
    pub(crate) label: String,
    pub(crate) table: String,
    pub(crate) region: String,
    pub(crate) created: SystemTime,
    pub(crate) view: ViewType,
    /// The table's key: what `Keys` carries, and DescribeStream's `KeySchema`.
    key: KeySchema,
    /// How long the stream is ENABLING after it was created, or DISABLING after it was disabled.
    transition: Duration,
    pub(crate) disabled: Option<SystemTime>,
    /// The shards still readable, oldest first; the last is open while the stream is enabled.
    shards: VecDeque<Shard>,
    next_sequence: u128,
    next_ordinal: u32,
    /// The source of event ids and of the random part of shard ids, seeded by the fake's seed
    /// and the stream's ARN.
    ids: SplitMix,
}

/// The first sequence number of a stream: DynamoDB's are decimal text of 21 to 40 digits.
const FIRST_SEQUENCE: u128 = 100_000_000_000_000_000_000;

impl Stream {
    /// A new stream, enabled at `created`, of the table `table` (whose ARN is `table_arn`).
    pub(crate) fn new(
        table: &crate::table::Table,
        view: ViewType,
        created: SystemTime,
        transition: Duration,
        seed: u64,
    ) -> Stream {
        let label = crate::clock::stream_label(created);
        let arn = format!("{}/stream/{label}", table.arn());
        let ids = SplitMix::new(seed ^ u64::from(crc32fast::hash(arn.as_bytes())).rotate_left(29));
        let mut stream = Stream {
            arn,
            label,
            table: table.name.clone(),
            region: table.region.clone(),
            created,
            view,
            key: KeySchema::simple(table.key.hash.clone(), table.key.range.clone()),
            transition,
            disabled: None,
            shards: VecDeque::new(),
            next_sequence: FIRST_SEQUENCE,
            next_ordinal: 0,
            ids,
        };
        stream.open_shard(created, None);
        stream
    }

    fn open_shard(&mut self, now: SystemTime, parent: Option<String>) {
        let millis = now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        let id = format!("shardId-{millis:020}-{:08x}", self.ids.next_u64() as u32);
        self.shards.push_back(Shard::open(self.next_ordinal, id, parent, now, self.next_sequence));
        self.next_ordinal += 1;
    }

    /// The stream's status at `now`.
    pub(crate) fn status(&self, now: SystemTime) -> StreamStatus {
        match self.disabled {
            Some(at) if now < at + self.transition => StreamStatus::Disabling,
            Some(_) => StreamStatus::Disabled,
            None if now < self.created + self.transition => StreamStatus::Enabling,
            None => StreamStatus::Enabled,
        }
    }

    /// Whether the stream is gone at `now`: 24 hours after it was disabled.
    pub(crate) fn is_gone(&self, now: SystemTime) -> bool {
        self.disabled.is_some_and(|at| now >= at + RETENTION)
    }

    /// Disables the stream at `now`, DISABLING for `transition`: its open shard closes; what it
    /// holds stays readable.
    pub(crate) fn disable(&mut self, now: SystemTime, transition: Duration) {
        self.transition = transition;
        self.maintain(now);
        if let Some(open) = self.shards.back_mut().filter(|shard| shard.end.is_none()) {
            let end = open.close(now);
            self.next_sequence = self.next_sequence.max(end + 1);
        }
        self.disabled = Some(now);
    }

    /// Brings the stream up to `now`: records older than 24 hours are trimmed, shards left empty
    /// and closed are forgotten, and an open shard that has taken records for its whole lifetime
    /// is closed and followed by a child.
    pub(crate) fn maintain(&mut self, now: SystemTime) {
        if let Some(cutoff) = now.checked_sub(RETENTION) {
            for shard in &mut self.shards {
                shard.trim(cutoff);
            }
            let gone = |shard: &Shard| {
                shard.records.is_empty()
                    && shard.closed.is_some_and(|closed| closed <= cutoff || shard.last_trimmed.is_some())
            };
            while self.shards.front().is_some_and(gone) {
                self.shards.pop_front();
            }
        }
        if self.disabled.is_some() {
            return;
        }
        let due = self.shards.back().filter(|open| !open.records.is_empty() && now >= open.opened + SHARD_LIFETIME);
        if let Some(parent) = due.map(|open| open.id.clone()) {
            if let Some(open) = self.shards.back_mut() {
                let end = open.close(now);
                self.next_sequence = self.next_sequence.max(end + 1);
            }
            self.open_shard(now, Some(parent));
        }
    }

    /// Appends the record of a change to the open shard. `old` and `new` are the item before and
    /// after; at least one is there.
    pub(crate) fn push(
        &mut self,
        kind: ChangeKind,
        keys: Item,
        old: Option<&Item>,
        new: Option<&Item>,
        now: SystemTime,
        by_ttl: bool,
    ) {
        self.maintain(now);
        let new = new.filter(|_| self.view.keeps_new()).cloned();
        let old = old.filter(|_| self.view.keeps_old()).cloned();
        let size = item_size(&keys) + new.as_ref().map_or(0, item_size) + old.as_ref().map_or(0, item_size);
        let event_id = (u128::from(self.ids.next_u64()) << 64) | u128::from(self.ids.next_u64());
        let sequence = self.next_sequence;
        let Some(open) = self.shards.back_mut().filter(|shard| shard.end.is_none()) else { return };
        open.records.push_back(Record { sequence, at: now, kind, keys, new, old, size, by_ttl, event_id });
        self.next_sequence += 1;
    }

    /// The shards still readable, oldest first.
    pub(crate) fn shards(&self) -> impl Iterator<Item = &Shard> {
        self.shards.iter()
    }

    /// The shard whose id is `id`.
    pub(crate) fn shard(&self, id: &str) -> Option<&Shard> {
        self.shards.iter().find(|shard| shard.id == id)
    }

    /// The shard an iterator names by its ordinal.
    pub(crate) fn shard_at(&self, ordinal: u32) -> Option<&Shard> {
        self.shards.iter().find(|shard| shard.ordinal == ordinal)
    }

    /// ListStreams' view of the stream.
    pub(crate) fn summary(&self) -> Answer {
        json!({ "StreamArn": self.arn, "TableName": self.table, "StreamLabel": self.label })
    }

    /// DescribeStream's `StreamDescription`, with `shards` (one page of them).
    pub(crate) fn describe<'s>(
        &'s self,
        now: SystemTime,
        shards: impl Iterator<Item = &'s Shard>,
        last_evaluated: Option<&str>,
    ) -> Answer {
        let mut description = json!({
            "StreamArn": self.arn,
            "StreamLabel": self.label,
            "StreamStatus": self.status(now).name(),
            "StreamViewType": self.view.name(),
            "CreationRequestDateTime": crate::clock::epoch_timestamp(self.created),
            "TableName": self.table,
            "KeySchema": self.key.to_json(),
            "Shards": shards.map(Shard::describe).collect::<Vec<_>>(),
        });
        if let Some(last) = last_evaluated {
            description["LastEvaluatedShardId"] = json!(last);
        }
        description
    }
}
