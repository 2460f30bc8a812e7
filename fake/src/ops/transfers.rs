//! Exports to S3 and imports from it: ExportTableToPointInTime, DescribeExport, ListExports,
//! ImportTable, DescribeImport and ListImports. Each request is checked and answered here, and
//! leaves its work on S3 to the engine's transfers, which `FakeDynamoDb` starts once it lets the
//! engine go.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde_json::json;

use super::backups::table_not_found;
use super::recovery::recovery_unavailable;
use crate::engine::Engine;
use crate::error::DynamoError;
use crate::json::{Answer, Json};
use crate::operation::Operation;
use crate::request::{string, time};
use crate::table::{KeySchema, PrimaryKey};
use crate::transfer::{
    Export, ExportData, ExportJob, ExportKind, ExportRequest, Import, ImportFormat, ImportJob, ImportRequest, Job,
    page_start, page_token,
};
use crate::value::Item;

/// The shortest and the longest period of an incremental export.
const INCREMENTAL_PERIOD_MIN: Duration = Duration::from_secs(15 * 60);
const INCREMENTAL_PERIOD_MAX: Duration = Duration::from_secs(24 * 3600);

/// Until when an imported table is CREATING while its import reads S3: until the import ends.
const UNTIL_THE_IMPORT_ENDS: Duration = Duration::from_secs(100 * 365 * 86_400);

/// The refusal of an export or import by a fake with no S3 to write to or read from.
fn no_s3(what: &str) -> DynamoError {
    DynamoError::validation(format!(
        "dynalease-fake has no S3 endpoint to {what}: start it with dynalease-fake serve --s3-endpoint URL \
         (or build it with FakeDynamoDbBuilder::s3_endpoint)"
    ))
}

fn invalid_export_time() -> DynamoError {
    DynamoError::custom(
        400,
        "InvalidExportTimeException",
        "The specified ExportTime is outside of the point in time recovery window.",
    )
}

