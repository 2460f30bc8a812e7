//! Why an argument was refused before anything was sent: [`InvalidOption`] for a table
//! reference or options that cannot work, [`InvalidName`] for a lock name that cannot be a key.

use std::fmt;
use std::time::Duration;

/// What is wrong with a [`TableRef`](crate::TableRef), a SQL table or
/// [`LockTableOptions`](crate::LockTableOptions), in an
/// [`Error::InvalidOptions`](crate::Error::InvalidOptions).
///
/// # Examples
///
/// ```
/// use dynalease::{Error, InvalidOption, LockTable, LockTableOptions, TableRef};
///
/// # fn main() -> Result<(), Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").build()?;
/// let err = LockTable::new(table, LockTableOptions::default().holder_label("")).unwrap_err();
/// assert!(matches!(err, Error::InvalidOptions { reason: InvalidOption::HolderLabelLength { chars: 0 }, .. }));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidOption {
    /// The table name is empty.
    EmptyTableName,
    /// A [`TableRef`](crate::TableRef) was built without a partition key.
    NoPartitionKey,
    /// The partition key name is empty.
    EmptyPartitionKey,
    /// The sort key name is empty.
    EmptySortKey,
    /// The sort key is named as the partition key.
    SortKeyIsPartitionKey,
    /// A SQL table name that is not a plain identifier: ASCII letters, digits and
    /// underscores, not starting with a digit, at most 63 bytes.
    TableName {
        /// The name given.
        name: String,
    },
    /// A holder label outside 1 to 256 characters.
    HolderLabelLength {
        /// Its length in characters.
        chars: usize,
    },
    /// The time-to-live attribute has no name.
    EmptyTimeToLiveAttribute,
    /// The time-to-live attribute is a key of the table.
    TimeToLiveIsKey {
        /// The attribute.
        attribute: String,
    },
    /// The time-to-live attribute is an attribute of the lock items.
    TimeToLiveIsLockAttribute {
        /// The attribute.
        attribute: String,
    },
    /// A time-to-live retention shorter than a day.
    RetentionTooShort {
        /// The retention given.
        retention: Duration,
    },
    /// A PostgreSQL connection URL that tokio-postgres cannot read, or a pool that cannot be
    /// built from it, with the driver's message.
    Connection {
        /// What the driver said.
        message: String,
    },
}

impl fmt::Display for InvalidOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidOption::EmptyTableName => f.write_str("the table name is empty"),
            InvalidOption::NoPartitionKey => f.write_str("the table has no partition key"),
            InvalidOption::EmptyPartitionKey => f.write_str("the partition key name is empty"),
            InvalidOption::EmptySortKey => f.write_str("the sort key name is empty"),
            InvalidOption::SortKeyIsPartitionKey => f.write_str("the sort key is the partition key"),
            InvalidOption::TableName { name } => write!(
                f,
                "the table name {name:?} must be a plain identifier: ASCII letters, digits and underscores, \
                 not starting with a digit, at most 63 bytes"
            ),
            InvalidOption::HolderLabelLength { chars } => {
                write!(f, "the holder label must have 1 to 256 characters, it has {chars}")
            }
            InvalidOption::EmptyTimeToLiveAttribute => f.write_str("the time to live attribute must have a name"),
            InvalidOption::TimeToLiveIsKey { attribute } => {
                write!(f, "the time to live attribute {attribute:?} is a key of the table")
            }
            InvalidOption::TimeToLiveIsLockAttribute { attribute } => {
                write!(f, "the time to live attribute {attribute:?} is an attribute of the lock")
            }
            InvalidOption::RetentionTooShort { retention } => {
                write!(f, "the time to live retention {retention:?} is shorter than one day")
            }
            InvalidOption::Connection { message } => write!(f, "the PostgreSQL connection cannot be made: {message}"),
        }
    }
}

/// Why a lock name cannot be a key, in an
/// [`Error::InvalidLockName`](crate::Error::InvalidLockName).
///
/// # Examples
///
/// ```
/// assert_eq!(dynalease::InvalidName::Empty.to_string(), "a lock name must not be empty");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidName {
    /// The name is empty.
    Empty,
    /// The name is longer than 1024 bytes, more than a DynamoDB key may hold with the prefix.
    TooLong {
        /// Its length in bytes.
        bytes: usize,
    },
}

impl fmt::Display for InvalidName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidName::Empty => f.write_str("a lock name must not be empty"),
            InvalidName::TooLong { bytes } => {
                write!(f, "a lock name must not be longer than 1024 bytes, it has {bytes}")
            }
        }
    }
}
