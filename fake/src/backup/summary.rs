//! Where a restored table came from, as DescribeTable's `RestoreSummary` says.

use std::time::SystemTime;

use serde_json::json;

use crate::clock::epoch_timestamp;
use crate::json::Answer;

/// Where a restored table came from, as DescribeTable's `RestoreSummary` says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RestoreSummary {
    /// The backup restored, if it was one.
    pub(crate) source_backup: Option<String>,
    /// The ARN of the table restored.
    pub(crate) source_table: String,
    /// The time the data is of.
    pub(crate) at: SystemTime,
}

impl RestoreSummary {
    /// `RestoreSummary`, while the restore is in progress or after.
    pub(crate) fn describe(&self, in_progress: bool) -> Answer {
        let mut out = json!({
            "SourceTableArn": self.source_table,
            "RestoreDateTime": epoch_timestamp(self.at),
            "RestoreInProgress": in_progress,
        });
        if let Some(backup) = &self.source_backup {
            out["SourceBackupArn"] = json!(backup);
        }
        out
    }
}
