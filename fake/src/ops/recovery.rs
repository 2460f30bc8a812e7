//! Point-in-time recovery: DescribeContinuousBackups, UpdateContinuousBackups and
//! RestoreTableToPointInTime, on the fake's clock.

use std::time::{Duration, SystemTime};

use serde_json::json;

use super::backups::{backups_unavailable, table_already_exists, table_not_found};
use crate::backup::{DEFAULT_PERIOD_DAYS, Recovery, RestoreSummary};
use crate::clock::epoch_timestamp;
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Json};
use crate::request::{flag, string, time};
use crate::table::Table;

/// `PointInTimeRecoveryUnavailableException` for a table without point-in-time recovery.
pub(crate) fn recovery_unavailable(table: &str) -> DynamoError {
    DynamoError::custom(
        400,
        "PointInTimeRecoveryUnavailableException",
        &format!("Point in time recovery is not enabled for table '{table}'"),
    )
}

fn invalid_restore_time() -> DynamoError {
    DynamoError::custom(
        400,
        "InvalidRestoreTimeException",
        "An invalid restore time was specified. RestoreDateTime must be between EarliestRestorableDateTime and LatestRestorableDateTime.",
    )
}

/// `ContinuousBackupsDescription` of a table at `now`.
fn description(table: &Table, now: SystemTime) -> Answer {
    let recovery = match table.recovery() {
        Some(recovery) => json!({
            "PointInTimeRecoveryStatus": "ENABLED",
            "RecoveryPeriodInDays": recovery.period_days,
            "EarliestRestorableDateTime": epoch_timestamp(recovery.earliest(now)),
            "LatestRestorableDateTime": epoch_timestamp(recovery.latest(now)),
        }),
        None => json!({"PointInTimeRecoveryStatus": "DISABLED"}),
    };
    json!({ "ContinuousBackupsDescription": {
        "ContinuousBackupsStatus": "ENABLED",
        "PointInTimeRecoveryDescription": recovery,
    }})
}

/// DescribeContinuousBackups.
pub(crate) fn describe_continuous_backups(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let given = string(body, "TableName").unwrap_or_default();
    let table = engine.tables.get(engine.plain_name(given)).ok_or_else(|| table_not_found(given))?;
    Ok(description(table, engine.now))
}

/// UpdateContinuousBackups: enables point-in-time recovery from now (a table that has it keeps
/// its log and takes the new period), or disables it and forgets the log.
pub(crate) fn update_continuous_backups(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let given = string(body, "TableName").unwrap_or_default();
    let now = engine.now;
    let table = {
        let name = engine.plain_name(given);
        engine.tables.get_mut(name)
    }
    .ok_or_else(|| table_not_found(given))?;
    if table.is_creating(now) {
        return Err(backups_unavailable());
    }
    let spec = body.get("PointInTimeRecoverySpecification").cloned().unwrap_or_default();
    let enabled = flag(&spec, "PointInTimeRecoveryEnabled");
    let period =
        spec.get("RecoveryPeriodInDays").and_then(crate::validate::as_integer).map(|days| days.clamp(1, 35) as u32);
    match (enabled, table.recovery_mut()) {
        (true, Some(recovery)) => {
            if let Some(period) = period {
                recovery.set_period(period);
            }
        }
        (true, None) => table.set_recovery(Some(Recovery::new(now, period.unwrap_or(DEFAULT_PERIOD_DAYS)))),
        (false, _) => table.set_recovery(None),
    }
    Ok(description(table, now))
}

/// RestoreTableToPointInTime: a new table with the source's current definition (and the
/// request's overrides) and its items as they were at the second asked for, or at the latest
/// restorable time.
pub(crate) fn restore_table_to_point_in_time(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let source = match (string(body, "SourceTableArn"), string(body, "SourceTableName")) {
        (Some(_), Some(_)) => {
            return Err(DynamoError::validation("Only one of SourceTableArn and SourceTableName may be specified"));
        }
        (None, None) => {
            return Err(DynamoError::validation("Either SourceTableArn or SourceTableName must be specified"));
        }
        (Some(given), None) | (None, Some(given)) => given,
    };
    let use_latest = flag(body, "UseLatestRestorableTime");
    let asked = time(body, "RestoreDateTime");
    if use_latest && asked.is_some() {
        return Err(DynamoError::validation("RestoreDateTime cannot be specified with UseLatestRestorableTime"));
    }
    if !use_latest && asked.is_none() {
        return Err(DynamoError::validation("Either RestoreDateTime or UseLatestRestorableTime must be specified"));
    }
    let target = string(body, "TargetTableName").unwrap_or_default();
    let now = engine.now;
    let table = engine.tables.get(engine.plain_name(source)).ok_or_else(|| table_not_found(source))?;
    if engine.tables.contains_key(target) {
        return Err(table_already_exists(target));
    }
    let recovery = table.recovery().ok_or_else(|| recovery_unavailable(&table.name))?;
    let (earliest, latest) = (recovery.earliest(now), recovery.latest(now));
    // DynamoDB restores to the second (day:hour:minute:second).
    let at = whole_second(asked.unwrap_or(latest));
    let at = if use_latest { at.max(earliest) } else { at };
    if asked.is_some_and(|asked| asked < earliest || asked > latest) {
        return Err(invalid_restore_time());
    }
    let items = recovery.items_at(&table.items, at);
    let definition = crate::definition::create_input(table);
    let summary = RestoreSummary { source_backup: None, source_table: table.arn(), at };
    let description = super::restore::restore(engine, target, &definition, body, items, summary)?;
    Ok(json!({ "TableDescription": description }))
}

/// `time` without its fraction of a second.
fn whole_second(time: SystemTime) -> SystemTime {
    let secs = time.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
}
