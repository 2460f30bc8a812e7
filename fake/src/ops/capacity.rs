//! `ConsumedCapacity` in answers, when a request asks for it with `ReturnConsumedCapacity`.

use serde_json::json;

use crate::json::{Answer, Json};

use crate::request::choice;

/// Whole write units for an item of `bytes`: one per started KB, at least one.
pub(crate) fn write_units(bytes: usize) -> u64 {
    bytes.div_ceil(1024).max(1) as u64
}

/// Whole strongly consistent read units for an item of `bytes`: one per started 4 KB, at least one.
pub(crate) fn read_units(bytes: usize) -> u64 {
    bytes.div_ceil(4096).max(1) as u64
}

/// Capacity units in halves, so that eventually consistent reads need no floating point.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Halves(pub(crate) u64);

impl Halves {
    /// Write units for an item of `bytes`: one per started KB, at least one.
    pub(crate) fn write(bytes: usize) -> Halves {
        Halves(2 * write_units(bytes))
    }

    /// Read units for `bytes`: one per started 4 KB, halved for eventually consistent reads.
    pub(crate) fn read(bytes: usize, consistent: bool) -> Halves {
        let units = read_units(bytes);
        Halves(if consistent { 2 * units } else { units })
    }

    /// Read units for the `bytes` of a whole Query or Scan page: one per started 4 KB, none for
    /// nothing read, halved for eventually consistent reads.
    pub(crate) fn read_total(bytes: usize, consistent: bool) -> Halves {
        let units = bytes.div_ceil(4096) as u64;
        Halves(if consistent { 2 * units } else { units })
    }

    /// The sum of two amounts.
    pub(crate) fn plus(self, other: Halves) -> Halves {
        Halves(self.0 + other.0)
    }

    fn to_json(self) -> Answer {
        if self.0 % 2 == 0 {
            json!(self.0 / 2)
        } else {
            json!(format!("{}.5", self.0 / 2).parse::<f64>().unwrap_or(0.5))
        }
    }
}

/// The `ConsumedCapacity` entry of one table, if the request asked for it.
pub(crate) fn describe(body: &Json<'_>, table: &str, units: Halves) -> Option<Answer> {
    match choice(body, "ReturnConsumedCapacity", "NONE") {
        "TOTAL" => Some(json!({"TableName": table, "CapacityUnits": units.to_json()})),
        "INDEXES" => Some(
            json!({"TableName": table, "CapacityUnits": units.to_json(), "Table": {"CapacityUnits": units.to_json()}}),
        ),
        _ => None,
    }
}

/// The `ConsumedCapacity` of a read of a table or one of its indexes, if the request asked for
/// it: the total, and with `INDEXES` the table's share and the index's.
pub(crate) fn describe_read(
    body: &Json<'_>,
    table: &str,
    table_units: Halves,
    index: Option<(&str, bool, Halves)>,
) -> Option<Answer> {
    let total = index.map_or(table_units, |(_, _, units)| table_units.plus(units));
    match choice(body, "ReturnConsumedCapacity", "NONE") {
        "TOTAL" => Some(json!({"TableName": table, "CapacityUnits": total.to_json()})),
        "INDEXES" => {
            let mut out = json!({"TableName": table, "CapacityUnits": total.to_json(), "Table": {"CapacityUnits": table_units.to_json()}});
            if let Some((name, global, units)) = index {
                let member = if global { "GlobalSecondaryIndexes" } else { "LocalSecondaryIndexes" };
                out[member] = json!({ name: {"CapacityUnits": units.to_json()} });
            }
            Some(out)
        }
        _ => None,
    }
}
