//! An import: what DescribeImport says of it, and the reading of its files into items. A file of
//! DynamoDB JSON holds `{"Item": ...}` objects one after the other (a line each, or run together);
//! a CSV file has a header (its first line, or the request's `HeaderList`), its key attributes take
//! the types of their definitions and every other column is a string.

use std::io::Read;
use std::time::SystemTime;

use serde_json::{Map, json};

use super::Progress;
use crate::json::Answer;
use crate::table::KeyType;
use crate::value::{Item, Value};

/// How an import's files are written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ImportFormat {
    DynamoDbJson,
    Csv { delimiter: u8, headers: Option<Vec<String>> },
}

/// What an import request names, as DescribeImport gives it back.
#[derive(Debug, Clone, Default)]
pub(crate) struct ImportRequest {
    pub(crate) client_token: Option<String>,
    /// `S3BucketSource`, as given.
    pub(crate) source: Answer,
    pub(crate) input_format: String,
    pub(crate) format_options: Option<Answer>,
    pub(crate) compression: String,
    /// `TableCreationParameters`, as given.
    pub(crate) table_parameters: Answer,
}

/// One import.
#[derive(Debug, Clone)]
pub(crate) struct Import {
    pub(crate) arn: String,
    pub(crate) table_arn: String,
    pub(crate) table_id: String,
    pub(crate) request: ImportRequest,
    pub(crate) progress: Progress,
    pub(crate) counts: Counts,
}

/// What an import read and wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) processed_items: u64,
    pub(crate) processed_bytes: u64,
    pub(crate) imported: u64,
    pub(crate) errors: u64,
}

impl Import {
    /// DescribeImport's `ImportTableDescription` at `now` (and ImportTable's answer).
    pub(crate) fn description(&self, now: SystemTime) -> Answer {
        let mut out = Map::new();
        out.insert("ImportArn".into(), json!(self.arn));
        out.insert("ImportStatus".into(), json!(self.progress.status(now)));
        out.insert("TableArn".into(), json!(self.table_arn));
        out.insert("TableId".into(), json!(self.table_id));
        if let Some(token) = &self.request.client_token {
            out.insert("ClientToken".into(), json!(token));
        }
        out.insert("S3BucketSource".into(), self.request.source.clone());
        out.insert("InputFormat".into(), json!(self.request.input_format));
        if let Some(options) = &self.request.format_options {
            out.insert("InputFormatOptions".into(), options.clone());
        }
        out.insert("InputCompressionType".into(), json!(self.request.compression));
        out.insert("TableCreationParameters".into(), self.request.table_parameters.clone());
        self.progress.describe_into(&mut out, now);
        let counts = if self.progress.seen(now).is_some() { self.counts } else { Counts::default() };
        out.insert("ErrorCount".into(), json!(counts.errors));
        out.insert("ProcessedSizeBytes".into(), json!(counts.processed_bytes));
        out.insert("ProcessedItemCount".into(), json!(counts.processed_items));
        out.insert("ImportedItemCount".into(), json!(counts.imported));
        Answer::Object(out)
    }

    /// ListImports' `ImportSummary` at `now`.
    pub(crate) fn summary(&self, now: SystemTime) -> Answer {
        let mut out = Map::new();
        out.insert("ImportArn".into(), json!(self.arn));
        out.insert("ImportStatus".into(), json!(self.progress.status(now)));
        out.insert("TableArn".into(), json!(self.table_arn));
        out.insert("S3BucketSource".into(), self.request.source.clone());
        out.insert("InputFormat".into(), json!(self.request.input_format));
        let mut times = Map::new();
        self.progress.describe_into(&mut times, now);
        for member in ["StartTime", "EndTime"] {
            if let Some(time) = times.remove(member) {
                out.insert(member.into(), time);
            }
        }
        Answer::Object(out)
    }
}

/// The work of an import on S3.
#[derive(Debug)]
pub(crate) struct ImportJob {
    pub(crate) arn: String,
    pub(crate) table: String,
    pub(crate) table_id: String,
    pub(crate) bucket: String,
    pub(crate) prefix: Option<String>,
    pub(crate) format: ImportFormat,
    pub(crate) gzip: bool,
    /// The key attributes of the table and its indexes, with their types (for CSV).
    pub(crate) key_types: Vec<(String, KeyType)>,
}

/// What one file held: each record as an item or why it is not one, with the bytes it took.
#[derive(Debug, Default)]
pub(crate) struct FileRead {
    pub(crate) records: Vec<Result<Item, String>>,
    pub(crate) bytes: u64,
}

impl ImportJob {
    /// The records of one file's content.
    pub(crate) fn read(&self, content: &[u8]) -> FileRead {
        let mut decompressed = Vec::new();
        let content = if self.gzip {
            if let Err(error) = flate2::read::GzDecoder::new(content).read_to_end(&mut decompressed) {
                return FileRead {
                    records: vec![Err(format!("the file is not gzip: {error}"))],
                    bytes: content.len() as u64,
                };
            }
            &decompressed[..]
        } else {
            content
        };
        match &self.format {
            ImportFormat::DynamoDbJson => read_dynamodb_json(content),
            ImportFormat::Csv { delimiter, headers } => {
                read_csv(content, *delimiter, headers.as_deref(), &self.key_types)
            }
        }
    }
}

