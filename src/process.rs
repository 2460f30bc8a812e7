//! The process-lock shape: locks by name, held through a token string, for a process that
//! renews on its own schedule or hands the lock to another process.
//!
//! - [`ProcessLocks`]: create a lock and get a token, renew or release by token, ask whether a
//!   lock exists, or take a [`ProcessLockScope`].
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

/// The first part of every token, which names its format.
const TOKEN_PREFIX: &str = "dl1";

/// What a token holds: the lock, the owner id of its acquire, and its fencing token.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    name: String,
    owner: String,
    fence: u64,
}

impl Token {
    /// `dl1:<fence>:<bytes of owner>:<owner>:<name>`: the owner is counted, so it may hold any
    /// character, and the name, last, is the rest.
    fn encode(&self) -> String {
        format!("{TOKEN_PREFIX}:{}:{}:{}:{}", self.fence, self.owner.len(), self.owner, self.name)
    }

    fn parse(token: &str) -> Result<Token, Error> {
        let invalid = |reason: &str| Error::InvalidToken { reason: reason.to_owned() };
        let rest = token
            .strip_prefix(TOKEN_PREFIX)
            .and_then(|rest| rest.strip_prefix(':'))
            .ok_or_else(|| invalid("it does not start with dl1:, so ProcessLocks::create did not make it"))?;
        let (fence, rest) = rest.split_once(':').ok_or_else(|| invalid("it has no fencing token"))?;
        let fence = fence.parse::<u64>().map_err(|_| invalid("its fencing token is not a whole number"))?;
        if fence == 0 {
            return Err(invalid("its fencing token is 0, and tokens start at 1"));
        }
        let (owner_len, rest) = rest.split_once(':').ok_or_else(|| invalid("it has no owner"))?;
        let owner_len = owner_len.parse::<usize>().map_err(|_| invalid("the length of its owner is not a number"))?;
        if owner_len == 0 {
            return Err(invalid("its owner is empty"));
        }
        let owner = rest.get(..owner_len).ok_or_else(|| invalid("its owner is cut short"))?;
        let name = rest[owner_len..].strip_prefix(':').ok_or_else(|| invalid("it has no lock name after its owner"))?;
        check(name, LockTable::MIN_LEASE).map_err(|err| invalid(&format!("its lock name is not valid: {err}")))?;
        Ok(Token { name: name.to_owned(), owner: owner.to_owned(), fence })
    }
}

/// What this instance knows of a lock it created or renewed: its last write that succeeded,
/// when it was sent, with which duration, and the record version it left. The window of a
/// renewal is measured from it, and holds only while the lock still has that record version.
#[derive(Clone, Debug)]
struct Written {
    sent_at: Duration,
    duration: Duration,
    rvn: String,
}

