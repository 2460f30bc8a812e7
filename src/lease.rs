//! [`Lease`]: a held lock, its heartbeat, its end and its release.
//!
//! - [`Lease`]: what an acquire hands out; renews itself every third of its duration.
//! - [`LossReason`]: why a lease ended before it was released.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::error::Error;
use crate::lock_table::{Shared, Won};
use crate::store::{Grant, RenewOutcome};
use crate::telemetry;

/// The first wait after a failed renewal of the heartbeat; each next wait doubles, up to a
/// sixth of the lease.
const FIRST_RETRY: Duration = Duration::from_millis(100);

/// Why a lease ended without being released.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LockTable, LockTableOptions, LossReason, TableRef};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = LockTable::new(table, LockTableOptions::default())?;
/// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
///
/// fake.delete_table("Shop");
/// assert!(!lease.renew().await?);
/// assert_eq!(lease.loss_reason(), Some(LossReason::TableNotFound));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LossReason {
    /// A renewal found another owner in the lock item, or none, or an item that is no lock: a
    /// contender took the lock over or someone wrote the item.
    TakenOver,
    /// A renewal found no lock item. The fencing token starts at 1 again.
    Deleted,
    /// The lease ran out on the monotonic clock before a renewal succeeded.
    Expired,
    /// DynamoDB answered a renewal with ResourceNotFoundException.
    TableNotFound,
}

impl LossReason {
    /// The reason in `snake_case`, as logs and metrics show it.
    ///
    /// # Examples
    ///
    /// ```
    /// assert_eq!(dynalease::LossReason::TakenOver.as_str(), "taken_over");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            LossReason::TakenOver => "taken_over",
            LossReason::Deleted => "deleted",
            LossReason::Expired => "expired",
            LossReason::TableNotFound => "table_not_found",
        }
    }
}

impl fmt::Display for LossReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a lease ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    Lost(LossReason),
    Released,
}

/// What changes during the life of a lease.
#[derive(Debug)]
struct LeaseState {
    /// When the last write that succeeded was sent, on the monotonic clock.
    sent_at: Duration,
    /// The record version of that write.
    rvn: String,
    end: Option<End>,
    /// Whether a release was started, explicitly or by the drop.
    releasing: bool,
}

/// The shared part of a lease: the handle, its heartbeat and its background release.
pub(crate) struct LeaseInner {
    table: Arc<Shared>,
    /// Its serial number among the leases of its table, which a shutdown releases.
    serial: u64,
    name: String,
    owner: String,
    fence: u64,
    duration: Duration,
    state: Mutex<LeaseState>,
    ended: CancellationToken,
    /// Held for the whole of a renewal: one renewal of a lease at a time. A renewal whose answer
    /// was lost is retried by the client with the record version it first wrote; were another
    /// renewal applied between the two, the retry would bring back a version a contender has
    /// already seen, and the contender would count its wait from before the other renewal.
    renewing: tokio::sync::Mutex<()>,
    /// The span of the acquire, which every renewal span follows from.
    acquired_in: Option<tracing::Id>,
    /// The runtime of the heartbeat, where the watches of [`Lease::warning`] run too.
    runtime: tokio::runtime::Handle,
}

impl fmt::Debug for LeaseInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeaseInner")
            .field("name", &self.name)
            .field("owner", &self.owner)
            .field("fence", &self.fence)
            .field("duration", &self.duration)
            .finish_non_exhaustive()
    }
}

