//! What the SQL stores share: the lock table's columns, its statements, the check of a table
//! name, and the decoding of a row.
//!
//! A lock is one row of a table that the store creates on first use:
//!
//! | Column       | Holds                                                                  |
//! |--------------|------------------------------------------------------------------------|
//! | `name`       | The name of the lock, the primary key                                  |
//! | `owner`      | The id of the lease that holds it; `NULL` while it is free             |
//! | `rvn`        | The record version, new on every acquire and renewal                   |
//! | `fence`      | The fencing token, raised by one on every acquire                      |
//! | `lease_ms`   | The lease duration in milliseconds; `NULL` while the lock is free      |
//! | `holder`     | The holder label; `NULL` while the lock is free or its holder has none |
//! | `expires_at` | With a time to live in the options: seconds since the epoch after which nobody wrote the row for the retention |
//!
//! Every acquire, renewal and release is one conditional statement, with the conditions of the
//! DynamoDB store: an acquire of a free lock is an `INSERT ... ON CONFLICT (name) DO UPDATE ...
//! WHERE owner IS NULL OR owner = ?`, a takeover an `UPDATE ... WHERE rvn = ? OR owner = ?`, a
//! renewal and a release an `UPDATE ... WHERE owner = ?`. No clock of the database is read.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Holder, LockView};
use crate::error::Error;
use crate::invalid::InvalidOption;
use crate::item_mismatch::ItemMismatch;
use crate::lock_table::{MAX_LEASE, MIN_LEASE};
use crate::table_check::TableMismatch;

/// The table a SQL store uses when none is named.
pub(crate) const DEFAULT_TABLE: &str = "dynalease_locks";

/// The rows one page of a listing reads at most.
pub(crate) const LIST_PAGE_ROWS: usize = 500;

/// The longest table name: PostgreSQL keeps 63 bytes of an identifier.
const MAX_TABLE_NAME_BYTES: usize = 63;

/// Whether a column holds text or a whole number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColumnType {
    Text,
    Integer,
}

/// The columns of a lock table, in the order of [`Statements::read`] and of the table's
/// definition. `name` is the primary key.
pub(crate) const COLUMNS: [(&str, ColumnType); 7] = [
    ("name", ColumnType::Text),
    ("owner", ColumnType::Text),
    ("rvn", ColumnType::Text),
    ("fence", ColumnType::Integer),
    ("lease_ms", ColumnType::Integer),
    ("holder", ColumnType::Text),
    ("expires_at", ColumnType::Integer),
];

/// Checks a table name: a plain SQL identifier, so that it needs no escaping beyond quotes and
/// means the same table to every process.
pub(crate) fn check_table_name(table: &str) -> Result<(), Error> {
    let mut chars = table.chars();
    let plain = match chars.next() {
        None => return Err(Error::InvalidOptions { reason: InvalidOption::EmptyTableName }),
        Some(first) => first.is_ascii_alphabetic() || first == '_',
    };
    if !plain || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') || table.len() > MAX_TABLE_NAME_BYTES {
        return Err(Error::InvalidOptions { reason: InvalidOption::TableName { name: table.to_owned() } });
    }
    Ok(())
}

/// The statements of one lock table. Parameters, by number: 1 the lock's name, 2 the owner,
/// 3 the record version, 4 the lease in milliseconds, 5 the holder label, 6 the expiry, and 7
/// the record version an acquire expects.
#[derive(Clone, Debug)]
pub(crate) struct Statements {
    pub(crate) create: String,
    pub(crate) read: String,
    /// One page of the rows after the name in parameter 1, in the order of their names.
    pub(crate) list: String,
    pub(crate) acquire_free: String,
    pub(crate) acquire_version: String,
    pub(crate) renew: String,
    pub(crate) release: String,
    pub(crate) check_held: String,
    #[cfg(feature = "testing")]
    pub(crate) force_hold: String,
    #[cfg(feature = "testing")]
    pub(crate) force_release: String,
    #[cfg(feature = "testing")]
    pub(crate) force_delete: String,
}

