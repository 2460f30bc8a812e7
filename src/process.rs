//! The process-lock shape: locks by name, held through a token, for a process that renews on
//! its own schedule or hands the lock to another process.
//!
//! - [`ProcessLocks`]: create a lock and get a [`ProcessLockToken`], renew or release by token,
//!   ask whether a lock exists, or take a [`ProcessLockScope`].
//! - [`RenewOptions`]: the duration and the minimum window of a renewal by token.
//! - [`ProcessLockScope`]: a lock held and renewed in the background until the scope is dropped.
//!
//! It is a thin layer over the leases of a [`LockTable`]: the same items, the same conditional
//! writes and the same fencing tokens, so a token and a [`Lease`] on one lock exclude each
//! other.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tracing::Instrument;

use crate::error::Error;
use crate::lease::Lease;
use crate::lock_table::{LockTable, check};
use crate::store::{Grant, LockView, RenewOutcome};
use crate::telemetry;
use crate::token::ProcessLockToken;

/// What this instance knows of a lock it created or renewed: its last write that succeeded,
/// when it was sent, with which duration, and the record version it left. The window of a
/// renewal is measured from it, and holds only while the lock still has that record version.
#[derive(Clone, Debug)]
struct Written {
    sent_at: Duration,
    duration: Duration,
    rvn: String,
}

/// How [`ProcessLocks::renew`] renews a lock: for how long, and whether only within the last
/// stretch of it. The default renews at once, for the duration the lock has.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::RenewOptions;
///
/// // The seed's loop: renew to 15 s, but write only once less than 7 s are left.
/// let every_step = RenewOptions::new().duration(Duration::from_secs(15)).only_within(Duration::from_secs(7));
/// assert_ne!(every_step, RenewOptions::default());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[must_use]
pub struct RenewOptions {
    duration: Option<Duration>,
    min_renew: Option<Duration>,
}

impl RenewOptions {
    /// Renews at once, for the duration the lock has, whichever instance wrote it last.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::RenewOptions::new(), dynalease::RenewOptions::default());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Renews for `duration` instead of the duration the lock has: from 1 s to 1 day, checked
    /// by [`ProcessLocks::renew`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let longer = dynalease::RenewOptions::new().duration(Duration::from_secs(60));
    /// ```
    pub fn duration(mut self, duration: Duration) -> Self {
        self.duration = Some(duration);
        self
    }

    /// Writes only once less than `window` is left of the lock, measured from this instance's
    /// own last write of it; with more left, [`ProcessLocks::renew`] confirms the lock with one
    /// read instead. A loop may then renew on every step and write once a window.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// let sparing = dynalease::RenewOptions::new().only_within(Duration::from_secs(7));
    /// ```
    pub fn only_within(mut self, window: Duration) -> Self {
        self.min_renew = Some(window);
        self
    }
}

/// Locks by name that a process creates for a duration and then renews or releases through a
/// token: the shape of a simple process lock, over the leases of a [`LockTable`].
///
/// A [`ProcessLockToken`] holds the lock; written as a string it can be handed to another
/// process. Any `ProcessLocks` on the same table, in this process or another, can renew or
/// release the lock with it; nothing else can. A lock that is not renewed lasts its
/// duration from the send of its last write, as a lease does, and a lock whose token was lost
/// with its process becomes free to [`create`](Self::create) once this table has seen it
/// unchanged for its whole duration, over several calls, as
/// [`LockTable::try_acquire`] does: no two machines' clocks are compared.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LockTable, LockTableOptions, ProcessLocks, RenewOptions, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
///
/// let Some(token) = locks.create("my-process", Duration::from_secs(15)).await? else {
///     return Ok(()); // it runs somewhere else
/// };
/// for batch in 0..4 {
///     // ... process a batch of about 5 s ...
///     tokio::time::sleep(Duration::from_secs(5)).await;
///     // Renew to 15 s only when less than 7 s are left.
///     assert!(locks.renew(&token, RenewOptions::new().only_within(Duration::from_secs(7))).await?);
/// }
/// locks.release(&token).await?;
/// assert!(!locks.exists("my-process").await?);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ProcessLocks {
    locks: LockTable,
    /// The last write of each lock this instance created or renewed, by owner id.
    written: Arc<Mutex<BTreeMap<String, Written>>>,
}