/// ExportTableToPointInTime: the table's items at the export time (or the changes of an
/// incremental export's period), read from the point-in-time recovery log, to be written to S3.
pub(crate) fn export_table_to_point_in_time(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "TableArn").unwrap_or_default();
    let now = engine.now;
    let table = engine
        .tables
        .get(engine.plain_name(arn))
        .filter(|table| !table.is_creating(now))
        .ok_or_else(|| table_not_found(arn))?;
    let recovery = table.recovery().ok_or_else(|| recovery_unavailable(&table.name))?;
    if string(body, "ExportFormat") == Some("ION") {
        return Err(DynamoError::validation(
            "dynalease-fake exports DynamoDB JSON only: ExportFormat ION is not supported; ask for DYNAMODB_JSON",
        ));
    }
    let (earliest, latest) = (recovery.earliest(now), recovery.latest(now));
    let incremental = string(body, "ExportType") == Some("INCREMENTAL_EXPORT");
    let spec = body.get("IncrementalExportSpecification").filter(|spec| !spec.is_null());
    let kind = match (incremental, spec) {
        (false, _) => ExportKind::Full,
        (true, None) => {
            return Err(DynamoError::validation(
                "IncrementalExportSpecification must be specified with ExportType INCREMENTAL_EXPORT",
            ));
        }
        (true, Some(spec)) => {
            if body.get("ExportTime").is_some_and(|t| !t.is_null()) {
                return Err(DynamoError::validation(
                    "ExportTime cannot be specified with ExportType INCREMENTAL_EXPORT",
                ));
            }
            let from = time(spec, "ExportFromTime")
                .ok_or_else(|| DynamoError::validation("ExportFromTime must be specified for an incremental export"))?;
            let to = time(spec, "ExportToTime").unwrap_or(latest);
            if from < earliest || to > latest || from >= to {
                return Err(invalid_export_time());
            }
            let period = to.duration_since(from).unwrap_or_default();
            if !(INCREMENTAL_PERIOD_MIN..=INCREMENTAL_PERIOD_MAX).contains(&period) {
                return Err(DynamoError::validation(
                    "The period of an incremental export, from ExportFromTime to ExportToTime, must be at least 15 minutes and at most 24 hours",
                ));
            }
            let view = string(spec, "ExportViewType").unwrap_or("NEW_AND_OLD_IMAGES").to_owned();
            ExportKind::Incremental { from, to, view }
        }
    };
    let export_time = match (&kind, time(body, "ExportTime")) {
        (ExportKind::Incremental { to, .. }, _) => *to,
        (ExportKind::Full, Some(at)) if at < earliest || at > latest => return Err(invalid_export_time()),
        (ExportKind::Full, Some(at)) => at,
        (ExportKind::Full, None) => now,
    };
    let token = string(body, "ClientToken");
    if let Some(token) = token {
        match engine.transfers.token(false, token, body.digest(), now) {
            Ok(Some(arn)) => {
                let export = engine.transfers.exports.get(arn).ok_or_else(DynamoError::internal_server_error)?;
                return Ok(json!({ "ExportDescription": export.description(now) }));
            }
            Ok(None) => {}
            Err(()) => {
                return Err(DynamoError::custom(
                    400,
                    "ExportConflictException",
                    "There was a conflict when writing to the specified S3 bucket.",
                ));
            }
        }
    }
    if !engine.transfers.s3_configured {
        return Err(no_s3("export to"));
    }
    let data = match &kind {
        ExportKind::Full => ExportData::full(recovery.items_at(&table.items, export_time).values()),
        ExportKind::Incremental { from, to, view } => {
            let changed = changed_keys(&table.key, recovery.log().map(|undo| (undo.at, &undo.key)), *from, *to);
            let old = recovery.items_before(&table.items, *from);
            let new = recovery.items_before(&table.items, *to);
            ExportData::incremental(&changed, &old, &new, view == "NEW_AND_OLD_IMAGES")
        }
    };
    let (table_arn, table_id) = (table.arn(), table.table_id.clone());
    let request = ExportRequest {
        client_token: token.map(str::to_owned),
        bucket: string(body, "S3Bucket").unwrap_or_default().to_owned(),
        owner: string(body, "S3BucketOwner").map(str::to_owned),
        prefix: string(body, "S3Prefix").map(str::to_owned),
        sse_algorithm: string(body, "S3SseAlgorithm").map(str::to_owned),
        sse_key: string(body, "S3SseKmsKeyId").map(str::to_owned),
    };
    let export_arn = engine.transfers.next_arn(&table_arn, "export", now, engine.seed);
    let export = Export {
        arn: export_arn.clone(),
        table_arn,
        table_id,
        export_time,
        request,
        kind,
        item_count: data.item_count,
        billed_bytes: data.billed_bytes,
        progress: engine.transfers.progress(now),
    };
    let objects = crate::transfer::export_objects(&export, &data, engine.seed);
    let description = export.description(now);
    if let Some(token) = token {
        engine.transfers.remember_token(false, token, body.digest(), &export_arn, now);
    }
    engine.transfers.pending.push(Job::Export(Box::new(ExportJob { export: export.clone(), objects })));
    engine.transfers.exports.insert(export_arn, export);
    Ok(json!({ "ExportDescription": description }))
}

/// The keys of the items changed from `from` (included) to `to` (not), with the time of the
/// last change of each and its key attributes.
fn changed_keys<'k>(
    schema: &KeySchema,
    log: impl Iterator<Item = (SystemTime, &'k PrimaryKey)>,
    from: SystemTime,
    to: SystemTime,
) -> BTreeMap<PrimaryKey, (SystemTime, Item)> {
    let mut changed = BTreeMap::new();
    for (at, key) in log.filter(|(at, _)| *at >= from && *at < to) {
        changed.insert(key.clone(), (at, schema.attributes_of(key)));
    }
    changed
}