impl Statements {
    /// The statements on `table` (checked with [`check_table_name`]), with `integer` as the
    /// type of the whole-number columns and `placeholder` before each parameter number.
    /// `fence_is_valid` is a condition on `{table}.fence`, with `{t}` for the quoted table,
    /// that an acquire of a free lock requires, so that a row whose fence no lock wrote is
    /// refused (and then read as not a lock) instead of overwritten. `name_is_text` is a
    /// condition that a listing puts on the names of the rows it reads.
    pub(crate) fn new(table: &str, integer: &str, placeholder: char, fence_is_valid: &str, name_is_text: &str) -> Self {
        let t = format!("\"{table}\"");
        let fence_is_valid = fence_is_valid.replace("{t}", &t);
        let p = |sql: String| sql.replace('?', &placeholder.to_string());
        let upsert = format!(
            "INSERT INTO {t} (name, owner, rvn, fence, lease_ms, holder, expires_at) VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6) \
             ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, rvn = excluded.rvn, \
             fence = COALESCE({t}.fence, 0) + 1, lease_ms = excluded.lease_ms, holder = excluded.holder, \
             expires_at = excluded.expires_at"
        );
        Self {
            create: format!(
                "CREATE TABLE IF NOT EXISTS {t} (name TEXT PRIMARY KEY NOT NULL, owner TEXT, rvn TEXT, \
                 fence {integer}, lease_ms {integer}, holder TEXT, expires_at {integer})"
            ),
            read: p(format!("SELECT owner, rvn, fence, lease_ms, holder FROM {t} WHERE name = ?1")),
            list: p(format!(
                "SELECT name, owner, rvn, fence, lease_ms, holder FROM {t} \
                 WHERE {name_is_text} AND name > ?1 ORDER BY name LIMIT {LIST_PAGE_ROWS}"
            )),
            // `OR owner = ?2`: a retry of this very write, after its answer was lost, finds its
            // own owner and succeeds again.
            acquire_free: p(format!(
                "{upsert} WHERE ({t}.owner IS NULL AND {fence_is_valid}) OR {t}.owner = ?2 RETURNING fence"
            )),
            acquire_version: p(format!(
                "UPDATE {t} SET owner = ?2, rvn = ?3, fence = COALESCE(fence, 0) + 1, lease_ms = ?4, holder = ?5, \
                 expires_at = ?6 WHERE name = ?1 AND (rvn = ?7 OR owner = ?2) RETURNING fence"
            )),
            // A lease of `NULL` keeps the one the row has.
            renew: p(format!(
                "UPDATE {t} SET rvn = ?3, lease_ms = COALESCE(?4, lease_ms), holder = ?5, expires_at = ?6 \
                 WHERE name = ?1 AND owner = ?2 RETURNING lease_ms"
            )),
            release: p(format!(
                "UPDATE {t} SET owner = NULL, lease_ms = NULL, holder = NULL, expires_at = ?3 \
                 WHERE name = ?1 AND owner = ?2"
            )),
            check_held: p(format!("SELECT 1 FROM {t} WHERE name = ?1 AND owner = ?2 AND fence = ?3")),
            #[cfg(feature = "testing")]
            force_hold: p(format!("{upsert} RETURNING fence")),
            #[cfg(feature = "testing")]
            force_release: p(format!("UPDATE {t} SET owner = NULL, lease_ms = NULL, holder = NULL WHERE name = ?1")),
            #[cfg(feature = "testing")]
            force_delete: p(format!("DELETE FROM {t} WHERE name = ?1")),
        }
    }
}

/// A row as read, before it is known to be a lock.
#[derive(Clone, Debug, Default)]
pub(crate) struct Row {
    pub(crate) owner: Option<String>,
    pub(crate) rvn: Option<String>,
    pub(crate) fence: Option<i64>,
    pub(crate) lease_ms: Option<i64>,
    pub(crate) holder: Option<String>,
}

impl Row {
    /// The lock the row holds, or why it is not one: the rules of the DynamoDB store's items.
    pub(crate) fn decode(self) -> Result<LockView, ItemMismatch> {
        let fence = match self.fence {
            Some(fence) => Some(u64::try_from(fence).map_err(|_| ItemMismatch::NegativeFence { value: fence })?),
            None => None,
        };
        let Some(owner) = self.owner else {
            return Ok(LockView::Free { fence: fence.unwrap_or(0) });
        };
        let missing: Vec<&'static str> =
            [("rvn", self.rvn.is_none()), ("fence", fence.is_none()), ("lease_ms", self.lease_ms.is_none())]
                .into_iter()
                .filter_map(|(column, absent)| absent.then_some(column))
                .collect();
        let (Some(rvn), Some(fence), Some(lease_ms)) = (self.rvn, fence, self.lease_ms) else {
            return Err(ItemMismatch::Missing { attributes: missing });
        };
        let lease = u64::try_from(lease_ms).map(Duration::from_millis).unwrap_or(Duration::ZERO);
        if !(MIN_LEASE..=MAX_LEASE).contains(&lease) {
            return Err(ItemMismatch::LeaseOutOfRange { attribute: "lease_ms", value: lease_ms.to_string() });
        }
        Ok(LockView::Held(Holder { owner, rvn, fence, lease, label: self.holder }))
    }
}

/// The error for a row at the lock's name that is not a lock.
pub(crate) fn not_a_lock(lock: &str, table: &str, reason: ItemMismatch) -> Error {
    Error::NotALock { lock: lock.to_owned(), table: table.to_owned(), reason }
}

/// The outcome of a renewal that a row of `lock` in `table` took, from the lease the row then
/// has.
pub(crate) fn renewed(lock: &str, table: &str, lease_ms: Option<i64>) -> Result<super::RenewOutcome, Error> {
    let lease = lease_ms.and_then(|ms| u64::try_from(ms).ok()).map(Duration::from_millis);
    match lease {
        Some(lease) if (MIN_LEASE..=MAX_LEASE).contains(&lease) => Ok(super::RenewOutcome::Renewed { lease }),
        _ => {
            let value = lease_ms.map_or(String::from("NULL"), |ms| ms.to_string());
            Err(not_a_lock(lock, table, ItemMismatch::LeaseOutOfRange { attribute: "lease_ms", value }))
        }
    }
}

