//! [`LockTable`]: the locks of one table, and how a process acquires them.
//!
//! The rules of acquiring, all measured on the [`Clock`] of the process:
//! - a lock this table has not seen held is written at once, so a free lock costs one request;
//! - a lock seen held is read (strongly consistent) at each poll and written only when it
//!   reads free, or when the same record version was seen for a whole lease: a takeover,
//!   conditional on that record version;
//! - a poll comes every third of the holder's lease, at most 10 s apart, sooner if the lease
//!   is due first.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use crate::clock::Clock;
use crate::error::Error;
use crate::ids::IdSource;
use crate::invalid::InvalidName;
use crate::lease::{Lease, LeaseInner};
use crate::options::{LockTableOptions, Resolved};
use crate::store::dynamodb::DynamoStore;
use crate::store::{AcquireOutcome, Expect, Grant, Holder, LockStore, LockView};
use crate::table::{Location, TableRef};

pub(crate) const MIN_LEASE: Duration = Duration::from_secs(1);
pub(crate) const MAX_LEASE: Duration = Duration::from_secs(24 * 3600);

/// The longest wait between two polls of a held lock.
const MAX_POLL: Duration = Duration::from_secs(10);

/// The longest lock name, in bytes, so that the key stays well within DynamoDB's limits.
const MAX_NAME_BYTES: usize = 1024;

/// A holder this table has seen, and since when on its monotonic clock.
#[derive(Clone, Debug)]
struct Seen {
    holder: Holder,
    since: Duration,
}

/// The state a [`LockTable`] shares among its clones and leases.
pub(crate) struct Shared {
    pub(crate) store: Box<dyn LockStore>,
    pub(crate) table: Location,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) ids: Arc<dyn IdSource>,
    pub(crate) holder_label: Option<String>,
    seen: Mutex<BTreeMap<String, Seen>>,
    #[cfg(feature = "testing")]
    pub(crate) refusals: tokio::sync::watch::Sender<BTreeMap<String, u64>>,
    /// Cancelled by [`LockTable::shutdown`]: the table acquires nothing more.
    pub(crate) closed: CancellationToken,
    /// The leases of this table that no release has begun for, by serial number.
    leases: Mutex<BTreeMap<u64, Weak<LeaseInner>>>,
    /// The stop tokens of the elections running on this table, by serial number.
    elections: Mutex<BTreeMap<u64, CancellationToken>>,
    /// The serial numbers of `leases` and `elections`.
    serials: AtomicU64,
    /// The releases under way in the background: of dropped leases, and of a shutdown.
    pub(crate) releases: TaskTracker,
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LockTable")
            .field("table", &self.table.table)
            .field("holder_label", &self.holder_label)
            .finish_non_exhaustive()
    }
}

impl Shared {
    fn seen(&self) -> MutexGuard<'_, BTreeMap<String, Seen>> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers `holder` as seen at `now`, unless the same owner and version were seen before.
    fn remember(&self, name: &str, holder: Holder, now: Duration) {
        let mut seen = self.seen();
        let same = seen.get(name).is_some_and(|s| s.holder.owner == holder.owner && s.holder.rvn == holder.rvn);
        if !same {
            seen.insert(name.to_owned(), Seen { holder, since: now });
        }
    }

    fn forget(&self, name: &str) -> Option<Seen> {
        self.seen().remove(name)
    }

    /// Remembers `holder` as seen now, and says whether it is still within its lease as far
    /// as this table can tell: `false` once the same record version was seen for a whole lease.
    pub(crate) fn observe(&self, name: &str, holder: Holder) -> bool {
        let now = self.clock.monotonic();
        let lease = holder.lease;
        self.remember(name, holder, now);
        self.seen().get(name).is_none_or(|seen| now < seen.since + lease)
    }

    /// Whether [`LockTable::shutdown`] was called.
    pub(crate) fn is_shut_down(&self) -> bool {
        self.closed.is_cancelled()
    }

    /// The error of an acquire on a table that was shut down.
    pub(crate) fn shut_down(&self) -> Error {
        Error::ShutDown { table: self.table.table.clone() }
    }

    pub(crate) fn next_serial(&self) -> u64 {
        self.serials.fetch_add(1, Ordering::Relaxed)
    }

    /// Keeps `lease` for a shutdown to release; `false` once the table was shut down.
    pub(crate) fn register_lease(&self, serial: u64, lease: &Arc<LeaseInner>) -> bool {
        let mut leases = self.leases.lock().unwrap_or_else(|e| e.into_inner());
        // Under the lock that `take_leases` takes after `closed` is cancelled: a lease
        // registered after that sees it cancelled.
        if self.is_shut_down() {
            return false;
        }
        leases.insert(serial, Arc::downgrade(lease));
        true
    }