/// Locks by name that a process creates for a duration and then renews or releases through a
/// token: the shape of a simple process lock, over the leases of a [`LockTable`].
///
/// A token is a string. Any `ProcessLocks` on the same table, in this process or another, can
/// renew or release the lock with it; nothing else can. A lock that is not renewed lasts its
/// duration from the send of its last write, as a lease does, and a lock whose token was lost
/// with its process becomes free to [`create`](Self::create) once this table has seen it
/// unchanged for its whole duration, over several calls, as
/// [`LockTable::try_acquire`] does: no two machines' clocks are compared.
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
/// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
/// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
///
/// let Some(token) = locks.create("my-process", Duration::from_secs(15)).await? else {
///     return Ok(()); // it runs somewhere else
/// };
/// for batch in 0..4 {
///     // ... process a batch of about 5 s ...
///     tokio::time::sleep(Duration::from_secs(5)).await;
///     // Renew to 15 s only when less than 7 s are left.
///     assert!(locks.renew(&token, None, Some(Duration::from_secs(7))).await?);
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
    /// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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
    /// println!("locks in {}", locks.lock_table().table().table_name());
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
    /// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// let token = locks.create("import", Duration::from_secs(15)).await?;
    /// assert!(token.is_some());
    /// assert_eq!(locks.create("import", Duration::from_secs(15)).await?, None);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create(&self, name: &str, duration: Duration) -> Result<Option<String>, Error> {
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
        Ok(Some(Token { name: name.to_owned(), owner: won.owner, fence: won.fence }.encode()))
    }

    /// Renews the lock of `token` for `duration`, or for its current duration if `None`.
    /// Returns whether the token still holds the lock: `false` once another process has it,
    /// it was released, or its item was deleted.
    ///
    /// With `min_renew`, it writes only when less than `min_renew` is left of the lock, to
    /// spare the table a write per call. What is left is measured from this instance's own last
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
    /// from another holder. With `duration` `None` it keeps the duration the lock has, whichever
    /// instance wrote it last, and learns it from the answer.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidToken`] for a string that is not a token, [`Error::InvalidLeaseDuration`],
    /// [`Error::TableNotFound`], and [`Error::DynamoDb`] for a failed request.
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
    /// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// let token = locks.create("import", Duration::from_secs(15)).await?.expect("free");
    /// assert!(locks.renew(&token, Some(Duration::from_secs(60)), None).await?);
    /// locks.release(&token).await?;
    /// assert!(!locks.renew(&token, None, None).await?, "a released lock is not renewed");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn renew(
        &self,
        token: &str,
        duration: Option<Duration>,
        min_renew: Option<Duration>,
    ) -> Result<bool, Error> {
        let token = Token::parse(token)?;
        if let Some(duration) = duration {
            check(&token.name, duration)?;
        }
        let shared = self.locks.shared();
        let table = shared.table.table.as_str();
        let span = tracing::info_span!(
            "Lock.Renew",
            db.collection.name = %table,
            dynalease.lock.name = %token.name,
            dynalease.lock.fencing_token = token.fence,
        );
        let written = self.written().get(&token.owner).cloned();
        if let (Some(min_renew), Some(written)) = (min_renew, written) {
            let left = (written.sent_at + written.duration).saturating_sub(shared.clock.monotonic());
            if left >= min_renew {
                // One read tells whether this instance's last write still stands: not released,
                // taken over or deleted since, nor written again by another instance.
                match shared.store.read(&token.name).instrument(span.clone()).await {
                    Ok(LockView::Held(holder)) if holder.owner == token.owner && holder.rvn == written.rvn => {
                        return Ok(true);
                    }
                    // Another instance renewed it since, perhaps for less: renew now.
                    Ok(LockView::Held(holder)) if holder.owner == token.owner => {}
                    Ok(_) | Err(Error::NotALock { .. }) => {
                        self.forget(&token.owner);
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
            let grant = Grant { owner: &token.owner, rvn: &rvn, lease, label: shared.holder_label.as_deref() };
            let sent_at = shared.clock.monotonic();
            match shared.store.renew(&token.name, &grant, duration.is_none()).await {
                Ok(RenewOutcome::Renewed { lease }) => {
                    telemetry::renewal(table, None);
                    self.remember(&token.owner, Written { sent_at, duration: lease, rvn: rvn.clone() });
                    Ok(true)
                }
                Ok(RenewOutcome::TakenOver | RenewOutcome::Deleted) => {
                    telemetry::renewal(table, Some("ConditionalCheckFailedException"));
                    self.forget(&token.owner);
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
    /// [`Error::InvalidToken`], [`Error::TableNotFound`] and [`Error::DynamoDb`].
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
    /// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// let token = locks.create("import", Duration::from_secs(15)).await?.expect("free");
    /// assert!(locks.release(&token).await?);
    /// assert!(!locks.release(&token).await?, "released already");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn release(&self, token: &str) -> Result<bool, Error> {
        let token = Token::parse(token)?;
        let shared = self.locks.shared();
        let span = tracing::info_span!(
            "Lock.Release",
            db.collection.name = %shared.table.table,
            dynalease.lock.name = %token.name,
            dynalease.lock.fencing_token = token.fence,
        );
        self.forget(&token.owner);
        shared.store.release(&token.name, &token.owner).instrument(span).await
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
    /// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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

    /// The fencing token of the lock that `token` holds, to hand to a system that refuses
    /// writes with a lower token than it has seen. It reads the token only.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidToken`].
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
    /// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
    /// let locks = ProcessLocks::new(LockTable::new(table, LockTableOptions::default())?);
    ///
    /// let token = locks.create("import", Duration::from_secs(15)).await?.expect("free");
    /// assert_eq!(ProcessLocks::fencing_token(&token)?, 1);
    /// assert!(ProcessLocks::fencing_token("import").is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn fencing_token(token: &str) -> Result<u64, Error> {
        Token::parse(token).map(|token| token.fence)
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
    /// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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
/// let table = TableRef::new(fake.client(), "Shop", "pk", Some("sk"));
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
    /// [`ended`](Lease::ended) token and [`is_held`](crate::TransactWriteExt::is_held).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn token(name: &str, owner: &str, fence: u64) -> Token {
        Token { name: name.to_owned(), owner: owner.to_owned(), fence }
    }

    #[test]
    fn a_token_reads_back_as_written_whatever_its_owner_and_name_hold() {
        for written in [token("job", "6f1c", 1), token("a:b:c", "x:y", 42), token("報告", "ü", u64::MAX)] {
            assert_eq!(Token::parse(&written.encode()).ok(), Some(written));
        }
    }

    #[test]
    fn a_malformed_token_is_refused_with_what_is_wrong() {
        let reason = |token: &str| match Token::parse(token) {
            Err(Error::InvalidToken { reason }) => reason,
            other => panic!("{token:?} parsed as {other:?}"),
        };
        assert!(reason("job").contains("dl1"));
        assert!(reason("dl1:x:4:abcd:job").contains("fencing token"));
        assert!(reason("dl1:0:4:abcd:job").contains("start at 1"));
        assert!(reason("dl1:3:9:abcd:job").contains("cut short"));
        assert!(reason("dl1:3:4:abcd").contains("no lock name"));
        assert!(reason("dl1:3:4:abcd:").contains("lock name"));
        assert!(reason("dl1:3:0::job").contains("owner is empty"));
        assert!(reason("dl1:3:1:ü:job").contains("cut short"), "a length inside a character");
    }
}
