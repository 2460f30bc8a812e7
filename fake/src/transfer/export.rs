//! An export: what DescribeExport says of it, and the objects it writes in DynamoDB's layout:
//!
//! ```text
//! <prefix>/AWSDynamoDB/<export id>/_started
//! <prefix>/AWSDynamoDB/<export id>/data/<name>.json.gz
//! <prefix>/AWSDynamoDB/<export id>/manifest-files.json      (+ manifest-files.checksum)
//! <prefix>/AWSDynamoDB/<export id>/manifest-summary.json    (+ manifest-summary.checksum)
//! ```
//!
//! A full export's data file holds one `{"Item": ...}` per line; an incremental export's one
//! `{"Metadata": {"WriteTimestampMicros": ...}, "Keys": ..., "NewImage": ..., "OldImage": ...}` per
//! item changed in its period.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::SystemTime;

use aws_smithy_types::base64;
use serde_json::{Map, json};

use super::Progress;
use crate::clock::epoch_timestamp;
use crate::faults::SplitMix;
use crate::json::Answer;
use crate::table::PrimaryKey;
use crate::value::{Item, item_size, item_to_json};

/// A full export, or an incremental one of the changes from `from` (included) to `to` (not).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ExportKind {
    Full,
    Incremental { from: SystemTime, to: SystemTime, view: String },
}

/// What an export request names besides the table and the data: its destination and format.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExportRequest {
    pub(crate) client_token: Option<String>,
    pub(crate) bucket: String,
    pub(crate) owner: Option<String>,
    pub(crate) prefix: Option<String>,
    pub(crate) sse_algorithm: Option<String>,
    pub(crate) sse_key: Option<String>,
}

/// One export.
#[derive(Debug, Clone)]
pub(crate) struct Export {
    pub(crate) arn: String,
    pub(crate) table_arn: String,
    pub(crate) table_id: String,
    /// The time the data is of (for an incremental export, the end of its period).
    pub(crate) export_time: SystemTime,
    pub(crate) request: ExportRequest,
    pub(crate) kind: ExportKind,
    pub(crate) item_count: u64,
    pub(crate) billed_bytes: u64,
    pub(crate) progress: Progress,
}

impl Export {
    /// The export's id: the last part of its ARN.
    pub(crate) fn id(&self) -> &str {
        self.arn.rsplit('/').next().unwrap_or_default()
    }

    /// The folder of its objects: `<prefix>/AWSDynamoDB/<export id>/`.
    pub(crate) fn folder(&self) -> String {
        let prefix = match self.request.prefix.as_deref() {
            None | Some("") => String::new(),
            Some(prefix) if prefix.ends_with('/') => prefix.to_owned(),
            Some(prefix) => format!("{prefix}/"),
        };
        format!("{prefix}AWSDynamoDB/{}/", self.id())
    }

