//! Backups and point-in-time recovery, held per engine and per table.
//!
//! - [`Backups`]: the backups of an engine, by ARN; [`Backup`]: one, a copy of a table's
//!   definition and items at the time it was asked for, `CREATING` for the fake's backup creation
//!   time, then `AVAILABLE`.
//! - [`Recovery`] (`recovery`): a table's point-in-time recovery, its window and change log.
//! - [`RestoreSummary`] (`summary`): where a restored table came from.

mod recovery;
mod summary;

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde_json::{Map, json};

use crate::clock::epoch_timestamp;
use crate::faults::SplitMix;
use crate::json::Answer;
use crate::table::{PrimaryKey, Table};
use crate::value::Item;

pub(crate) use recovery::{DEFAULT_PERIOD_DAYS, Recovery, Undo};
pub(crate) use summary::RestoreSummary;

/// How long DynamoDB keeps the backup it makes of a table deleted with point-in-time recovery on.
pub(crate) const SYSTEM_BACKUP_RETENTION: Duration = Duration::from_secs(35 * 86_400);

/// Who made a backup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BackupKind {
    /// CreateBackup.
    User,
    /// DynamoDB, when a table with point-in-time recovery was deleted.
    System,
}

impl BackupKind {
    /// The name `BackupType` gives it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            BackupKind::User => "USER",
            BackupKind::System => "SYSTEM",
        }
    }

    /// The kind a `BackupType` names.
    pub(crate) fn parse(text: &str) -> Option<BackupKind> {
        match text {
            "USER" => Some(BackupKind::User),
            "SYSTEM" => Some(BackupKind::System),
            _ => None,
        }
    }
}

/// One backup: what the table was when it was asked for.
#[derive(Debug, Clone)]
pub(crate) struct Backup {
    pub(crate) arn: String,
    pub(crate) name: String,
    pub(crate) kind: BackupKind,
    /// When it was asked for: the time of the data it holds.
    pub(crate) created: SystemTime,
    /// Until when it is `CREATING`.
    pub(crate) available_at: SystemTime,
    /// When DynamoDB deletes it (a system backup's, 35 days after it was made).
    pub(crate) expires: Option<SystemTime>,
    /// DescribeBackup's `SourceTableDetails`.
    pub(crate) source: Answer,
    /// DescribeBackup's `SourceTableFeatureDetails`.
    pub(crate) features: Answer,
    /// CreateTable's input that makes the table again.
    pub(crate) definition: Map<String, Answer>,
    /// The items.
    pub(crate) items: BTreeMap<PrimaryKey, Item>,
}

impl Backup {
    /// A backup of `table` as it is at `now`, `CREATING` for `creation`.
    pub(crate) fn of_table(
        table: &Table,
        arn: String,
        name: &str,
        kind: BackupKind,
        now: SystemTime,
        creation: Duration,
    ) -> Backup {
        Backup {
            arn,
            name: name.to_owned(),
            kind,
            created: now,
            available_at: now + creation,
            expires: (kind == BackupKind::System).then(|| now + SYSTEM_BACKUP_RETENTION),
            source: source_details(table),
            features: feature_details(table),
            definition: crate::definition::create_input(table),
            items: table.items.clone(),
        }
    }

    /// The table the backup was made of.
    pub(crate) fn table_name(&self) -> &str {
        self.source["TableName"].as_str().unwrap_or_default()
    }

    /// The ARN of the table the backup was made of.
    pub(crate) fn table_arn(&self) -> &str {
        self.source["TableArn"].as_str().unwrap_or_default()
    }

    /// The size of the table's items when the backup was made, in bytes.
    pub(crate) fn size_bytes(&self) -> u64 {
        self.source["TableSizeBytes"].as_u64().unwrap_or(0)
    }

    /// Whether it is still being made at `now`.
    pub(crate) fn is_creating(&self, now: SystemTime) -> bool {
        now < self.available_at
    }

    /// `BackupDetails`, with the status it has at `now` (or `DELETED`).
    pub(crate) fn details(&self, now: SystemTime, deleted: bool) -> Answer {
        let status = match (deleted, self.is_creating(now)) {
            (true, _) => "DELETED",
            (false, true) => "CREATING",
            (false, false) => "AVAILABLE",
        };
        let mut out = json!({
            "BackupArn": self.arn,
            "BackupName": self.name,
            "BackupSizeBytes": self.size_bytes(),
            "BackupStatus": status,
            "BackupType": self.kind.name(),
            "BackupCreationDateTime": epoch_timestamp(self.created),
        });
        if let Some(expires) = self.expires {
            out["BackupExpiryDateTime"] = epoch_timestamp(expires);
        }
        out
    }

    /// DescribeBackup's `BackupDescription`.
    pub(crate) fn description(&self, now: SystemTime, deleted: bool) -> Answer {
        json!({
            "BackupDetails": self.details(now, deleted),
            "SourceTableDetails": self.source,
            "SourceTableFeatureDetails": self.features,
        })
    }

