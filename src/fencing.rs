//! Fencing writes to DynamoDB with a lease.
//!
//! - [`TransactWriteExt`]: adds to a `TransactWriteItems` request a check that a lease still
//!   holds its lock, with its owner and its fencing token.
//! - [`HeldCheck`]: where that check sits in the transaction, to tell from the error that the
//!   transaction was cancelled because the lease was lost.

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, CancellationReason, ConditionCheck, TransactWriteItem};

use crate::error::Error;
use crate::lease::Lease;
use crate::store::dynamodb::{FENCE, OWNER, lock_key};

/// Fencing for `TransactWriteItems`: the transaction commits only while a lease holds its lock.
///
/// [`fenced_by`](Self::fenced_by) appends a `ConditionCheck` on the lock item: its owner is the
/// lease's and its fence is the lease's fencing token. DynamoDB evaluates it when the
/// transaction commits, which is what makes it safe; [`Lease::ended`] is only what this
/// process knows. The lock item must be in the same account and region as the items of the
/// transaction, and the transaction must not write the lock item itself.
///
/// A lease of a SQL lock table has no item in DynamoDB: its check is one that no item meets,
/// so DynamoDB refuses the transaction. Check such a lease in the SQL database's own
/// transaction instead (`Lease::check_held_sqlite`, `Lease::check_held_postgres`).
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
/// use dynalease::{HeldCheck, LockTable, LockTableOptions, TableRef, TransactWriteExt};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let client = fake.client();
/// let table = TableRef::builder(client.clone(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = LockTable::new(table, LockTableOptions::default())?;
/// let lease = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
///
/// let put = TransactWriteItem::builder()
///     .put(
///         Put::builder()
///             .table_name("Shop")
///             .item("pk", AttributeValue::S("ORDER#1".into()))
///             .item("sk", AttributeValue::S("ORDER".into()))
///             .item("status", AttributeValue::S("shipped".into()))
///             .build()?,
///     )
///     .build();
/// let mut held = HeldCheck::default();
/// let sent = client
///     .transact_write_items()
///     .fenced_by_marked(&lease, &mut held)
///     .transact_items(put)
///     .send()
///     .await;
/// match sent {
///     Ok(_) => {}
///     Err(err) if held.lost_lease(&err) => { /* stop, and leave the work to the next holder */ }
///     Err(err) => return Err(err.into()),
/// }
/// # Ok(())
/// # }
/// ```
pub trait TransactWriteExt: Sized {
    /// Fences the transaction by `lease`: appends a check that the lease still holds its lock,
    /// so that the transaction commits only while it does.
    fn fenced_by(self, lease: &Lease) -> Self;

    /// Appends a check that `lease` still holds its lock, and records in `marker` where it
    /// sits, for [`HeldCheck::lost_lease`].
    fn fenced_by_marked(self, lease: &Lease, marker: &mut HeldCheck) -> Self;

    /// Appends a check that the [current](Lease::current) lease still holds its lock: the
    /// lease of the leader term this code runs in, so that the work of
    /// [`LockTable::run_as_leader`](crate::LockTable::run_as_leader) need not pass its lease
    /// down to the code that writes.
    ///
    /// Fails with [`Error::NoCurrentLease`] outside the work of a term, and in tasks the work
    /// spawned, where the lease does not flow (see [`Lease::current`]): pass the lease to
    /// [`fenced_by`](Self::fenced_by) there.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
    /// use dynalease::{LockTable, LockTableOptions, TableRef, TransactWriteExt};
    /// use tokio_util::sync::CancellationToken;
    ///
    /// async fn ship(client: &aws_sdk_dynamodb::Client, order: &str) -> Result<(), Box<dyn std::error::Error>> {
    ///     let put = Put::builder()
    ///         .table_name("Shop")
    ///         .item("pk", AttributeValue::S(format!("ORDER#{order}")))
    ///         .item("sk", AttributeValue::S("ORDER".into()))
    ///         .item("status", AttributeValue::S("shipped".into()))
    ///         .build()?;
    ///     client
    ///         .transact_write_items()
    ///         .fenced_by_current()?
    ///         .transact_items(TransactWriteItem::builder().put(put).build())
    ///         .send()
    ///         .await?;
    ///     Ok(())
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let client = fake.client();
    /// let table = TableRef::builder(client.clone(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    ///
    /// assert!(ship(&client, "1").await.is_err(), "no lease is current outside a term");
    /// let stop = CancellationToken::new();
    /// let shipped = locks.run_as_leader("order-sweeper", Duration::from_secs(30), stop, |_, _| ship(&client, "1")).await;
    /// assert!(shipped.is_ok(), "the work of a term has a current lease");
    /// # Ok(())
    /// # }
    /// ```
    fn fenced_by_current(self) -> Result<Self, Error> {
        let lease = Lease::current().ok_or(Error::NoCurrentLease)?;
        Ok(self.fenced_by(&lease))
    }

