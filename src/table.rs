//! [`TableRef`] and [`TableRefBuilder`]: the table that holds the lock items.

use aws_sdk_dynamodb::Client;

use crate::error::Error;
use crate::invalid::InvalidOption;

/// A DynamoDB table as the locks see it: a client, the table's name and the names of its
/// string key attributes, built by name with [`TableRef::builder`].
///
/// The locks live in a table you already have, one item per lock, so they fit a single-table
/// design. The key attributes of the table must be strings.
///
/// # Examples
///
/// ```
/// use dynalease::TableRef;
///
/// # fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// let with_sort_key = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// assert_eq!(with_sort_key.table_name(), "Shop");
///
/// let without = TableRef::builder(fake.client(), "Locks").partition_key("id").build()?;
/// assert_eq!(without.sort_key(), None);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct TableRef {
    pub(crate) client: Client,
    pub(crate) table: String,
    pub(crate) partition_key: String,
    pub(crate) sort_key: Option<String>,
}

/// Builds a [`TableRef`]: from [`TableRef::builder`], with the names of the table's keys.
///
/// # Examples
///
/// ```
/// # fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// let table = dynalease::TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// assert_eq!(table.partition_key(), "pk");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct TableRefBuilder {
    client: Client,
    table: String,
    partition_key: Option<String>,
    sort_key: Option<String>,
}

impl TableRefBuilder {
    /// The name of the table's partition key attribute. Required.
    ///
    /// # Examples
    ///
    /// ```
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let builder = dynalease::TableRef::builder(fake.client(), "Locks").partition_key("id");
    /// ```
    pub fn partition_key(mut self, name: impl Into<String>) -> Self {
        self.partition_key = Some(name.into());
        self
    }

    /// The name of the table's sort key attribute, if the table has one. The lock items then
    /// have the sort key `LOCK`.
    ///
    /// # Examples
    ///
    /// ```
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let builder = dynalease::TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk");
    /// ```
    pub fn sort_key(mut self, name: impl Into<String>) -> Self {
        self.sort_key = Some(name.into());
        self
    }

    /// The table reference. Sends nothing: a table that does not exist or has other keys shows
    /// at the first request, or up front with [`LockTable::check_table`](crate::LockTable::check_table).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptions`] for an empty table name, no partition key or an empty one, an
    /// empty sort key, or a sort key named as the partition key.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::{Error, TableRef};
    ///
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// let no_key = TableRef::builder(fake.client(), "Shop").build();
    /// assert!(matches!(no_key, Err(Error::InvalidOptions { .. })));
    /// ```
    pub fn build(self) -> Result<TableRef, Error> {
        let invalid = |reason: InvalidOption| Err(Error::InvalidOptions { reason });
        if self.table.is_empty() {
            return invalid(InvalidOption::EmptyTableName);
        }
        let Some(partition_key) = self.partition_key else {
            return invalid(InvalidOption::NoPartitionKey);
        };
        if partition_key.is_empty() {
            return invalid(InvalidOption::EmptyPartitionKey);
        }
        match self.sort_key.as_deref() {
            Some("") => return invalid(InvalidOption::EmptySortKey),
            Some(sort_key) if sort_key == partition_key => return invalid(InvalidOption::SortKeyIsPartitionKey),
            _ => {}
        }
        Ok(TableRef { client: self.client, table: self.table, partition_key, sort_key: self.sort_key })
    }
}

impl TableRef {
    /// A builder of the reference to the table `table`, reached through `client`: name its
    /// keys, then [`build`](TableRefBuilder::build).
    ///
    /// # Examples
    ///
    /// ```
    /// # fn main() -> Result<(), dynalease::Error> {
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = dynalease::TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn builder(client: Client, table: impl Into<String>) -> TableRefBuilder {
        TableRefBuilder { client, table: table.into(), partition_key: None, sort_key: None }
    }

    /// The client that sends the requests.
    ///
    /// # Examples
    ///
    /// ```
    /// # use dynalease::TableRef;
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build().unwrap();
    /// let client: &aws_sdk_dynamodb::Client = table.client();
    /// ```
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The name of the table.
    ///
    /// # Examples
    ///
    /// ```
    /// # use dynalease::TableRef;
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build().unwrap();
    /// assert_eq!(table.table_name(), "Shop");
    /// ```
    pub fn table_name(&self) -> &str {
        &self.table
    }

    /// The name of the partition key attribute.
    ///
    /// # Examples
    ///
    /// ```
    /// # use dynalease::TableRef;
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build().unwrap();
    /// assert_eq!(table.partition_key(), "pk");
    /// ```
    pub fn partition_key(&self) -> &str {
        &self.partition_key
    }

    /// The name of the sort key attribute, if the table has one.
    ///
    /// # Examples
    ///
    /// ```
    /// # use dynalease::TableRef;
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build().unwrap();
    /// assert_eq!(table.sort_key(), Some("sk"));
    /// ```
    pub fn sort_key(&self) -> Option<&str> {
        self.sort_key.as_deref()
    }
}

/// Where the locks of a [`LockTable`](crate::LockTable) live: the name of the table, as spans,
/// logs, metrics and errors give it, and what the fencing checks need of the store.
#[derive(Clone, Debug)]
pub(crate) struct Location {
    /// The name of the table.
    pub(crate) table: String,
    pub(crate) kind: StoreKind,
}

/// The store of a [`Location`], with what a fencing check needs of it.
#[derive(Clone, Debug)]
pub(crate) enum StoreKind {
    /// A DynamoDB table: `fenced_by` adds a condition check on its lock item.
    DynamoDb(TableRef),
    /// A SQLite table, with the statement that checks a lease in a caller's transaction.
    #[cfg(feature = "sqlite")]
    Sqlite { check_held: String },
    /// A PostgreSQL table, with the statement that checks a lease in a caller's transaction.
    #[cfg(feature = "postgres")]
    Postgres { check_held: String },
}

impl Location {
    /// The locks of a DynamoDB table.
    pub(crate) fn dynamodb(table: TableRef) -> Self {
        Self { table: table.table.clone(), kind: StoreKind::DynamoDb(table) }
    }

    /// The DynamoDB table, if the locks live in one.
    pub(crate) fn dynamodb_table(&self) -> Option<&TableRef> {
        match &self.kind {
            StoreKind::DynamoDb(table) => Some(table),
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            _ => None,
        }
    }
}