    /// Forgets the lease `serial`, whose release has begun.
    pub(crate) fn forget_lease(&self, serial: u64) {
        self.leases.lock().unwrap_or_else(|e| e.into_inner()).remove(&serial);
    }

    /// Every lease no release has begun for, forgotten.
    pub(crate) fn take_leases(&self) -> Vec<Arc<LeaseInner>> {
        let leases = std::mem::take(&mut *self.leases.lock().unwrap_or_else(|e| e.into_inner()));
        leases.into_values().filter_map(|lease| lease.upgrade()).collect()
    }

    /// Cancels the stop token of every election of this table.
    pub(crate) fn stop_elections(&self) {
        let elections = std::mem::take(&mut *self.elections.lock().unwrap_or_else(|e| e.into_inner()));
        for stop in elections.into_values() {
            stop.cancel();
        }
    }

    /// A stop token for an election, cancelled by `stop` and by a shutdown of the table until
    /// the returned guard is dropped.
    pub(crate) fn election(&self, stop: &CancellationToken) -> ElectionStop<'_> {
        let token = stop.child_token();
        let serial = self.next_serial();
        self.elections.lock().unwrap_or_else(|e| e.into_inner()).insert(serial, token.clone());
        if self.is_shut_down() {
            token.cancel();
        }
        ElectionStop { shared: self, serial, token }
    }

    /// How long this table has seen the holder it last saw of `name` unchanged, on its own
    /// monotonic clock.
    pub(crate) fn unchanged_for(&self, name: &str) -> Option<Duration> {
        let now = self.clock.monotonic();
        self.seen().get(name).map(|seen| now.saturating_sub(seen.since))
    }

    /// Records that a try found the lock held, and says when to look again.
    fn refuse(&self, name: &str, holder_lease: Duration, until_due: Duration) -> Attempt {
        #[cfg(feature = "testing")]
        self.refusals.send_modify(|refusals| {
            *refusals.entry(name.to_owned()).or_insert(0) += 1;
        });
        tracing::debug!(lock = %name, "the lock is held; waiting");
        Attempt::Refused { retry_in: (holder_lease / 3).min(MAX_POLL).min(until_due) }
    }
}

/// The stop token of an election, registered with its table for a shutdown to cancel.
pub(crate) struct ElectionStop<'a> {
    shared: &'a Shared,
    serial: u64,
    pub(crate) token: CancellationToken,
}

impl Drop for ElectionStop<'_> {
    fn drop(&mut self) {
        self.shared.elections.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.serial);
    }
}

/// A write that won a lock: what a lease, or a token of the process-lock shape, starts from.
#[derive(Debug)]
pub(crate) struct Won {
    pub(crate) owner: String,
    pub(crate) rvn: String,
    pub(crate) fence: u64,
    /// When the write was sent, on the monotonic clock: the lease counts from here.
    pub(crate) sent_at: Duration,
    /// Whether it took the lock over from a holder that stopped renewing.
    pub(crate) takeover: bool,
}

/// The outcome of one try.
#[derive(Debug)]
pub(crate) enum Attempt {
    Won(Won),
    Refused { retry_in: Duration },
}

/// The span of an acquire, with the fields its outcome fills in.
macro_rules! acquire_span {
    ($name:literal, $table:expr, $lock:expr) => {
        tracing::info_span!(
            $name,
            db.collection.name = %$table,
            dynalease.lock.name = %$lock,
            dynalease.lock.acquired = tracing::field::Empty,
            dynalease.lock.takeover = tracing::field::Empty,
            dynalease.lock.fencing_token = tracing::field::Empty,
            "error.type" = tracing::field::Empty,
        )
    };
}
pub(crate) use acquire_span;

/// Fills in the outcome of an acquire on its span: whether it got a lease and which.
pub(crate) fn record_outcome(span: &tracing::Span, won: Option<&Won>) {
    span.record("dynalease.lock.acquired", won.is_some());
    if let Some(won) = won {
        span.record("dynalease.lock.takeover", won.takeover);
        span.record("dynalease.lock.fencing_token", won.fence);
    }
}

/// Fills in the error an acquire failed with on its span.
pub(crate) fn record_error(span: &tracing::Span, err: &Error) {
    span.record("error.type", err.error_type());
}