impl fmt::Debug for ProcessLocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessLocks").field("locks", &self.locks).finish_non_exhaustive()
    }
}

impl ProcessLocks {
    /// The process locks of the table of `locks`. Hold one per table, as the `LockTable`.
    ///
    /// # Examples
    ///
    /// ```
    /// use dynalease::{LockTable, LockTableOptions, ProcessLocks, TableRef};
    ///
    /// # fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default().holder_label("worker-2"))?);
    /// # Ok(())
    /// # }
    /// ```
    pub fn new(locks: LockTable) -> ProcessLocks {
        ProcessLocks { locks, written: Arc::default() }
    }

    /// The lock table underneath, for leases and elections on the same table.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn f(locks: dynalease::ProcessLocks) {
    /// println!("locks in {}", locks.lock_table().table_name());
    /// # }
    /// ```
    pub fn lock_table(&self) -> &LockTable {
        &self.locks
    }

    fn written(&self) -> MutexGuard<'_, BTreeMap<String, Written>> {
        self.written.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Remembers the last write of `owner`, unless a write sent later was remembered already,
    /// and forgets the locks whose duration has passed.
    fn remember(&self, owner: &str, written: Written) {
        let now = self.locks.shared().clock.monotonic();
        let mut all = self.written();
        all.retain(|_, w| now < w.sent_at + w.duration);
        if all.get(owner).is_none_or(|last| last.sent_at <= written.sent_at) {
            all.insert(owner.to_owned(), written);
        }
    }

    fn forget(&self, owner: &str) {
        self.written().remove(owner);
    }

