//! The file's own types: what serde reads and writes, field by field, before it is checked
//! ([`super::read`]) or after it is made from a scenario ([`super::write`]).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use toml::Spanned;

pub(super) use crate::nemesis::{Moment, OutageKind, ReactionKind};
use crate::net::NetSpec;

/// A seed: an integer where TOML can hold it (up to 2^63 - 1), else a string of digits.
pub(super) mod seed {
    use super::{Deserializer, Serializer, fmt};

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

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileScenario {
    pub(super) service: String,
    #[serde(default, with = "seed")]
    pub(super) seed: u64,
    pub(super) duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) safety_ms: Option<u64>,
    #[serde(default)]
    pub(super) loss_ppm: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) options: Option<Spanned<toml::Table>>,
    pub(super) processes: Vec<Spanned<FileProcess>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) faults: Vec<Spanned<FileFault>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) triggers: Vec<Spanned<FileTrigger>>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileProcess {
    #[serde(default)]
    pub(super) clock: FileClock,
    #[serde(default)]
    pub(super) net: FileNet,
    #[serde(default)]
    pub(super) kinds: Vec<Spanned<toml::Value>>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileClock {
    #[serde(default)]
    pub(super) offset_ms: i64,
    #[serde(default)]
    pub(super) drift_ppm: i32,
    #[serde(default)]
    pub(super) uptime_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileNet {
    #[serde(default = "latency_min")]
    pub(super) latency_ms_min: u64,
    #[serde(default = "latency_max")]
    pub(super) latency_ms_max: u64,
}

pub(super) fn latency_min() -> u64 {
    NetSpec::default().latency_ms_min
}

pub(super) fn latency_max() -> u64 {
    NetSpec::default().latency_ms_max
}

impl Default for FileNet {
    fn default() -> Self {
        FileNet { latency_ms_min: latency_min(), latency_ms_max: latency_max() }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum FaultName {
    Crash,
    Pause,
    Suspend,
    Partition,
    Latency,
    Throttle,
    PartialBatches,
    TableOutage,
    DeleteItem,
    ReplaceItem,
    ClockStep,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileFault {
    pub(super) at_ms: u64,
    pub(super) kind: FaultName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) process: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) for_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) restart_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) extra_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) per_million: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) delta_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) table: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) item: Option<String>,
}

/// Whom the stop after an overtaken message stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum WhomName {
    Overtaker,
    Sender,
}

/// How the stop after an overtaken message stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum StopName {
    Pause,
    Suspend,
    Crash,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileTrigger {
    #[serde(default)]
    pub(super) after_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) process: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) item: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) label: Option<String>,
    pub(super) moment: Moment,
    pub(super) reaction: ReactionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) outage: Option<OutageKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) for_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) restart_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) per_million: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) delta_ms: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) extra_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) min_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) lead_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) by: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) writes: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) stop: Option<WhomName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) then: Option<StopName>,
}

/// A span that no text has: for the values a scenario is written from.
pub(super) fn unspanned<T>(value: T) -> Spanned<T> {
    Spanned::new(0..0, value)
}
