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
//! seed = 7                 # of every random choice inside the run (latencies, ids, pacing)
//! lock = "library"         # or "naive"
//! duration_ms = 300_000
//! lease_ms = 30_000
//!
//! [[processes]]
//! clock = { offset_ms = 0, drift_ppm = 0 }
//! roles = [{ role = "leader" }]
//!
//! [[processes]]
//! roles = [{ role = "leader" }]
//!
//! [[faults]]
//! at_ms = 60_000
//! kind = "pause"
//! process = 0
//! for_ms = 45_000
//! ```
//!
//! Workloads of your own ([`ProcessSpec::custom`](crate::ProcessSpec::custom)) are code, and a file cannot hold them: a
//! file written from a scenario that has some says so in a comment, and whoever replays it
//! attaches them again (see `examples/proptest_workload.rs`).

use std::fmt::{self, Write as _};
use std::ops::Range;

use crate::scenario::Scenario;

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
///
/// let text = "duration_ms = 60_000\nlease_ms = 30_000\n\n[[processes]]\nclock = { drift_ppm = \"fast\" }\nroles = []\n";
/// let err = Scenario::from_toml(text).unwrap_err();
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

impl Scenario {
    /// The scenario as a TOML file, with `comment` (lines of their own, `#` added) at the top.
    /// Every field that shapes the run is written out, defaults too; workloads of your own are
    /// named in a comment only.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease_sim::{Config, Scenario, World};
    ///
    /// let config = Config { duration_ms: 60_000, ..Config::default() };
    /// let scenario = Scenario::from_seed(7, &config);
    /// let text = scenario.to_toml("The scenario of seed 7.");
    /// assert!(text.starts_with("# The scenario of seed 7.\n"));
    /// let again = Scenario::from_toml(&text).unwrap();
    /// assert_eq!(World::new(again).run().digest(), World::new(scenario).run().digest());
    /// ```
    pub fn to_toml(&self, comment: &str) -> String {
        let mut out = String::new();
        for line in comment.lines() {
            let _ = writeln!(out, "{}", format!("# {line}").trim_end());
        }
        for (id, process) in self.processes.iter().enumerate() {
            if !process.custom.is_empty() {
                let names: Vec<String> = process.custom.iter().map(|w| w.name()).collect();
                let _ = writeln!(
                    out,
                    "# p{id} also ran workloads of its own, which a file cannot hold: {}",
                    names.join(", ")
                );
            }
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
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioFileError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::{Fault, ScheduledFault};
    use crate::net::NetSpec;
    use crate::scenario::{Config, LockKind, RoleKind};

    fn error(text: &str) -> ScenarioFileError {
        Scenario::from_toml(text).expect_err("a malformed file")
    }

    const HEAD: &str = "duration_ms = 120_000\nlease_ms = 30_000\n\n[[processes]]\nroles = [{ role = \"leader\" }]\n";

    #[test]
    fn a_file_names_the_line_and_field_of_a_wrong_type() {
        let err = error("duration_ms = 120_000\nlease_ms = \"long\"\n");
        assert_eq!((err.line(), err.field()), (Some(2), "lease_ms"), "{err}");
        assert!(err.message().contains("invalid type"), "{err}");
    }

    #[test]
    fn an_unknown_field_is_named_with_its_line() {
        let err = error(&format!("{HEAD}\n[[faults]]\nat_ms = 1_000\nkind = \"pause\"\nprocess = 0\nfro_ms = 5\n"));
        assert_eq!((err.line(), err.field()), (Some(11), "faults[0].fro_ms"), "{err}");
    }

    #[test]
    fn a_fault_without_the_fields_of_its_kind_is_refused_at_its_table() {
        let err = error(&format!("{HEAD}\n[[faults]]\nat_ms = 1_000\nkind = \"pause\"\nprocess = 0\n"));
        assert_eq!((err.line(), err.field()), (Some(7), "faults[0].for_ms"), "{err}");
        assert_eq!(err.message(), "a pause needs `for_ms`");
        let err = error(&format!("{HEAD}\n[[faults]]\nat_ms = 1_000\nkind = \"crash\"\nprocess = 0\nfor_ms = 3\n"));
        assert_eq!(err.field(), "faults[0].for_ms", "{err}");
        assert!(err.message().starts_with("a crash has no `for_ms`"), "{err}");
    }

    #[test]
    fn a_process_the_scenario_does_not_have_is_refused() {
        let err = error(&format!(
            "{HEAD}\n[[triggers]]\nmoment = \"granted\"\nreaction = \"pause\"\nfor_ms = 100\nprocess = 3\n"
        ));
        assert_eq!((err.line(), err.field()), (Some(7), "triggers[0].process"), "{err}");
        assert!(err.message().contains("p3 is not a process"), "{err}");
    }

    #[test]
    fn bad_toml_and_bad_values_are_errors_not_panics() {
        assert_eq!(error("duration_ms = = 3").line(), Some(1));
        assert_eq!(error("duration_ms = 120_000\n").field(), ".");
        let err = error(&HEAD.replace("30_000", "10"));
        assert!(err.message().contains("a lease lasts from 1000 ms"), "{err}");
        assert_eq!((err.line(), err.field()), (Some(2), "lease_ms"), "{err}");
        let err = error(&HEAD.replace("lease_ms = 30_000", "lease_ms = 30_000\nsafety_ms = 999_999"));
        assert_eq!((err.line(), err.field()), (Some(3), "safety_ms"), "{err}");
        assert!(error(&HEAD.replace("\"leader\"", "\"lead\"")).message().contains("unknown variant"));
        let err = error(&HEAD.replace("{ role = \"leader\" }", "{ role = \"leader\", write_every_ms = 0 }"));
        assert_eq!((err.line(), err.field()), (Some(5), "processes[0].roles[0].write_every_ms"), "{err}");
        let err = error(&format!("{HEAD}net = {{ latency_ms_min = 9, latency_ms_max = 3 }}\n"));
        assert_eq!(err.field(), "processes[0].net", "{err}");
        assert!(
            error("seed = -4\nduration_ms = 120_000\nlease_ms = 30_000\nprocesses = []").message().contains("negative")
        );
        let err = error("duration_ms = 120_000\nlease_ms = 30_000\nprocesses = []");
        assert!(err.message().contains("1 to 64 processes"), "{err}");
        assert_eq!((err.line(), err.field()), (Some(3), "processes"), "{err}");
    }

    #[test]
    fn a_short_file_takes_the_defaults_of_its_roles() {
        let scenario = Scenario::from_toml(HEAD).expect("a valid file");
        assert_eq!(scenario.processes[0].roles, vec![RoleKind::Leader.role(30_000)]);
        assert_eq!(scenario.safety_ms, crate::scenario::safety_ms(120_000, 30_000));
        assert_eq!(scenario.processes[0].net, NetSpec::default());
        assert_eq!(scenario.lock, LockKind::Library);
    }

    #[test]
    fn times_beyond_the_integers_of_toml_read_back() {
        let mut scenario = Scenario::from_seed(1, &Config { duration_ms: 60_000, ..Config::default() });
        scenario.faults = vec![ScheduledFault { at_ms: u64::MAX, fault: Fault::TableOutage { for_ms: 1 } }];
        let again = Scenario::from_toml(&scenario.to_toml("")).expect("read back");
        assert_eq!(again.faults, scenario.faults);
    }

    #[test]
    fn a_written_file_reads_back_to_the_same_file() {
        for seed in [0, 1, 2, 3, 5, u64::MAX] {
            let scenario = Scenario::from_seed(seed, &Config::default());
            let text = scenario.to_toml("");
            let again = Scenario::from_toml(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
            assert_eq!(again.to_toml(""), text, "seed {seed}");
            assert_eq!(again.seed, seed);
        }
    }
}