/// The locks of one table, each a named item (or row), and the leases on them.
///
/// The table is a DynamoDB table ([`LockTable::new`]), or with the features `sqlite` and
/// `postgres` a SQL table (`LockTable::sqlite`, `LockTable::postgres`): the same algorithm over
/// each.
///
/// Hold one `LockTable` per table in a process, and clone it where it is needed: it remembers
/// the holders it has seen, which a takeover depends on. Two instances in one process contend
/// like two processes.
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
/// let locks = LockTable::new(
///     TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?,
///     LockTableOptions::default().holder_label("pod-7"),
/// )?;
///
/// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
/// assert!(locks.try_acquire("nightly-report", Duration::from_secs(30)).await?.is_none());
/// lease.release().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct LockTable {
    shared: Arc<Shared>,
}

impl fmt::Debug for LockTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.fmt(f)
    }
}

impl LockTable {
    /// The shortest lease: one second.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::LockTable::MIN_LEASE, std::time::Duration::from_secs(1));
    /// ```
    pub const MIN_LEASE: Duration = MIN_LEASE;

    /// The longest lease: one day.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::LockTable::MAX_LEASE, std::time::Duration::from_secs(24 * 3600));
    /// ```
    pub const MAX_LEASE: Duration = MAX_LEASE;

    /// The locks in `table`, with `options`.
    ///
    /// Sends nothing. Fails with [`Error::InvalidOptions`] when the options cannot work with
    /// the table: a holder label outside 1 to 256 characters, a time-to-live attribute that is
    /// a key or a lock attribute, a retention shorter than a day.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::{Error, LockTable, LockTableOptions, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let too_long = "x".repeat(257);
    /// let err = LockTable::new(table, LockTableOptions::default().holder_label(too_long)).unwrap_err();
    /// assert!(matches!(err, Error::InvalidOptions { .. }));
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(table: TableRef, options: LockTableOptions) -> Result<LockTable, Error> {
        let options = options.resolve(&table.partition_key, table.sort_key.as_deref())?;
        let store = DynamoStore::new(table.clone(), options.time_to_live.clone(), options.clock.clone());
        Ok(LockTable::over(Box::new(store), Location::dynamodb(table), options))
    }

    /// The locks of `store`, at `table`, with resolved `options`: what every constructor ends in.
    pub(crate) fn over(store: Box<dyn LockStore>, table: Location, options: Resolved) -> LockTable {
        crate::telemetry::describe();
        LockTable {
            shared: Arc::new(Shared {
                store,
                table,
                clock: options.clock,
                ids: options.ids,
                holder_label: options.holder_label,
                seen: Mutex::new(BTreeMap::new()),
                #[cfg(feature = "testing")]
                refusals: tokio::sync::watch::Sender::new(BTreeMap::new()),
                closed: CancellationToken::new(),
                leases: Mutex::new(BTreeMap::new()),
                elections: Mutex::new(BTreeMap::new()),
                serials: AtomicU64::new(0),
                releases: TaskTracker::new(),
            }),
        }
    }

    /// The DynamoDB table the locks live in, or `None` for a SQL table.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn f(locks: dynalease::LockTable) {
    /// if let Some(table) = locks.dynamodb_table() {
    ///     println!("locks in DynamoDB table {}", table.table_name());
    /// }
    /// # }
    /// ```
    pub fn dynamodb_table(&self) -> Option<&TableRef> {
        self.shared.table.dynamodb_table()
    }

    /// The name of the table the locks live in, whatever the store.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn f(locks: dynalease::LockTable) {
    /// println!("locks in {}", locks.table_name());
    /// # }
    /// ```
    pub fn table_name(&self) -> &str {
        &self.shared.table.table
    }