    /// [`fenced_by_current`](Self::fenced_by_current), recording in `marker` where the check sits.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use dynalease::{HeldCheck, TransactWriteExt};
    /// # async fn f(client: aws_sdk_dynamodb::Client) -> Result<(), dynalease::Error> {
    /// let mut held = HeldCheck::default();
    /// let sent = client.transact_write_items().fenced_by_current_marked(&mut held)?.send().await;
    /// if sent.as_ref().is_err_and(|err| held.lost_lease(err)) {
    ///     return Ok(()); // the term is over: leave the rest to the next leader
    /// }
    /// # Ok(())
    /// # }
    /// ```
    fn fenced_by_current_marked(self, marker: &mut HeldCheck) -> Result<Self, Error> {
        let lease = Lease::current().ok_or(Error::NoCurrentLease)?;
        Ok(self.fenced_by_marked(&lease, marker))
    }
}

impl TransactWriteExt for TransactWriteItemsFluentBuilder {
    fn fenced_by(self, lease: &Lease) -> Self {
        self.transact_items(held_check(lease))
    }

    fn fenced_by_marked(self, lease: &Lease, marker: &mut HeldCheck) -> Self {
        let index = self.get_transact_items().as_ref().map_or(0, Vec::len);
        *marker = HeldCheck { index: Some(index) };
        self.fenced_by(lease)
    }
}

/// The `ConditionCheck` of `lease` on its lock item.
fn held_check(lease: &Lease) -> TransactWriteItem {
    let Some(table) = lease.table().table.dynamodb_table() else { return never_held(lease) };
    let check = ConditionCheck::builder()
        .table_name(&table.table)
        .set_key(Some(lock_key(table, lease.name())))
        .condition_expression("#owner = :owner AND #fence = :fence")
        .expression_attribute_names("#owner", OWNER)
        .expression_attribute_names("#fence", FENCE)
        .expression_attribute_values(":owner", AttributeValue::S(lease.owner().to_owned()))
        .expression_attribute_values(":fence", AttributeValue::N(lease.fencing_token().to_string()))
        .build()
        // Only a missing key, table name or condition fails the build, and all three are set.
        .expect("a condition check with key, table and condition builds");
    TransactWriteItem::builder().condition_check(check).build()
}

/// Where [`TransactWriteExt::fenced_by_marked`] put its check in a transaction.
///
/// DynamoDB answers a cancelled transaction with one reason per item, in order; the reason at
/// this position tells whether the lease was lost.
///
/// # Examples
///
/// ```no_run
/// # use dynalease::{HeldCheck, Lease, TransactWriteExt};
/// # async fn f(client: aws_sdk_dynamodb::Client, lease: Lease) {
/// let mut held = HeldCheck::default();
/// let sent = client.transact_write_items().fenced_by_marked(&lease, &mut held).send().await;
/// if let Err(err) = sent {
///     if held.lost_lease(&err) {
///         return; // another process holds the lock now
///     }
/// }
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeldCheck {
    index: Option<usize>,
}

impl HeldCheck {
    /// The position of the check in the transaction, once it was added.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::HeldCheck::default().index(), None, "not added to a transaction yet");
    /// ```
    pub fn index(&self) -> Option<usize> {
        self.index
    }

    /// The reason DynamoDB gave for the check, if `err` is a cancelled transaction.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use dynalease::{HeldCheck, Lease, TransactWriteExt};
    /// # async fn f(client: aws_sdk_dynamodb::Client, lease: Lease) {
    /// let mut held = HeldCheck::default();
    /// if let Err(err) = client.transact_write_items().fenced_by_marked(&lease, &mut held).send().await {
    ///     println!("the check failed with {:?}", held.reason(&err).and_then(|r| r.code()));
    /// }
    /// # }
    /// ```
    pub fn reason<'e, R>(&self, err: &'e SdkError<TransactWriteItemsError, R>) -> Option<&'e CancellationReason> {
        let index = self.index?;
        match err.as_service_error()? {
            TransactWriteItemsError::TransactionCanceledException(cancelled) => {
                cancelled.cancellation_reasons().get(index)
            }
            _ => None,
        }
    }

    /// Whether `err` is a transaction cancelled because the check failed: the lease no longer
    /// holds its lock (another owner, another fencing token, or no lock item).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # use dynalease::{HeldCheck, Lease, TransactWriteExt};
    /// # async fn f(client: aws_sdk_dynamodb::Client, lease: Lease) {
    /// let mut held = HeldCheck::default();
    /// let sent = client.transact_write_items().fenced_by_marked(&lease, &mut held).send().await;
    /// if sent.as_ref().is_err_and(|err| held.lost_lease(err)) {
    ///     return; // another process holds the lock now
    /// }
    /// # }
    /// ```
    pub fn lost_lease<R>(&self, err: &SdkError<TransactWriteItemsError, R>) -> bool {
        self.reason(err).and_then(CancellationReason::code).is_some_and(|code| code == "ConditionalCheckFailed")
    }
}

/// The check of a lease whose lock is not in DynamoDB, such as one of a SQL table: a condition
/// that no item meets, so that DynamoDB refuses the transaction instead of committing it.
fn never_held(lease: &Lease) -> TransactWriteItem {
    let check = ConditionCheck::builder()
        .table_name(&lease.table().table.table)
        .key("name", AttributeValue::S(lease.name().to_owned()))
        .condition_expression("attribute_exists(#owner) AND attribute_not_exists(#owner)")
        .expression_attribute_names("#owner", OWNER)
        .build()
        .expect("a condition check with key, table and condition builds");
    TransactWriteItem::builder().condition_check(check).build()
}
