//! Leader election on a lock: [`LockTable::run_as_leader`], how its terms end
//! ([`LeaderError`]), and the lease of the current term ([`Lease::current`]).
//!
//! An election contends for the lock until the work ends or the caller stops it. The process
//! that holds the lock runs the work for one term; the others wait, and when the leader stops,
//! one of them takes over. A term ends in one of three ways:
//! - the lease is lost: the election waits for the work, whatever it returns, and contends again;
//! - the caller stops: the lease is released and the election returns [`LeaderError::Cancelled`];
//! - the work returns on its own: the lease is released and the election returns its result.

use std::error::Error as StdError;
use std::fmt;
use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::error::Error;
use crate::lease::Lease;
use crate::lock_table::{Attempt, LockTable, acquire_span, check, record_error, record_outcome};
use crate::telemetry;

tokio::task_local! {
    /// The lease of the term whose work runs in this task.
    static CURRENT: Lease;
}

/// Why [`LockTable::run_as_leader`] did not return the result of the work.
///
/// The three cases want different answers from a service: a fault of the work may pass (log it,
/// pause, contend again), an error of the election will not (stop, so that the process is
/// restarted or reported), and a cancellation is the caller's own doing.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::{LeaderError, LockTable, LockTableOptions, TableRef};
/// use tokio_util::sync::CancellationToken;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), dynalease::Error> {
/// let fake = dynalease_fake::FakeDynamoDb::new();
/// fake.create_table("Shop", "pk", Some("sk"));
/// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
/// let locks = LockTable::new(table, LockTableOptions::default())?;
///
/// let stop = CancellationToken::new();
/// let ended = locks
///     .run_as_leader("order-sweeper", Duration::from_secs(30), stop, |_lease, _token| async {
///         Err::<(), _>("the sweep hit a bad order")
///     })
///     .await;
/// match ended {
///     Ok(()) => {}
///     Err(LeaderError::Work(fault)) => println!("the work failed: {fault}; pause and contend again"),
///     Err(LeaderError::Cancelled) => println!("stopped"),
///     Err(LeaderError::Election(err)) => return Err(err), // contending again changes nothing
/// }
/// # Ok(())
/// # }
/// ```
// Not `#[non_exhaustive]`: the three ends are the contract of an election, and a caller
// matches them exhaustively to give each its answer.
#[derive(Debug)]
pub enum LeaderError<E> {
    /// The caller cancelled its token, or shut the lock table down
    /// ([`LockTable::shutdown`]) while the election ran. The lease, if there was one, was
    /// released; whatever the work returned is dropped.
    Cancelled,
    /// The work returned this error on its own, while it led: the lease was released.
    Work(E),
    /// An acquire failed with an error that contending again does not fix: a missing table,
    /// missing permissions, an item at the lock's key that is not a lock, bad arguments.
    Election(Error),
}

impl<E> LeaderError<E> {
    /// Whether the caller cancelled the election.
    ///
    /// # Examples
    ///
    /// ```
    /// let err: dynalease::LeaderError<std::io::Error> = dynalease::LeaderError::Cancelled;
    /// assert!(err.is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        matches!(self, LeaderError::Cancelled)
    }

    /// The error of the election, if this is one.
    ///
    /// # Examples
    ///
    /// ```
    /// let err: dynalease::LeaderError<std::io::Error> =
    ///     dynalease::LeaderError::Election(dynalease::Error::NoCurrentLease);
    /// assert!(err.into_election().is_some());
    /// ```
    pub fn into_election(self) -> Option<Error> {
        match self {
            LeaderError::Election(err) => Some(err),
            _ => None,
        }
    }
}

impl<E> fmt::Display for LeaderError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LeaderError::Cancelled => f.write_str("the caller stopped the election"),
            LeaderError::Work(_) => f.write_str("the work of the leader failed"),
            LeaderError::Election(_) => f.write_str("the election failed"),
        }
    }
}

impl<E: StdError + 'static> StdError for LeaderError<E> {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            LeaderError::Cancelled => None,
            LeaderError::Work(err) => Some(err),
            LeaderError::Election(err) => Some(err),
        }
    }
}