    /// Creates the lock `name` for `duration`, and returns its token; `None` if another holder
    /// has it.
    ///
    /// It tries once, as [`LockTable::try_acquire`] does, and raises the fencing token. The lock
    /// is not renewed in the background: [`renew`](Self::renew) it before `duration` has
    /// passed, or it is free to take over after that.
    ///
    /// # Errors
    ///
    /// As [`LockTable::try_acquire`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, ProcessLocks, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// let token = locks.create("import", Duration::from_secs(15)).await?;
    /// assert!(token.is_some());
    /// assert_eq!(locks.create("import", Duration::from_secs(15)).await?, None);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create(&self, name: &str, duration: Duration) -> Result<Option<ProcessLockToken>, Error> {
        let (tried, _span) = self.locks.try_win(name, duration).await;
        let Some(won) = tried? else {
            return Ok(None);
        };
        let shared = self.locks.shared();
        if shared.is_shut_down() {
            // The table was shut down while the write was under way: give back what it won.
            if let Err(err) = shared.store.release(name, &won.owner).await {
                crate::lease::log_release_failure(name, &shared.table.table, Some(&err));
            }
            return Err(shared.shut_down());
        }
        self.remember(&won.owner, Written { sent_at: won.sent_at, duration, rvn: won.rvn.clone() });
        Ok(Some(ProcessLockToken::new(name.to_owned(), won.owner, won.fence)))
    }

    /// Renews the lock of `token` as `options` say: for the duration the lock has, or the one
    /// of [`RenewOptions::duration`]; at once, or only within the last
    /// [`only_within`](RenewOptions::only_within) of the lock. Returns whether the token still
    /// holds the lock: `false` once another process has it, it was released, or its item was
    /// deleted.
    ///
    /// Within a window, it writes only when less than the window is left of the lock, to spare
    /// the table a write per call. What is left is measured from this instance's own last
    /// write of the lock, so an instance that has not written it renews at once. With more
    /// left, one strongly consistent read (a GetItem, or a `SELECT` of one row) checks that
    /// this last write still stands: it returns `true` without a write if the lock still has
    /// the record version this instance wrote, `false` if the lock was released, taken over or
    /// deleted since (by any instance), and renews at once if another instance wrote the lock
    /// since, since this instance cannot tell when that write was sent nor for how long. So a
    /// token may be renewed by several instances, with or without a window, and a `true`
    /// always rests on what the table held during the call.
    ///
    /// A renewal is one conditional write on the owner in the token, so it never takes a lock
    /// from another holder. Without a duration it keeps the duration the lock has, whichever
    /// instance wrote it last, and learns it from the answer.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLeaseDuration`], [`Error::NotALock`], [`Error::TableNotFound`], and
    /// [`Error::DynamoDb`] or [`Error::Sql`] for a failed request.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, ProcessLocks, RenewOptions, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// let token = locks.create("import", Duration::from_secs(15)).await?.expect("free");
    /// assert!(locks.renew(&token, RenewOptions::new().duration(Duration::from_secs(60))).await?);
    /// // Writes only once less than 7 s of the lock are left.
    /// assert!(locks.renew(&token, RenewOptions::new().only_within(Duration::from_secs(7))).await?);
    /// locks.release(&token).await?;
    /// assert!(!locks.renew(&token, RenewOptions::new()).await?, "a released lock is not renewed");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn renew(&self, token: &ProcessLockToken, options: RenewOptions) -> Result<bool, Error> {
        let RenewOptions { duration, min_renew } = options;
        let (name, owner) = (token.lock_name(), token.owner());
        if let Some(duration) = duration {
            check(name, duration)?;
        }
        let shared = self.locks.shared();
        let table = shared.table.table.as_str();
        let span = tracing::info_span!(
            "Lock.Renew",
            db.collection.name = %table,
            dynalease.lock.name = %name,
            dynalease.lock.fencing_token = token.fencing_token(),
        );
        let written = self.written().get(owner).cloned();
        if let (Some(min_renew), Some(written)) = (min_renew, written) {
            let left = (written.sent_at + written.duration).saturating_sub(shared.clock.monotonic());
            if left >= min_renew {
                // One read tells whether this instance's last write still stands: not released,
                // taken over or deleted since, nor written again by another instance.
                match shared.store.read(name).instrument(span.clone()).await {
                    Ok(LockView::Held(holder)) if holder.owner == owner && holder.rvn == written.rvn => {
                        return Ok(true);
                    }
                    // Another instance renewed it since, perhaps for less: renew now.
                    Ok(LockView::Held(holder)) if holder.owner == owner => {}
                    Ok(_) | Err(Error::NotALock { .. }) => {
                        self.forget(owner);
                        return Ok(false);
                    }
                    Err(err) => return Err(err),
                }
            }
        }

        async {
            let rvn = shared.ids.next_id();
            // Without a duration, the write keeps the one the lock has, whoever wrote it last.
            let lease = duration.unwrap_or(LockTable::MIN_LEASE);
            let grant = Grant { owner, rvn: &rvn, lease, label: shared.holder_label.as_deref() };
            let sent_at = shared.clock.monotonic();
            match shared.store.renew(name, &grant, duration.is_none()).await {
                Ok(RenewOutcome::Renewed { lease }) => {
                    telemetry::renewal(table, None);
                    self.remember(owner, Written { sent_at, duration: lease, rvn: rvn.clone() });
                    Ok(true)
                }
                Ok(RenewOutcome::TakenOver | RenewOutcome::Deleted) => {
                    telemetry::renewal(table, Some("ConditionalCheckFailedException"));
                    self.forget(owner);
                    Ok(false)
                }
                Err(err) => {
                    telemetry::renewal(table, Some(err.error_type()));
                    Err(err)
                }
            }
        }
        .instrument(span)
        .await
    }

    /// Releases the lock of `token`: one conditional write that removes the owner while it is
    /// still the token's, and keeps the item, so the fencing token never goes back. Returns
    /// whether the token still held the lock; a lock that another process has is left alone.
    ///
    /// It takes the token, not the name, so that no process releases a lock it does not hold.
    ///
    /// # Errors
    ///
    /// [`Error::TableNotFound`], and [`Error::DynamoDb`] or [`Error::Sql`] for a failed request.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, ProcessLocks, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// let token = locks.create("import", Duration::from_secs(15)).await?.expect("free");
    /// assert!(locks.release(&token).await?);
    /// assert!(!locks.release(&token).await?, "released already");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn release(&self, token: &ProcessLockToken) -> Result<bool, Error> {
        let (name, owner) = (token.lock_name(), token.owner());
        let shared = self.locks.shared();
        let span = tracing::info_span!(
            "Lock.Release",
            db.collection.name = %shared.table.table,
            dynalease.lock.name = %name,
            dynalease.lock.fencing_token = token.fencing_token(),
        );
        self.forget(owner);
        shared.store.release(name, owner).instrument(span).await
    }

    /// Whether the lock `name` is held, as far as this process can tell: its item has an owner,
    /// and this table has not yet seen that holder unchanged for its whole lease.
    ///
    /// A holder that stopped renewing still counts as holding the lock until this table has
    /// seen it for a whole lease, over several calls, since no clock of another machine is read.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidLockName`], [`Error::NotALock`], [`Error::TableNotFound`] and
    /// [`Error::DynamoDb`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, ProcessLocks, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// assert!(!locks.exists("import").await?);
    /// let token = locks.create("import", Duration::from_secs(15)).await?;
    /// assert!(locks.exists("import").await?);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn exists(&self, name: &str) -> Result<bool, Error> {
        check(name, LockTable::MIN_LEASE)?;
        let shared = self.locks.shared();
        Ok(match shared.store.read(name).await? {
            LockView::Absent | LockView::Free { .. } => false,
            LockView::Held(holder) => shared.observe(name, holder),
        })
    }

    /// Tries once to take the lock `name` for `duration`, and holds it, renewed in the
    /// background every third of `duration`, until the scope is dropped or
    /// [released](ProcessLockScope::release). [`is_locked`](ProcessLockScope::is_locked) tells
    /// whether it got the lock.
    ///
    /// # Errors
    ///
    /// As [`LockTable::try_acquire`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, ProcessLocks, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// {
    ///     let scope = locks.scope("my-process", Duration::from_secs(15)).await?;
    ///     if !scope.is_locked() {
    ///         return Ok(()); // another instance runs it
    ///     }
    ///     assert!(locks.exists("my-process").await?);
    ///     // ... the work, as long as it takes: the lock is renewed meanwhile ...
    /// }
    /// tokio::time::sleep(Duration::from_secs(1)).await; // the dropped scope releases in the background
    /// assert!(!locks.exists("my-process").await?);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn scope(&self, name: &str, duration: Duration) -> Result<ProcessLockScope, Error> {
        Ok(ProcessLockScope { lease: self.locks.try_acquire(name, duration).await? })
    }
}