/// DescribeExport.
pub(crate) fn describe_export(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "ExportArn").unwrap_or_default();
    let export =
        engine.transfers.exports.get(arn).ok_or_else(|| {
            DynamoError::custom(400, "ExportNotFoundException", "The specified export was not found.")
        })?;
    Ok(json!({ "ExportDescription": export.description(engine.now) }))
}

/// ListExports: the exports of one table or all, in the order they started, `MaxResults` a page.
pub(crate) fn list_exports(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let now = engine.now;
    let table = string(body, "TableArn");
    let mut exports: Vec<&Export> =
        engine.transfers.exports.values().filter(|export| table.is_none_or(|arn| export.table_arn == arn)).collect();
    exports.sort_by(|a, b| (a.progress.start, &a.arn).cmp(&(b.progress.start, &b.arn)));
    let limit = body.get("MaxResults").and_then(crate::validate::as_integer).unwrap_or(25).clamp(1, 25) as usize;
    let (page, next) = page(&exports, |export| &export.arn, string(body, "NextToken"), limit)?;
    let mut out = json!({ "ExportSummaries": page.iter().map(|export| export.summary(now)).collect::<Vec<_>>() });
    if let Some(next) = next {
        out["NextToken"] = json!(next);
    }
    Ok(out)
}

/// The page of `all` after the token's ARN, and the token of the next page if there is more.
fn page<'a, T>(
    all: &'a [&'a T],
    arn: impl Fn(&T) -> &str,
    token: Option<&str>,
    limit: usize,
) -> Result<(&'a [&'a T], Option<String>), DynamoError> {
    let start = match token {
        None => 0,
        Some(token) => {
            let after = page_start(token).ok_or_else(|| DynamoError::validation("Invalid NextToken"))?;
            all.iter().position(|item| arn(item) == after).map_or(all.len(), |at| at + 1)
        }
    };
    let page = &all[start.min(all.len())..];
    let page = &page[..limit.min(page.len())];
    let more = start + page.len() < all.len();
    Ok((page, more.then(|| page.last().map(|last| page_token(arn(last)))).flatten()))
}

