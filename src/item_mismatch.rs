//! [`ItemMismatch`]: why the item (or row) at a lock's key is not a lock.

use std::fmt;

/// Why the item at a lock's key, or a SQL row at its name, is not a lock, in an
/// [`Error::NotALock`](crate::Error::NotALock). The error is the same whatever the reason:
/// give the lock another name; the reason says what an operator finds in the item.
///
/// # Examples
///
/// ```
/// use dynalease::ItemMismatch;
///
/// let reason = ItemMismatch::Missing { attributes: vec!["rvn", "leaseMs"] };
/// assert_eq!(reason.to_string(), "it has an owner but no rvn and no leaseMs");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ItemMismatch {
    /// The item has no `_type` and no owner: an entity of the table.
    NoType,
    /// The item has an owner but no `_type` of `LOCK`.
    OwnerWithoutType,
    /// The item's `_type` is not `LOCK`: an entity of another kind.
    OtherType,
    /// An attribute (a column) holds a value of another type.
    WrongType {
        /// The attribute or column.
        attribute: String,
        /// What it should hold: `a string`, `a number`, `text` or `a whole number`.
        expected: &'static str,
    },
    /// A number attribute that is not a whole number.
    NotAWholeNumber {
        /// The attribute.
        attribute: String,
        /// Its value.
        value: String,
    },
    /// A fencing token below zero.
    NegativeFence {
        /// Its value.
        value: i64,
    },
    /// The item has an owner, and not the other attributes of a held lock.
    Missing {
        /// The attributes (columns) it lacks.
        attributes: Vec<&'static str>,
    },
    /// A lease duration outside 1 s to 1 day.
    LeaseOutOfRange {
        /// The attribute (`leaseMs`) or column (`lease_ms`).
        attribute: &'static str,
        /// Its value, or `NULL`.
        value: String,
    },
    /// A write of this library that did not read back as the lock it wrote: `acquire`,
    /// `renewal` or `simulated holder`.
    NotReadBack {
        /// The write.
        write: &'static str,
    },
}

impl fmt::Display for ItemMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ItemMismatch::NoType => f.write_str("it has no _type = LOCK"),
            ItemMismatch::OwnerWithoutType => f.write_str("it has an owner but no _type = LOCK"),
            ItemMismatch::OtherType => f.write_str("its _type is not LOCK"),
            ItemMismatch::WrongType { attribute, expected } => write!(f, "its {attribute} is not {expected}"),
            ItemMismatch::NotAWholeNumber { attribute, value } => {
                write!(f, "its {attribute} {value} is not a whole number")
            }
            ItemMismatch::NegativeFence { value } => write!(f, "its fence {value} is negative"),
            ItemMismatch::Missing { attributes } => write!(f, "it has an owner but no {}", attributes.join(" and no ")),
            ItemMismatch::LeaseOutOfRange { attribute, value } => {
                write!(f, "its {attribute} {value} is outside the lease durations of a lock")
            }
            ItemMismatch::NotReadBack { write } => write!(f, "the {write} did not read back as held"),
        }
    }
}
