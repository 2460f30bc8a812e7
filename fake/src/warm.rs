//! Warm throughput: the read and write units per second a table or a global secondary index can
//! serve at once.
//!
//! Every on-demand table and index starts at 12,000 reads and 4,000 writes a second; a
//! provisioned one at its provisioned units. Warm throughput follows the highest throughput a
//! table has had (raising the provisioned units, or turning on-demand, raises it) and a request
//! may raise it further with `WarmThroughput`, a unit it leaves out keeping its value. It is
//! never lowered: a request for less than the current value is refused.

use serde_json::json;

use crate::error::DynamoError;
use crate::json::{Answer, Json};

/// The read and write units per second of a warm throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Warm {
    pub(crate) read: i64,
    pub(crate) write: i64,
}

/// Where every on-demand table and index starts.
pub(crate) const ON_DEMAND: Warm = Warm { read: 12_000, write: 4_000 };

impl Warm {
    /// The warm throughput of a new table or index: its provisioned units, or on demand.
    pub(crate) fn initial(provisioned: Option<(i64, i64)>) -> Warm {
        provisioned.map_or(ON_DEMAND, |(read, write)| Warm { read, write })
    }

    /// Each unit at the larger of the two.
    pub(crate) fn max(self, other: Warm) -> Warm {
        Warm { read: self.read.max(other.read), write: self.write.max(other.write) }
    }

    /// The units a `WarmThroughput` member asks for, each `None` where it is left out.
    fn requested(json: &Json<'_>) -> [(&'static str, Option<i64>); 2] {
        let unit = |name: &str| match json.get(name) {
            Some(Json::Number(n)) => n.as_i64(),
            _ => None,
        };
        [("ReadUnitsPerSecond", unit("ReadUnitsPerSecond")), ("WriteUnitsPerSecond", unit("WriteUnitsPerSecond"))]
    }

    fn with(self, requested: [(&'static str, Option<i64>); 2]) -> Warm {
        let [(_, read), (_, write)] = requested;
        Warm { read: read.unwrap_or(self.read), write: write.unwrap_or(self.write) }
    }

    /// The first unit of `requested` below this warm throughput: its position (read 0, write 1)
    /// and its name.
    fn first_below(self, requested: &[(&'static str, Option<i64>); 2]) -> Option<(usize, &'static str)> {
        let floors = [self.read, self.write];
        (0..2).find(|&at| requested[at].1.is_some_and(|asked| asked < floors[at])).map(|at| (at, requested[at].0))
    }

    /// The warm throughput a CreateTable asks for (`json`) for a new table or index that starts
    /// at `self`: not below its provisioned units, nor below the on-demand start. `whose` is
    /// `table` or `index NAME`, as DynamoDB's messages say.
    pub(crate) fn created(self, json: &Json<'_>, provisioned: bool, whose: &str) -> Result<Warm, DynamoError> {
        let requested = Warm::requested(json);
        if let Some((at, unit)) = self.first_below(&requested) {
            let below = if provisioned {
                format!("{} of ProvisionedThroughput", ["ReadCapacityUnits", "WriteCapacityUnits"][at])
            } else {
                "initial throughput for OnDemand.".to_owned()
            };
            return Err(DynamoError::invalid_parameter(format!(
                "Requested {unit} for WarmThroughput for {whose} is lower than {below}"
            )));
        }
        Ok(self.with(requested))
    }

    /// The warm throughput an UpdateTable asks for (`json`) of a table or index at `self`; a unit
    /// below the current one is refused.
    pub(crate) fn raised(self, json: &Json<'_>, whose: &str) -> Result<Warm, DynamoError> {
        let requested = Warm::requested(json);
        if let Some((_, unit)) = self.first_below(&requested) {
            return Err(DynamoError::invalid_parameter(format!(
                "Requested {unit} for WarmThroughput for {whose} is lower than current WarmThroughput, \
                 decreasing WarmThroughput is not supported"
            )));
        }
        Ok(self.with(requested))
    }

    /// The `WarmThroughput` of a description: `UPDATING` in the answer to the request that raised
    /// it, `ACTIVE` otherwise (the fake applies a raise at once).
    pub(crate) fn describe(self, status: &str) -> Answer {
        json!({"ReadUnitsPerSecond": self.read, "WriteUnitsPerSecond": self.write, "Status": status})
    }
}
