//! `ConsumedCapacity` in answers, when a request asks for it with `ReturnConsumedCapacity`.

use serde_json::{Map, json};

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

/// How much a request asked to be told with `ReturnConsumedCapacity`; `None` for nothing.
pub(crate) fn asked(body: &Json<'_>) -> Option<Detail> {
    match choice(body, "ReturnConsumedCapacity", "NONE") {
        "TOTAL" => Some(Detail::Total),
        "INDEXES" => Some(Detail::Indexes),
        _ => None,
    }
}

/// `TOTAL`: each table's sum. `INDEXES`: also the table's own share and each index's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    Total,
    Indexes,
}

/// What one operation consumed on one table and its indexes: the single `ConsumedCapacity`
/// entry that every operation answers in the same shape.
#[derive(Debug, Clone)]
pub(crate) struct Consumed<'a> {
    table: &'a str,
    units: Halves,
    /// Read and write shares, which transactions report apart.
    shares: Option<(Halves, Halves)>,
    /// (index, is global, units), in the order they were added.
    indexes: Vec<(&'a str, bool, Halves)>,
}

impl<'a> Consumed<'a> {
    /// `units` spent on `table` itself.
    pub(crate) fn table(table: &'a str, units: Halves) -> Self {
        Consumed { table, units, shares: None, indexes: Vec::new() }
    }

    /// Read and write units spent on `table`, reported apart as a transaction does.
    pub(crate) fn shares(table: &'a str, read: Halves, write: Halves) -> Self {
        Consumed { table, units: read.plus(write), shares: Some((read, write)), indexes: Vec::new() }
    }

    /// Adds `units` spent on an index of the table.
    pub(crate) fn index(&mut self, name: &'a str, global: bool, units: Halves) {
        self.indexes.push((name, global, units));
    }

    /// The entry as DynamoDB writes it: `TableName` and the whole sum, then with
    /// [`Detail::Indexes`] the table's own units and those of each index that paid.
    pub(crate) fn describe(&self, detail: Detail) -> Answer {
        let total = self.indexes.iter().fold(self.units, |sum, (_, _, units)| sum.plus(*units));
        let mut out = Map::new();
        out.insert("TableName".to_owned(), json!(self.table));
        out.insert("CapacityUnits".to_owned(), total.to_json());
        self.insert_shares(&mut out);
        if detail == Detail::Indexes {
            let mut own = Map::new();
            own.insert("CapacityUnits".to_owned(), self.units.to_json());
            self.insert_shares(&mut own);
            out.insert("Table".to_owned(), Answer::Object(own));
            for (member, global) in [("GlobalSecondaryIndexes", true), ("LocalSecondaryIndexes", false)] {
                let indexes: Map<String, Answer> = self
                    .indexes
                    .iter()
                    .filter(|(_, is_global, _)| *is_global == global)
                    .map(|(name, _, units)| ((*name).to_owned(), json!({"CapacityUnits": units.to_json()})))
                    .collect();
                if !indexes.is_empty() {
                    out.insert(member.to_owned(), Answer::Object(indexes));
                }
            }
        }
        Answer::Object(out)
    }

    fn insert_shares(&self, out: &mut Map<String, Answer>) {
        if let Some((read, write)) = self.shares {
            if read.0 > 0 {
                out.insert("ReadCapacityUnits".to_owned(), read.to_json());
            }
            if write.0 > 0 {
                out.insert("WriteCapacityUnits".to_owned(), write.to_json());
            }
        }
    }
}

/// The `ConsumedCapacity` entry of a table that has only its own units, if the request asked.
pub(crate) fn describe(body: &Json<'_>, table: &str, units: Halves) -> Option<Answer> {
    asked(body).map(|detail| Consumed::table(table, units).describe(detail))
}
