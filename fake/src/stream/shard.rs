//! One shard of a stream: a run of records in sequence-number order, open until the stream rolls
//! it over or is disabled, readable until its records are trimmed.

use std::collections::VecDeque;
use std::time::SystemTime;

use serde_json::json;

use super::ChangeKind;
use crate::json::Answer;
use crate::value::Item;

/// One stream record, as a shard keeps it: the images its stream's view type keeps, nothing more.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) sequence: u128,
    pub(crate) at: SystemTime,
    pub(crate) kind: ChangeKind,
    pub(crate) keys: Item,
    pub(crate) new: Option<Item>,
    pub(crate) old: Option<Item>,
    /// `SizeBytes`: the keys and the images the record carries, counted as items are.
    pub(crate) size: usize,
    /// Deleted by time to live (the record names DynamoDB's service as its user).
    pub(crate) by_ttl: bool,
    pub(crate) event_id: u128,
}

/// A shard and its records.
#[derive(Debug, Clone)]
pub(crate) struct Shard {
    /// Its place among the shards of its stream, counted from 0: what an iterator names it by.
    pub(crate) ordinal: u32,
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
    pub(crate) opened: SystemTime,
    /// `StartingSequenceNumber`: the sequence number its first record has (or would have).
    pub(crate) start: u128,
    /// `EndingSequenceNumber`, once the shard is closed.
    pub(crate) end: Option<u128>,
    pub(crate) closed: Option<SystemTime>,
    pub(crate) records: VecDeque<Record>,
    /// The sequence number of the latest record trimmed, if any was.
    pub(crate) last_trimmed: Option<u128>,
}

impl Shard {
    /// An open shard whose records start at `start`.
    pub(crate) fn open(ordinal: u32, id: String, parent: Option<String>, opened: SystemTime, start: u128) -> Shard {
        Shard {
            ordinal,
            id,
            parent,
            opened,
            start,
            end: None,
            closed: None,
            records: VecDeque::new(),
            last_trimmed: None,
        }
    }

    /// Closes the shard at `now`; returns its ending sequence number.
    pub(crate) fn close(&mut self, now: SystemTime) -> u128 {
        let end = self.records.back().map_or(self.start, |record| record.sequence);
        self.end = Some(end);
        self.closed = Some(now);
        end
    }

    /// The oldest position that is still readable: the first record kept, or where the next
    /// record will go.
    pub(crate) fn horizon(&self) -> u128 {
        match (self.records.front(), self.last_trimmed) {
            (Some(first), _) => first.sequence,
            (None, Some(trimmed)) => (trimmed + 1).max(self.start),
            (None, None) => self.start,
        }
    }

    /// The position just past the latest record: where a LATEST iterator starts.
    pub(crate) fn latest(&self) -> u128 {
        match self.records.back() {
            Some(last) => last.sequence + 1,
            None => self.horizon(),
        }
    }

    /// Whether a read from `position` would miss a record that was trimmed.
    pub(crate) fn is_trimmed_at(&self, position: u128) -> bool {
        self.last_trimmed.is_some_and(|trimmed| position <= trimmed)
    }

    /// The records from `position` on, at most `limit` of them and about `max_bytes` in all
    /// (always at least one, if there is one).
    pub(crate) fn read(&self, position: u128, limit: usize, max_bytes: usize) -> impl Iterator<Item = &Record> {
        let first = self.records.partition_point(|record| record.sequence < position);
        let mut bytes = 0;
        self.records.range(first..).take(limit).take_while(move |record| {
            let fits = bytes == 0 || bytes + record.size <= max_bytes;
            bytes += record.size;
            fits
        })
    }

    /// Whether the shard is closed and a reader at `position` has read every record it has.
    pub(crate) fn is_read_to_end(&self, position: u128) -> bool {
        self.end.is_some() && self.records.back().is_none_or(|last| position > last.sequence)
    }

    /// Drops the records written at or before `cutoff`.
    pub(crate) fn trim(&mut self, cutoff: SystemTime) {
        while let Some(first) = self.records.front().filter(|record| record.at <= cutoff) {
            self.last_trimmed = Some(first.sequence);
            self.records.pop_front();
        }
    }

    /// DescribeStream's view of the shard.
    pub(crate) fn describe(&self) -> Answer {
        let mut range = json!({ "StartingSequenceNumber": self.start.to_string() });
        if let Some(end) = self.end {
            range["EndingSequenceNumber"] = json!(end.to_string());
        }
        let mut shard = json!({ "ShardId": self.id, "SequenceNumberRange": range });
        if let Some(parent) = &self.parent {
            shard["ParentShardId"] = json!(parent);
        }
        shard
    }

    /// The record's `Record` member of a GetRecords answer.
    pub(crate) fn record_json(record: &Record, view: &str, region: &str) -> Answer {
        let mut dynamodb = json!({
            "ApproximateCreationDateTime": crate::clock::epoch_secs(record.at),
            "Keys": crate::value::item_to_json(&record.keys),
            "SequenceNumber": record.sequence.to_string(),
            "SizeBytes": record.size,
            "StreamViewType": view,
        });
        if let Some(new) = &record.new {
            dynamodb["NewImage"] = crate::value::item_to_json(new);
        }
        if let Some(old) = &record.old {
            dynamodb["OldImage"] = crate::value::item_to_json(old);
        }
        let mut out = json!({
            "eventID": format!("{:032x}", record.event_id),
            "eventName": record.kind.name(),
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": region,
            "dynamodb": dynamodb,
        });
        if record.by_ttl {
            out["userIdentity"] = json!({ "PrincipalId": "dynamodb.amazonaws.com", "Type": "Service" });
        }
        out
    }
}
