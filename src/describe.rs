//! What a [`LockTable`] can tell of its locks without taking them.
//!
//! - [`LockTable::describe`]: one lock, as a [`LockDescription`].
//! - [`LockTable::locks`]: every lock of the table, as a [`LockStream`] of descriptions.
//! - [`LockStatus`]: held, free, or held by a holder this table has seen stop renewing.
//!
//! Both read the store and nothing else; neither writes. A description of a held lock is
//! remembered as a [`try_acquire`](LockTable::try_acquire) remembers what it found, so that
//! `unchanged_for` grows from one description to the next while the holder does not renew.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;

use crate::error::Error;
use crate::lock_table::{LockTable, Shared, check};
use crate::store::{Cursor, LockView, Page};

/// Whether a lock is held, as far as the [`LockTable`] that described it can tell.
///
/// # Examples
///
/// ```
/// use dynalease::LockStatus;
///
/// assert!(LockStatus::Held.is_held());
/// assert!(!LockStatus::Expired.is_held(), "its holder stopped renewing: the next acquire takes it over");
/// assert_eq!(LockStatus::Free.to_string(), "free");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LockStatus {
    /// Nobody holds the lock: it was released, or its holder was removed.
    Free,
    /// The lock has a holder, and this table has not seen that holder unchanged for a whole
    /// lease.
    Held,
    /// The lock has a holder that this table has seen unchanged for its whole lease, on its own
    /// monotonic clock: the holder stopped renewing, and the next acquire of this table takes
    /// the lock over.
    Expired,
}

impl LockStatus {
    /// Whether the lock counts as held: [`Held`](Self::Held) only.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(dynalease::LockStatus::Held.is_held());
    /// ```
    pub fn is_held(self) -> bool {
        self == LockStatus::Held
    }

    /// The status in `snake_case`: `free`, `held` or `expired`.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::LockStatus::Expired.as_str(), "expired");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            LockStatus::Free => "free",
            LockStatus::Held => "held",
            LockStatus::Expired => "expired",
        }
    }
}

impl fmt::Display for LockStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A lock as a [`LockTable`] sees it, from [`LockTable::describe`] or [`LockTable::locks`]: who
/// holds it, with which fencing token and lease, and for how long this table has seen that
/// holder unchanged.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LockStatus, LockTable, LockTableOptions, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let worker = LockTable::new(table.clone(), LockTableOptions::default().holder_label("pod-7"))?;
/// let operator = LockTable::new(table, LockTableOptions::default())?;
///
/// let lease = worker.acquire("nightly-report", Duration::from_secs(30)).await?;
/// let described = operator.describe("nightly-report").await?.expect("the lock has an item");
/// assert_eq!(described.status, LockStatus::Held);
/// assert_eq!(described.holder_label.as_deref(), Some("pod-7"));
/// assert_eq!(described.fencing_token, 1);
/// assert_eq!(described.lease_duration, Some(Duration::from_secs(30)));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LockDescription {
    /// The name of the lock.
    pub name: String,
    /// Whether it is held, as far as this table can tell.
    pub status: LockStatus,
    /// The holder label of the holder, if it has one; `None` while the lock is free.
    pub holder_label: Option<String>,
    /// The fencing token of the last acquire, which the holder has while it holds the lock.
    pub fencing_token: u64,
    /// The lease duration of the holder; `None` while the lock is free.
    pub lease_duration: Option<Duration>,
    /// How long this table has seen the same record version of the holder, on its own monotonic
    /// clock, from the first read of it (by a description, an acquire or
    /// [`exists`](crate::ProcessLocks::exists)); `None` while the lock is free. It starts at
    /// zero, and every renewal of the holder starts it again: once it reaches the lease
    /// duration, the status is [`Expired`](LockStatus::Expired).
    pub unchanged_for: Option<Duration>,
}

impl LockTable {
    /// Reads the lock `name` and describes it, without taking it: `None` for a lock without an
    /// item (never acquired, or deleted).
    ///
    /// Costs one strongly consistent read (a GetItem, or a `SELECT` of one row), as one poll of
    /// a waiting [`acquire`](Self::acquire) does. Whether the lock is held is what this table
    /// can tell: a holder that stopped renewing counts as holding it until this table has seen
    /// it unchanged for a whole lease, over several calls, since no clock of another machine is
    /// read.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLockName`], [`Error::NotALock`] for an item at the lock's key that is not
    /// a lock, [`Error::TableNotFound`], and [`Error::DynamoDb`] or [`Error::Sql`] for a request
    /// that failed.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockStatus, LockTable, LockTableOptions, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    ///
    /// assert_eq!(locks.describe("nightly-report").await?, None, "no item yet");
    /// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
    /// lease.release().await?;
    /// let free = locks.describe("nightly-report").await?.expect("the released lock keeps its item");
    /// assert_eq!((free.status, free.fencing_token, free.holder_label), (LockStatus::Free, 1, None));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn describe(&self, name: &str) -> Result<Option<LockDescription>, Error> {
        check(name, LockTable::MIN_LEASE)?;
        let view = self.shared().store.read(name).await?;
        Ok(description(self.shared(), name, view))
    }

    /// Every lock of the table, as a stream of descriptions, read page by page as the stream is
    /// polled.
    ///
    /// What it costs depends on the store:
    ///
    /// - **DynamoDB**: a Scan of the whole table, strongly consistent, one request per 1 MB of
    ///   items, which keeps the items whose `_type` is `LOCK`. DynamoDB reads, and charges
    ///   for, every item of the table, locks and entities alike: one read capacity unit per
    ///   4 KB of items read. In a single-table design with many entities, that is the cost of
    ///   reading the whole table; keep it for an operator's occasional look, not a loop.
    /// - **SQLite and PostgreSQL**: one query per 500 locks, in the order of their names, along
    ///   the primary key.
    ///
    /// Locks come in the store's order (by key for DynamoDB, by name for SQL). A lock item
    /// that cannot be read as one comes as [`Error::NotALock`], and the listing goes on; a
    /// request that fails comes as its error, and ends the listing. Each held lock is described
    /// as [`describe`](Self::describe) does, and remembered as seen by this table.
    ///
    /// The stream borrows nothing: it may outlive this `LockTable` handle.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    /// let _report = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
    /// let _sweeper = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
    ///
    /// let mut listing = locks.locks();
    /// while let Some(lock) = listing.next().await {
    ///     let lock = lock?;
    ///     println!("{} is {}, token {}", lock.name, lock.status, lock.fencing_token);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn locks(&self) -> LockStream {
        LockStream { shared: self.shared().clone(), ready: VecDeque::new(), state: Listing::Start }
    }
}