impl LeaseInner {
    fn state(&self) -> MutexGuard<'_, LeaseState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn sent_at(&self) -> Duration {
        self.state().sent_at
    }

    /// Ends the lease, once: the first end wins, and cancels `ended`.
    fn end(&self, end: End) {
        {
            let mut state = self.state();
            if state.end.is_some() {
                return;
            }
            state.end = Some(end);
        }
        if let End::Lost(reason) = end {
            tracing::warn!(
                event_id = 40,
                lock = %self.name,
                table = %self.table.store.table_name(),
                reason = reason.as_str(),
                fencing_token = self.fence,
                holder = self.table.holder_label.as_deref().unwrap_or(""),
                "the lease was lost"
            );
            telemetry::loss(self.table.store.table_name(), reason);
        }
        self.ended.cancel();
    }

    /// Sends one renewal. `Ok(false)` when the lease has ended, before or because of it.
    async fn renew_once(&self) -> Result<bool, Error> {
        let _one_at_a_time = self.renewing.lock().await;
        let sent_at = self.table.clock.monotonic();
        {
            let state = self.state();
            if state.end.is_some() {
                return Ok(false);
            }
            if sent_at >= state.sent_at + self.duration {
                drop(state);
                self.end(End::Lost(LossReason::Expired));
                return Ok(false);
            }
        }
        let rvn = self.table.ids.next_id();
        let grant =
            Grant { owner: &self.owner, rvn: &rvn, lease: self.duration, label: self.table.holder_label.as_deref() };
        let answer = self.table.store.renew(&self.name, &grant, false).await;
        let table = self.table.store.table_name();
        match &answer {
            Ok(RenewOutcome::Renewed { .. }) => telemetry::renewal(table, None),
            // DynamoDB answered the conditional update with a failed condition.
            Ok(RenewOutcome::TakenOver | RenewOutcome::Deleted) => {
                telemetry::renewal(table, Some("ConditionalCheckFailedException"));
            }
            Err(err) => telemetry::renewal(table, Some(err.error_type())),
        }
        match answer {
            Ok(RenewOutcome::Renewed { .. }) => {
                let mut state = self.state();
                if state.end.is_some() {
                    return Ok(false);
                }
                if sent_at > state.sent_at {
                    state.sent_at = sent_at;
                    state.rvn = rvn;
                }
                Ok(true)
            }
            Ok(RenewOutcome::TakenOver) => {
                self.end(End::Lost(LossReason::TakenOver));
                Ok(false)
            }
            Ok(RenewOutcome::Deleted) => {
                self.end(End::Lost(LossReason::Deleted));
                Ok(false)
            }
            Err(Error::TableNotFound { .. }) => {
                self.end(End::Lost(LossReason::TableNotFound));
                Ok(false)
            }
            Err(err) => Err(err),
        }
    }

    /// Renews every third of the lease after the send of the last renewal that succeeded,
    /// until the lease ends.
    async fn heartbeat(self: Arc<Self>) {
        let clock = self.table.clock.clone();
        let ended = self.ended.clone();
        let longest_retry = self.duration / 6;
        loop {
            let due = self.sent_at() + self.duration / 3;
            let now = clock.monotonic();
            if now < due {
                // A renewal by `renew()` may have moved `sent_at`: look again after the sleep.
                tokio::select! {
                    biased;
                    () = ended.cancelled() => return,
                    () = clock.sleep(due - now) => continue,
                }
            }

            let mut retry = FIRST_RETRY.min(longest_retry);
            loop {
                let expires = self.sent_at() + self.duration;
                let now = clock.monotonic();
                if now >= expires {
                    self.end(End::Lost(LossReason::Expired));
                    return;
                }
                let span = self.renew_span(true);
                let answer = tokio::select! {
                    biased;
                    () = ended.cancelled() => return,
                    answer = self.renew_once().instrument(span) => answer,
                    // A renewal still unanswered when the lease runs out does not extend it.
                    () = clock.sleep(expires - now) => {
                        self.end(End::Lost(LossReason::Expired));
                        return;
                    }
                };
                match answer {
                    Ok(true) => break,
                    Ok(false) => return,
                    Err(err) => {
                        tracing::warn!(
                            event_id = 42,
                            lock = %self.name,
                            table = %self.table.store.table_name(),
                            retry_in = ?retry,
                            error = %err,
                            "a renewal failed; it is tried again until the lease runs out"
                        );
                        let now = clock.monotonic();
                        let wait = retry.min(expires.saturating_sub(now));
                        tokio::select! {
                            biased;
                            () = ended.cancelled() => return,
                            () = clock.sleep(wait) => {}
                        }
                        retry = (retry * 2).min(longest_retry);
                    }
                }
            }
        }
    }

    /// Cancels `warning` once less than `margin` is left of the lease without a renewal that
    /// succeeded, or once the lease is lost; returns when the lease is released.
    async fn warn(self: Arc<Self>, margin: Duration, warning: CancellationToken) {
        let clock = self.table.clock.clone();
        let ended = self.ended.clone();
        loop {
            let (sent_at, end) = {
                let state = self.state();
                (state.sent_at, state.end)
            };
            match end {
                Some(End::Lost(_)) => return warning.cancel(),
                Some(End::Released) => return,
                None => {}
            }
            let due = sent_at + self.duration - margin;
            let now = clock.monotonic();
            if now >= due {
                return warning.cancel();
            }
            // A renewal may have moved `sent_at`: look again after the sleep.
            tokio::select! {
                biased;
                () = warning.cancelled() => return,
                () = ended.cancelled() => {}
                () = clock.sleep(due - now) => {}
            }
        }
    }

    /// Marks the lease released. Returns whether a release request is needed: the item may
    /// still name this lease as its owner unless a renewal found it taken or gone.
    fn begin_release(&self) -> bool {
        self.table.forget_lease(self.serial);
        let needed = {
            let mut state = self.state();
            if state.releasing {
                return false;
            }
            state.releasing = true;
            matches!(state.end, None | Some(End::Lost(LossReason::Expired)))
        };
        self.end(End::Released);
        needed
    }

    /// The span of a renewal, following from the span of the acquire: a root span for the
    /// heartbeat, which runs for the life of the lease and joins no caller's trace.
    fn renew_span(&self, root: bool) -> tracing::Span {
        let table = self.table.store.table_name();
        let span = if root {
            tracing::info_span!(
                parent: None,
                "Lock.Renew",
                db.collection.name = %table,
                dynalease.lock.name = %self.name,
                dynalease.lock.fencing_token = self.fence,
            )
        } else {
            tracing::info_span!(
                "Lock.Renew",
                db.collection.name = %table,
                dynalease.lock.name = %self.name,
                dynalease.lock.fencing_token = self.fence,
            )
        };
        span.follows_from(self.acquired_in.clone());
        span
    }

    async fn send_release(&self) -> Result<(), Error> {
        let span = tracing::info_span!(
            "Lock.Release",
            db.collection.name = %self.table.store.table_name(),
            dynalease.lock.name = %self.name,
            dynalease.lock.fencing_token = self.fence,
        );
        async {
            let ours = self.table.store.release(&self.name, &self.owner).await?;
            if !ours {
                tracing::debug!(lock = %self.name, "the lock had another owner; left alone");
            }
            Ok(())
        }
        .instrument(span)
        .await
    }

    /// Sends the release, and logs its failure (43) instead of returning it.
    async fn send_release_or_log(&self) {
        if let Err(err) = self.send_release().await {
            log_release_failure(&self.name, self.table.store.table_name(), Some(&err));
        }
    }

    /// Releases the lease for a shutdown of its table: `None` when no request is needed (a
    /// release has begun already, or the lease was lost to another holder), otherwise the
    /// request, whose failure it also logs (43).
    pub(crate) fn release_for_shutdown(self: Arc<Self>) -> Option<impl Future<Output = Result<(), Error>> + Send> {
        if !self.begin_release() {
            return None;
        }
        Some(async move {
            let sent = self.send_release().await;
            if let Err(err) = &sent {
                log_release_failure(&self.name, self.table.store.table_name(), Some(err));
            }
            sent
        })
    }
}