    /// ListBackups' `BackupSummary`.
    pub(crate) fn summary(&self, now: SystemTime) -> Answer {
        let mut out = json!({
            "TableName": self.table_name(),
            "TableId": self.source["TableId"],
            "TableArn": self.table_arn(),
        });
        if let (Some(out), Answer::Object(details)) = (out.as_object_mut(), self.details(now, false)) {
            out.extend(details);
        }
        out
    }
}

/// `SourceTableDetails` of a table.
fn source_details(table: &Table) -> Answer {
    let (read, write) = table.billing.units().unwrap_or((0, 0));
    let mut out = json!({
        "TableName": table.name,
        "TableId": table.table_id,
        "TableArn": table.arn(),
        "TableSizeBytes": table.bytes,
        "KeySchema": table.key.to_json(),
        "TableCreationDateTime": epoch_timestamp(table.created),
        "ProvisionedThroughput": {"ReadCapacityUnits": read, "WriteCapacityUnits": write},
        "ItemCount": table.items.len(),
        "BillingMode": if table.billing.units().is_some() { "PROVISIONED" } else { "PAY_PER_REQUEST" },
    });
    if let Some((read, write)) = table.on_demand_max {
        out["OnDemandThroughput"] =
            json!({"MaxReadRequestUnits": read.unwrap_or(-1), "MaxWriteRequestUnits": write.unwrap_or(-1)});
    }
    out
}

/// `SourceTableFeatureDetails` of a table: its indexes, stream, time to live and encryption.
fn feature_details(table: &Table) -> Answer {
    let description = table.describe("ACTIVE");
    let index = |index: &Answer, global: bool| {
        let mut out = json!({
            "IndexName": index["IndexName"],
            "KeySchema": index["KeySchema"],
            "Projection": index["Projection"],
        });
        if global {
            let units = &index["ProvisionedThroughput"];
            out["ProvisionedThroughput"] = json!({
                "ReadCapacityUnits": units["ReadCapacityUnits"],
                "WriteCapacityUnits": units["WriteCapacityUnits"],
            });
        }
        out
    };
    let mut out = Map::new();
    for (member, global) in [("LocalSecondaryIndexes", false), ("GlobalSecondaryIndexes", true)] {
        if let Some(indexes) = description[member].as_array() {
            out.insert(member.into(), indexes.iter().map(|i| index(i, global)).collect());
        }
    }
    if let Some(stream) = description.get("StreamSpecification") {
        out.insert("StreamDescription".into(), stream.clone());
    }
    let ttl = match (&table.ttl.attribute, table.ttl.enabled) {
        (Some(attribute), true) => json!({"TimeToLiveStatus": "ENABLED", "AttributeName": attribute}),
        _ => json!({"TimeToLiveStatus": "DISABLED"}),
    };
    out.insert("TimeToLiveDescription".into(), ttl);
    if let Some(sse) = description.get("SSEDescription") {
        out.insert("SSEDescription".into(), sse.clone());
    }
    Answer::Object(out)
}

/// The backups of an engine, by ARN.
#[derive(Debug, Default)]
pub(crate) struct Backups {
    by_arn: BTreeMap<String, Backup>,
    /// How many backups were made, for the random part of the next ARN.
    made: u64,
}

impl Backups {
    /// The ARN of a new backup of `table` made at `now`: the table's ARN, `/backup/`, the time in
    /// milliseconds and eight hexadecimal digits drawn from `seed`.
    pub(crate) fn next_arn(&mut self, table: &Table, now: SystemTime, seed: u64) -> String {
        self.made += 1;
        let suffix = SplitMix::new(seed ^ self.made.rotate_left(29) ^ 0xBAC0_0B5E).next_u64() as u32;
        let millis = now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        format!("{}/backup/{millis:014}-{suffix:08x}", table.arn())
    }

    /// Keeps a backup.
    pub(crate) fn insert(&mut self, backup: Backup) {
        self.by_arn.insert(backup.arn.clone(), backup);
    }

    /// The backup of this ARN, unless it expired by `now`.
    pub(crate) fn get(&self, arn: &str, now: SystemTime) -> Option<&Backup> {
        self.by_arn.get(arn).filter(|backup| backup.expires.is_none_or(|expires| now < expires))
    }

    /// Takes the backup of this ARN away.
    pub(crate) fn remove(&mut self, arn: &str) -> Option<Backup> {
        self.by_arn.remove(arn)
    }

    /// Every backup not expired by `now`, in the order they were made.
    pub(crate) fn listed(&self, now: SystemTime) -> Vec<&Backup> {
        let mut backups: Vec<&Backup> =
            self.by_arn.values().filter(|backup| backup.expires.is_none_or(|expires| now < expires)).collect();
        backups.sort_by(|a, b| (a.created, &a.arn).cmp(&(b.created, &b.arn)));
        backups
    }

    /// Whether there is no backup at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_arn.is_empty()
    }

    /// Every backup, expired or not, by ARN (for a snapshot).
    pub(crate) fn all(&self) -> impl Iterator<Item = &Backup> {
        self.by_arn.values()
    }

    /// Forgets every backup that expired by `now`.
    pub(crate) fn drop_expired(&mut self, now: SystemTime) {
        self.by_arn.retain(|_, backup| backup.expires.is_none_or(|expires| now < expires));
    }
}