/// `{"Item": {...}}` objects one after the other.
fn read_dynamodb_json(content: &[u8]) -> FileRead {
    let mut read = FileRead { bytes: content.len() as u64, ..FileRead::default() };
    let mut stream = serde_json::Deserializer::from_slice(content).into_iter::<Answer>();
    for value in stream.by_ref() {
        let record = match value {
            Ok(Answer::Object(mut object)) if object.len() == 1 && object.contains_key("Item") => {
                let item = object.remove("Item").unwrap_or_default();
                crate::value::item_from_value(&item).map_err(|error| format!("{}: {}", error.code(), error.message))
            }
            Ok(_) => Err("a record of DynamoDB JSON is an object with one member, Item".to_owned()),
            Err(error) => {
                read.records.push(Err(format!("the file is not DynamoDB JSON: {error}")));
                break;
            }
        };
        read.records.push(record);
    }
    read
}

/// A CSV file: a record per line after the header.
fn read_csv(content: &[u8], delimiter: u8, headers: Option<&[String]>, key_types: &[(String, KeyType)]) -> FileRead {
    let mut read = FileRead { bytes: content.len() as u64, ..FileRead::default() };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(headers.is_none())
        .flexible(true)
        .from_reader(content);
    let names: Vec<String> = match headers {
        Some(headers) => headers.to_vec(),
        None => match reader.headers() {
            Ok(record) => record.iter().map(str::to_owned).collect(),
            Err(error) => {
                read.records.push(Err(format!("the CSV header cannot be read: {error}")));
                return read;
            }
        },
    };
    for record in reader.records() {
        let record = match record {
            Ok(record) => record,
            Err(error) => {
                read.records.push(Err(format!("a CSV line cannot be read: {error}")));
                continue;
            }
        };
        let item = names.iter().zip(record.iter()).filter(|(_, field)| !field.is_empty()).map(|(name, field)| {
            let value = match key_types.iter().find(|(key, _)| key == name).map(|(_, kind)| *kind) {
                Some(KeyType::N) => crate::number::Number::parse(field)
                    .map(Value::N)
                    .map_err(|_| format!("{name}: `{field}` is not a number")),
                Some(KeyType::B) => aws_smithy_types::base64::decode(field)
                    .map(Value::B)
                    .map_err(|_| format!("{name}: `{field}` is not base64")),
                Some(KeyType::S) | None => Ok(Value::S(field.to_owned())),
            };
            value.map(|value| (name.clone(), value))
        });
        read.records.push(item.collect());
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(format: ImportFormat) -> ImportJob {
        ImportJob {
            arn: String::new(),
            table: "T".into(),
            table_id: String::new(),
            bucket: "b".into(),
            prefix: None,
            format,
            gzip: false,
            key_types: vec![("pk".into(), KeyType::S), ("n".into(), KeyType::N)],
        }
    }

    #[test]
    fn dynamodb_json_records_may_run_together_and_a_record_without_item_is_an_error() {
        let content = br#"{"Item": {"pk": {"S": "a"}}}
{"Item": {"pk": {"S": "b"}}}{"Item": {"pk": {"S": "c"}}}
{"pk": {"S": "d"}}"#;
        let read = job(ImportFormat::DynamoDbJson).read(content);
        let ok: Vec<bool> = read.records.iter().map(Result::is_ok).collect();
        assert_eq!(ok, [true, true, true, false]);
        assert_eq!(read.bytes, content.len() as u64);
    }

    #[test]
    fn csv_keys_take_their_types_and_other_columns_are_strings() {
        let csv = ImportFormat::Csv { delimiter: b';', headers: None };
        let read = job(csv).read(b"pk;n;note\na;7;\"x;y\"\nb;seven;z\n");
        let first = read.records[0].as_ref().unwrap();
        assert_eq!(first["n"], Value::N(crate::number::Number::parse("7").unwrap()));
        assert_eq!(first["note"], Value::S("x;y".into()));
        assert!(read.records[1].as_ref().unwrap_err().contains("not a number"));
        let listed = ImportFormat::Csv { delimiter: b',', headers: Some(vec!["pk".into(), "note".into()]) };
        let read = job(listed).read(b"a,first line is data\n");
        assert_eq!(read.records[0].as_ref().unwrap()["note"], Value::S("first line is data".into()));
    }

    #[test]
    fn a_gzipped_file_is_read_through_its_compression() {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(br#"{"Item": {"pk": {"S": "a"}}}"#).unwrap();
        let mut gz = job(ImportFormat::DynamoDbJson);
        gz.gzip = true;
        assert!(gz.read(&encoder.finish().unwrap()).records[0].is_ok());
        assert!(gz.read(b"plain").records[0].is_err());
    }
}
