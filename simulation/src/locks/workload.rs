//! Workloads: what a simulated process does, and the handle it does it with.
//!
//! - [`WorkloadFuture`]: what a built-in workload, a [`Role`](crate::locks::Role), runs as.
//! - [`ProcessCtx`]: one incarnation of a process as its workload sees it: its clock, its SDK
//!   client, its `LockTable`, and helpers that do a lock operation and record it in the
//!   history, so that the checker sees it.
//! - [`Held`]: a lease that the process believes it holds, recorded as a belief from when it
//!   was acquired until the process learns that it ended.
//!
//! Everything a workload awaits must go through the process: its clock, its client, the
//! helpers. A plain `tokio::time::sleep` would not stop while the process is paused.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use dynalease::{HeldCheck, Lease, LockTable, ProcessLocks, TransactWriteExt};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::clock::ProcessClock;
use crate::ctx::Ctx;
use crate::history::{OpId, Outcome, ProcessRef, SpanId, Value as Recorded};
use crate::locks::mailbox::Mailbox;
use crate::locks::naive::{NaiveLease, NaiveLocks};
use crate::locks::notes::{Belief, Lock, LockCall, LockNote, LockValue, Unheld};
use crate::locks::operation::lock_pending;
use crate::locks::probe::LockProbe;
use crate::locks::{OP_HEADER, PARTITION_KEY, SORT_KEY, TABLE};
use crate::rng::SimRng;

/// The calls and values of the lock library's history, as a process records them.
type Call = LockCall;
/// The result of a call.
type Value = LockValue;

/// The future of a workload.
pub type WorkloadFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// The lock implementation the world runs.
#[derive(Clone, Debug)]
pub(crate) enum Locks {
    Library,
    Naive(NaiveLocks),
}

/// What one incarnation of a process keeps for all its lock workloads: one `LockTable` per
/// table, since it remembers the holders it has seen.
pub(crate) struct LockIncarnation {
    pub(crate) lock_table: LockTable,
    pub(crate) process_locks: ProcessLocks,
    pub(crate) locks: Locks,
    /// The options of `lock_table`, but for its ids: for another `LockTable` of the incarnation.
    pub(crate) table_options: dynalease::LockTableOptions,
    /// Whether `lock_table` writes an expiry on its lock items (the option of time to live).
    pub(crate) writes_expiry: bool,
}

/// One incarnation of a process, as one of its workloads sees it. Cheap to clone.
///
/// The helpers ([`acquire`](Self::acquire), [`try_acquire`](Self::try_acquire),
/// [`fenced_write`](Self::fenced_write), [`store_write`](Self::store_write),
/// [`release`](Self::release)) use the lock the world runs (the library's, or the naive one
/// with `--lock naive`) and record each operation in the history. Code that uses the
/// [`lock_table`](Self::lock_table) directly records its leases with [`hold`](Self::hold) and
/// its own operations with [`invoke`](Self::invoke) and [`complete`](Self::complete).
#[derive(Clone)]
pub struct ProcessCtx {
    pub(super) ctx: Ctx<LockCall, LockValue>,
    pub(super) inner: Arc<LockIncarnation>,
    lease: Duration,
}

impl fmt::Debug for ProcessCtx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessCtx").field("process", &self.ctx.process()).finish()
    }
}

/// How a fenced write adds the check of its lease to its transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    /// `fenced_by_marked`, which tells a lost lease from another cancellation.
    Marked,
    /// `fenced_by`.
    Plain,
    /// `fenced_by_current`: the lease of the leader term the write runs in.
    Current,
    /// `fenced_by_current_marked`.
    CurrentMarked,
}

/// A lease that a process believes it holds.
///
/// Dropping it ends the belief; the lease of the library is then released in the background,
/// as dropping a [`Lease`] does.
pub struct Held {
    lock: Lock,
    name: String,
    token: u64,
    pub(super) lease: HeldLease,
    /// The token whose cancellation ends the belief.
    ended: CancellationToken,
    _dropped: DropGuard,
}

pub(super) enum HeldLease {
    Library(Lease),
    Naive(NaiveLease),
}

impl fmt::Debug for Held {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Held").field("lock", &self.name).field("token", &self.token).finish_non_exhaustive()
    }
}

impl Held {
    /// The name of the lock.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The lock.
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    /// The fencing token of the lease.
    pub fn token(&self) -> u64 {
        self.token
    }

