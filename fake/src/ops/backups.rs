//! On-demand backups: CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
//! RestoreTableFromBackup.

use serde_json::json;

use crate::backup::{Backup, BackupKind, RestoreSummary};
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Json};
use crate::request::{string, time};

/// `TableNotFoundException`, naming the table as the request named it.
pub(crate) fn table_not_found(name: &str) -> DynamoError {
    DynamoError::custom(400, "TableNotFoundException", &format!("Table not found: {name}"))
}

/// `TableAlreadyExistsException` for the target of a restore.
pub(crate) fn table_already_exists(name: &str) -> DynamoError {
    DynamoError::custom(400, "TableAlreadyExistsException", &format!("Table already exists: {name}"))
}

/// `ContinuousBackupsUnavailableException`, for a table whose backups are not yet enabled (one
/// still being created).
pub(crate) fn backups_unavailable() -> DynamoError {
    DynamoError::custom(
        400,
        "ContinuousBackupsUnavailableException",
        "Backups have not yet been enabled for this table.",
    )
}

fn backup_not_found(arn: &str) -> DynamoError {
    DynamoError::custom(400, "BackupNotFoundException", &format!("Backup not found: {arn}"))
}

fn backup_in_use() -> DynamoError {
    DynamoError::custom(
        400,
        "BackupInUseException",
        "There is another ongoing conflicting backup control plane operation on the table. The backup is either being created, deleted or restored to a table.",
    )
}

/// CreateBackup: a copy of the table as it is now, CREATING for the fake's backup creation time.
pub(crate) fn create_backup(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let given = string(body, "TableName").unwrap_or_default();
    let name = string(body, "BackupName").unwrap_or_default();
    let now = engine.now;
    let table = engine.tables.get(engine.plain_name(given)).ok_or_else(|| table_not_found(given))?;
    if table.is_creating(now) {
        return Err(backups_unavailable());
    }
    let arn = engine.backups.next_arn(table, now, engine.seed);
    let backup = Backup::of_table(table, arn, name, BackupKind::User, now, engine.backup_creation);
    let details = backup.details(now, false);
    engine.backups.insert(backup);
    Ok(json!({ "BackupDetails": details }))
}

/// DescribeBackup.
pub(crate) fn describe_backup(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "BackupArn").unwrap_or_default();
    let backup = engine.backups.get(arn, engine.now).ok_or_else(|| backup_not_found(arn))?;
    Ok(json!({ "BackupDescription": backup.description(engine.now, false) }))
}

/// DeleteBackup: answers the backup as DELETED; a backup still being created is in use.
pub(crate) fn delete_backup(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "BackupArn").unwrap_or_default();
    let now = engine.now;
    let backup = engine.backups.get(arn, now).ok_or_else(|| backup_not_found(arn))?;
    if backup.is_creating(now) {
        return Err(backup_in_use());
    }
    let description = backup.description(now, true);
    engine.backups.remove(arn);
    Ok(json!({ "BackupDescription": description }))
}

/// ListBackups: the backups of one table or all, of one type (`USER` unless asked), created in a
/// time range (its lower bound included, its upper bound not), in the order they were made,
/// `Limit` a page, each page after `ExclusiveStartBackupArn`.
pub(crate) fn list_backups(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let now = engine.now;
    engine.backups.drop_expired(now);
    let table = string(body, "TableName").map(|given| engine.plain_name(given).to_owned());
    let kind = string(body, "BackupType").unwrap_or("USER");
    let (lower, upper) = (time(body, "TimeRangeLowerBound"), time(body, "TimeRangeUpperBound"));
    let limit = body.get("Limit").and_then(crate::validate::as_integer).map(|l| l.clamp(1, 100) as usize);
    let start = string(body, "ExclusiveStartBackupArn");
    let listed = engine.backups.listed(now);
    let after = start.map(|start| match listed.iter().position(|backup| backup.arn == start) {
        Some(at) => at + 1,
        // A backup deleted since: the page starts with the first one made after it, by the time
        // its ARN holds.
        None => {
            let made = made_at(start);
            listed.iter().take_while(|backup| (millis(backup.created), backup.arn.as_str()) <= (made, start)).count()
        }
    });
    let matching: Vec<&Backup> = listed
        .into_iter()
        .skip(after.unwrap_or(0))
        .filter(|backup| table.as_deref().is_none_or(|table| backup.table_name() == table))
        .filter(|backup| kind == "ALL" || BackupKind::parse(kind) == Some(backup.kind))
        .filter(|backup| lower.is_none_or(|lower| backup.created >= lower))
        .filter(|backup| upper.is_none_or(|upper| backup.created < upper))
        .collect();
    let page = limit.map_or(matching.len(), |limit| limit.min(matching.len()));
    let summaries: Vec<Answer> = matching[..page].iter().map(|backup| backup.summary(now)).collect();
    let mut out = json!({ "BackupSummaries": summaries });
    if page < matching.len()
        && let Some(last) = matching[..page].last()
    {
        out["LastEvaluatedBackupArn"] = json!(last.arn);
    }
    Ok(out)
}

/// RestoreTableFromBackup: a new table with the backup's definition (and the request's
/// overrides) and items.
pub(crate) fn restore_table_from_backup(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "BackupArn").unwrap_or_default();
    let target = string(body, "TargetTableName").unwrap_or_default();
    let now = engine.now;
    let backup = engine.backups.get(arn, now).ok_or_else(|| backup_not_found(arn))?;
    if backup.is_creating(now) {
        return Err(backup_in_use());
    }
    if engine.tables.contains_key(target) {
        return Err(table_already_exists(target));
    }
    let (definition, items) = (backup.definition.clone(), backup.items.clone());
    let summary = RestoreSummary {
        source_backup: Some(backup.arn.clone()),
        source_table: backup.table_arn().to_owned(),
        at: backup.created,
    };
    let description = super::restore::restore(engine, target, &definition, body, items, summary)?;
    Ok(json!({ "TableDescription": description }))
}

/// The time in milliseconds a backup's ARN holds (`.../backup/01700000000000-1a2b3c4d`); 0 if none.
fn made_at(arn: &str) -> u128 {
    let Some((_, id)) = arn.rsplit_once("/backup/") else { return 0 };
    id.split('-').next().and_then(|millis| millis.parse().ok()).unwrap_or(0)
}

fn millis(time: std::time::SystemTime) -> u128 {
    time.duration_since(std::time::SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0)
}
