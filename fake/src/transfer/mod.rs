//! Exports to S3 and imports from it: what the engine keeps of each (`Transfers`), the files of
//! DynamoDB's layout, and the work on S3, which runs apart from the engine on the runtime and
//! comes back to it when it is done.
//!
//! - [`Transfers`]: an engine's exports and imports, by ARN, and the work its last request left
//!   to start ([`Job`]).
//! - `export`: [`Export`], and the objects of an export (`_started`, the data file, the manifests).
//! - `import`: [`Import`], and the reading of DynamoDB JSON and CSV files into items.
//! - `s3`: the S3 client, its configuration and its errors as an export or import reports them.
//! - `run`: the work of a [`Job`], on the runtime, and its end, back in the engine.
//!
//! An export or import is `IN_PROGRESS` until its work on S3 is done and the fake's clock has
//! reached its start plus the fake's transfer time (zero unless set); then `COMPLETED` or `FAILED`.

mod export;
mod import;
mod run;
mod s3;

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use crate::clock::epoch_timestamp;
use crate::faults::SplitMix;
use crate::json::Answer;

pub(crate) use export::{Export, ExportData, ExportJob, ExportKind, ExportRequest, objects as export_objects};
pub(crate) use import::{Import, ImportFormat, ImportJob, ImportRequest};
pub use s3::S3Config;
pub(crate) use s3::S3Target;

/// How long an idempotency token of an export or import is remembered: 8 hours.
const TOKEN_LIFETIME: Duration = Duration::from_secs(8 * 3600);

/// How an export or import ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// Done, at this time of the fake's clock.
    Completed(SystemTime),
    /// Failed at this time, with DynamoDB's failure code and a message.
    Failed(SystemTime, String, String),
}

/// Where an export or import stands: its start, the time it is at least `IN_PROGRESS` for, and
/// its outcome once the work on S3 is done.
#[derive(Debug, Clone)]
pub(crate) struct Progress {
    pub(crate) start: SystemTime,
    pub(crate) ready_at: SystemTime,
    pub(crate) outcome: Option<Outcome>,
}

impl Progress {
    fn new(start: SystemTime, duration: Duration) -> Progress {
        Progress { start, ready_at: start + duration, outcome: None }
    }

    /// The outcome as seen at `now`: none while the work runs or the transfer time has not passed.
    pub(crate) fn seen(&self, now: SystemTime) -> Option<&Outcome> {
        self.outcome.as_ref().filter(|_| now >= self.ready_at)
    }

    /// `IN_PROGRESS`, `COMPLETED` or `FAILED`, as seen at `now`.
    pub(crate) fn status(&self, now: SystemTime) -> &'static str {
        match self.seen(now) {
            None => "IN_PROGRESS",
            Some(Outcome::Completed(_)) => "COMPLETED",
            Some(Outcome::Failed(..)) => "FAILED",
        }
    }

    /// `StartTime`, and `EndTime` and the failure once they are seen at `now`, into `out`.
    pub(crate) fn describe_into(&self, out: &mut serde_json::Map<String, Answer>, now: SystemTime) {
        out.insert("StartTime".into(), epoch_timestamp(self.start));
        let Some(outcome) = self.seen(now) else { return };
        let ended = match outcome {
            Outcome::Completed(at) | Outcome::Failed(at, ..) => *at,
        };
        out.insert("EndTime".into(), epoch_timestamp(ended.max(self.ready_at)));
        if let Outcome::Failed(_, code, message) = outcome {
            out.insert("FailureCode".into(), code.as_str().into());
            out.insert("FailureMessage".into(), message.as_str().into());
        }
    }
}

/// Work on S3 that a request left to start once the engine is let go.
#[derive(Debug)]
pub(crate) enum Job {
    /// Write an export's objects.
    Export(Box<export::ExportJob>),
    /// Read an import's objects and fill its table.
    Import(Box<import::ImportJob>),
}

/// A client token and what it named: the digest of the request and the ARN it made.
#[derive(Debug, Clone)]
struct Token {
    request: u64,
    arn: String,
    at: SystemTime,
}

