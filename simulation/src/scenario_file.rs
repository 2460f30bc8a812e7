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
//! Workloads of your own ([`ProcessSpec::custom`]) are code, and a file cannot hold them: a
//! file written from a scenario that has some says so in a comment, and whoever replays it
//! attaches them again (see `examples/proptest_workload.rs`).

use std::fmt::{self, Write as _};
use std::ops::Range;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toml::Spanned;

use crate::clock::ClockSpec;
use crate::faults::{Fault, ScheduledFault};
use crate::net::NetSpec;
use crate::roles::Role;
use crate::scenario::{LockKind, ProcessSpec, RoleKind, Scenario};
use crate::triggers::{Moment, Reaction, Trigger};

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
        // The file types hold nothing TOML cannot write: integers within i64, and tables
        // after plain values.
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

/// A seed: an integer where TOML can hold it (up to 2^63 - 1), else a string of digits.
mod seed {
    use super::*;

    pub(super) fn serialize<S: Serializer>(seed: &u64, serializer: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*seed) {
            Ok(seed) => serializer.serialize_i64(seed),
            Err(_) => serializer.serialize_str(&seed.to_string()),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = u64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a seed from 0 to 18446744073709551615, as an integer or a string of digits")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
                u64::try_from(v).map_err(|_| E::custom("a seed is not negative"))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
                Ok(v)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u64, E> {
                v.parse().map_err(|_| E::custom(format!("`{v}` is not a seed from 0 to 18446744073709551615")))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum FileLock {
    #[default]
    Library,
    Naive,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileScenario {
    #[serde(default, with = "seed")]
    seed: u64,
    #[serde(default)]
    lock: FileLock,
    duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    safety_ms: Option<u64>,
    lease_ms: u64,
    #[serde(default)]
    loss_ppm: u32,
    processes: Vec<Spanned<FileProcess>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    faults: Vec<Spanned<FileFault>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    triggers: Vec<Spanned<FileTrigger>>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProcess {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lease_ms: Option<u64>,
    #[serde(default)]
    clock: FileClock,
    #[serde(default)]
    net: FileNet,
    #[serde(default)]
    roles: Vec<Spanned<FileRole>>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileClock {
    #[serde(default)]
    offset_ms: i64,
    #[serde(default)]
    drift_ppm: i32,
    #[serde(default)]
    uptime_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileNet {
    #[serde(default = "latency_min")]
    latency_ms_min: u64,
    #[serde(default = "latency_max")]
    latency_ms_max: u64,
}

fn latency_min() -> u64 {
    NetSpec::default().latency_ms_min
}

fn latency_max() -> u64 {
    NetSpec::default().latency_ms_max
}

impl Default for FileNet {
    fn default() -> Self {
        FileNet { latency_ms_min: latency_min(), latency_ms_max: latency_max() }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum RoleName {
    Leader,
    StoreWriter,
    Job,
    TryLoop,
    TokenHolder,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRole {
    role: RoleName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lock: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_every_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    every_ms_max: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    writes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    steps: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum FaultName {
    Crash,
    Pause,
    Suspend,
    Partition,
    Latency,
    Throttle,
    TableOutage,
    DeleteItem,
    ClockStep,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileFault {
    at_ms: u64,
    kind: FaultName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    process: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    for_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    restart_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extra_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    per_million: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delta_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lock: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum MomentName {
    LockWriteSent,
    Granted,
    Renewed,
    RenewalAnswered,
    Waiting,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum ReactionName {
    Pause,
    Suspend,
    Crash,
    Partition,
    Throttle,
    ClockStep,
    DelayAnswer,
    LoseAnswer,
    DelayRequest,
    HoldUntilRead,
    HoldUntilTakeover,
    DeleteItem,
    StopUntilTakeover,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTrigger {
    #[serde(default)]
    after_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    process: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lock: Option<String>,
    moment: MomentName,
    reaction: ReactionName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    for_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    restart_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    per_million: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delta_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extra_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lead_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    suspend: Option<bool>,
}

/// A span that no text has: for the values a scenario is written from.
fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}

impl FileScenario {
    fn of(scenario: &Scenario) -> Self {
        FileScenario {
            seed: scenario.seed,
            lock: match scenario.lock {
                LockKind::Library => FileLock::Library,
                LockKind::Naive => FileLock::Naive,
            },
            duration_ms: scenario.duration_ms,
            safety_ms: Some(scenario.safety_ms),
            lease_ms: scenario.lease_ms,
            loss_ppm: scenario.loss_ppm,
            processes: scenario.processes.iter().map(|p| unspanned(FileProcess::of(p))).collect(),
            faults: scenario.faults.iter().map(|f| unspanned(FileFault::of(f))).collect(),
            triggers: scenario.triggers.iter().map(|t| unspanned(FileTrigger::of(t))).collect(),
        }
    }

    fn scenario(self, text: &str) -> Result<Scenario, ScenarioFileError> {
        let top = |field: &str, message: String| {
            ScenarioFileError::at(text, top_level_span(text, field), field.to_owned(), message)
        };
        in_range("duration_ms", self.duration_ms, 1_000, 86_400_000).map_err(|m| top("duration_ms", m))?;
        lease_in_range(self.lease_ms).map_err(|m| top("lease_ms", m))?;
        in_range("loss_ppm", u64::from(self.loss_ppm), 0, 1_000_000).map_err(|m| top("loss_ppm", m))?;
        if self.processes.is_empty() || self.processes.len() > MAX_PROCESSES {
            return Err(top(
                "processes",
                format!("a scenario has 1 to {MAX_PROCESSES} processes, not {}", self.processes.len()),
            ));
        }
        let n = self.processes.len();
        let mut processes = Vec::with_capacity(n);
        for (id, process) in self.processes.into_iter().enumerate() {
            let span = process.span();
            let here = |field: &str, message: String| {
                ScenarioFileError::at(text, Some(span.clone()), format!("processes[{id}].{field}"), message)
            };
            let process = process.into_inner();
            if let Some(lease_ms) = process.lease_ms {
                lease_in_range(lease_ms).map_err(|m| here("lease_ms", m))?;
            }
            let lease_ms = process.lease_ms.unwrap_or(self.lease_ms);
            if process.clock.drift_ppm.unsigned_abs() >= 1_000_000 {
                return Err(here(
                    "clock.drift_ppm",
                    format!("a drift of {} ppm stops or reverses the clock", process.clock.drift_ppm),
                ));
            }
            let net =
                NetSpec { latency_ms_min: process.net.latency_ms_min, latency_ms_max: process.net.latency_ms_max };
            if net.latency_ms_min > net.latency_ms_max || net.latency_ms_max > 60_000 {
                return Err(here(
                    "net",
                    format!(
                        "latency_ms_min ({}) must not exceed latency_ms_max ({}), nor that 60000",
                        net.latency_ms_min, net.latency_ms_max
                    ),
                ));
            }
            let mut roles = Vec::with_capacity(process.roles.len());
            for (index, role) in process.roles.into_iter().enumerate() {
                let span = role.span();
                let role = role.into_inner().role(lease_ms).map_err(|(field, message)| {
                    ScenarioFileError::at(text, Some(span), format!("processes[{id}].roles[{index}]{field}"), message)
                })?;
                roles.push(role);
            }
            processes.push(ProcessSpec {
                clock: ClockSpec {
                    offset_ms: process.clock.offset_ms,
                    drift_ppm: process.clock.drift_ppm,
                    uptime_ms: process.clock.uptime_ms,
                },
                net,
                roles,
                custom: Vec::new(),
                lease_ms: process.lease_ms,
            });
        }
        let mut faults = Vec::with_capacity(self.faults.len());
        for (index, fault) in self.faults.into_iter().enumerate() {
            let span = fault.span();
            let fault = fault.into_inner().fault(n).map_err(|(field, message)| {
                ScenarioFileError::at(text, Some(span), format!("faults[{index}]{field}"), message)
            })?;
            faults.push(fault);
        }
        let mut triggers = Vec::with_capacity(self.triggers.len());
        for (index, trigger) in self.triggers.into_iter().enumerate() {
            let span = trigger.span();
            let trigger = trigger.into_inner().trigger(n).map_err(|(field, message)| {
                ScenarioFileError::at(text, Some(span), format!("triggers[{index}]{field}"), message)
            })?;
            triggers.push(trigger);
        }
        let mut scenario = Scenario {
            seed: self.seed,
            lock: match self.lock {
                FileLock::Library => LockKind::Library,
                FileLock::Naive => LockKind::Naive,
            },
            duration_ms: self.duration_ms,
            safety_ms: 0,
            lease_ms: self.lease_ms,
            processes,
            loss_ppm: self.loss_ppm,
            faults,
            triggers,
        };
        scenario.safety_ms = match self.safety_ms {
            Some(safety_ms) if safety_ms > self.duration_ms => {
                return Err(top(
                    "safety_ms",
                    format!("the safety phase ({safety_ms} ms) is longer than the run ({} ms)", self.duration_ms),
                ));
            }
            Some(safety_ms) => safety_ms,
            None => crate::scenario::safety_ms(scenario.duration_ms, scenario.longest_lease_ms()),
        };
        Ok(scenario)
    }
}

fn in_range(what: &str, value: u64, low: u64, high: u64) -> Result<(), String> {
    if (low..=high).contains(&value) { Ok(()) } else { Err(format!("{what} is {value}, not within {low}..={high}")) }
}

fn lease_in_range(lease_ms: u64) -> Result<(), String> {
    if (1_000..=86_400_000).contains(&lease_ms) {
        Ok(())
    } else {
        Err(format!("a lease lasts from 1000 ms (1 s) to 86400000 ms (a day), not {lease_ms} ms"))
    }
}

/// An error of one field of a table: the field's path below the table, and what is wrong.
type FieldError = (String, String);

/// The fields present in a table of a kind, checked against the ones the kind has.
struct Fields<'a> {
    what: &'a str,
    present: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    fn new(what: &'a str, present: impl IntoIterator<Item = (&'static str, bool)>) -> Self {
        Fields { what, present: present.into_iter().filter(|(_, on)| *on).map(|(name, _)| name).collect() }
    }

    /// An error for the first field present that the kind does not have.
    fn only(&self, allowed: &[&str]) -> Result<(), FieldError> {
        match self.present.iter().find(|name| !allowed.contains(name)) {
            Some(name) => {
                let has = if allowed.is_empty() { String::from("none") } else { allowed.join(", ") };
                Err((format!(".{name}"), format!("{} has no `{name}` (its fields: {has})", self.what)))
            }
            None => Ok(()),
        }
    }
}

/// The value of a field the kind needs.
fn need<T>(what: &str, name: &str, value: Option<T>) -> Result<T, FieldError> {
    value.ok_or_else(|| (format!(".{name}"), format!("{what} needs `{name}`")))
}

/// A pace, which must leave the simulated time room to advance.
fn pace(name: &str, value: u64) -> Result<u64, FieldError> {
    if value < 100 {
        return Err((format!(".{name}"), format!("{name} is {value}, less than 100 ms")));
    }
    Ok(value)
}

fn process_of(name: &str, value: u16, n: usize) -> Result<u16, FieldError> {
    if usize::from(value) >= n {
        return Err((
            format!(".{name}"),
            format!("p{value} is not a process of this scenario, which has p0..p{}", n - 1),
        ));
    }
    Ok(value)
}

fn probability(value: u32) -> Result<u32, FieldError> {
    if value > 1_000_000 {
        return Err((String::from(".per_million"), format!("per_million is {value}, more than 1000000")));
    }
    Ok(value)
}

impl FileRole {
    fn of(role: &Role) -> Self {
        let mut file = FileRole {
            role: RoleName::Leader,
            lock: Some(role.lock().to_owned()),
            write_every_ms: None,
            every_ms_max: None,
            timeout_ms: None,
            writes: None,
            steps: None,
        };
        match role {
            Role::Leader { write_every_ms, .. } => file.write_every_ms = Some(*write_every_ms),
            Role::StoreWriter { every_ms_max, writes, .. } => {
                file.role = RoleName::StoreWriter;
                file.every_ms_max = Some(*every_ms_max);
                file.writes = Some(*writes);
            }
            Role::Job { every_ms_max, timeout_ms, writes, .. } => {
                file.role = RoleName::Job;
                file.every_ms_max = Some(*every_ms_max);
                file.timeout_ms = Some(*timeout_ms);
                file.writes = Some(*writes);
            }
            Role::TryLoop { every_ms_max, .. } => {
                file.role = RoleName::TryLoop;
                file.every_ms_max = Some(*every_ms_max);
            }
            Role::TokenHolder { every_ms_max, steps, .. } => {
                file.role = RoleName::TokenHolder;
                file.every_ms_max = Some(*every_ms_max);
                file.steps = Some(*steps);
            }
        }
        file
    }

    /// The role, with the defaults of its kind for a lease of `lease_ms` where a field is
    /// left out.
    fn role(self, lease_ms: u64) -> Result<Role, FieldError> {
        let what = match self.role {
            RoleName::Leader => "a leader",
            RoleName::StoreWriter => "a store writer",
            RoleName::Job => "a job",
            RoleName::TryLoop => "a try-loop",
            RoleName::TokenHolder => "a token holder",
        };
        let fields = Fields::new(
            what,
            [
                ("write_every_ms", self.write_every_ms.is_some()),
                ("every_ms_max", self.every_ms_max.is_some()),
                ("timeout_ms", self.timeout_ms.is_some()),
                ("writes", self.writes.is_some()),
                ("steps", self.steps.is_some()),
            ],
        );
        let kind = match self.role {
            RoleName::Leader => RoleKind::Leader,
            RoleName::StoreWriter => RoleKind::StoreWriter,
            RoleName::Job => RoleKind::Job,
            RoleName::TryLoop => RoleKind::TryLoop,
            RoleName::TokenHolder => RoleKind::TokenHolder,
        };
        if self.lock.as_deref() == Some("") {
            return Err((String::from(".lock"), String::from("a lock has a name")));
        }
        let role = match (kind.role(lease_ms), self.lock) {
            (Role::Leader { lock, write_every_ms }, name) => {
                fields.only(&["write_every_ms"])?;
                Role::Leader {
                    lock: name.unwrap_or(lock),
                    write_every_ms: pace("write_every_ms", self.write_every_ms.unwrap_or(write_every_ms))?,
                }
            }
            (Role::StoreWriter { lock, every_ms_max, writes }, name) => {
                fields.only(&["every_ms_max", "writes"])?;
                Role::StoreWriter {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                    writes: self.writes.unwrap_or(writes),
                }
            }
            (Role::Job { lock, every_ms_max, timeout_ms, writes }, name) => {
                fields.only(&["every_ms_max", "timeout_ms", "writes"])?;
                Role::Job {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                    timeout_ms: self.timeout_ms.unwrap_or(timeout_ms),
                    writes: self.writes.unwrap_or(writes),
                }
            }
            (Role::TryLoop { lock, every_ms_max }, name) => {
                fields.only(&["every_ms_max"])?;
                Role::TryLoop {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                }
            }
            (Role::TokenHolder { lock, every_ms_max, steps }, name) => {
                fields.only(&["every_ms_max", "steps"])?;
                Role::TokenHolder {
                    lock: name.unwrap_or(lock),
                    every_ms_max: pace("every_ms_max", self.every_ms_max.unwrap_or(every_ms_max))?,
                    steps: self.steps.unwrap_or(steps),
                }
            }
        };
        Ok(role)
    }
}

impl FileProcess {
    fn of(process: &ProcessSpec) -> Self {
        FileProcess {
            lease_ms: process.lease_ms,
            clock: FileClock {
                offset_ms: process.clock.offset_ms,
                drift_ppm: process.clock.drift_ppm,
                uptime_ms: process.clock.uptime_ms,
            },
            net: FileNet { latency_ms_min: process.net.latency_ms_min, latency_ms_max: process.net.latency_ms_max },
            roles: process.roles.iter().map(|r| unspanned(FileRole::of(r))).collect(),
        }
    }
}

impl FileFault {
    fn of(scheduled: &ScheduledFault) -> Self {
        let mut file = FileFault {
            at_ms: scheduled.at_ms,
            kind: FaultName::Crash,
            process: scheduled.fault.process(),
            for_ms: None,
            restart_after_ms: None,
            extra_ms: None,
            per_million: None,
            delta_ms: None,
            lock: None,
        };
        match &scheduled.fault {
            Fault::Crash { restart_after_ms, .. } => file.restart_after_ms = Some(*restart_after_ms),
            Fault::Pause { for_ms, .. } => {
                file.kind = FaultName::Pause;
                file.for_ms = Some(*for_ms);
            }
            Fault::Suspend { for_ms, .. } => {
                file.kind = FaultName::Suspend;
                file.for_ms = Some(*for_ms);
            }
            Fault::Partition { for_ms, .. } => {
                file.kind = FaultName::Partition;
                file.for_ms = Some(*for_ms);
            }
            Fault::Latency { extra_ms, for_ms, .. } => {
                file.kind = FaultName::Latency;
                file.extra_ms = Some(*extra_ms);
                file.for_ms = Some(*for_ms);
            }
            Fault::Throttle { per_million, for_ms, .. } => {
                file.kind = FaultName::Throttle;
                file.per_million = Some(*per_million);
                file.for_ms = Some(*for_ms);
            }
            Fault::TableOutage { for_ms } => {
                file.kind = FaultName::TableOutage;
                file.for_ms = Some(*for_ms);
            }
            Fault::DeleteItem { lock } => {
                file.kind = FaultName::DeleteItem;
                file.lock = Some(lock.clone());
            }
            Fault::ClockStep { delta_ms, .. } => {
                file.kind = FaultName::ClockStep;
                file.delta_ms = Some(*delta_ms);
            }
        }
        file
    }

    fn fault(self, n: usize) -> Result<ScheduledFault, FieldError> {
        let (what, allowed): (&str, &[&str]) = match self.kind {
            FaultName::Crash => ("a crash", &["process", "restart_after_ms"]),
            FaultName::Pause => ("a pause", &["process", "for_ms"]),
            FaultName::Suspend => ("a suspension", &["process", "for_ms"]),
            FaultName::Partition => ("a partition", &["process", "for_ms"]),
            FaultName::Latency => ("a latency spike", &["process", "extra_ms", "for_ms"]),
            FaultName::Throttle => ("a throttling burst", &["process", "per_million", "for_ms"]),
            FaultName::TableOutage => ("a table outage", &["for_ms"]),
            FaultName::DeleteItem => ("a deletion", &["lock"]),
            FaultName::ClockStep => ("a clock step", &["process", "delta_ms"]),
        };
        let fields = Fields::new(
            what,
            [
                ("process", self.process.is_some()),
                ("for_ms", self.for_ms.is_some()),
                ("restart_after_ms", self.restart_after_ms.is_some()),
                ("extra_ms", self.extra_ms.is_some()),
                ("per_million", self.per_million.is_some()),
                ("delta_ms", self.delta_ms.is_some()),
                ("lock", self.lock.is_some()),
            ],
        );
        fields.only(allowed)?;
        let process = || need(what, "process", self.process).and_then(|p| process_of("process", p, n));
        let for_ms = || need(what, "for_ms", self.for_ms);
        let fault = match self.kind {
            FaultName::Crash => Fault::Crash {
                process: process()?,
                restart_after_ms: need(what, "restart_after_ms", self.restart_after_ms)?,
            },
            FaultName::Pause => Fault::Pause { process: process()?, for_ms: for_ms()? },
            FaultName::Suspend => Fault::Suspend { process: process()?, for_ms: for_ms()? },
            FaultName::Partition => Fault::Partition { process: process()?, for_ms: for_ms()? },
            FaultName::Latency => Fault::Latency {
                process: process()?,
                extra_ms: need(what, "extra_ms", self.extra_ms)?,
                for_ms: for_ms()?,
            },
            FaultName::Throttle => Fault::Throttle {
                process: self.process.map(|p| process_of("process", p, n)).transpose()?,
                per_million: probability(need(what, "per_million", self.per_million)?)?,
                for_ms: for_ms()?,
            },
            FaultName::TableOutage => Fault::TableOutage { for_ms: for_ms()? },
            FaultName::DeleteItem => Fault::DeleteItem { lock: need(what, "lock", self.lock)? },
            FaultName::ClockStep => {
                Fault::ClockStep { process: process()?, delta_ms: need(what, "delta_ms", self.delta_ms)? }
            }
        };
        Ok(ScheduledFault { at_ms: self.at_ms, fault })
    }
}

impl FileTrigger {
    fn of(trigger: &Trigger) -> Self {
        let mut file = FileTrigger {
            after_ms: trigger.after_ms,
            process: trigger.process,
            lock: trigger.lock.clone(),
            moment: match trigger.moment {
                Moment::LockWriteSent => MomentName::LockWriteSent,
                Moment::Granted => MomentName::Granted,
                Moment::Renewed => MomentName::Renewed,
                Moment::RenewalAnswered => MomentName::RenewalAnswered,
                Moment::Waiting => MomentName::Waiting,
            },
            reaction: ReactionName::Pause,
            for_ms: None,
            restart_after_ms: None,
            per_million: None,
            delta_ms: None,
            extra_ms: None,
            min_ms: None,
            lead_ms: None,
            suspend: None,
        };
        match &trigger.reaction {
            Reaction::Pause { for_ms } => file.for_ms = Some(*for_ms),
            Reaction::Suspend { for_ms } => {
                file.reaction = ReactionName::Suspend;
                file.for_ms = Some(*for_ms);
            }
            Reaction::Crash { restart_after_ms } => {
                file.reaction = ReactionName::Crash;
                file.restart_after_ms = Some(*restart_after_ms);
            }
            Reaction::Partition { for_ms } => {
                file.reaction = ReactionName::Partition;
                file.for_ms = Some(*for_ms);
            }
            Reaction::Throttle { per_million, for_ms } => {
                file.reaction = ReactionName::Throttle;
                file.per_million = Some(*per_million);
                file.for_ms = Some(*for_ms);
            }
            Reaction::ClockStep { delta_ms } => {
                file.reaction = ReactionName::ClockStep;
                file.delta_ms = Some(*delta_ms);
            }
            Reaction::DelayAnswer { extra_ms } => {
                file.reaction = ReactionName::DelayAnswer;
                file.extra_ms = Some(*extra_ms);
            }
            Reaction::LoseAnswer => file.reaction = ReactionName::LoseAnswer,
            Reaction::DelayRequest { extra_ms } => {
                file.reaction = ReactionName::DelayRequest;
                file.extra_ms = Some(*extra_ms);
            }
            Reaction::HoldUntilRead { min_ms } => {
                file.reaction = ReactionName::HoldUntilRead;
                file.min_ms = Some(*min_ms);
            }
            Reaction::HoldUntilTakeover => file.reaction = ReactionName::HoldUntilTakeover,
            Reaction::DeleteItem => file.reaction = ReactionName::DeleteItem,
            Reaction::StopUntilTakeover { lead_ms, suspend } => {
                file.reaction = ReactionName::StopUntilTakeover;
                file.lead_ms = Some(*lead_ms);
                file.suspend = Some(*suspend);
            }
        }
        file
    }

    fn trigger(self, n: usize) -> Result<Trigger, FieldError> {
        let (what, allowed): (&str, &[&str]) = match self.reaction {
            ReactionName::Pause => ("a pause", &["for_ms"]),
            ReactionName::Suspend => ("a suspension", &["for_ms"]),
            ReactionName::Crash => ("a crash", &["restart_after_ms"]),
            ReactionName::Partition => ("a partition", &["for_ms"]),
            ReactionName::Throttle => ("a throttling burst", &["per_million", "for_ms"]),
            ReactionName::ClockStep => ("a clock step", &["delta_ms"]),
            ReactionName::DelayAnswer => ("a delayed answer", &["extra_ms"]),
            ReactionName::LoseAnswer => ("a lost answer", &[]),
            ReactionName::DelayRequest => ("a delayed request", &["extra_ms"]),
            ReactionName::HoldUntilRead => ("a write held until a read", &["min_ms"]),
            ReactionName::HoldUntilTakeover => ("a write held until a takeover", &[]),
            ReactionName::DeleteItem => ("a deletion", &[]),
            ReactionName::StopUntilTakeover => ("a stop until the takeover", &["lead_ms", "suspend"]),
        };
        let fields = Fields::new(
            what,
            [
                ("for_ms", self.for_ms.is_some()),
                ("restart_after_ms", self.restart_after_ms.is_some()),
                ("per_million", self.per_million.is_some()),
                ("delta_ms", self.delta_ms.is_some()),
                ("extra_ms", self.extra_ms.is_some()),
                ("min_ms", self.min_ms.is_some()),
                ("lead_ms", self.lead_ms.is_some()),
                ("suspend", self.suspend.is_some()),
            ],
        );
        fields.only(allowed)?;
        if let Some(process) = self.process {
            process_of("process", process, n)?;
        }
        let for_ms = || need(what, "for_ms", self.for_ms);
        let reaction = match self.reaction {
            ReactionName::Pause => Reaction::Pause { for_ms: for_ms()? },
            ReactionName::Suspend => Reaction::Suspend { for_ms: for_ms()? },
            ReactionName::Crash => {
                Reaction::Crash { restart_after_ms: need(what, "restart_after_ms", self.restart_after_ms)? }
            }
            ReactionName::Partition => Reaction::Partition { for_ms: for_ms()? },
            ReactionName::Throttle => Reaction::Throttle {
                per_million: probability(need(what, "per_million", self.per_million)?)?,
                for_ms: for_ms()?,
            },
            ReactionName::ClockStep => Reaction::ClockStep { delta_ms: need(what, "delta_ms", self.delta_ms)? },
            ReactionName::DelayAnswer => Reaction::DelayAnswer { extra_ms: need(what, "extra_ms", self.extra_ms)? },
            ReactionName::LoseAnswer => Reaction::LoseAnswer,
            ReactionName::DelayRequest => Reaction::DelayRequest { extra_ms: need(what, "extra_ms", self.extra_ms)? },
            ReactionName::HoldUntilRead => Reaction::HoldUntilRead { min_ms: need(what, "min_ms", self.min_ms)? },
            ReactionName::HoldUntilTakeover => Reaction::HoldUntilTakeover,
            ReactionName::DeleteItem => Reaction::DeleteItem,
            ReactionName::StopUntilTakeover => Reaction::StopUntilTakeover {
                lead_ms: self.lead_ms.unwrap_or(0),
                suspend: self.suspend.unwrap_or(false),
            },
        };
        let moment = match self.moment {
            MomentName::LockWriteSent => Moment::LockWriteSent,
            MomentName::Granted => Moment::Granted,
            MomentName::Renewed => Moment::Renewed,
            MomentName::RenewalAnswered => Moment::RenewalAnswered,
            MomentName::Waiting => Moment::Waiting,
        };
        Ok(Trigger { after_ms: self.after_ms, process: self.process, lock: self.lock, moment, reaction })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Config;

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