/// The description of what the store holds for `name`, remembered as seen if it is held.
fn description(shared: &Shared, name: &str, view: LockView) -> Option<LockDescription> {
    let name = name.to_owned();
    match view {
        LockView::Absent => None,
        LockView::Free { fence } => Some(LockDescription {
            name,
            status: LockStatus::Free,
            holder_label: None,
            fencing_token: fence,
            lease_duration: None,
            unchanged_for: None,
        }),
        LockView::Held(holder) => {
            let (holder_label, fencing_token, lease) = (holder.label.clone(), holder.fence, holder.lease);
            let held = shared.observe(&name, holder);
            let unchanged_for = shared.unchanged_for(&name);
            Some(LockDescription {
                status: if held { LockStatus::Held } else { LockStatus::Expired },
                name,
                holder_label,
                fencing_token,
                lease_duration: Some(lease),
                unchanged_for,
            })
        }
    }
}

/// The future of one page of a listing.
type PageFuture = Pin<Box<dyn Future<Output = Result<Page, Error>> + Send>>;

/// Where a [`LockStream`] is.
enum Listing {
    /// No page read yet.
    Start,
    /// The next page starts after this cursor.
    Next(Cursor),
    /// A page is being read.
    Reading(PageFuture),
    /// The last page was read, or a request failed.
    Done,
}

/// Every lock of a table, from [`LockTable::locks`]: a [`Stream`] of [`LockDescription`]s,
/// read page by page as it is polled.
///
/// [`next`](Self::next) takes the next lock without a stream library; the `Stream` trait
/// gives the adapters of `futures` or `tokio-stream`.
///
/// # Examples
///
/// ```
/// use dynalease::{LockTable, LockTableOptions, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = LockTable::new(table, LockTableOptions::default())?;
///
/// let mut held = Vec::new();
/// let mut listing = locks.locks();
/// while let Some(lock) = listing.next().await {
///     let lock = lock?;
///     if lock.status.is_held() {
///         held.push(lock.name);
///     }
/// }
/// assert!(held.is_empty());
/// # Ok(())
/// # }
/// ```
pub struct LockStream {
    shared: Arc<Shared>,
    /// The locks of the last page read that were not taken yet.
    ready: VecDeque<Result<LockDescription, Error>>,
    state: Listing,
}

impl fmt::Debug for LockStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LockStream")
            .field("table", &self.shared.table.table)
            .field("ready", &self.ready.len())
            .field("done", &matches!(self.state, Listing::Done))
            .finish_non_exhaustive()
    }
}

impl LockStream {
    /// The next lock, or `None` after the last.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(locks: dynalease::LockTable) -> Result<(), dynalease::Error> {
    /// let mut listing = locks.locks();
    /// while let Some(lock) = listing.next().await {
    ///     println!("{:?}", lock?);
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn next(&mut self) -> Option<Result<LockDescription, Error>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for LockStream {
    type Item = Result<LockDescription, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(lock) = this.ready.pop_front() {
                return Poll::Ready(Some(lock));
            }
            match std::mem::replace(&mut this.state, Listing::Done) {
                Listing::Done => return Poll::Ready(None),
                Listing::Start => this.state = Listing::Reading(read_page(this.shared.clone(), None)),
                Listing::Next(cursor) => this.state = Listing::Reading(read_page(this.shared.clone(), Some(cursor))),
                Listing::Reading(mut page) => match page.as_mut().poll(cx) {
                    Poll::Pending => {
                        this.state = Listing::Reading(page);
                        return Poll::Pending;
                    }
                    Poll::Ready(Err(err)) => return Poll::Ready(Some(Err(err))),
                    Poll::Ready(Ok(Page { locks, next })) => {
                        this.state = next.map_or(Listing::Done, Listing::Next);
                        for (name, view) in locks {
                            match view {
                                Ok(view) => this.ready.extend(description(&this.shared, &name, view).map(Ok)),
                                Err(err) => this.ready.push_back(Err(err)),
                            }
                        }
                    }
                },
            }
        }
    }
}

/// Reads the page after `cursor` (the first without one).
fn read_page(shared: Arc<Shared>, cursor: Option<Cursor>) -> PageFuture {
    Box::pin(async move { shared.store.list(cursor.as_ref()).await })
}
