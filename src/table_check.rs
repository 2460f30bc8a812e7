//! Checking a table before use: [`LockTable::check_table`], and [`TableMismatch`], what does
//! not fit.

use std::fmt;

use crate::error::Error;
use crate::lock_table::LockTable;

/// How a table does not fit its locks, in an [`Error::TableMismatch`]: from
/// [`LockTable::check_table`], or from the first request that the table refused.
///
/// # Examples
///
/// ```
/// use dynalease::TableMismatch;
///
/// let mismatch = TableMismatch::PartitionKey { expected: "pk".into(), found: Some("id".into()) };
/// assert_eq!(mismatch.to_string(), r#"its partition key is "id", not "pk""#);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableMismatch {
    /// The partition key of the DynamoDB table is not the one given to its
    /// [`TableRef`](crate::TableRef).
    PartitionKey {
        /// The partition key given.
        expected: String,
        /// The partition key of the table.
        found: Option<String>,
    },
    /// The sort key of the DynamoDB table is not the one given: another one, one the table
    /// does not have, or none where the table has one.
    SortKey {
        /// The sort key given.
        expected: Option<String>,
        /// The sort key of the table.
        found: Option<String>,
    },
    /// A key of the DynamoDB table is not a string.
    KeyNotString {
        /// The key attribute.
        key: String,
        /// Its type, as DynamoDB names it (`N`, `B`).
        found: String,
    },
    /// The options write a time-to-live attribute, and time to live is not enabled on it.
    TimeToLiveDisabled {
        /// The attribute of the options.
        attribute: String,
        /// The attribute time to live is enabled on instead, if it is enabled at all.
        enabled_on: Option<String>,
    },
    /// The SQL table has no column of this name.
    MissingColumn {
        /// The column.
        column: &'static str,
    },
    /// A column of the SQL table is not of the type the locks write.
    ColumnType {
        /// The column.
        column: &'static str,
        /// Its type, as the database names it.
        found: String,
        /// The type the locks need: `text` or `a 64-bit integer`.
        expected: &'static str,
    },
    /// The primary key of the SQL table is not the column `name` alone.
    PrimaryKey {
        /// The columns of its primary key.
        found: Vec<String>,
    },
    /// A column of the SQL table must have a value (`NOT NULL` without a default), and a lock
    /// writes none.
    RequiredColumn {
        /// The column.
        column: String,
    },
    /// The database refused a statement of the locks over the columns of the table (a column
    /// missing or of another type), with this message.
    Refused {
        /// The message of the database.
        message: String,
    },
}

impl fmt::Display for TableMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableMismatch::PartitionKey { expected, found: Some(found) } => {
                write!(f, "its partition key is {found:?}, not {expected:?}")
            }
            TableMismatch::PartitionKey { expected, found: None } => {
                write!(f, "it has no partition key, and the locks were given {expected:?}")
            }
            TableMismatch::SortKey { expected: Some(expected), found: Some(found) } => {
                write!(f, "its sort key is {found:?}, not {expected:?}")
            }
            TableMismatch::SortKey { expected: Some(expected), found: None } => {
                write!(f, "it has no sort key, and the locks were given {expected:?}")
            }
            TableMismatch::SortKey { expected: None, found: Some(found) } => {
                write!(f, "it has the sort key {found:?}, and the locks were given none")
            }
            TableMismatch::SortKey { expected: None, found: None } => f.write_str("its sort keys differ"),
            TableMismatch::KeyNotString { key, found } => write!(f, "its key {key:?} is of type {found}, not a string"),
            TableMismatch::TimeToLiveDisabled { attribute, enabled_on: None } => {
                write!(f, "time to live is not enabled on it, and the locks write {attribute:?}")
            }
            TableMismatch::TimeToLiveDisabled { attribute, enabled_on: Some(other) } => {
                write!(f, "time to live is enabled on {other:?}, and the locks write {attribute:?}")
            }
            TableMismatch::MissingColumn { column } => write!(f, "it has no column {column}"),
            TableMismatch::ColumnType { column, found, expected } => {
                write!(f, "its column {column} is of type {found}, not {expected}")
            }
            TableMismatch::PrimaryKey { found } => write!(f, "its primary key is ({}), not (name)", found.join(", ")),
            TableMismatch::RequiredColumn { column } => {
                write!(f, "its column {column} must have a value, and a lock writes none")
            }
            TableMismatch::Refused { message } => f.write_str(message),
        }
    }
}

impl LockTable {
    /// Checks the table before use, and says precisely what does not fit.
    ///
    /// - **DynamoDB**: the table exists (else [`Error::TableNotFound`]); its partition key and
    ///   sort key are the ones of the [`TableRef`](crate::TableRef), and strings; and, with
    ///   [`time_to_live`](crate::LockTableOptions::time_to_live) in the options, time to live is
    ///   enabled on that attribute (enabled or being enabled). One DescribeTable, and one
    ///   DescribeTimeToLive with that option: the role needs `dynamodb:DescribeTable` (and
    ///   `dynamodb:DescribeTimeToLive`), which locking alone does not.
    /// - **SQLite and PostgreSQL**: the table is created if it does not exist, as on first
    ///   use, and its columns are checked: each column of a lock of its type, the primary key
    ///   `name` alone, and no other column that must have a value.
    ///
    /// Without it, a table that does not fit shows at the first acquire, with the same errors.
    ///
    /// # Errors
    ///
    /// [`Error::TableMismatch`] with what does not fit, [`Error::TableNotFound`], and
    /// [`Error::DynamoDb`] or [`Error::Sql`] for a request that failed.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::{Error, LockTable, LockTableOptions, TableMismatch, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    ///
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    /// locks.check_table().await?;
    ///
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("id").sort_key("sk").build()?;
    /// let misnamed = LockTable::new(table, LockTableOptions::default())?;
    /// let err = misnamed.check_table().await.unwrap_err();
    /// assert!(matches!(
    ///     err,
    ///     Error::TableMismatch { mismatch: TableMismatch::PartitionKey { .. }, .. }
    /// ));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn check_table(&self) -> Result<(), Error> {
        self.shared().store.check_table().await
    }
}