/// An engine's exports and imports.
#[derive(Debug, Default)]
pub(crate) struct Transfers {
    pub(crate) exports: BTreeMap<String, Export>,
    pub(crate) imports: BTreeMap<String, Import>,
    /// The work the request being answered left to start.
    pub(crate) pending: Vec<Job>,
    /// Whether an S3 endpoint is configured; without one, exports and imports are refused.
    pub(crate) s3_configured: bool,
    /// How long an export or import stays `IN_PROGRESS` at least, on the fake's clock.
    pub(crate) duration: Duration,
    tokens: BTreeMap<(bool, String), Token>,
    made: u64,
}

impl Transfers {
    /// The ARN of a new export (`kind` `export`) or import (`import`) of the table `table_arn`
    /// started at `now`: the time in milliseconds and eight hexadecimal digits drawn from `seed`.
    pub(crate) fn next_arn(&mut self, table_arn: &str, kind: &str, now: SystemTime, seed: u64) -> String {
        self.made += 1;
        let suffix = SplitMix::new(seed ^ self.made.rotate_left(23) ^ 0x0E4F_0A75).next_u64() as u32;
        let millis = now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
        format!("{table_arn}/{kind}/{millis:014}-{suffix:08x}")
    }

    /// The progress of a new export or import started at `now`.
    pub(crate) fn progress(&self, now: SystemTime) -> Progress {
        Progress::new(now, self.duration)
    }

    /// The ARN a client token named for a request of this digest within the last 8 hours:
    /// `Ok(None)` for a token not seen (or forgotten), `Err(())` for one seen with another
    /// request.
    pub(crate) fn token(&self, import: bool, token: &str, request: u64, now: SystemTime) -> Result<Option<&str>, ()> {
        match self.tokens.get(&(import, token.to_owned())) {
            Some(seen) if now < seen.at + TOKEN_LIFETIME => {
                if seen.request == request {
                    Ok(Some(seen.arn.as_str()))
                } else {
                    Err(())
                }
            }
            _ => Ok(None),
        }
    }

    /// Forgets every export and import, as a fake reset forgets its tables; the S3 setting stays.
    pub(crate) fn forget(&mut self) {
        let (s3_configured, duration) = (self.s3_configured, self.duration);
        *self = Transfers { s3_configured, duration, ..Transfers::default() };
    }

    /// Remembers that a client token made the export or import `arn`.
    pub(crate) fn remember_token(&mut self, import: bool, token: &str, request: u64, arn: &str, now: SystemTime) {
        self.tokens.insert((import, token.to_owned()), Token { request, arn: arn.to_owned(), at: now });
    }
}

/// A page token of ListExports and ListImports: the ARN the page ended with, in hexadecimal, in
/// groups of 16 digits and at least 112 (as ListImports' constraint wants).
pub(crate) fn page_token(arn: &str) -> String {
    let mut token: String = arn.bytes().map(|b| format!("{b:02x}")).collect();
    while token.len() < 112 || token.len() % 16 != 0 {
        token.push_str("00");
    }
    token
}

/// The ARN a page token holds; `None` for text the fake did not give.
pub(crate) fn page_start(token: &str) -> Option<String> {
    let bytes: Option<Vec<u8>> = (0..token.len() / 2)
        .map(|i| token.get(2 * i..2 * i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
        .collect();
    let mut bytes = bytes?;
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    String::from_utf8(bytes).ok().filter(|arn| arn.starts_with("arn:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_token_holds_its_arn_in_groups_of_sixteen_hexadecimal_digits() {
        let arn = "arn:aws:dynamodb:us-east-1:000000000000:table/T/import/01800000000000-0a1b2c3d";
        let token = page_token(arn);
        assert!(token.len() >= 112 && token.len() % 16 == 0, "{token}");
        assert!(token.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{token}");
        assert_eq!(page_start(&token).as_deref(), Some(arn));
        assert_eq!(page_start("zz"), None);
    }
}