    /// `FULL_EXPORT` or `INCREMENTAL_EXPORT`.
    fn type_name(&self) -> &'static str {
        match self.kind {
            ExportKind::Full => "FULL_EXPORT",
            ExportKind::Incremental { .. } => "INCREMENTAL_EXPORT",
        }
    }

    /// DescribeExport's `ExportDescription` at `now`.
    pub(crate) fn description(&self, now: SystemTime) -> Answer {
        let mut out = Map::new();
        out.insert("ExportArn".into(), json!(self.arn));
        out.insert("ExportStatus".into(), json!(self.progress.status(now)));
        self.progress.describe_into(&mut out, now);
        if matches!(self.progress.seen(now), Some(super::Outcome::Completed(_))) {
            out.insert("ExportManifest".into(), json!(format!("{}manifest-summary.json", self.folder())));
            out.insert("ItemCount".into(), json!(self.item_count));
            out.insert("BilledSizeBytes".into(), json!(self.billed_bytes));
        }
        out.insert("TableArn".into(), json!(self.table_arn));
        out.insert("TableId".into(), json!(self.table_id));
        out.insert("ExportTime".into(), epoch_timestamp(self.export_time));
        let request = &self.request;
        let optional = [
            ("ClientToken", &request.client_token),
            ("S3BucketOwner", &request.owner),
            ("S3Prefix", &request.prefix),
            ("S3SseKmsKeyId", &request.sse_key),
        ];
        out.insert("S3Bucket".into(), json!(request.bucket));
        for (member, value) in optional {
            if let Some(value) = value {
                out.insert(member.into(), json!(value));
            }
        }
        out.insert("S3SseAlgorithm".into(), json!(request.sse_algorithm.as_deref().unwrap_or("AES256")));
        out.insert("ExportFormat".into(), json!("DYNAMODB_JSON"));
        out.insert("ExportType".into(), json!(self.type_name()));
        if let ExportKind::Incremental { from, to, view } = &self.kind {
            out.insert(
                "IncrementalExportSpecification".into(),
                json!({"ExportFromTime": epoch_timestamp(*from), "ExportToTime": epoch_timestamp(*to), "ExportViewType": view}),
            );
        }
        Answer::Object(out)
    }

    /// ListExports' `ExportSummary` at `now`.
    pub(crate) fn summary(&self, now: SystemTime) -> Answer {
        json!({"ExportArn": self.arn, "ExportStatus": self.progress.status(now), "ExportType": self.type_name()})
    }

    /// `manifest-summary.json`, written when the export ends at `end`.
    pub(crate) fn manifest_summary(&self, end: SystemTime) -> Vec<u8> {
        let time = |at: SystemTime| humantime::format_rfc3339_millis(at).to_string();
        let request = &self.request;
        let mut out = json!({
            "version": "2020-06-30",
            "exportArn": self.arn,
            "startTime": time(self.progress.start),
            "endTime": time(end),
            "tableArn": self.table_arn,
            "tableId": self.table_id,
            "exportTime": time(self.export_time),
            "s3Bucket": request.bucket,
            "s3Prefix": request.prefix,
            "s3SseAlgorithm": request.sse_algorithm.as_deref().unwrap_or("AES256"),
            "s3SseKmsKeyId": request.sse_key,
            "manifestFilesS3Key": format!("{}manifest-files.json", self.folder()),
            "billedSizeBytes": self.billed_bytes,
            "itemCount": self.item_count,
            "outputFormat": "DYNAMODB_JSON",
            "exportType": self.type_name(),
        });
        if let ExportKind::Incremental { from, to, view } = &self.kind {
            out["exportFromTime"] = json!(time(*from));
            out["exportToTime"] = json!(time(*to));
            out["outputView"] = json!(view);
        }
        out.to_string().into_bytes()
    }
}

/// The data of an export, ready to write: the data file, gzipped, and what it holds.
#[derive(Debug, Clone)]
pub(crate) struct ExportData {
    pub(crate) gzipped: Vec<u8>,
    pub(crate) item_count: u64,
    pub(crate) billed_bytes: u64,
}

impl ExportData {
    /// The data of a full export: one `{"Item": ...}` line per item.
    pub(crate) fn full<'i>(items: impl Iterator<Item = &'i Item>) -> ExportData {
        let mut lines = Vec::new();
        let (mut count, mut bytes) = (0, 0);
        for item in items {
            count += 1;
            bytes += item_size(item) as u64;
            lines.extend_from_slice(json!({"Item": item_to_json(item)}).to_string().as_bytes());
            lines.push(b'\n');
        }
        ExportData { gzipped: gzip(&lines), item_count: count, billed_bytes: bytes }
    }

    /// The data of an incremental export: for each item changed (by `key`, at `at`), its keys,
    /// its image at the end of the period (none if it was deleted) and, with
    /// `NEW_AND_OLD_IMAGES`, its image at the start (none if it did not exist).
    pub(crate) fn incremental(
        changed: &BTreeMap<PrimaryKey, (SystemTime, Item)>,
        old: &BTreeMap<PrimaryKey, Item>,
        new: &BTreeMap<PrimaryKey, Item>,
        old_images: bool,
    ) -> ExportData {
        let mut lines = Vec::new();
        let (mut count, mut bytes) = (0, 0);
        for (key, (at, keys)) in changed {
            let (before, after) = (old.get(key), new.get(key));
            if before.is_none() && after.is_none() {
                continue;
            }
            let micros = at.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_micros()).unwrap_or(0);
            let mut line = json!({
                "Metadata": {"WriteTimestampMicros": {"N": micros.to_string()}},
                "Keys": item_to_json(keys),
            });
            if let Some(after) = after {
                line["NewImage"] = item_to_json(after);
                bytes += item_size(after) as u64;
            }
            if let (true, Some(before)) = (old_images, before) {
                line["OldImage"] = item_to_json(before);
            }
            count += 1;
            lines.extend_from_slice(line.to_string().as_bytes());
            lines.push(b'\n');
        }
        ExportData { gzipped: gzip(&lines), item_count: count, billed_bytes: bytes }
    }
}