/// A lock held for a scope, from [`ProcessLocks::scope`]: renewed in the background, released
/// when the scope is dropped.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LockTable, LockTableOptions, ProcessLocks, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
///
/// let first = locks.scope("my-process", Duration::from_secs(15)).await?;
/// let second = locks.scope("my-process", Duration::from_secs(15)).await?;
/// assert!(first.is_locked());
/// assert!(!second.is_locked());
/// first.release().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ProcessLockScope {
    lease: Option<Lease>,
}

impl ProcessLockScope {
    /// Whether the scope got the lock and still holds it: `false` if another process had it,
    /// and once the lease was lost.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn f(scope: dynalease::ProcessLockScope) {
    /// if !scope.is_locked() {
    ///     return; // another instance runs the process
    /// }
    /// # }
    /// ```
    pub fn is_locked(&self) -> bool {
        self.lease.as_ref().is_some_and(|lease| !lease.ended().is_cancelled())
    }

    /// The lease of the scope, if it got the lock: for its fencing token, its
    /// [`ended`](Lease::ended) token and [`fenced_by`](crate::TransactWriteExt::fenced_by).
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn f(scope: dynalease::ProcessLockScope) {
    /// if let Some(lease) = scope.lease() {
    ///     println!("running with fencing token {}", lease.fencing_token());
    /// }
    /// # }
    /// ```
    pub fn lease(&self) -> Option<&Lease> {
        self.lease.as_ref()
    }

    /// Releases the lock now and waits for the answer, instead of in the background on drop.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(scope: dynalease::ProcessLockScope) -> Result<(), dynalease::Error> {
    /// scope.release().await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn release(self) -> Result<(), Error> {
        match self.lease {
            Some(lease) => lease.release().await,
            None => Ok(()),
        }
    }
}