/// How a contention ended without a lease.
enum Stopped {
    Cancelled,
    Election(Error),
}

/// A run of transient failures of an election's acquires: logged once when it starts (44) and
/// once when DynamoDB answers again (49).
#[derive(Debug, Clone, Copy)]
struct Outage {
    /// The first failure, on the monotonic clock.
    since: Duration,
    /// How many times the election contended again since.
    retries: u64,
}

/// Why a term ended, as log 46 says it.
#[derive(Debug, Clone, Copy)]
enum TermEnd {
    LeaseLost,
    Cancelled,
    WorkReturned,
    WorkFailed,
}

impl TermEnd {
    fn as_str(self) -> &'static str {
        match self {
            TermEnd::LeaseLost => "lease_lost",
            TermEnd::Cancelled => "cancelled",
            TermEnd::WorkReturned => "work_returned",
            TermEnd::WorkFailed => "work_failed",
        }
    }
}

impl LockTable {
    /// Contends for the lock `name` with leases of `lease`, and runs `work` in every term in
    /// which this process leads, until the work returns on its own or `stop` is cancelled.
    ///
    /// `work` gets the lease of the term and a token that is cancelled when `stop` is
    /// cancelled, when the lease is lost, and when the term ends. The lease is also
    /// [current](Lease::current) in the work. A term ends in one of three ways:
    ///
    /// - The lease is lost: whatever the work returns, the election waits for it and contends
    ///   again. `work` is called again for the next term.
    /// - `stop` is cancelled: the election waits for the work, releases the lease and returns
    ///   [`LeaderError::Cancelled`], whatever the work returned.
    /// - The work returns on its own: the lease is released, and the election returns `Ok` with
    ///   its value or [`LeaderError::Work`] with its error. A leader that is done hands the
    ///   lock on.
    ///
    /// An acquire that fails with a transient error ([`Error::is_transient`]: throttling, a
    /// server error, a timeout, credentials that are not there yet) is logged and the election
    /// contends again a third of a lease later; only the first failure of an outage logs a
    /// warning (44), and the next answer of DynamoDB logs its end (49). Any other error ends
    /// the election with [`LeaderError::Election`]. A lease that has ended by the time its
    /// acquire answers starts no term: it is released and the election contends again.
    ///
    /// Work that ignores its token runs on after the lease is lost, when another process may
    /// lead at the same time: writes that must not happen then go through
    /// [`fenced_by`](crate::TransactWriteExt::fenced_by) or carry the fencing token. Cancelling
    /// `stop` while an acquire is under way may leave a lock that nobody holds until its lease
    /// runs out. The lease duration is also how long the work of a leader that crashed stays
    /// undone.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LeaderError, LockTable, LockTableOptions, TableRef};
    /// use tokio_util::sync::CancellationToken;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    ///
    /// let stop = CancellationToken::new();
    /// let election = locks.run_as_leader("order-sweeper", Duration::from_secs(30), stop.clone(), |lease, token| async move {
    ///     println!("leading with fencing token {}", lease.fencing_token());
    ///     while !token.is_cancelled() {
    ///         // one round of sweeping, each write under fenced_by(&lease)
    ///         tokio::select! {
    ///             biased;
    ///             () = token.cancelled() => {}
    ///             () = tokio::time::sleep(Duration::from_secs(60)) => {}
    ///         }
    ///     }
    ///     Ok::<(), std::io::Error>(())
    /// });
    /// let (ended, ()) = tokio::join!(election, async {
    ///     tokio::time::sleep(Duration::from_secs(300)).await;
    ///     stop.cancel(); // shutting down: the lease is released
    /// });
    /// assert!(matches!(ended, Err(LeaderError::Cancelled)));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn run_as_leader<W, F, T, E>(
        &self,
        name: &str,
        lease: Duration,
        stop: CancellationToken,
        mut work: W,
    ) -> Result<T, LeaderError<E>>
    where
        W: FnMut(Lease, CancellationToken) -> F,
        F: Future<Output = Result<T, E>>,
    {
        check(name, lease).map_err(LeaderError::Election)?;
        if self.shared().is_shut_down() {
            return Err(LeaderError::Election(self.shared().shut_down()));
        }
        // Cancelled by the caller, and by a shutdown of the table.
        let election = self.shared().election(&stop);
        let stop = election.token.clone();
        let mut outage = None;
        loop {
            let held = match self.contend(name, lease, &stop, &mut outage).await {
                Ok(held) => held,
                Err(Stopped::Cancelled) => return Err(LeaderError::Cancelled),
                Err(Stopped::Election(err)) => return Err(LeaderError::Election(err)),
            };
            if held.ended().is_cancelled() {
                // The acquire answered after a whole lease: no term on a lease that ended.
                held.release_or_log().await;
                continue;
            }
            if let Some(ended) = self.term(held, &stop, &mut work).await {
                return ended;
            }
        }
    }

    /// Acquires the lock for the election: polls while it is held, retries transient errors
    /// every third of the lease, and stops when `stop` is cancelled.
    async fn contend(
        &self,
        name: &str,
        duration: Duration,
        stop: &CancellationToken,
        outage: &mut Option<Outage>,
    ) -> Result<Lease, Stopped> {
        let shared = self.shared();
        let table = shared.table.table.as_str();
        let span = acquire_span!("Lock.Acquire", table, name);
        let contended = async {
            loop {
                let answer = tokio::select! {
                    biased;
                    () = stop.cancelled() => return Err(Stopped::Cancelled),
                    answer = self.try_once(name, duration) => answer,
                };
                let wait = match answer {
                    Ok(attempt) => {
                        if let Some(ended) = outage.take() {
                            tracing::info!(
                                event_id = 49,
                                lock = %name,
                                table = %table,
                                elapsed = ?shared.clock.monotonic().saturating_sub(ended.since),
                                retries = ended.retries,
                                "DynamoDB answers the election again"
                            );
                        }
                        match attempt {
                            Attempt::Won(won) => return Ok(won),
                            Attempt::Refused { retry_in } => retry_in,
                        }
                    }
                    Err(err) if err.is_transient() => {
                        let wait = duration / 3;
                        let error_type = err.error_type();
                        match outage {
                            Some(outage) => outage.retries += 1,
                            None => {
                                *outage = Some(Outage { since: shared.clock.monotonic(), retries: 1 });
                                tracing::warn!(
                                    event_id = 44,
                                    lock = %name,
                                    table = %table,
                                    error = %err,
                                    error_type,
                                    retry_in = ?wait,
                                    "an acquire of the election failed; it contends again, and logs nothing more until DynamoDB answers"
                                );
                            }
                        }
                        telemetry::contention_retry(table, error_type);
                        wait
                    }
                    Err(err) => return Err(Stopped::Election(err)),
                };
                tokio::select! {
                    biased;
                    () = stop.cancelled() => return Err(Stopped::Cancelled),
                    () = shared.clock.sleep(wait) => {}
                }
            }
        }
        .instrument(span.clone())
        .await;
        match contended {
            Ok(won) => {
                record_outcome(&span, Some(&won));
                match self.lease(name, duration, won, &span).await {
                    Ok(lease) => Ok(lease),
                    // The table was shut down while the write was under way: released again.
                    Err(_) => Err(Stopped::Cancelled),
                }
            }
            // A shutdown of the table stops a running election as its caller would.
            Err(Stopped::Election(Error::ShutDown { .. })) => {
                record_outcome(&span, None);
                Err(Stopped::Cancelled)
            }
            Err(stopped) => {
                match &stopped {
                    Stopped::Cancelled => record_outcome(&span, None),
                    Stopped::Election(err) => record_error(&span, err),
                }
                Err(stopped)
            }
        }
    }

    /// One term: runs the work with `lease` until it returns. `None` when the lease was lost
    /// and the election contends again; otherwise what the election returns.
    async fn term<W, F, T, E>(
        &self,
        lease: Lease,
        stop: &CancellationToken,
        work: &mut W,
    ) -> Option<Result<T, LeaderError<E>>>
    where
        W: FnMut(Lease, CancellationToken) -> F,
        F: Future<Output = Result<T, E>>,
    {
        let shared = self.shared();
        let holder = shared.holder_label.as_deref().unwrap_or("");
        let (name, table) = (lease.name().to_owned(), shared.table.table.as_str());
        tracing::info!(
            event_id = 45,
            lock = %name,
            table = %table,
            fencing_token = lease.fencing_token(),
            holder,
            "this process leads"
        );

        let token = stop.child_token();
        let ended = lease.ended();
        // The work is made and run with the lease current, so that even the code of the
        // closure before its first await sees it.
        let made = CURRENT.sync_scope(lease.clone(), || work(lease.clone(), token.clone()));
        let run = CURRENT.scope(lease.clone(), made);
        tokio::pin!(run);
        let result = tokio::select! {
            biased;
            result = &mut run => result,
            () = ended.cancelled() => {
                token.cancel();
                run.await
            }
        };
        token.cancel();

        let error_type = std::any::type_name::<E>();
        let (end, returned) = if stop.is_cancelled() {
            lease.release_or_log().await;
            if result.is_err() {
                tracing::debug!(
                    event_id = 48,
                    lock = %name,
                    table = %table,
                    error_type,
                    "the work failed after the caller cancelled"
                );
            }
            (TermEnd::Cancelled, Some(Err(LeaderError::Cancelled)))
        } else if let Some(reason) = lease.loss_reason() {
            if result.is_err() {
                tracing::debug!(
                    event_id = 47,
                    lock = %name,
                    table = %table,
                    error_type,
                    reason = reason.as_str(),
                    "the work failed after its lease was lost"
                );
            }
            drop(lease);
            (TermEnd::LeaseLost, None)
        } else {
            lease.release_or_log().await;
            match result {
                Ok(value) => (TermEnd::WorkReturned, Some(Ok(value))),
                Err(err) => (TermEnd::WorkFailed, Some(Err(LeaderError::Work(err)))),
            }
        };
        tracing::info!(
            event_id = 46,
            lock = %name,
            table = %table,
            reason = end.as_str(),
            holder,
            "this process no longer leads"
        );
        returned
    }
}