    /// Tries once to acquire the lock `name` for `lease`; `None` if another holder has it.
    ///
    /// Never waits. It takes over the lock of a holder that stopped renewing only once this
    /// `LockTable` has seen that holder unchanged for a whole lease, over several calls: fits a
    /// process that lives longer than a lease and tries again on its own schedule.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLeaseDuration`], [`Error::InvalidLockName`], [`Error::NotALock`] for an
    /// item at the lock's key that is not a lock, [`Error::TableNotFound`], and
    /// [`Error::DynamoDb`] for a request that failed after the retries of the client.
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
    ///
    /// let Some(lease) = locks.try_acquire("cache-refresh", Duration::from_secs(30)).await? else {
    ///     return Ok(()); // another process holds it; try again next round
    /// };
    /// // ... refresh the cache ...
    /// lease.release().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn try_acquire(&self, name: &str, lease: Duration) -> Result<Option<Lease>, Error> {
        let (tried, span) = self.try_win(name, lease).await;
        match tried? {
            Some(won) => self.lease(name, lease, won, &span).await.map(Some),
            None => Ok(None),
        }
    }

    /// The writes of [`try_acquire`](Self::try_acquire), in its span: the write that won, if
    /// any, and the span to follow from.
    pub(crate) async fn try_win(&self, name: &str, lease: Duration) -> (Result<Option<Won>, Error>, tracing::Span) {
        let span = acquire_span!("Lock.TryAcquire", self.shared.table.table, name);
        if let Err(err) = check(name, lease) {
            record_error(&span, &err);
            return (Err(err), span);
        }
        let tried = async {
            // A lock that changed between the read and the write is looked at again, once.
            for _ in 0..2 {
                match self.try_once(name, lease).await? {
                    Attempt::Won(won) => return Ok(Some(won)),
                    Attempt::Refused { retry_in } if retry_in.is_zero() => continue,
                    Attempt::Refused { .. } => return Ok(None),
                }
            }
            Ok(None)
        }
        .instrument(span.clone())
        .await;
        match &tried {
            Ok(won) => record_outcome(&span, won.as_ref()),
            Err(err) => record_error(&span, err),
        }
        (tried, span)
    }

    /// Acquires the lock `name` for `lease`, waiting as long as another process holds it.
    ///
    /// While the lock is held it polls every third of the holder's lease, at most 10 s apart,
    /// and takes the lock over once it has seen the same holder unchanged for a whole lease on
    /// this process's clock. Dropping the future cancels the wait; a write that reached
    /// DynamoDB before leaves a lock nobody holds until its lease runs out.
    ///
    /// A process that runs once, such as a scheduled job, waits a bounded time instead, with
    /// [`try_acquire_for`](Self::try_acquire_for).
    ///
    /// # Errors
    ///
    /// As [`try_acquire`](Self::try_acquire).
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
    ///
    /// let lease = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
    /// // ... the work, stopping when lease.ended() is cancelled ...
    /// lease.release().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn acquire(&self, name: &str, lease: Duration) -> Result<Lease, Error> {
        match self.acquire_until(name, lease, None).await? {
            Some(lease) => Ok(lease),
            None => unreachable!("an acquire without a deadline returns a lease or an error"),
        }
    }

    /// Acquires the lock `name` for `lease`, waiting at most `wait` while another process holds
    /// it: `None` when the wait runs out without the lock.
    ///
    /// It polls as [`acquire`](Self::acquire) does, and takes a last look when the wait runs
    /// out. A request under way at that moment is waited for rather than dropped, since a
    /// dropped write may leave a lock that nobody holds until its lease runs out; so the call
    /// can return later than `wait` by the time of one request (and its retries by the
    /// client).
    ///
    /// A process that runs once, such as a scheduled job, waits a little longer than one lease:
    /// that gives up on a live holder, and still takes over from one that crashed, which needs
    /// a whole lease of waiting. A wait of zero tries once, as
    /// [`try_acquire`](Self::try_acquire) does; a wait too long for the clock waits as
    /// [`acquire`](Self::acquire) does.
    ///
    /// # Errors
    ///
    /// As [`try_acquire`](Self::try_acquire).
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
    ///
    /// let lease = Duration::from_secs(30);
    /// let Some(lease) = locks.try_acquire_for("nightly-report", lease, lease + Duration::from_secs(10)).await? else {
    ///     return Ok(()); // another process runs the report
    /// };
    /// // ... the report, stopping when lease.ended() is cancelled ...
    /// lease.release().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn try_acquire_for(&self, name: &str, lease: Duration, wait: Duration) -> Result<Option<Lease>, Error> {
        let deadline = self.shared.clock.monotonic().checked_add(wait);
        self.acquire_until(name, lease, Some(deadline)).await
    }

    /// Polls for the lock until it is won or, with `deadline` (on the monotonic clock; `None`
    /// inside it for a deadline too far away to count), until the deadline has passed.
    async fn acquire_until(
        &self,
        name: &str,
        lease: Duration,
        deadline: Option<Option<Duration>>,
    ) -> Result<Option<Lease>, Error> {
        check(name, lease)?;
        let span = acquire_span!("Lock.Acquire", self.shared.table.table, name);
        let clock = &self.shared.clock;
        let acquired = async {
            loop {
                match self.try_once(name, lease).await? {
                    Attempt::Won(won) => return Ok(Some(won)),
                    Attempt::Refused { retry_in } => {
                        let wait = match deadline {
                            Some(Some(deadline)) if !retry_in.is_zero() => {
                                let left = deadline.saturating_sub(clock.monotonic());
                                if left.is_zero() {
                                    return Ok(None);
                                }
                                retry_in.min(left)
                            }
                            _ => retry_in,
                        };
                        tokio::select! {
                            biased;
                            () = self.shared.closed.cancelled() => return Err(self.shared.shut_down()),
                            () = clock.sleep(wait) => {}
                        }
                    }
                }
            }
        }
        .instrument(span.clone())
        .await;
        match acquired {
            Ok(won) => {
                record_outcome(&span, won.as_ref());
                match won {
                    Some(won) => self.lease(name, lease, won, &span).await.map(Some),
                    None => Ok(None),
                }
            }
            Err(err) => {
                record_error(&span, &err);
                Err(err)
            }
        }
    }

    /// The lease of a write that won, whose renewals follow from `span`; on a table shut down
    /// meanwhile, the lock is released again and the acquire fails with [`Error::ShutDown`].
    pub(crate) async fn lease(
        &self,
        name: &str,
        duration: Duration,
        won: Won,
        span: &tracing::Span,
    ) -> Result<Lease, Error> {
        let (lease, admitted) = Lease::start(self.shared.clone(), name, won, duration, span.id());
        if admitted {
            Ok(lease)
        } else {
            lease.release_or_log().await;
            Err(self.shared.shut_down())
        }
    }

    /// One try, unless the table was shut down.
    pub(crate) async fn try_once(&self, name: &str, lease: Duration) -> Result<Attempt, Error> {
        if self.shared.is_shut_down() {
            return Err(self.shared.shut_down());
        }
        self.attempt(name, lease).await
    }

    /// One try: a read first if the lock was seen held, then a conditional write when the
    /// lock is free or due.
    pub(crate) async fn attempt(&self, name: &str, lease: Duration) -> Result<Attempt, Error> {
        let shared = &self.shared;
        let seen = shared.seen().get(name).cloned();
        let expect = match seen {
            None => Expect::Free,
            Some(seen) => {
                let view = shared.store.read(name).await?;
                let now = shared.clock.monotonic();
                match view {
                    LockView::Absent | LockView::Free { .. } => Expect::Free,
                    LockView::Held(holder) if holder.owner == seen.holder.owner && holder.rvn == seen.holder.rvn => {
                        let due = seen.since + holder.lease;
                        if now >= due {
                            Expect::Version(holder.rvn)
                        } else {
                            return Ok(shared.refuse(name, holder.lease, due - now));
                        }
                    }
                    LockView::Held(holder) => {
                        let holder_lease = holder.lease;
                        shared.remember(name, holder, now);
                        return Ok(shared.refuse(name, holder_lease, holder_lease));
                    }
                }
            }
        };

        let owner = shared.ids.next_id();
        let rvn = shared.ids.next_id();
        let grant = Grant { owner: &owner, rvn: &rvn, lease, label: shared.holder_label.as_deref() };
        let sent_at = shared.clock.monotonic();
        match shared.store.acquire(name, &expect, &grant).await? {
            AcquireOutcome::Won { fence } => {
                let previous = shared.forget(name);
                let takeover = matches!(expect, Expect::Version(_));
                if let (true, Some(previous)) = (takeover, previous) {
                    tracing::info!(
                        event_id = 41,
                        lock = %name,
                        table = %shared.table.table,
                        previous_holder = previous.holder.label.as_deref().unwrap_or(""),
                        holder = shared.holder_label.as_deref().unwrap_or(""),
                        fencing_token = fence,
                        "took the lock over from a holder that stopped renewing it"
                    );
                }
                crate::telemetry::acquisition(&shared.table.table, takeover);
                Ok(Attempt::Won(Won { owner, rvn, fence, sent_at, takeover }))
            }
            AcquireOutcome::Refused(LockView::Held(holder)) => {
                let now = shared.clock.monotonic();
                let holder_lease = holder.lease;
                shared.remember(name, holder, now);
                Ok(shared.refuse(name, holder_lease, holder_lease))
            }
            AcquireOutcome::Refused(LockView::Absent | LockView::Free { .. }) => {
                // The lock changed between the read and the write: look again at once.
                shared.forget(name);
                Ok(Attempt::Refused { retry_in: Duration::ZERO })
            }
        }
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }
}

/// Checks the name and the lease duration of an acquire.
pub(crate) fn check(name: &str, lease: Duration) -> Result<(), Error> {
    if name.is_empty() {
        return Err(Error::InvalidLockName { name: name.to_owned(), reason: InvalidName::Empty });
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::InvalidLockName {
            name: name.to_owned(),
            reason: InvalidName::TooLong { bytes: name.len() },
        });
    }
    if !(MIN_LEASE..=MAX_LEASE).contains(&lease) {
        return Err(Error::InvalidLeaseDuration { lease });
    }
    Ok(())
}
