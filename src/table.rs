//! [`TableRef`]: the table that holds the lock items.

use aws_sdk_dynamodb::Client;

/// A DynamoDB table as the locks see it: a client, the table's name and the names of its
/// string key attributes.
///
/// The locks live in a table you already have, one item per lock, so they fit a single-table
/// design. The key attributes of the table must be strings.
///
/// # Examples
///
/// ```
/// use dynalease::TableRef;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let with_sort_key = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
/// assert_eq!(with_sort_key.table_name(), "Shop");
///
/// fake.create_table("Locks", "id", None);
/// let without = TableRef::new(fake.client(), "Locks", "id", None);
/// assert_eq!(without.sort_key(), None);
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct TableRef {
    pub(crate) client: Client,
    pub(crate) table: String,
    pub(crate) partition_key: String,
    pub(crate) sort_key: Option<String>,
}

impl TableRef {
    /// Describes the table `table`, with partition key `partition_key` and, if it has one,
    /// the sort key `sort_key`, reached through `client`.
    ///
    /// Nothing is sent: a table that does not exist shows as
    /// [`Error::TableNotFound`](crate::Error::TableNotFound) on the first acquire.
    ///
    /// # Examples
    ///
    /// ```
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = dynalease::TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
    /// ```
    pub fn new(
        client: Client,
        table: impl Into<String>,
        partition_key: impl Into<String>,
        sort_key: Option<&str>,
    ) -> Self {
        Self { client, table: table.into(), partition_key: partition_key.into(), sort_key: sort_key.map(str::to_owned) }
    }

    /// The client that sends the requests.
    ///
    /// # Examples
    ///
    /// ```
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = dynalease::TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = dynalease::TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = dynalease::TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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
    /// # let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = dynalease::TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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
    /// A DynamoDB table: `is_held` adds a condition check on its lock item.
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