impl Lease {
    /// The lease of the leader term this code runs in: the work of
    /// [`LockTable::run_as_leader`] and everything it calls or awaits, in the same task.
    /// `None` elsewhere.
    ///
    /// It is a tokio task-local, set for the work of each term, so it does not flow:
    /// - into tasks the work spawns (`tokio::spawn`, `spawn_blocking`, threads): pass them the
    ///   lease, or a clone of it;
    /// - into code that started before the term, such as a poller started when the service
    ///   started: start that work inside the work of the leader, or pass it the lease;
    /// - into the heartbeat of a lease.
    ///
    /// A lease from [`LockTable::acquire`] or [`LockTable::try_acquire`] is never current. In
    /// an election inside the work of another, the inner lease is current; pass the outer one
    /// explicitly. A clone kept past its term is a lease that has ended, so a transaction under
    /// [`fenced_by`](crate::TransactWriteExt::fenced_by) with it fails at DynamoDB, which is the
    /// fencing it is there for.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{Lease, LockTable, LockTableOptions, TableRef};
    /// use tokio_util::sync::CancellationToken;
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    ///
    /// assert!(Lease::current().is_none());
    /// let token = locks
    ///     .run_as_leader("order-sweeper", Duration::from_secs(30), CancellationToken::new(), |_, _| async {
    ///         let lease = Lease::current().expect("inside the work of a term");
    ///         Ok::<u64, std::convert::Infallible>(lease.fencing_token())
    ///     })
    ///     .await;
    /// assert_eq!(token.ok(), Some(1));
    /// # Ok(())
    /// # }
    /// ```
    pub fn current() -> Option<Lease> {
        CURRENT.try_with(Lease::clone).ok()
    }
}
