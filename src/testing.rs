//! Helpers that act as another process on a lock, for tests (feature `testing`).
//!
//! - [`LockTable::simulate_holder`], [`LockTable::simulate_release`],
//!   [`LockTable::simulate_delete`]: what other processes or an operator do to a lock.
//! - [`LockTable::state`] and [`LockState`]: the lock as its item says.
//! - [`LockTable::wait_for_refusal`]: the moment a contender finds the lock held.
//!
//! They write through the table of the `LockTable` without a condition, so they work on
//! dynalease-fake and on an emulator alike, and they are for tests, not for a table in
//! production.

use std::future::Future;
use std::time::Duration;

use crate::error::Error;
use crate::lock_table::{LockTable, check};
use crate::store::{Grant, LockView};

/// A lock as its item says, from [`LockTable::state`]. Compare it with one you build.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use dynalease::LockState;
///
/// let expected = LockState {
///     is_held: true,
///     holder_label: Some("another-pod".into()),
///     lease_duration: Some(Duration::from_secs(30)),
///     fencing_token: 2,
/// };
/// assert!(expected.is_held);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockState {
    /// Whether the item has an owner. A lease that ran out without a release still counts.
    pub is_held: bool,
    /// The holder label of the holder, if it has one.
    pub holder_label: Option<String>,
    /// The lease duration of the holder; `None` while the lock is free.
    pub lease_duration: Option<Duration>,
    /// The fencing token of the last acquire.
    pub fencing_token: u64,
}

impl LockTable {
    /// Another process holds the lock `name`, acquired just now and never renewed, as a holder
    /// that crashed. Returns its fencing token.
    ///
    /// A lease of this table on the lock is lost at its next renewal
    /// ([`LossReason::TakenOver`](crate::LossReason::TakenOver)), and a contender takes the
    /// lock over once it has seen this holder for a whole lease.
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
    /// let token = locks.simulate_holder("job", Duration::from_secs(30), "another-pod").await?;
    /// assert_eq!(token, 1);
    /// assert!(locks.try_acquire("job", Duration::from_secs(30)).await?.is_none());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn simulate_holder(
        &self,
        name: &str,
        lease: Duration,
        holder_label: impl Into<Option<&str>>,
    ) -> Result<u64, Error> {
        check(name, lease)?;
        let label = holder_label.into();
        let shared = self.shared();
        let owner = shared.ids.next_id();
        let rvn = shared.ids.next_id();
        let grant = Grant { owner: &owner, rvn: &rvn, lease, label };
        shared.store.force_hold(name, &grant).await
    }

    /// The holder of the lock `name` released it, whoever it was: the next acquire finds it
    /// free and raises the token. A lease of this table on the lock is lost at its next
    /// renewal ([`LossReason::TakenOver`](crate::LossReason::TakenOver)).
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
    /// locks.simulate_holder("job", Duration::from_secs(30), None).await?;
    /// locks.simulate_release("job").await?;
    /// let lease = locks.try_acquire("job", Duration::from_secs(30)).await?;
    /// assert_eq!(lease.map(|l| l.fencing_token()), Some(2));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn simulate_release(&self, name: &str) -> Result<(), Error> {
        check(name, crate::LockTable::MIN_LEASE)?;
        self.shared().store.force_release(name).await
    }

    /// The item of the lock `name` is deleted, as time to live or an operator would: a lease
    /// on it is lost ([`LossReason::Deleted`](crate::LossReason::Deleted)) and the next
    /// acquire starts the token at 1.
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
    ///
    /// let lease = locks.acquire("job", Duration::from_secs(30)).await?;
    /// locks.simulate_delete("job").await?;
    /// assert!(!lease.renew().await?);
    /// assert_eq!(lease.loss_reason(), Some(LossReason::Deleted));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn simulate_delete(&self, name: &str) -> Result<(), Error> {
        check(name, crate::LockTable::MIN_LEASE)?;
        self.shared().store.force_delete(name).await
    }

    /// Reads the item of the lock `name`: `None` for a lock without an item.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::time::Duration;
    /// use dynalease::{LockState, LockTable, LockTableOptions, TableRef};
    ///
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() -> Result<(), dynalease::Error> {
    /// let fake = dynalease_fake::FakeDynamoDb::new();
    /// fake.create_table("Shop", "pk", Some("sk"));
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let locks = LockTable::new(table, LockTableOptions::default())?;
    ///
    /// assert_eq!(locks.state("job").await?, None);
    /// let lease = locks.acquire("job", Duration::from_secs(30)).await?;
    /// lease.release().await?;
    /// assert_eq!(
    ///     locks.state("job").await?,
    ///     Some(LockState { is_held: false, holder_label: None, lease_duration: None, fencing_token: 1 })
    /// );
    /// # Ok(())
    /// # }
    /// ```
    pub async fn state(&self, name: &str) -> Result<Option<LockState>, Error> {
        check(name, crate::LockTable::MIN_LEASE)?;
        Ok(match self.shared().store.read(name).await? {
            LockView::Absent => None,
            LockView::Free { fence } => {
                Some(LockState { is_held: false, holder_label: None, lease_duration: None, fencing_token: fence })
            }
            LockView::Held(holder) => Some(LockState {
                is_held: true,
                holder_label: holder.label,
                lease_duration: Some(holder.lease),
                fencing_token: holder.fence,
            }),
        })
    }

    /// Completes when a try of this `LockTable` next finds the lock `name` held and is turned
    /// away: a [`try_acquire`](Self::try_acquire) that returns `None`, or a poll of
    /// [`acquire`](Self::acquire) that waits on.
    ///
    /// It counts from the call, not from the first poll of the future, so take it before the
    /// contender starts.
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
    /// let leader = LockTable::new(table, LockTableOptions::default())?;
    /// let table = TableRef::builder(fake.client(), "Shop").partition_key("pk").sort_key("sk").build()?;
    /// let follower = LockTable::new(table, LockTableOptions::default())?;
    ///
    /// let held = leader.acquire("job", Duration::from_secs(30)).await?;
    /// let refused = follower.wait_for_refusal("job");
    /// let contender = tokio::spawn({
    ///     let follower = follower.clone();
    ///     async move { follower.acquire("job", Duration::from_secs(30)).await }
    /// });
    /// refused.await; // the follower found the lock held and waits for its next poll
    /// contender.abort();
    /// # Ok(())
    /// # }
    /// ```
    pub fn wait_for_refusal(&self, name: &str) -> impl Future<Output = ()> + Send + 'static {
        let mut refusals = self.shared().refusals.subscribe();
        let name = name.to_owned();
        let before = refusals.borrow().get(&name).copied().unwrap_or(0);
        async move {
            let refused = refusals.wait_for(|counts| counts.get(&name).copied().unwrap_or(0) > before).await.is_ok();
            if !refused {
                // The LockTable is gone, so no try of it will be refused any more.
                std::future::pending::<()>().await;
            }
        }
    }
}
