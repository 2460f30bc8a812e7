//! The leader: an election of [`dynalease::LockTable::run_as_leader`] and the work of its terms.
//!
//! Each term writes under its lease, with every form of `fenced_by`, and most terms run until the
//! lease is lost; now and then one ends on its own, with a value or an error, and hands the
//! lock on. One election in four is stopped by its caller after a while, while it leads or
//! while it waits. What `run_as_leader` returns is held to its documentation: the value or the
//! error of work that returned on its own, `Cancelled` when and only when the caller stopped it,
//! and an election error only for an error that contending again does not fix. The releases it
//! promises are operations of the history, which the checker holds against the lock item.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use dynalease::{LeaderError, Lease};
use tokio_util::sync::CancellationToken;

use crate::history::{OpId, Outcome};
use crate::locks::notes::{Lock, LockCall as Call, LockValue as Value};
use crate::locks::workload::{Fence, Held, ProcessCtx};
use crate::rng::SimRng;

/// How the work of a term ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TermEnd {
    /// When the lease is lost or the caller stops.
    WhenStopped,
    /// On its own after this many writes, with `Ok`.
    Returns(u32),
    /// On its own after this many writes, with an error.
    Fails(u32),
}

/// What the election loop and the work of its terms share.
#[derive(Debug, Default)]
struct Terms {
    /// The fencing token of the term under way.
    leading: Option<u64>,
    /// The end of a term whose work returned on its own, and whether it returned `Ok`.
    returned: Option<(OpId, bool)>,
    /// The caller's stop, once it was given.
    cancel: Option<OpId>,
    /// The lease of the term whose work returned on its own: if the election contends again
    /// instead of returning, that lease must have been lost.
    returned_lease: Option<Lease>,
    /// The lease of the term under way, if any.
    lease: Option<Lease>,
}

/// What one election shares with the work of its terms.
#[derive(Clone, Default)]
struct Shared {
    terms: Arc<Mutex<Terms>>,
    /// The acquire under way (each contention is one), which the grants of its requests are
    /// tied to.
    pending: Arc<Mutex<Option<OpId>>>,
}