pub(crate) fn log_release_failure(name: &str, table: &str, err: Option<&Error>) {
    match err {
        Some(err) => tracing::warn!(
            event_id = 43,
            lock = %name,
            table = %table,
            error = %err,
            "a release failed; the lock is free once its lease runs out"
        ),
        None => tracing::warn!(
            event_id = 43,
            lock = %name,
            table = %table,
            "a lease was dropped outside a tokio runtime and not released; the lock is free once its lease runs out"
        ),
    }
}

/// A lease on a named lock, from [`LockTable::acquire`](crate::LockTable::acquire) or
/// [`LockTable::try_acquire`](crate::LockTable::try_acquire).
///
/// The lease renews itself every third of its duration until it is released, dropped or lost.
/// [`ended`](Self::ended) is cancelled once it is no longer held; pass it to the work that
/// needs the lock. Dropping the lease releases the lock in the background; [`release`](Self::release)
/// does it and waits for the answer.
///
/// Clones share one lease: [`release`](Self::release) on any of them releases it for all, and
/// dropping the last one releases it in the background. The work of
/// [`LockTable::run_as_leader`](crate::LockTable::run_as_leader) gets a clone, and the election
/// releases the lease when the term ends, whatever clones the work kept.
///
/// A lease can run out while its process is paused without knowing it. Writes that must not
/// happen then go through [`TransactWriteExt::fenced_by`](crate::TransactWriteExt::fenced_by), or
/// carry the [`fencing_token`](Self::fencing_token) to a system that checks it.
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
/// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
/// assert_eq!(lease.name(), "nightly-report");
/// assert_eq!(lease.fencing_token(), 1);
///
/// let stop = lease.ended();
/// tokio::select! {
///     biased;
///     () = stop.cancelled() => { /* the lease was lost: leave the rest to the next holder */ }
///     () = tokio::time::sleep(Duration::from_secs(90)) => { /* the work, renewed meanwhile */ }
/// }
/// assert!(!stop.is_cancelled());
/// lease.release().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Lease {
    inner: Arc<LeaseInner>,
    /// Shared by the clones of this lease and by no one else: dropping the last releases it.
    _holds: Arc<Holds>,
}

