//! What a regional table knows of the global table it belongs to: the other replicas, in the
//! order they joined as this region saw it, and their states, as DescribeTable shows them.

use std::time::SystemTime;

use serde_json::{Map, json};

use crate::json::Answer;

/// The version of global tables the fake serves.
pub(crate) const GLOBAL_TABLE_VERSION: &str = "2019.11.21";

/// A regional table's view of its global table.
#[derive(Debug, Clone, Default)]
pub(crate) struct Membership {
    /// The other replicas, in the order they joined.
    pub(crate) replicas: Vec<ReplicaEntry>,
}

/// One other replica of a global table.
#[derive(Debug, Clone)]
pub(crate) struct ReplicaEntry {
    pub(crate) region: String,
    /// When it is (or was) created: CREATING until then, ACTIVE from then on.
    pub(crate) active_from: SystemTime,
    /// Whether it is still being created, as last brought up to date.
    pub(crate) creating: bool,
    /// Its table class, when one was set for it.
    pub(crate) table_class: Option<String>,
}

impl Membership {
    /// The entry of `region`, if it is a replica.
    pub(crate) fn entry(&self, region: &str) -> Option<&ReplicaEntry> {
        self.replicas.iter().find(|entry| entry.region == region)
    }

    /// Brings the states up to `now`: a replica created by then is ACTIVE.
    pub(crate) fn maintain(&mut self, now: SystemTime) {
        for entry in &mut self.replicas {
            entry.creating = now < entry.active_from;
        }
    }

    /// DescribeTable's `Replicas`.
    pub(crate) fn describe(&self) -> Answer {
        let replicas = self
            .replicas
            .iter()
            .map(|entry| {
                let mut out = Map::new();
                out.insert("RegionName".into(), json!(entry.region));
                out.insert("ReplicaStatus".into(), json!(if entry.creating { "CREATING" } else { "ACTIVE" }));
                if let Some(class) = &entry.table_class {
                    out.insert("ReplicaTableClassSummary".into(), json!({"TableClass": class}));
                }
                Answer::Object(out)
            })
            .collect();
        Answer::Array(replicas)
    }
}