    /// Cancelled once the lease has ended, as far as this process knows.
    pub fn ended(&self) -> CancellationToken {
        self.ended.child_token()
    }

    /// The lease of the library, unless the world runs the naive lock.
    pub fn lease(&self) -> Option<&Lease> {
        match &self.lease {
            HeldLease::Library(lease) => Some(lease),
            HeldLease::Naive(_) => None,
        }
    }
}

/// A belief in a lock held by a token rather than a [`Lease`]: from
/// [`ProcessCtx::believe_token`] until [`end`](Self::end) or the drop (a release).
#[derive(Debug)]
pub struct TokenBelief {
    recorder: crate::history::Recorder,
    belief: SpanId,
    lock: Lock,
    token: u64,
}

impl TokenBelief {
    /// The lock.
    pub fn lock(&self) -> &Lock {
        &self.lock
    }

    /// The fencing token.
    pub fn token(&self) -> u64 {
        self.token
    }

    /// Records that the lock promised this lease for `left` more on the process's clock, as a
    /// renewal by token with a minimum window promises when it returns true. The checker holds
    /// the promise against the lease as DynamoDB holds it.
    pub fn promised(&self, left: Duration) {
        let belief = self.belief;
        self.recorder.note_on(belief, || Recorded::new(LockNote::Promised { belief, left }));
    }

    /// Ends the belief, for `why`.
    pub fn end(self, why: Unheld) {
        self.recorder.close(self.belief, Recorded::new(why));
    }
}

impl Drop for TokenBelief {
    fn drop(&mut self) {
        // Ends the belief as released, unless `end` ended it already.
        self.recorder.close(self.belief, Recorded::new(Unheld::Released));
    }
}

impl ProcessCtx {
    /// The lock workload of `ctx` with leases of `lease`: the incarnation's `LockTable` is made
    /// by the first of its workloads to ask.
    pub(crate) fn new(ctx: Ctx<LockCall, LockValue>, inner: Arc<LockIncarnation>, lease: Duration) -> Self {
        ProcessCtx { ctx, inner, lease }
    }

    /// This incarnation of the process.
    pub fn process(&self) -> ProcessRef {
        self.ctx.process()
    }

    /// The clock of the process.
    pub fn clock(&self) -> &ProcessClock {
        self.ctx.clock()
    }

    /// Waits `duration` on the clock of the process.
    pub async fn sleep(&self, duration: Duration) {
        self.ctx.sleep(duration).await;
    }

    /// The SDK client of the process, wired to the fake through the world's network.
    pub fn client(&self) -> &Client {
        self.ctx.client()
    }