/// ImportTable: a new table, CREATING while its items are read from S3.
pub(crate) fn import_table(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let now = engine.now;
    let parameters = body.get("TableCreationParameters").map(Json::to_value).unwrap_or_default();
    let definition = parameters.to_string();
    let name = parameters["TableName"].as_str().unwrap_or_default().to_owned();
    crate::json::with_arena(|arena| {
        let json = crate::json::from_slice(definition.as_bytes(), arena).unwrap_or_default();
        crate::validate::check(Operation::CreateTable, &json)
    })?;
    let input_format = string(body, "InputFormat").unwrap_or_default();
    let compression = string(body, "InputCompressionType").unwrap_or("NONE");
    if input_format == "ION" {
        return Err(DynamoError::validation(
            "dynalease-fake imports DynamoDB JSON and CSV only: InputFormat ION is not supported",
        ));
    }
    if compression == "ZSTD" {
        return Err(DynamoError::validation(
            "dynalease-fake reads files uncompressed or with GZIP: InputCompressionType ZSTD is not supported",
        ));
    }
    let token = string(body, "ClientToken");
    if let Some(token) = token {
        match engine.transfers.token(true, token, body.digest(), now) {
            Ok(Some(arn)) => {
                let import = engine.transfers.imports.get(arn).ok_or_else(DynamoError::internal_server_error)?;
                return Ok(json!({ "ImportTableDescription": import.description(now) }));
            }
            Ok(None) => {}
            Err(()) => return Err(DynamoError::idempotent_parameter_mismatch()),
        }
    }
    if engine.tables.contains_key(&name) {
        return Err(DynamoError::resource_in_use(format!("Table already exists: {name}")));
    }
    if !engine.transfers.s3_configured {
        return Err(no_s3("import from"));
    }
    crate::json::with_arena(|arena| {
        let json = crate::json::from_slice(definition.as_bytes(), arena).unwrap_or_default();
        super::control::create_table(engine, &json, now).map(drop)
    })?;
    let table = engine.tables.get_mut(&name).ok_or_else(DynamoError::internal_server_error)?;
    table.creating_until = Some(now + UNTIL_THE_IMPORT_ENDS);
    let (table_arn, table_id) = (table.arn(), table.table_id.clone());
    let key_types = table.attribute_definitions.clone();
    let source = body.get("S3BucketSource").map(Json::to_value).unwrap_or_default();
    let options = body.get("InputFormatOptions").filter(|o| !o.is_null());
    let format = match input_format {
        "CSV" => {
            let csv = options.and_then(|o| o.get("Csv"));
            let delimiter = csv.and_then(|c| string(c, "Delimiter")).and_then(|d| d.bytes().next()).unwrap_or(b',');
            let headers = csv
                .and_then(|c| c.get("HeaderList"))
                .and_then(Json::as_array)
                .map(|list| list.iter().filter_map(Json::as_str).map(str::to_owned).collect::<Vec<_>>());
            ImportFormat::Csv { delimiter, headers }
        }
        _ => ImportFormat::DynamoDbJson,
    };
    let import_arn = engine.transfers.next_arn(&table_arn, "import", now, engine.seed);
    let import = Import {
        arn: import_arn.clone(),
        table_arn,
        table_id: table_id.clone(),
        request: ImportRequest {
            client_token: token.map(str::to_owned),
            source: source.clone(),
            input_format: input_format.to_owned(),
            format_options: options.map(Json::to_value),
            compression: compression.to_owned(),
            table_parameters: parameters,
        },
        progress: engine.transfers.progress(now),
        counts: Default::default(),
    };
    let job = ImportJob {
        arn: import_arn.clone(),
        table: name,
        table_id,
        bucket: source["S3Bucket"].as_str().unwrap_or_default().to_owned(),
        prefix: source["S3KeyPrefix"].as_str().map(str::to_owned),
        format,
        gzip: compression == "GZIP",
        key_types,
    };
    let description = import.description(now);
    if let Some(token) = token {
        engine.transfers.remember_token(true, token, body.digest(), &import_arn, now);
    }
    engine.transfers.pending.push(Job::Import(Box::new(job)));
    engine.transfers.imports.insert(import_arn, import);
    Ok(json!({ "ImportTableDescription": description }))
}

/// DescribeImport.
pub(crate) fn describe_import(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let arn = string(body, "ImportArn").unwrap_or_default();
    let import =
        engine.transfers.imports.get(arn).ok_or_else(|| {
            DynamoError::custom(400, "ImportNotFoundException", "The specified import was not found.")
        })?;
    Ok(json!({ "ImportTableDescription": import.description(engine.now) }))
}

/// ListImports: the imports into one table or all, in the order they started, `PageSize` a page.
pub(crate) fn list_imports(engine: &mut Engine, body: &Json<'_>) -> Result<Answer, DynamoError> {
    let now = engine.now;
    let table = string(body, "TableArn");
    let mut imports: Vec<&Import> =
        engine.transfers.imports.values().filter(|import| table.is_none_or(|arn| import.table_arn == arn)).collect();
    imports.sort_by(|a, b| (a.progress.start, &a.arn).cmp(&(b.progress.start, &b.arn)));
    let limit = body.get("PageSize").and_then(crate::validate::as_integer).unwrap_or(25).clamp(1, 25) as usize;
    let (page, next) = page(&imports, |import| &import.arn, string(body, "NextToken"), limit)?;
    let mut out = json!({ "ImportSummaryList": page.iter().map(|import| import.summary(now)).collect::<Vec<_>>() });
    if let Some(next) = next {
        out["NextToken"] = json!(next);
    }
    Ok(out)
}