/// The objects an export writes before its summary, in order: `_started` (which shows the bucket
/// takes writes), the data file, and the manifest of the data files with its checksum.
pub(crate) fn objects(export: &Export, data: &ExportData, seed: u64) -> Vec<(String, Vec<u8>)> {
    let folder = export.folder();
    let data_key = format!("{folder}data/{}.json.gz", file_name(&export.arn, seed));
    let manifest = json!({
        "itemCount": data.item_count,
        "md5Checksum": base64::encode(md5(&data.gzipped)),
        "etag": hex(&md5(&data.gzipped)),
        "dataFileS3Key": data_key,
    });
    let manifest = format!("{manifest}\n").into_bytes();
    vec![
        (format!("{folder}_started"), Vec::new()),
        (data_key, data.gzipped.clone()),
        (format!("{folder}manifest-files.checksum"), hex(&md5(&manifest)).into_bytes()),
        (format!("{folder}manifest-files.json"), manifest),
    ]
}

/// The summary of an export that ended at `end`, and its checksum.
pub(crate) fn summary_objects(export: &Export, end: SystemTime) -> Vec<(String, Vec<u8>)> {
    let folder = export.folder();
    let summary = export.manifest_summary(end);
    vec![
        (format!("{folder}manifest-summary.checksum"), hex(&md5(&summary)).into_bytes()),
        (format!("{folder}manifest-summary.json"), summary),
    ]
}

/// The work of an export on S3: its objects, then its summary.
#[derive(Debug)]
pub(crate) struct ExportJob {
    pub(crate) export: Export,
    pub(crate) objects: Vec<(String, Vec<u8>)>,
}

/// A data file's name: 26 lowercase letters and digits, drawn from the export's ARN and `seed`.
fn file_name(arn: &str, seed: u64) -> String {
    let mixed = arn.bytes().fold(seed ^ 0xDA7A_F11E, |acc, b| acc.rotate_left(5) ^ u64::from(b));
    let mut rng = SplitMix::new(mixed);
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..26).map(|_| ALPHABET[(rng.next_u64() % ALPHABET.len() as u64) as usize] as char).collect()
}

/// `bytes` compressed with gzip.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a vector cannot fail.
    let _ = encoder.write_all(bytes);
    encoder.finish().unwrap_or_default()
}

fn md5(bytes: &[u8]) -> [u8; 16] {
    use md5::Digest;
    md5::Md5::digest(bytes).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;
    use std::io::Read;
    use std::time::Duration;

    fn export(prefix: Option<&str>) -> Export {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        Export {
            arn: "arn:aws:dynamodb:us-east-1:000000000000:table/Shop/export/01800000000000-0a1b2c3d".into(),
            table_arn: "arn:aws:dynamodb:us-east-1:000000000000:table/Shop".into(),
            table_id: "t".into(),
            export_time: start,
            request: ExportRequest { bucket: "b".into(), prefix: prefix.map(str::to_owned), ..Default::default() },
            kind: ExportKind::Full,
            item_count: 0,
            billed_bytes: 0,
            progress: Progress::new(start, Duration::ZERO),
        }
    }

    #[test]
    fn an_export_writes_dynamodbs_layout_under_its_prefix() {
        let item: Item = [("pk".to_owned(), Value::S("a".into()))].into_iter().collect();
        let data = ExportData::full([&item].into_iter());
        let keys: Vec<String> = objects(&export(Some("daily")), &data, 1).into_iter().map(|(key, _)| key).collect();
        assert_eq!(keys[0], "daily/AWSDynamoDB/01800000000000-0a1b2c3d/_started");
        assert!(
            keys[1].starts_with("daily/AWSDynamoDB/01800000000000-0a1b2c3d/data/") && keys[1].ends_with(".json.gz")
        );
        assert_eq!(keys[3], "daily/AWSDynamoDB/01800000000000-0a1b2c3d/manifest-files.json");
        assert_eq!(export(None).folder(), "AWSDynamoDB/01800000000000-0a1b2c3d/");
        assert_eq!(export(Some("a/")).folder(), "a/AWSDynamoDB/01800000000000-0a1b2c3d/");

        let mut text = String::new();
        flate2::read::GzDecoder::new(&data.gzipped[..]).read_to_string(&mut text).unwrap();
        assert_eq!(text, "{\"Item\":{\"pk\":{\"S\":\"a\"}}}\n");
        assert_eq!(data.item_count, 1);
    }
}