/// Releases the lease when the last clone of a [`Lease`] is dropped. The heartbeat holds the
/// [`LeaseInner`] only, so it never keeps a lease from being released.
struct Holds(Arc<LeaseInner>);

impl fmt::Debug for Lease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lease")
            .field("name", &self.inner.name)
            .field("fencing_token", &self.inner.fence)
            .field("duration", &self.inner.duration)
            .field("ended", &self.inner.ended.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl Lease {
    /// Starts the lease of a write that was sent at `sent_at` and succeeded. A lease whose
    /// answer came after a whole lease has ended already; any other starts its heartbeat.
    /// Also says whether its table took it in: not once the table was shut down, and then
    /// the caller releases it.
    pub(crate) fn start(
        table: Arc<Shared>,
        name: &str,
        won: Won,
        duration: Duration,
        acquired_in: Option<tracing::Id>,
    ) -> (Lease, bool) {
        let Won { owner, rvn, fence, sent_at, .. } = won;
        let serial = table.next_serial();
        let inner = Arc::new(LeaseInner {
            serial,
            table,
            name: name.to_owned(),
            owner,
            fence,
            duration,
            state: Mutex::new(LeaseState { sent_at, rvn, end: None, releasing: false }),
            ended: CancellationToken::new(),
            renewing: tokio::sync::Mutex::new(()),
            acquired_in,
            runtime: tokio::runtime::Handle::current(),
        });
        let admitted = inner.table.register_lease(serial, &inner);
        if inner.table.clock.monotonic() >= sent_at + duration {
            inner.end(End::Lost(LossReason::Expired));
        } else {
            tokio::spawn(inner.clone().heartbeat());
        }
        (Lease { _holds: Arc::new(Holds(inner.clone())), inner }, admitted)
    }

    /// The name of the lock.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(lease: dynalease::Lease) {
    /// tracing::info!(lock = lease.name(), "sweeping");
    /// # }
    /// ```
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The fencing token: raised on every acquire of the lock, so a newer holder always has a
    /// higher one. Hand it to a system outside DynamoDB that refuses writes with a lower token
    /// than it has seen. It starts at 1 again if the lock item is deleted.
    ///
    /// An acquire that the client retried after its answer was lost applied its write twice,
    /// and its token is then two above the last one: still higher, which is all fencing needs.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(lease: dynalease::Lease) {
    /// let token: u64 = lease.fencing_token();
    /// // store.write_if_newer(token, data).await
    /// # }
    /// ```
    pub fn fencing_token(&self) -> u64 {
        self.inner.fence
    }

    /// The lease duration: how long the lease lasts after each write that renewed it.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(lease: dynalease::Lease) {
    /// let renewed_every = lease.duration() / 3;
    /// # }
    /// ```
    pub fn duration(&self) -> Duration {
        self.inner.duration
    }

    /// A token that is cancelled once the lease is no longer held: lost, released or dropped.
    /// Losing a lease is final.
    ///
    /// The token is a child of the lease's own, so cancelling it does not end the lease.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(lease: dynalease::Lease) {
    /// let stop = lease.ended();
    /// tokio::select! {
    ///     biased;
    ///     () = stop.cancelled() => println!("lost: {:?}", lease.loss_reason()),
    ///     () = async { /* the work */ } => {}
    /// }
    /// # }
    /// ```
    pub fn ended(&self) -> CancellationToken {
        self.inner.ended.child_token()
    }

    /// Why the lease was lost, or `None` while it is held and after a release.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # async fn f(lease: dynalease::Lease) {
    /// if let Some(reason) = lease.loss_reason() {
    ///     eprintln!("lease on {} lost: {reason}", lease.name());
    /// }
    /// # }
    /// ```
    pub fn loss_reason(&self) -> Option<LossReason> {
        match self.inner.state().end {
            Some(End::Lost(reason)) => Some(reason),
            _ => None,
        }
    }

    /// A token that is cancelled once less than `margin` is left of the lease with no renewal
    /// that succeeded: a warning before the end, so that work can stop or checkpoint while the
    /// lease still holds.
    ///
    /// What is left is measured as the lease itself measures it: from the send of its last
    /// write that succeeded (the acquire or a renewal), on this process's clock. A lease that
    /// renews on time never gets there: the heartbeat renews a third of the lease after the
    /// last send, so the warning comes only when renewals fail or go unanswered until `margin`
    /// before the end. The token is also cancelled when the lease is lost before then (taken
    /// over, deleted, its table gone), since nothing is left of it then; it is never cancelled
    /// by a release. Each call watches on its own, until the lease ends; cancelling the token
    /// stops its watch.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidMargin`] for a margin of zero or longer than half the lease: the
    /// heartbeat renews with two thirds of the lease left, so a longer margin would warn before
    /// renewals that come on time.
    ///
    /// # Examples
    ///
    /// A leader that stops its work five seconds before its lease would run out without a
    /// renewal, and leaves the rest to the next leader:
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockTable, LockTableOptions, TableRef};
    /// use tokio_util::sync::CancellationToken;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    ///
    /// # // Every renewal fails from now on, as in an outage.
    /// # use dynalease_fake::{Fault, FaultRule};
    /// # fake.inject(FaultRule::new(Fault::InternalServerError).operation("UpdateItem").after(1));
    /// let stop = CancellationToken::new();
    /// let ended = locks
    ///     .run_as_leader("order-sweeper", Duration::from_secs(30), stop, |lease, token| async move {
    ///         let warning = lease.warning(Duration::from_secs(5))?;
    ///         loop {
    ///             tokio::select! {
    ///                 biased;
    ///                 () = token.cancelled() => return Ok::<(), dynalease::Error>(()), // lost, or the caller stops
    ///                 () = warning.cancelled() => {
    ///                     // 5 s left and no renewal: checkpoint, and let the next leader go on.
    ///                     return Ok(());
    ///                 }
    ///                 () = tokio::time::sleep(Duration::from_secs(1)) => { /* one step of the work */ }
    ///             }
    ///         }
    ///     })
    ///     .await;
    /// assert!(ended.is_ok(), "the work stopped on the warning, 25 s into a lease that did not renew");
    /// # Ok(())
    /// # }
    /// ```
    pub fn warning(&self, margin: Duration) -> Result<CancellationToken, Error> {
        let lease = self.inner.duration;
        if margin.is_zero() || margin > lease / 2 {
            return Err(Error::InvalidMargin { margin, lease });
        }
        let warning = CancellationToken::new();
        self.inner.runtime.spawn(self.inner.clone().warn(margin, warning.clone()));
        Ok(warning)
    }

    /// Renews the lease now, before a step that must not start on a lease about to run out.
    ///
    /// Sends one renewal. Returns `Ok(false)` if the lease has ended, before or because of this
    /// renewal. An error leaves the lease to its heartbeat, which keeps trying.
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
    /// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
    ///
    /// if lease.renew().await? {
    ///     // a whole lease from now to finish the step
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn renew(&self) -> Result<bool, Error> {
        let span = self.inner.renew_span(false);
        self.inner.renew_once().instrument(span).await
    }

    /// Releases the lock: one conditional update that removes the owner while it is still this
    /// lease, and keeps the item, so the fencing token never goes back. A lock that another
    /// process took over is left alone.
    ///
    /// [`ended`](Self::ended) is cancelled before the request is sent. On an error the lock is
    /// free once its lease runs out.
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
    /// let lease = locks.acquire("nightly-report", Duration::from_secs(30)).await?;
    /// lease.release().await?;
    /// let next = locks.try_acquire("nightly-report", Duration::from_secs(30)).await?;
    /// assert_eq!(next.map(|l| l.fencing_token()), Some(2));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn release(self) -> Result<(), Error> {
        if self.inner.begin_release() { self.inner.send_release().await } else { Ok(()) }
    }
}

impl Drop for Holds {
    fn drop(&mut self) {
        let inner = &self.0;
        if !inner.begin_release() {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                let (inner, releases) = (inner.clone(), inner.table.releases.clone());
                releases.spawn_on(async move { inner.send_release_or_log().await }, &runtime);
            }
            Err(_) => log_release_failure(&inner.name, inner.table.store.table_name(), None),
        }
    }
}

/// Parts of a lease that fencing and the election read.
impl Lease {
    /// Releases the lease, and logs a failure (43) instead of returning it.
    pub(crate) async fn release_or_log(self) {
        if self.inner.begin_release() {
            self.inner.send_release_or_log().await;
        }
    }

    pub(crate) fn owner(&self) -> &str {
        &self.inner.owner
    }

    pub(crate) fn table(&self) -> &Shared {
        &self.inner.table
    }
}
