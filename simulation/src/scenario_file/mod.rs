//! Scenarios as files: a run written down in TOML, to read, edit, keep and replay.
//!
//! - [`Scenario::to_toml`] writes a scenario: every field that shapes the run, so that the
//!   file runs to the very digest of the scenario it was written from.
//! - [`Scenario::from_toml`] reads one; a malformed file gets a [`ScenarioFileError`] that names
//!   the line and the field.
//!
//! The format, field by field, is the commented example `simulation/docs/scenario-format.toml`;
//! `simulation/incidents/` holds incidents written in it. In short:
//!
//! ```toml
//! service = "locks"        # the service the file is a scenario of
//! seed = 7                 # of every random choice inside the run (latencies, ids, pacing)
//! duration_ms = 300_000
//!
//! [options]                # the service's own options, as it reads them
//! lock = "library"
//! lease_ms = 30_000
//!
//! [[processes]]
//! clock = { offset_ms = 0, drift_ppm = 0 }
//! kinds = [{ role = "leader", lock = "leader", write_every_ms = 15_000, resigns = false }]
//!
//! [[faults]]
//! at_ms = 60_000
//! kind = "pause"
//! process = 0
//! for_ms = 45_000
//! ```
//!
//! A file is run by a program that knows its service: `dynalease-sim` for the lock library, the
//! program of an example for its service, a test of yours through
//! [`harness`](crate::harness). A file of another service is refused with a clear error.

use std::fmt::{self, Write as _};
use std::ops::Range;

use crate::scenario::Scenario;
use crate::service::Service;

mod format;
mod read;
mod write;

use format::FileScenario;

/// The most processes a file may have.
pub const MAX_PROCESSES: usize = 64;

/// What is wrong with a scenario file, and where.
///
/// # Examples
///
/// ```
/// use dynalease_sim::Scenario;
/// use dynalease_sim::locks::LockService;
///
/// let text = "service = \"locks\"\nduration_ms = 60_000\n\n[[processes]]\nclock = { drift_ppm = \"fast\" }\n";
/// let err = Scenario::<LockService>::from_toml(text).unwrap_err();
/// assert_eq!(err.line(), Some(5));
/// assert_eq!(err.field(), "processes[0].clock.drift_ppm");
/// assert!(err.to_string().starts_with("line 5, column 23, processes[0].clock.drift_ppm: "), "{err}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioFileError {
    line: Option<usize>,
    column: Option<usize>,
    field: String,
    message: String,
}

impl ScenarioFileError {
    /// The line of the file, from 1, if the error has a place.
    pub fn line(&self) -> Option<usize> {
        self.line
    }

    /// The column, from 1, if the error has a place.
    pub fn column(&self) -> Option<usize> {
        self.column
    }

    /// The field, as a path such as `faults[2].for_ms`; `.` for the file as a whole.
    pub fn field(&self) -> &str {
        &self.field
    }

    /// What is wrong, without the place.
    pub fn message(&self) -> &str {
        &self.message
    }

    fn at(text: &str, span: Option<Range<usize>>, field: String, message: String) -> Self {
        let (line, column) = match span {
            Some(span) => {
                let (line, column) = line_and_column(text, span.start);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        ScenarioFileError { line, column, field, message }
    }
}

impl fmt::Display for ScenarioFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}, {}: {}", self.field, self.message),
            (Some(line), None) => write!(f, "line {line}, {}: {}", self.field, self.message),
            _ => write!(f, "{}: {}", self.field, self.message),
        }
    }
}

impl std::error::Error for ScenarioFileError {}

/// Where the top-level `key` of a file is set: its line before the first table, or the first
/// table of that name (`[[processes]]`).
fn top_level_span(text: &str, key: &str) -> Option<Range<usize>> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let start = offset + (line.len() - trimmed.len());
        offset += line.len();
        if trimmed.starts_with('[') {
            let name = trimmed.trim_start_matches('[').split(']').next().unwrap_or("").trim();
            if name == key {
                return Some(start..start + trimmed.trim_end().len());
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix(key)
            && rest.trim_start().starts_with('=')
        {
            return Some(start..start + trimmed.trim_end().len());
        }
    }
    None
}

/// The line and column (from 1) of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

impl<S: Service> Scenario<S> {
    /// The scenario as a TOML file, with `comment` (lines of their own, `#` added) at the top.
    /// Every field that shapes the run is written out, defaults too; workloads of your own are
    /// named in a comment only.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease_sim::{Config, Scenario, World};
    /// use dynalease_sim::locks::LockService;
    ///
    /// let config = Config { duration_ms: 60_000, ..Config::default() };
    /// let scenario = Scenario::from_seed(7, &config, &LockService::default());
    /// let text = scenario.to_toml("The scenario of seed 7.");
    /// assert!(text.starts_with("# The scenario of seed 7.\n"));
    /// let again: Scenario<LockService> = Scenario::from_toml(&text).unwrap();
    /// assert_eq!(World::new(again).run().digest(), World::new(scenario).run().digest());
    /// ```
    pub fn to_toml(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            let _ = writeln!(out, "{}", format!("# {line}").trim_end());
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let file = FileScenario::of(self);
        // The file types hold only what TOML writes: integers, strings, booleans and tables.
        out.push_str(&toml::to_string(&file).expect("a scenario file serializes"));
        out
    }

    /// Reads a scenario from the TOML of a file (see the [module](crate::scenario_file)).
    ///
    /// # Errors
    ///
    /// A [`ScenarioFileError`] that names the line and the field: TOML that does not parse, an
    /// unknown field, a value of the wrong type or out of range, a fault or trigger without the
    /// fields of its kind, a process number the scenario does not have.
    pub fn from_toml(text: &str) -> Result<Scenario<S>, ScenarioFileError> {
        let deserializer = toml::Deserializer::parse(text).map_err(|err| {
            ScenarioFileError::at(text, err.span(), String::from("."), err.message().trim_end().to_owned())
        })?;
        let file: FileScenario = serde_path_to_error::deserialize(deserializer).map_err(|err| {
            // The spans of tables are a field of their own to serde: not one of the file's.
            let field = err.path().to_string().replace(".$__serde_spanned_private_value", "");
            let inner = err.into_inner();
            ScenarioFileError::at(text, inner.span(), field, inner.message().trim_end().to_owned())
        })?;
        file.scenario(text)
    }
}
