//! The scope holder: a lock held with a [`ProcessLockScope`], believed in as long as the scope
//! says it is locked.
//!
//! The belief follows what [`ProcessLockScope::is_locked`] answers, asked whenever the answer
//! may change: at once when the scope's lease ends, and before every step. So a scope that says
//! it is locked after its lease ended makes the process believe in a lease it no longer has,
//! which the checker sees.

use std::sync::{Arc, Mutex, MutexGuard};

use dynalease::ProcessLockScope;

use super::pause;
use crate::history::Outcome;
use crate::locks::notes::{Lock, LockCall as Call, LockValue as Value, Unheld};
use crate::locks::workload::{Fence, ProcessCtx, TokenBelief};

/// The scope and the belief in it, shared with the task that watches the lease's end.
#[derive(Default)]
struct Shared {
    scope: Option<ProcessLockScope>,
    belief: Option<TokenBelief>,
}

/// What the holder and its watcher share.
#[derive(Clone, Default)]
struct Holding(Arc<Mutex<Shared>>);

impl Holding {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Asks the scope whether it is locked, and ends the belief if it says no. Returns the answer.
    fn confirm(&self) -> bool {
        let mut shared = self.lock();
        let locked = shared.scope.as_ref().is_some_and(ProcessLockScope::is_locked);
        if !locked && let Some(belief) = shared.belief.take() {
            let why = shared
                .scope
                .as_ref()
                .and_then(|scope| scope.lease())
                .and_then(|lease| lease.loss_reason())
                .map_or(Unheld::Released, |reason| Unheld::Lost(reason.as_str().to_owned()));
            belief.end(why);
        }
        locked
    }

    /// Ends the belief (the holder lets go of the lock) and hands the scope out.
    fn let_go(&self) -> Option<ProcessLockScope> {
        let mut shared = self.lock();
        if let Some(belief) = shared.belief.take() {
            belief.end(Unheld::Released);
        }
        shared.scope.take()
    }
}

/// Every while, takes `name` with a scope; while the scope says it is locked, makes `steps`
/// steps, each a fenced write and a store write, now and then after an explicit renewal; then
/// releases the scope and waits for the answer, or drops it.
pub(super) async fn scope_holder(ctx: ProcessCtx, name: &str, every_ms_max: u64, steps: u32) {
    let mut rng = ctx.rng();
    let lock = ctx.lock_id(name);
    let step = ctx.lease() / 5;
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        let Some((holding, lease)) = take(&ctx, &lock, name).await else { continue };
        let fence = if rng.chance_ppm(500_000) { Fence::Marked } else { Fence::Plain };
        for _ in 0..steps {
            ctx.sleep(step).await;
            if rng.chance_ppm(250_000) {
                let renew = ctx.invoke(Call::Renew { lock: lock.clone(), token: lease.fencing_token() });
                match lease.renew().await {
                    Ok(renewed) => ctx.complete(renew, Outcome::Ok, Value::Bool(renewed)),
                    Err(err) => ctx.complete(renew, Outcome::Info, Value::Text(err.to_string())),
                }
            }
            if !holding.confirm() {
                break;
            }
            ctx.fenced_write_lease(&lease, fence).await;
            if !holding.confirm() {
                break;
            }
            ctx.store_write_token(&lock, lease.fencing_token()).await;
        }
        let Some(scope) = holding.let_go() else { continue };
        if rng.chance_ppm(500_000) {
            let release = ctx.invoke(Call::Release { lock: lock.clone(), token: lease.fencing_token() });
            match scope.release().await {
                Ok(()) => ctx.complete(release, Outcome::Ok, Value::None),
                Err(err) => ctx.complete(release, Outcome::Info, Value::Text(err.to_string())),
            }
        } else {
            // Dropped: the library releases it in the background.
            drop(scope);
        }
    }
}

/// Takes a scope on `name`. If it is locked, believes in it and starts the task that asks the
/// scope again the moment its lease ends; returns what it shares with that task, and a clone
/// of the scope's lease.
async fn take(ctx: &ProcessCtx, lock: &Lock, name: &str) -> Option<(Holding, dynalease::Lease)> {
    let op = ctx.invoke(Call::TryAcquire { lock: lock.clone() });
    let scope = match ctx.as_operation(op, ctx.process_locks().scope(name, ctx.lease())).await {
        Ok(scope) => scope,
        Err(err) => {
            ctx.check_error(lock, name, &err);
            ctx.complete(op, Outcome::Info, Value::Text(err.to_string()));
            return None;
        }
    };
    let Some(lease) = scope.lease().cloned() else {
        if scope.is_locked() {
            ctx.broken_promise(lock, "a scope that says it is locked has no lease");
        }
        ctx.complete(op, Outcome::Fail, Value::Text(String::from("held")));
        // Releasing a scope that never got the lock sends nothing and succeeds.
        if scope.release().await.is_err() {
            ctx.broken_promise(lock, "the release of a scope that never got the lock failed");
        }
        return None;
    };
    ctx.complete(op, Outcome::Ok, Value::Token(lease.fencing_token()));
    if !scope.is_locked() {
        // A lease whose acquire answered after it ran out: no belief.
        return None;
    }
    let holding = Holding::default();
    {
        let mut shared = holding.lock();
        shared.belief = Some(ctx.believe_lease(lock, lease.fencing_token(), true));
        shared.scope = Some(scope);
    }
    let (watched, ended) = (holding.clone(), lease.ended());
    ctx.spawn(async move {
        ended.cancelled().await;
        watched.confirm();
    });
    Some((holding, lease))
}