/// The expiry a write sets: the wall clock plus the retention, in seconds since the epoch, or
/// `None` without a time to live.
pub(crate) fn expiry(wall: SystemTime, retention: Option<Duration>) -> Option<i64> {
    let due = wall + retention?;
    let seconds = due.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs();
    Some(i64::try_from(seconds).unwrap_or(i64::MAX))
}

/// A lease duration in milliseconds, as a column holds it. Leases are at most a day long.
pub(crate) fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

/// Why a table's columns are not those of a lock table, from what the database says of each
/// column: its name, its type, whether it is in the primary key, and whether it must hold a
/// value that the locks never write (`NOT NULL` without a default). `None` when they fit.
pub(crate) fn schema_mismatch(columns: &[ColumnInfo]) -> Option<TableMismatch> {
    for (name, kind) in COLUMNS {
        let Some(column) = columns.iter().find(|c| c.name == name) else {
            return Some(TableMismatch::MissingColumn { column: name });
        };
        if column.kind != Some(kind) {
            let expected = match kind {
                ColumnType::Text => "text",
                ColumnType::Integer => "a 64-bit integer",
            };
            return Some(TableMismatch::ColumnType { column: name, found: column.declared.clone(), expected });
        }
    }
    let key: Vec<String> = columns.iter().filter(|c| c.primary_key).map(|c| c.name.clone()).collect();
    if key != ["name"] {
        return Some(TableMismatch::PrimaryKey { found: key });
    }
    if let Some(column) = columns.iter().find(|c| c.required && !COLUMNS.iter().any(|(name, _)| *name == c.name)) {
        return Some(TableMismatch::RequiredColumn { column: column.name.clone() });
    }
    None
}

/// What a database says of one column of a table, for [`schema_mismatch`].
#[derive(Clone, Debug)]
pub(crate) struct ColumnInfo {
    pub(crate) name: String,
    /// The type as the database names it.
    pub(crate) declared: String,
    /// The type as the locks read it, if they can.
    pub(crate) kind: Option<ColumnType>,
    pub(crate) primary_key: bool,
    /// `NOT NULL` without a default.
    pub(crate) required: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(owner: &str, lease_ms: i64) -> Row {
        Row {
            owner: Some(owner.into()),
            rvn: Some("r".into()),
            fence: Some(3),
            lease_ms: Some(lease_ms),
            holder: Some("pod-7".into()),
        }
    }

    #[test]
    fn a_row_without_an_owner_is_a_free_lock_with_its_fence() {
        assert_eq!(Row { fence: Some(4), ..Row::default() }.decode(), Ok(LockView::Free { fence: 4 }));
        assert_eq!(Row::default().decode(), Ok(LockView::Free { fence: 0 }));
    }

    #[test]
    fn a_row_with_an_owner_decodes_with_its_holder() {
        let Ok(LockView::Held(holder)) = held("o", 30_000).decode() else { panic!("not held") };
        assert_eq!((holder.owner.as_str(), holder.fence, holder.lease), ("o", 3, Duration::from_secs(30)));
        assert_eq!(holder.label.as_deref(), Some("pod-7"));
    }

    #[test]
    fn an_owner_without_the_lock_columns_is_not_a_lock() {
        let row = Row { owner: Some("someone".into()), fence: Some(1), ..Row::default() };
        assert_eq!(row.decode(), Err(ItemMismatch::Missing { attributes: vec!["rvn", "lease_ms"] }));
        let out_of_range = ItemMismatch::LeaseOutOfRange { attribute: "lease_ms", value: String::from("5") };
        assert_eq!(held("o", 5).decode(), Err(out_of_range));
        assert_eq!(Row { fence: Some(-1), ..Row::default() }.decode(), Err(ItemMismatch::NegativeFence { value: -1 }));
    }

    #[test]
    fn a_table_name_is_a_plain_identifier() {
        for good in ["locks", "dynalease_locks", "_x1", &"a".repeat(63)] {
            assert!(check_table_name(good).is_ok(), "{good}");
        }
        for bad in ["", "1locks", "lock-table", "locks\"; DROP TABLE x; --", "schema.locks", "läs", &"a".repeat(64)] {
            assert!(matches!(check_table_name(bad), Err(Error::InvalidOptions { .. })), "{bad}");
        }
    }

    #[test]
    fn placeholders_follow_the_dialect() {
        let pg = Statements::new("locks", "BIGINT", '$', "{t}.fence >= 0", "TRUE");
        assert!(pg.renew.contains("name = $1 AND owner = $2") && !pg.renew.contains('?'), "{}", pg.renew);
        let lite = Statements::new("locks", "INTEGER", '?', "{t}.fence >= 0", "TRUE");
        assert!(lite.acquire_version.contains("rvn = ?7"), "{}", lite.acquire_version);
    }
}