    /// The name of the table of the locks, with partition key `pk` and sort key `sk`.
    pub fn table_name(&self) -> &'static str {
        TABLE
    }

    /// The `LockTable` of this incarnation (a new one after every restart).
    pub fn lock_table(&self) -> &LockTable {
        &self.inner.lock_table
    }

    /// The lease duration of this workload.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Whether the world runs the naive lock instead of the library's.
    pub fn is_naive(&self) -> bool {
        matches!(self.inner.locks, Locks::Naive(_))
    }

    /// A random stream of this workload in this incarnation, derived from the seed of the run,
    /// the process, the incarnation and the workload. Each call starts the same stream over:
    /// call it once.
    pub fn rng(&self) -> SimRng {
        self.ctx.rng()
    }

    /// Runs `future` as a task of this incarnation: aborted when the process crashes.
    pub fn spawn(&self, future: impl Future<Output = ()> + Send + 'static) {
        self.ctx.spawn(future);
    }

    fn probe(&self) -> &LockProbe {
        self.ctx.probe::<LockProbe>().expect("the lock service's processes run with its probe")
    }

    /// The lock `name`, as the history names it.
    pub fn lock_id(&self, name: &str) -> Lock {
        Lock::new(name)
    }

    /// The process-lock shape over the `LockTable` of this incarnation.
    pub fn process_locks(&self) -> &ProcessLocks {
        &self.inner.process_locks
    }

    /// Whether the `LockTable` of this incarnation writes an expiry on its lock items.
    pub(crate) fn writes_expiry(&self) -> bool {
        self.inner.writes_expiry
    }

    /// Records that this process believes it holds `lock` with `token`, a lease it holds by
    /// other means than a [`Lease`] (a token of [`ProcessLocks`], say), until the returned
    /// [`TokenBelief`] is ended or dropped.
    pub fn believe_token(&self, lock: &Lock, token: u64) -> TokenBelief {
        self.believe_lease(lock, token, false)
    }

    /// Records that this process believes it holds `lock` with `token`, a lease that renews
    /// itself if `renews` (the [`Lease`] of a [`dynalease::ProcessLockScope`], say: the checker
    /// then holds it to the heartbeat's promises), until the returned [`TokenBelief`] is ended
    /// or dropped.
    pub fn believe_lease(&self, lock: &Lock, token: u64, renews: bool) -> TokenBelief {
        let belief = Belief { lock: lock.clone(), token, renews };
        let belief = self.ctx.recorder().open(self.process(), Recorded::new(belief));
        TokenBelief { recorder: self.ctx.recorder().clone(), belief, lock: lock.clone(), token }
    }

    /// Records that `from` handed this process the token of its lease `token` on `lock`: from
    /// now on this process may renew and release that lease as its own.
    pub fn handed_over(&self, lock: &Lock, token: u64, from: ProcessRef) {
        self.ctx.note_value(Recorded::new(LockNote::HandedOver { lock: lock.clone(), token, from }));
    }

    /// Records that the library answered against its documentation, as this process saw it:
    /// `what` says how. The checker reports it as a broken promise.
    pub fn broken_promise(&self, lock: &Lock, what: impl Into<String>) {
        self.ctx.note_value(Recorded::new(LockNote::Broken { lock: lock.clone(), what: what.into() }));
    }

    /// Whether every fault of the run is healed: the liveness phase, in which a workload that
    /// stops on its own (an election it cancels, say) would keep the checker from measuring how
    /// soon a crashed holder's lock is taken over.
    pub fn healed(&self) -> bool {
        self.ctx.healed()
    }

    /// Holds an error of the library on the lock `name` to what it promises: an item at the
    /// lock's key that is no lock is an error that names the lock and the table.
    pub fn check_error(&self, lock: &Lock, name: &str, err: &dynalease::Error) {
        if let dynalease::Error::NotALock { lock: named, table, .. } = err
            && (named != name || table != TABLE)
        {
            self.broken_promise(
                lock,
                format!("NotALock names lock {named:?} of table {table:?}, not {name:?} of {TABLE:?}"),
            );
        }
    }

    /// The tokens that processes hand each other, by lock: what one process posts, another
    /// takes.
    pub fn mailbox(&self) -> &Mailbox {
        self.probe().mailbox()
    }

    /// Writes to the external store with `token` for `lock`, as [`store_write`](Self::store_write)
    /// does for a [`Held`].
    pub async fn store_write_token(&self, lock: &Lock, token: u64) -> Outcome {
        let op = self.invoke(Call::StoreWrite { lock: lock.clone(), token });
        let ctx = self.ctx.clone();
        let lock = lock.clone();
        let answer = self
            .ctx
            .remote(true, move || {
                let store = &ctx.probe::<LockProbe>().expect("the lock service's probe").store;
                store.apply(op, &lock, token)
            })
            .await;
        let (outcome, value) = match answer {
            Ok(true) => (Outcome::Ok, Value::None),
            Ok(false) => (Outcome::Fail, Value::Text(String::from("stale token"))),
            Err(_) => (Outcome::Info, Value::Text(String::from("no answer"))),
        };
        self.complete(op, outcome, value);
        outcome
    }

    /// Runs `future`, which acquires a lock, as the operation `op`: the world ties the grants
    /// DynamoDB makes for its requests to `op`, which tells the checker which grant a belief
    /// came from when one process holds several leases of a lock.
    pub async fn as_operation<T>(&self, op: OpId, future: impl Future<Output = T>) -> T {
        self.as_pending(Arc::new(Mutex::new(Some(op))), future).await
    }

    /// Runs `future` as the operation that `pending` holds at each moment, for an election
    /// whose contentions are one operation each.
    pub(crate) async fn as_pending<T>(&self, pending: Arc<Mutex<Option<OpId>>>, future: impl Future<Output = T>) -> T {
        crate::locks::operation::OPERATION.scope(pending, future).await
    }

    /// Records that this process starts `call`; complete it with [`complete`](Self::complete).
    /// An operation still open when the process crashes completes as `Info`.
    pub fn invoke(&self, call: Call) -> OpId {
        self.ctx.recorder().invoke(self.process(), Recorded::new(call))
    }

    /// Records how `op` ended.
    pub fn complete(&self, op: OpId, outcome: Outcome, value: Value) {
        self.ctx.recorder().complete(op, outcome, Recorded::new(value));
    }

    /// Records that this process holds `lease` from now until it learns that the lease ended
    /// (or drops the returned [`Held`]), and returns it as a [`Held`].
    pub fn hold(&self, lease: Lease) -> Held {
        if lease.duration() != self.lease {
            let lock = self.lock_id(lease.name());
            let what = format!("a lease granted for {:?} says it lasts {:?}", self.lease, lease.duration());
            self.broken_promise(&lock, what);
        }
        let ended = lease.ended();
        self.hold_until(lease, ended)
    }

    /// Records that this process holds `lease` from now until `ended` is cancelled (or it
    /// drops the returned [`Held`]): for work that is told to stop by a token of its own, such
    /// as the token of a term of [`LockTable::run_as_leader`].
    pub fn hold_until(&self, lease: Lease, ended: CancellationToken) -> Held {
        let lock = self.lock_id(lease.name());
        let token = lease.fencing_token();
        let watched = lease.clone();
        let dropped = self.believe(&lock, token, ended.clone(), true, move || match watched.loss_reason() {
            Some(reason) => Unheld::Lost(reason.as_str().to_owned()),
            None => Unheld::Released,
        });
        let name = lease.name().to_owned();
        Held { lock, name, token, lease: HeldLease::Library(lease), ended, _dropped: dropped }
    }

    fn hold_naive(&self, name: &str, lease: NaiveLease) -> Held {
        let lock = self.lock_id(name);
        let token = lease.token();
        let watched = lease.clone();
        let dropped = self.believe(&lock, token, lease.ended(), false, move || match watched.loss_reason() {
            Some("released") | None => Unheld::Released,
            Some(reason) => Unheld::Lost(reason.to_owned()),
        });
        let ended = lease.ended();
        Held { lock, name: name.to_owned(), token, lease: HeldLease::Naive(lease), ended, _dropped: dropped }
    }

    /// Records that the process believes it holds `lock` with `token` (a lease that renews
    /// itself if `renews`) until `ended` is cancelled or the returned guard is dropped. A lease
    /// that has ended already when it is handed out is no belief at all.
    fn believe(
        &self,
        lock: &Lock,
        token: u64,
        ended: CancellationToken,
        renews: bool,
        why: impl FnOnce() -> Unheld + Send + 'static,
    ) -> DropGuard {
        let dropped = CancellationToken::new();
        if ended.is_cancelled() {
            return dropped.drop_guard();
        }
        let held = Belief { lock: lock.clone(), token, renews };
        let belief = self.ctx.recorder().open(self.process(), Recorded::new(held));
        let recorder = self.ctx.recorder().clone();
        let on_drop = dropped.clone();
        self.spawn(async move {
            tokio::select! {
                biased;
                () = ended.cancelled() => recorder.close(belief, Recorded::new(why())),
                () = on_drop.cancelled() => {
                    // A lease that ended at this very instant is reported as lost, not dropped.
                    let why = if ended.is_cancelled() { why() } else { Unheld::Released };
                    recorder.close(belief, Recorded::new(why));
                }
            }
        });
        dropped.drop_guard()
    }

    /// Acquires the lock `name` for the lease of the run, waiting while it is held, at most
    /// `timeout` on the process's clock if one is given. Records the operation, and the belief
    /// if it succeeds.
    pub async fn acquire(&self, name: &str, timeout: Option<Duration>) -> Option<Held> {
        let lock = self.lock_id(name);
        let op = self.invoke(Call::Acquire { lock: lock.clone() });
        let lease = self.lease;
        match &self.inner.locks {
            Locks::Library => {
                let attempt = self.inner.lock_table.acquire(name, lease);
                match self.as_operation(op, self.within(timeout, attempt)).await {
                    None => self.complete(op, Outcome::Info, Value::Text(String::from("timed out"))),
                    Some(Ok(lease)) => {
                        self.complete(op, Outcome::Ok, Value::Token(lease.fencing_token()));
                        return Some(self.hold(lease));
                    }
                    Some(Err(err)) => {
                        self.check_error(&lock, name, &err);
                        self.complete(op, library_outcome(&err), Value::Text(err.to_string()));
                    }
                }
            }
            Locks::Naive(naive) => match self.within(timeout, naive.acquire(name, lease)).await {
                None => self.complete(op, Outcome::Info, Value::Text(String::from("timed out"))),
                Some(Ok(held)) => {
                    self.complete(op, Outcome::Ok, Value::Token(held.token()));
                    return Some(self.hold_naive(name, held));
                }
                Some(Err(err)) => self.complete(op, Outcome::Info, Value::Text(err)),
            },
        }
        None
    }

    /// Tries once to acquire the lock `name` for the lease of the run. Records the operation
    /// (`Fail` when the lock is held), and the belief if it succeeds.
    pub async fn try_acquire(&self, name: &str) -> Option<Held> {
        let lock = self.lock_id(name);
        let op = self.invoke(Call::TryAcquire { lock: lock.clone() });
        let lease = self.lease;
        match &self.inner.locks {
            Locks::Library => match self.as_operation(op, self.inner.lock_table.try_acquire(name, lease)).await {
                Ok(Some(lease)) => {
                    self.complete(op, Outcome::Ok, Value::Token(lease.fencing_token()));
                    Some(self.hold(lease))
                }
                Ok(None) => {
                    self.complete(op, Outcome::Fail, Value::Text(String::from("held")));
                    None
                }
                Err(err) => {
                    self.check_error(&lock, name, &err);
                    self.complete(op, library_outcome(&err), Value::Text(err.to_string()));
                    None
                }
            },
            Locks::Naive(naive) => match naive.try_acquire(name, lease).await {
                Ok(Some(held)) => {
                    self.complete(op, Outcome::Ok, Value::Token(held.token()));
                    Some(self.hold_naive(name, held))
                }
                Ok(None) => {
                    self.complete(op, Outcome::Fail, Value::Text(String::from("held")));
                    None
                }
                Err(err) => {
                    self.complete(op, Outcome::Info, Value::Text(err));
                    None
                }
            },
        }
    }

    /// `future`, or `None` if `timeout` passes first on the process's clock.
    async fn within<T>(&self, timeout: Option<Duration>, future: impl Future<Output = T>) -> Option<T> {
        let Some(timeout) = timeout else { return Some(future.await) };
        tokio::select! {
            biased;
            value = future => Some(value),
            () = self.ctx.clock().sleep(timeout) => None,
        }
    }

    /// Releases `held`. Records the operation; the belief ends when the lock tells that the
    /// lease has ended, or at the latest when the release returns.
    pub async fn release(&self, held: Held) {
        let op = self.invoke(Call::Release { lock: held.lock.clone(), token: held.token });
        let Held { lease, _dropped: belief, .. } = held;
        let released = match lease {
            HeldLease::Library(lease) => lease.release().await.map_err(|err| err.to_string()),
            HeldLease::Naive(lease) => lease.release().await,
        };
        drop(belief);
        match released {
            Ok(()) => self.complete(op, Outcome::Ok, Value::None),
            Err(err) => self.complete(op, Outcome::Info, Value::Text(err)),
        }
    }

    /// Renews `held` now, as a step that must not start on a lease about to run out does.
    /// Records the operation: `Ok` if the lease was renewed, `Fail` if it had ended. Returns
    /// whether the lease is still held.
    pub async fn renew(&self, held: &Held) -> bool {
        let HeldLease::Library(lease) = &held.lease else { return !held.ended.is_cancelled() };
        let op = self.invoke(Call::Renew { lock: held.lock.clone(), token: held.token });
        match lease.renew().await {
            Ok(true) => {
                self.complete(op, Outcome::Ok, Value::None);
                if lease.ended().is_cancelled() {
                    let why = lease.loss_reason().map_or_else(|| String::from("released"), |r| r.as_str().to_owned());
                    self.broken_promise(
                        &held.lock,
                        format!("Lease::renew returned true for a lease that had ended ({why})"),
                    );
                }
                true
            }
            Ok(false) => {
                self.complete(op, Outcome::Fail, Value::Text(String::from("ended")));
                if !lease.ended().is_cancelled() {
                    self.broken_promise(&held.lock, "Lease::renew returned false for a lease that has not ended");
                }
                false
            }
            Err(err) => {
                self.complete(op, Outcome::Info, Value::Text(err.to_string()));
                !held.ended.is_cancelled()
            }
        }
    }

    /// Writes the data item of the lock under the lease: with the library, a transaction that
    /// commits only while the lease holds the lock (`fenced_by`); with the naive lock, a plain
    /// put that only the process's belief guards. Records the operation; DynamoDB's commit is
    /// recorded when it is applied. A lease the process already knows has ended sends nothing
    /// and returns `Fail`.
    pub async fn fenced_write(&self, held: &Held) -> Outcome {
        self.fenced_write_as(held, Fence::Marked).await
    }

    /// [`fenced_write`](Self::fenced_write), with the check of the lease added to the
    /// transaction as `fence` says.
    pub async fn fenced_write_as(&self, held: &Held, fence: Fence) -> Outcome {
        let (lock, token) = (held.lock.clone(), held.token);
        if held.ended().is_cancelled() {
            return Outcome::Fail;
        }
        match &held.lease {
            HeldLease::Library(lease) => self.fenced_write_lease(lease, fence).await,
            HeldLease::Naive(_) => {
                let op = self.invoke(Call::FencedWrite { lock: lock.clone(), token });
                let writer = self.process().to_string();
                let Locks::Naive(naive) = &self.inner.locks else {
                    unreachable!("a naive lease comes from the naive locks")
                };
                let (outcome, value) = match naive.unguarded_write(&held.name, token, op.0, &writer).await {
                    Ok(()) => (Outcome::Ok, Value::None),
                    Err(err) => (Outcome::Info, Value::Text(err)),
                };
                self.complete(op, outcome, value);
                outcome
            }
        }
    }

    /// Writes the data item of the lock of `lease` in a transaction that commits only while the
    /// lease holds the lock, checked as `fence` says. Records the operation.
    pub async fn fenced_write_lease(&self, lease: &Lease, fence: Fence) -> Outcome {
        let (lock, token) = (self.lock_id(lease.name()), lease.fencing_token());
        let op = self.invoke(Call::FencedWrite { lock: lock.clone(), token });
        let writer = self.process().to_string();
        let (outcome, value) = self.transact(lease, &lock, op, &writer, fence).await;
        self.complete(op, outcome, value);
        outcome
    }

    async fn transact(&self, lease: &Lease, lock: &Lock, op: OpId, writer: &str, fence: Fence) -> (Outcome, Value) {
        let token = lease.fencing_token();
        let put = Put::builder()
            .table_name(TABLE)
            .item(PARTITION_KEY, AttributeValue::S(format!("DATA#{}", lease.name())))
            .item(SORT_KEY, AttributeValue::S(String::from("DATA")))
            .item("token", AttributeValue::N(token.to_string()))
            .item("op", AttributeValue::N(op.0.to_string()))
            .item("writer", AttributeValue::S(writer.to_owned()))
            .build();
        let put = match put {
            Ok(put) => put,
            Err(err) => return (Outcome::Fail, Value::Text(err.to_string())),
        };
        let request =
            self.ctx.client().transact_write_items().transact_items(TransactWriteItem::builder().put(put).build());
        let mut held = HeldCheck::default();
        let request = match fence {
            Fence::Marked => {
                let request = request.fenced_by_marked(lease, &mut held);
                // The check follows the put, so its reason is the second of the transaction.
                if held.index() != Some(1) {
                    self.broken_promise(
                        lock,
                        format!("fenced_by_marked put its check at {:?}, not at 1", held.index()),
                    );
                }
                request
            }
            Fence::Plain => request.fenced_by(lease),
            Fence::Current | Fence::CurrentMarked => {
                // The lease of the term this code runs in must be the one the term was given.
                match Lease::current() {
                    Some(current) if current.fencing_token() == token && current.name() == lease.name() => {}
                    Some(current) => self.broken_promise(
                        lock,
                        format!(
                            "Lease::current() in the work of the term of token {token} is the lease of {} token {}",
                            current.name(),
                            current.fencing_token()
                        ),
                    ),
                    None => self.broken_promise(
                        lock,
                        format!("Lease::current() is None in the work of the term of token {token}"),
                    ),
                }
                let added = if fence == Fence::CurrentMarked {
                    request.fenced_by_current_marked(&mut held)
                } else {
                    request.fenced_by_current()
                };
                match added {
                    Ok(request) => request,
                    Err(err) => return (Outcome::Fail, Value::Text(err.to_string())),
                }
            }
        };
        let answer = request
            .customize()
            .mutate_request(move |request| {
                request.headers_mut().insert(OP_HEADER, op.0.to_string());
            })
            .send()
            .await;
        match answer {
            Ok(_) => (Outcome::Ok, Value::None),
            Err(err) if held.lost_lease(&err) => (Outcome::Fail, Value::Text(String::from("lease lost"))),
            Err(err) => match err.as_service_error() {
                Some(TransactWriteItemsError::TransactionCanceledException(_)) => {
                    (Outcome::Fail, Value::Text(String::from("cancelled")))
                }
                _ => (Outcome::Info, Value::Text(describe_sdk(&err))),
            },
        }
    }

    /// Writes to the external store with the fencing token of `held`, over the process's
    /// network. Records the operation: `Fail` when the store refuses a token lower than one it
    /// accepted.
    pub async fn store_write(&self, held: &Held) -> Outcome {
        if held.ended().is_cancelled() {
            return Outcome::Fail;
        }
        self.store_write_token(&held.lock, held.token).await
    }

    /// Leads the lock `name` for as long as the process lives: `work` runs once per term with
    /// the lease, until the lease is lost. With the library this is `run_as_leader`; with the
    /// naive lock, acquire and hold. Each contention is recorded as an `Acquire` operation.
    pub async fn lead<W, F>(&self, name: &str, work: W)
    where
        W: Fn(ProcessCtx, Held) -> F + Send + Sync + 'static,
        F: Future<Output = ()> + Send + 'static,
    {
        let lease = self.lease;
        let lock = self.lock_id(name);
        match &self.inner.locks {
            Locks::Library => {
                let work = Arc::new(work);
                let pending = Arc::new(Mutex::new(None::<OpId>));
                loop {
                    *lock_pending(&pending) = Some(self.invoke(Call::Acquire { lock: lock.clone() }));
                    let election = self.inner.lock_table.run_as_leader(name, lease, CancellationToken::new(), {
                        let (ctx, pending, work, lock) = (self.clone(), pending.clone(), work.clone(), lock.clone());
                        move |lease, term| {
                            let (ctx, pending, work, lock) = (ctx.clone(), pending.clone(), work.clone(), lock.clone());
                            async move {
                                if let Some(op) = lock_pending(&pending).take() {
                                    ctx.complete(op, Outcome::Ok, Value::Token(lease.fencing_token()));
                                }
                                // The leader believes it leads until the election tells it to stop.
                                let held = ctx.hold_until(lease, term);
                                work(ctx.clone(), held).await;
                                *lock_pending(&pending) = Some(ctx.invoke(Call::Acquire { lock }));
                                Ok::<(), Infallible>(())
                            }
                        }
                    });
                    let ended = self.as_pending(pending.clone(), election).await;
                    if let Some(op) = lock_pending(&pending).take() {
                        let text = match ended {
                            Err(dynalease::LeaderError::Election(err)) => err.to_string(),
                            Err(other) => other.to_string(),
                            Ok(()) => String::from("the work returned"),
                        };
                        self.complete(op, Outcome::Fail, Value::Text(text));
                    }
                    self.sleep(lease / 3).await;
                }
            }
            Locks::Naive(_) => loop {
                match self.acquire(name, None).await {
                    Some(held) => work(self.clone(), held).await,
                    None => self.sleep(lease / 3).await,
                }
            },
        }
    }
}

/// `Fail` for errors of a call that sent nothing; `Info` when DynamoDB answered with an error
/// or not at all, since a write may have been applied before (its answer lost, the retry
/// refused).
pub(super) fn library_outcome(err: &dynalease::Error) -> Outcome {
    use dynalease::Error;
    match err {
        Error::InvalidLeaseDuration { .. } | Error::InvalidLockName { .. } | Error::InvalidOptions { .. } => {
            Outcome::Fail
        }
        _ => Outcome::Info,
    }
}

/// The error code of an SDK error, or its kind when DynamoDB did not answer.
fn describe_sdk<E, R>(err: &aws_sdk_dynamodb::error::SdkError<E, R>) -> String
where
    E: aws_sdk_dynamodb::error::ProvideErrorMetadata,
{
    use aws_sdk_dynamodb::error::SdkError;
    match err {
        SdkError::ServiceError(service) => service.err().code().unwrap_or("service error").to_owned(),
        SdkError::TimeoutError(_) => String::from("timeout"),
        SdkError::DispatchFailure(_) => String::from("no answer"),
        _ => String::from("failed"),
    }
}
