//! The calls of a `LockTable` beside a lease's own, each recorded in the history for the
//! checker: `describe` and `locks`, `try_acquire_for`, `shutdown` of a table of the process's
//! own, and `Lease::warning`.

use std::sync::Arc;
use std::time::Duration;

use dynalease::{Error, LockDescription, LockStatus, LockTable, SeededIds, TableRef};

use crate::history::{Outcome, Value as Recorded};
use crate::locks::notes::{Lock, LockCall as Call, LockNote, LockValue as Value, Seen};
use crate::locks::workload::{Held, HeldLease, ProcessCtx, library_outcome};
use crate::locks::{PARTITION_KEY, SORT_KEY, TABLE};

impl ProcessCtx {
    /// Describes the lock `name` with the incarnation's table. Records the operation: `Ok` with
    /// what it told, `Info` for an error. The naive lock has nothing to describe.
    pub async fn describe(&self, name: &str) {
        if self.is_naive() {
            return;
        }
        let lock = self.lock_id(name);
        let op = self.invoke(Call::Describe { lock: lock.clone() });
        match self.lock_table().describe(name).await {
            Ok(described) => self.complete(op, Outcome::Ok, Value::Described(described.map(|d| seen(&d)))),
            Err(err) => {
                self.check_error(&lock, name, &err);
                self.complete(op, Outcome::Info, Value::Text(err.to_string()));
            }
        }
    }

    /// Lists every lock of the table with the incarnation's table. Records the operation: `Ok`
    /// with the locks it told (an item at a lock's key that is no lock is left out, as the
    /// listing goes on past it), `Info` when a request failed.
    pub async fn list(&self) {
        if self.is_naive() {
            return;
        }
        let op = self.invoke(Call::List);
        let mut listing = self.lock_table().locks();
        let mut told = Vec::new();
        while let Some(lock) = listing.next().await {
            match lock {
                Ok(described) => told.push(seen(&described)),
                Err(Error::NotALock { .. }) => {}
                Err(err) => {
                    self.complete(op, Outcome::Info, Value::Text(err.to_string()));
                    return;
                }
            }
        }
        self.complete(op, Outcome::Ok, Value::Listed(told));
    }

    /// A `LockTable` of this incarnation besides its own: the same options, ids of its own
    /// drawn from `seed`.
    pub fn own_table(&self, seed: u64) -> LockTable {
        let table = TableRef::builder(self.client().clone(), TABLE)
            .partition_key(PARTITION_KEY)
            .sort_key(SORT_KEY)
            .build()
            .expect("a table of names");
        let options = self.inner.table_options.clone().id_source(Arc::new(SeededIds::new(seed)));
        LockTable::new(table, options).expect("the options of a simulated process are valid")
    }

    /// Acquires the lock `name` with `table` (the incarnation's, or one of [`own_table`](Self::own_table)),
    /// waiting at most `wait` while it is held (`LockTable::try_acquire_for`). Records the
    /// operation (`Fail` when the wait ran out), and the belief if it succeeds. With the naive
    /// lock, an acquire under a timeout.
    pub async fn try_acquire_for(&self, table: &LockTable, name: &str, wait: Duration) -> Option<Held> {
        if self.is_naive() {
            return self.acquire(name, Some(wait)).await;
        }
        let lock = self.lock_id(name);
        let op = self.invoke(Call::TryAcquireFor { lock: lock.clone(), wait_ms: wait.as_millis() as u64 });
        match self.as_operation(op, table.try_acquire_for(name, self.lease(), wait)).await {
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
        }
    }

    /// Shuts `table` down within `within`, holding `leases` (the leases of `table` this process
    /// has not let go of), and then tries to acquire `name` with it, which must fail with
    /// `ShutDown` before anything is sent. Records it as one operation, with the report.
    pub async fn shutdown(&self, table: &LockTable, within: Duration, leases: &[Held], name: &str) {
        let held = leases.iter().map(|h| (h.lock().clone(), h.token())).collect();
        let op = self.invoke(Call::Shutdown { within_ms: within.as_millis() as u64, leases: held });
        let after = async {
            let report = table.shutdown(within).await;
            let refused = matches!(table.try_acquire(name, self.lease()).await, Err(Error::ShutDown { .. }));
            (report, refused)
        };
        let (report, refused) = self.as_operation(op, after).await;
        let value = Value::ShutDown {
            released: report.released,
            failed: report.failed,
            unanswered: report.unanswered,
            refused,
        };
        self.complete(op, Outcome::Ok, value);
    }

    /// Asks for a warning `margin` before the lease of `held` runs out without a renewal
    /// (`Lease::warning`), and records when it fires, until the lease ends. A lease that is
    /// lost fires it at once, if it has not fired yet.
    pub fn warn(&self, held: &Held, margin: Duration) {
        let HeldLease::Library(lease) = &held.lease else { return };
        let Ok(warning) = lease.warning(margin) else {
            self.broken_promise(held.lock(), format!("Lease::warning refused a margin of {margin:?}"));
            return;
        };
        let (lock, token) = (held.lock().clone(), held.token());
        self.ctx.note_value(Recorded::new(LockNote::Warning { lock: lock.clone(), token, margin }));
        // The watch keeps no clone of the lease: a lease that is kept alive is never dropped, and
        // so never released.
        let ctx = self.ctx.clone();
        let ended = lease.ended();
        self.spawn(async move {
            tokio::select! {
                biased;
                () = warning.cancelled() => {}
                () = ended.cancelled() => {
                    // A lost lease fires its warning in the same instant, from a task of the
                    // library woken with this one: let it run. A released one never fires it.
                    for _ in 0..16 {
                        tokio::task::yield_now().await;
                    }
                    if !warning.is_cancelled() {
                        return;
                    }
                }
            }
            ctx.note_value(Recorded::new(LockNote::Warned { lock, token }));
        });
    }
}

/// What a description tells the checker.
fn seen(described: &LockDescription) -> Seen {
    Seen {
        lock: Lock::new(&described.name),
        fence: described.fencing_token,
        // A free lock has no lease; a held one (or one whose holder this table saw expire) has.
        lease_ms: (described.status != LockStatus::Free)
            .then_some(described.lease_duration)
            .flatten()
            .map(|lease| lease.as_millis() as u64),
    }
}