impl Shared {
    fn terms(&self) -> MutexGuard<'_, Terms> {
        self.terms.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn pending(&self) -> MutexGuard<'_, Option<OpId>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Leads `name` for as long as the process lives, writing every `write_every_ms` in each term;
/// stopping its election and ending terms on its own now and then if it `resigns`.
pub(super) async fn leader(ctx: ProcessCtx, name: &str, write_every_ms: u64, resigns: bool) {
    if ctx.is_naive() {
        ctx.lead(name, move |ctx, held| async move {
            write_while_held(&ctx, &held, write_every_ms, u32::MAX, Fence::Marked).await;
        })
        .await;
        return;
    }
    let lease = ctx.lease();
    let lock = ctx.lock_id(name);
    let rng = Arc::new(Mutex::new(ctx.rng()));
    loop {
        let shared = Shared::default();
        *shared.pending() = Some(ctx.invoke(Call::Acquire { lock: lock.clone() }));
        let stop = CancellationToken::new();
        let done = CancellationToken::new();
        let stop_after = {
            let mut rng = rng.lock().unwrap_or_else(|e| e.into_inner());
            let stops = resigns && rng.chance_ppm(250_000);
            stops.then(|| Duration::from_millis(rng.range(0, 2 * lease.as_millis() as u64)))
        };
        if let Some(after) = stop_after {
            let (task, shared, stop, done) = (ctx.clone(), shared.clone(), stop.clone(), done.clone());
            let lock = lock.clone();
            ctx.spawn(async move {
                tokio::select! {
                    biased;
                    () = done.cancelled() => {}
                    () = task.sleep(after) => {
                        let mut terms = shared.terms();
                        // Once faults are healed, or once the work returned and the election ends
                        // on its own, nobody stops it.
                        if task.healed() || terms.returned.is_some() {
                            return;
                        }
                        let token = terms.leading;
                        terms.cancel = Some(task.invoke(Call::Resign { lock: lock.clone(), token, stopped: true }));
                        drop(terms);
                        stop.cancel();
                    }
                }
            });
        }
        let work = {
            let (ctx, shared, rng, lock) = (ctx.clone(), shared.clone(), rng.clone(), lock.clone());
            move |lease: Lease, term: CancellationToken| {
                let (ctx, shared, rng, lock) = (ctx.clone(), shared.clone(), rng.clone(), lock.clone());
                async move { work(&ctx, &shared, &rng, &lock, lease, term, write_every_ms, resigns).await }
            }
        };
        let election = ctx.lock_table().run_as_leader(name, lease, stop, work);
        let ended = ctx.as_pending(shared.pending.clone(), election).await;
        done.cancel();
        if let Err(LeaderError::Election(err)) = &ended {
            ctx.check_error(&lock, name, err);
        }
        judge(&ctx, &shared, &lock, &ended);
        if let Some(op) = shared.pending().take() {
            ctx.complete(op, Outcome::Fail, Value::Text(describe(&ended)));
        }
        ctx.sleep(lease / 3).await;
    }
}

/// The work of one term: completes the acquire of the contention, believes in the lease until
/// the term ends, writes, and returns on its own if the term's plan says so.
#[allow(clippy::too_many_arguments)]
async fn work(
    ctx: &ProcessCtx,
    shared: &Shared,
    rng: &Mutex<SimRng>,
    lock: &Lock,
    lease: Lease,
    term: CancellationToken,
    write_every_ms: u64,
    resigns: bool,
) -> Result<(), WorkFailed> {
    let token = lease.fencing_token();
    if let Some(op) = shared.pending().take() {
        ctx.complete(op, Outcome::Ok, Value::Token(token));
    }
    if lease.ended().is_cancelled() && lease.loss_reason() == Some(dynalease::LossReason::Expired) {
        ctx.broken_promise(
            lock,
            format!("a term started on a lease that had run out before its acquire answered (token {token})"),
        );
    }
    // The work of the last term returned on its own, but its lease was lost meanwhile: the
    // election contended again instead of returning, as it promises.
    let returned = {
        let mut terms = shared.terms();
        (terms.returned.take(), terms.returned_lease.take())
    };
    if let (Some((op, _)), last) = returned {
        ctx.complete(op, Outcome::Info, Value::Text(String::from("the lease was lost: it contended again")));
        if last.is_some_and(|last| last.loss_reason().is_none()) {
            ctx.broken_promise(
                lock,
                "run_as_leader contended again after its work returned, though the lease was not lost",
            );
        }
    }
    let (end, fence) = {
        let mut rng = rng.lock().unwrap_or_else(|e| e.into_inner());
        let end = match rng.below(10) {
            0 if resigns => TermEnd::Returns(rng.range(0, 4) as u32),
            1 if resigns => TermEnd::Fails(rng.range(0, 4) as u32),
            _ => TermEnd::WhenStopped,
        };
        let fences = [Fence::Marked, Fence::Plain, Fence::Current, Fence::CurrentMarked];
        (end, *rng.pick(&fences).unwrap_or(&Fence::Marked))
    };
    {
        let mut terms = shared.terms();
        terms.leading = Some(token);
        terms.lease = Some(lease.clone());
    }
    let held = ctx.hold_until(lease.clone(), term.clone());
    let writes = match end {
        TermEnd::Returns(n) | TermEnd::Fails(n) => n,
        TermEnd::WhenStopped => u32::MAX,
    };
    write_while_held(ctx, &held, write_every_ms, writes, fence).await;
    if ctx.healed() {
        // Once every fault is healed, terms run until their lease is lost, so that the checker
        // can time the takeover of a crashed leader's lock by contenders that never stopped.
        write_while_held(ctx, &held, write_every_ms, u32::MAX, fence).await;
    }
    let on_its_own = !term.is_cancelled();
    drop(held);
    let mut terms = shared.terms();
    if on_its_own && end != TermEnd::WhenStopped {
        let ok = matches!(end, TermEnd::Returns(_));
        terms.returned =
            Some((ctx.invoke(Call::Resign { lock: lock.clone(), token: Some(token), stopped: false }), ok));
        terms.returned_lease = Some(lease);
        // If the lease was lost at this very moment, the election contends again.
        *shared.pending() = Some(ctx.invoke(Call::Acquire { lock: lock.clone() }));
        return if ok { Ok(()) } else { Err(WorkFailed) };
    }
    // The lease was lost: the election contends again. (Or the caller stopped it: it returns.)
    if terms.cancel.is_none() {
        terms.leading = None;
        terms.lease = None;
        *shared.pending() = Some(ctx.invoke(Call::Acquire { lock: lock.clone() }));
    }
    Ok(())
}

/// Makes a fenced write every `every_ms` until the lease ends, at most `writes` of them.
async fn write_while_held(ctx: &ProcessCtx, held: &Held, every_ms: u64, writes: u32, fence: Fence) {
    let ended = held.ended();
    for _ in 0..writes {
        tokio::select! {
            biased;
            () = ended.cancelled() => return,
            () = ctx.sleep(Duration::from_millis(every_ms)) => {}
        }
        ctx.fenced_write_as(held, fence).await;
    }
}

/// Holds what `run_as_leader` returned to what its documentation promises, and completes the
/// operations of the election's end: the value or the error of work that returned on its own;
/// `Cancelled` when the caller stopped it before; otherwise an election error, for an error
/// that contending again does not fix.
fn judge(ctx: &ProcessCtx, shared: &Shared, lock: &Lock, ended: &Result<(), LeaderError<WorkFailed>>) {
    let mut terms = shared.terms();
    // Work that returned just as its lease was found lost (run out during a pause, say) ends a
    // term the library counts as lost: the election contends again, and may end on its error.
    let lost_as_it_returned = terms.returned_lease.take().is_some_and(|lease| lease.loss_reason().is_some());
    let broken = match (terms.returned, terms.cancel, ended) {
        (Some((_, true)), _, Ok(())) | (Some((_, false)), _, Err(LeaderError::Work(_))) => None,
        (Some(_), None, Err(LeaderError::Election(err))) if lost_as_it_returned && !err.is_transient() => None,
        (Some((_, ok)), _, _) => Some(format!(
            "returned {} though the work returned {} on its own",
            describe(ended),
            if ok { "Ok" } else { "an error" }
        )),
        (None, Some(_), Err(LeaderError::Cancelled)) => None,
        (None, Some(_), _) => Some(format!("was stopped by its caller, but returned {}", describe(ended))),
        (None, None, Err(LeaderError::Election(err))) if err.is_transient() => {
            Some(format!("gave up on a transient error, which it promises to retry: {err}"))
        }
        (None, None, Err(LeaderError::Election(_))) => None,
        (None, None, _) => {
            Some(format!("returned {}, though the work never returned and nobody stopped it", describe(ended)))
        }
    };
    if let Some(what) = broken {
        ctx.broken_promise(lock, format!("run_as_leader {what}"));
    }
    // The election releases the lease of its term, unless it knows it lost it (then there is
    // nothing to release): the end of a term is `Info` then, and the checker holds an `Ok` end to
    // the release.
    let lost =
        terms.lease.take().and_then(|lease| lease.loss_reason()).filter(|r| *r != dynalease::LossReason::Expired);
    let (outcome, text) = match lost {
        Some(reason) => (Outcome::Info, Value::Text(format!("{} (the lease was lost: {reason})", describe(ended)))),
        None => (Outcome::Ok, Value::Text(describe(ended))),
    };
    if let Some((op, _)) = terms.returned {
        ctx.complete(op, outcome, text.clone());
    }
    if let Some(op) = terms.cancel {
        ctx.complete(op, outcome, text);
    }
}

/// What an election returned, in a few words, with what the error says of itself.
fn describe(ended: &Result<(), LeaderError<WorkFailed>>) -> String {
    use std::error::Error as _;
    match ended {
        Ok(()) => String::from("Ok"),
        Err(err @ LeaderError::Cancelled) => format!("Cancelled ({err})"),
        Err(err @ LeaderError::Work(_)) => {
            format!("Work ({err}: {})", err.source().map_or_else(String::new, ToString::to_string))
        }
        Err(err @ LeaderError::Election(cause)) => format!("Election ({err}: {cause})"),
    }
}

/// The error the work of a term returns when it ends on its own with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WorkFailed;

impl std::fmt::Display for WorkFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the term's work gave up")
    }
}

impl std::error::Error for WorkFailed {}
