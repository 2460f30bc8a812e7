//! The end of a [`LockTable`]: [`LockTable::shutdown`] releases every lease it holds and
//! acquires nothing more, and [`ShutdownReport`] says how the releases went.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::lock_table::LockTable;

/// How a [`LockTable::shutdown`] went.
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
/// let _lease = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
///
/// let report = locks.shutdown(Duration::from_secs(5)).await;
/// assert_eq!(report.released, 1);
/// assert!(report.is_complete());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// The leases this shutdown released: their release was answered (the lock freed, or
    /// left to another holder that had taken it over).
    pub released: usize,
    /// The releases of this shutdown that failed with an error. Each of those locks is free
    /// once its lease runs out.
    pub failed: usize,
    /// The releases still unanswered when the bound ran out, this shutdown's and those of
    /// leases dropped before it: they go on in the background while the runtime runs.
    pub unanswered: usize,
}

impl ShutdownReport {
    /// Whether every release was answered, and none failed.
    ///
    /// # Examples
    ///
    /// ```
    /// assert!(dynalease::ShutdownReport::default().is_complete());
    /// ```
    pub fn is_complete(&self) -> bool {
        self.failed == 0 && self.unanswered == 0
    }
}

impl LockTable {
    /// Shuts the table down: releases every lease it holds, each with its one conditional
    /// write, and waits for them at most `within`; from then on it acquires no more locks.
    ///
    /// In this order:
    ///
    /// 1. Every acquire from now on fails with [`Error::ShutDown`](crate::Error::ShutDown)
    ///    before it sends anything ([`acquire`](Self::acquire), [`try_acquire`](Self::try_acquire),
    ///    [`try_acquire_for`](Self::try_acquire_for), [`ProcessLocks::create`](crate::ProcessLocks::create)
    ///    and [`scope`](crate::ProcessLocks::scope), and a new [`run_as_leader`](Self::run_as_leader)
    ///    with [`LeaderError::Election`](crate::LeaderError::Election)). An acquire that waits
    ///    between two polls fails with it at once; one whose write is under way releases the lock
    ///    it won, if it won it, and then fails with it.
    /// 2. Every lease of the table ends ([`Lease::ended`](crate::Lease::ended) is cancelled)
    ///    and is released, as [`Lease::release`](crate::Lease::release) does, except a lease
    ///    that was lost to another holder, which sends nothing. A lease whose release began
    ///    before (released, dropped) is not released twice; its release is waited for if it
    ///    is still under way.
    /// 3. Every running election is stopped as by its caller: its work is told to stop (its
    ///    lease has ended), and it returns [`LeaderError::Cancelled`](crate::LeaderError::Cancelled)
    ///    once the work returns. The shutdown does not wait for the work. An election whose
    ///    acquire was under way drops it, as a cancellation by its caller does.
    /// 4. It waits, at most `within` on the table's clock, for every release under way: its
    ///    own, and those of leases dropped before it.
    ///
    /// The tokens of [`ProcessLocks`](crate::ProcessLocks) are not leases: a token may have been
    /// handed to another process, so a shutdown leaves its lock alone; release it by token.
    /// Renewals and releases by token, [`describe`](Self::describe) and [`locks`](Self::locks)
    /// still work after a shutdown.
    ///
    /// Call it before the runtime ends. A lease dropped is released by a task of the runtime,
    /// so a runtime that shuts down right after the drop (the `main` of `#[tokio::main]`
    /// returns, a `Runtime` is dropped) drops that task before its request is answered, and the
    /// lock stays held until its lease runs out; a shutdown waits for those releases too.
    ///
    /// A second call releases nothing more and waits again, within its own bound, for the
    /// releases still under way. Every clone of this `LockTable` is shut down with it.
    ///
    /// # Examples
    ///
    /// A service that ends on Ctrl-C frees its locks before it returns, so that the next
    /// instance takes them at its next poll instead of a whole lease later:
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{Error, LockTable, LockTableOptions, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    /// let lease = locks.acquire("order-sweeper", Duration::from_secs(30)).await?;
    ///
    /// // ... the service runs until Ctrl-C ...
    /// let report = locks.shutdown(Duration::from_secs(5)).await;
    /// if !report.is_complete() {
    ///     eprintln!("some locks stay held until their leases run out: {report:?}");
    /// }
    /// assert!(lease.ended().is_cancelled());
    /// let refused = locks.try_acquire("order-sweeper", Duration::from_secs(30)).await;
    /// assert!(matches!(refused, Err(Error::ShutDown { .. })));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn shutdown(&self, within: Duration) -> ShutdownReport {
        let shared = self.shared();
        shared.closed.cancel();
        let answers = Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
        for lease in shared.take_leases() {
            if let Some(release) = lease.release_for_shutdown() {
                let answers = answers.clone();
                shared.releases.spawn(async move {
                    let counter = if release.await.is_ok() { &answers.0 } else { &answers.1 };
                    counter.fetch_add(1, Ordering::Relaxed);
                });
            }
        }
        shared.stop_elections();
        shared.releases.close();
        tokio::select! {
            biased;
            () = shared.releases.wait() => {}
            () = shared.clock.sleep(within) => {}
        }
        ShutdownReport {
            released: answers.0.load(Ordering::Relaxed),
            failed: answers.1.load(Ordering::Relaxed),
            unanswered: shared.releases.len(),
        }
    }
}
