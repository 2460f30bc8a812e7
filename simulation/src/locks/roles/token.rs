//! The token holder: the process-lock shape of [`dynalease::ProcessLocks`], with tokens that
//! processes hand each other.
//!
//! A token holder believes in its lock only as long as the library promised: a lease from when
//! it called `create`, and for each renewal that returned true, the minimum window it asked for
//! (or the whole duration without one) from when it called. It knows the duration its lock was
//! written with only as well as the library tells it: a renewal with a new duration and a window
//! may or may not have written, so it counts on the shorter of the two from then on. A token
//! that was handed over is renewed as the library advises for a token several instances use:
//! never with a shorter duration.
//!
//! One hold in four is sloppy, as many users of tokens are: it renews on every step with a
//! small minimum window and ignores the answer, keeps its tokens after their hold ended
//! (released, handed over, or left to run out) and now and then renews one of them again, and
//! renews right after its own release. A token it hands over it keeps too, so two instances
//! renew it. It believes in nothing: the checker holds each renewal that answers `true` to the
//! lock item as DynamoDB held it during the call.

use std::time::Duration;

use dynalease::{ProcessLockToken, ProcessLocks, RenewOptions};

use super::pause;
use super::promise::Promise;
use crate::history::Outcome;
use crate::locks::mailbox::Handoff;
use crate::locks::notes::{Lock, LockCall as Call, LockValue as Value, Unheld};
use crate::locks::workload::ProcessCtx;
use crate::rng::SimRng;

/// A lock that this process holds by a token.
struct Hold {
    token: ProcessLockToken,
    fence: u64,
    /// The shortest duration the lock may have been written with last.
    duration: Duration,
    /// The window of the renewals of this hold, if it asks for one.
    window: Option<Duration>,
    /// Whether its renewals may set a new duration: only the process that created the lock, as
    /// long as it never handed the token over, since an instance does not see the renewals of
    /// another, and one that wrote the lock before measures its window from its own last write.
    /// Every new duration is longer than the last.
    sets_durations: bool,
    promise: Promise,
}

/// What a renewal by token told.
enum Renewed {
    /// The token holds the lock: the library promised it until this instant of the process's
    /// monotonic clock.
    Until(Duration),
    /// The token no longer holds the lock.
    Lost,
    /// The renewal failed: nobody knows.
    Unknown,
}

/// Every while, takes a token of `name` that another process handed over, or creates the lock;
/// makes `steps` steps under it; then releases it, hands the token over, or leaves it to run
/// out.
pub(super) async fn token_holder(ctx: ProcessCtx, name: &str, every_ms_max: u64, steps: u32) {
    let mut rng = ctx.rng();
    let lock = ctx.lock_id(name);
    let locks = ctx.process_locks().clone();
    let mut kept = Vec::new();
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        if rng.chance_ppm(250_000) {
            sloppy(&ctx, &lock, name, &locks, steps, &mut kept, &mut rng).await;
            continue;
        }
        let hold = match ctx.mailbox().take(name, ctx.process().id) {
            Some(handoff) => take_over(&ctx, &lock, &locks, handoff, &mut rng).await,
            None => create(&ctx, &lock, name, &locks, &mut rng).await,
        };
        let Some(mut hold) = hold else { continue };
        let lease_ms = ctx.lease().as_millis() as u64;
        for step in 0..steps {
            ctx.sleep(Duration::from_millis(rng.range(lease_ms / 40, lease_ms / 10))).await;
            if !hold.promise.believed() {
                break;
            }
            if step % 4 == 3 {
                ctx.store_write_token(&lock, hold.fence).await;
            }
            match renew(&ctx, &lock, &locks, &mut hold, &mut rng).await {
                Renewed::Until(until) => hold.promise.extend(until, ctx.clock()),
                Renewed::Lost => {
                    hold.promise.end(Unheld::Lost(String::from("taken_over")));
                    break;
                }
                Renewed::Unknown => {}
            }
        }
        if !hold.promise.believed() {
            // As a worker whose clean-up releases the token it had, held or not: a token whose
            // lease ran out or was taken over must leave the lock of the next holder alone.
            if rng.chance_ppm(500_000) {
                release(&ctx, &lock, &locks, &hold.token, hold.fence).await;
            }
            continue;
        }
        hold.promise.end(Unheld::Released);
        match rng.below(20) {
            0..12 => release(&ctx, &lock, &locks, &hold.token, hold.fence).await,
            12..17 => {
                // Another process renews it from now on, and releases it.
                let handoff =
                    Handoff { token: hold.token, fence: hold.fence, duration: hold.duration, from: ctx.process() };
                ctx.mailbox().post(name, handoff);
            }
            // Left to run out, as by a process that forgot it: the next holder takes it over.
            _ => {}
        }
    }
}

/// Releases the lock by `token`.
async fn release(ctx: &ProcessCtx, lock: &Lock, locks: &ProcessLocks, token: &ProcessLockToken, fence: u64) {
    let release = ctx.invoke(Call::Release { lock: lock.clone(), token: fence });
    match locks.release(token).await {
        Ok(held) => ctx.complete(release, Outcome::Ok, Value::Bool(held)),
        Err(err) => ctx.complete(release, Outcome::Info, Value::Text(err.to_string())),
    }
}

/// Creates the lock, and believes in it for a lease from the call.
async fn create(ctx: &ProcessCtx, lock: &Lock, name: &str, locks: &ProcessLocks, rng: &mut SimRng) -> Option<Hold> {
    let lease = ctx.lease();
    let called = ctx.clock().monotonic();
    let op = ctx.invoke(Call::TryAcquire { lock: lock.clone() });
    let token = match ctx.as_operation(op, locks.create(name, lease)).await {
        Ok(Some(token)) => token,
        Ok(None) => {
            ctx.complete(op, Outcome::Fail, Value::Text(String::from("held")));
            return None;
        }
        Err(err) => {
            ctx.check_error(lock, name, &err);
            ctx.complete(op, Outcome::Info, Value::Text(err.to_string()));
            return None;
        }
    };
    let fence = token.fencing_token();
    ctx.complete(op, Outcome::Ok, Value::Token(fence));
    // The library counts the lease from the send of its write, which comes after the call.
    let promise = Promise::start(ctx, lock, fence, called + lease);
    Some(Hold { token, fence, duration: lease, window: window(ctx, rng), sets_durations: true, promise })
}

/// Takes the token another process handed over: renews the lock with it first, and believes in
/// it from then on if the renewal says it still holds.
async fn take_over(
    ctx: &ProcessCtx,
    lock: &Lock,
    locks: &ProcessLocks,
    handoff: Handoff,
    rng: &mut SimRng,
) -> Option<Hold> {
    ctx.handed_over(lock, handoff.fence, handoff.from);
    let Handoff { token, fence, duration, .. } = handoff;
    let promise = Promise::start(ctx, lock, fence, Duration::ZERO);
    // A shared token never gets a shorter duration, as the library advises.
    let mut hold = Hold { token, fence, duration, window: window(ctx, rng), sets_durations: false, promise };
    match renew(ctx, lock, locks, &mut hold, rng).await {
        Renewed::Until(until) => {
            hold.promise = Promise::start(ctx, lock, fence, until);
            Some(hold)
        }
        Renewed::Lost | Renewed::Unknown => None,
    }
}

/// The minimum window of the renewals of a hold, three holds in four: a quarter to three
/// quarters of the lease. The holder asks often, as the window is made for: the library writes
/// only when less than the window is left.
fn window(ctx: &ProcessCtx, rng: &mut SimRng) -> Option<Duration> {
    let lease_ms = ctx.lease().as_millis() as u64;
    rng.chance_ppm(750_000).then(|| Duration::from_millis(rng.range(lease_ms / 4, 3 * lease_ms / 4)))
}

/// Renews the lock of `hold` by its token, one renewal in four with a new, longer duration (up to
/// one and a half leases) if the hold sets durations, and says what the library promised.
async fn renew(ctx: &ProcessCtx, lock: &Lock, locks: &ProcessLocks, hold: &mut Hold, rng: &mut SimRng) -> Renewed {
    let lease_ms = ctx.lease().as_millis() as u64;
    // Never shorter than what the lock may have now: a shorter duration would cut short what
    // earlier renewals promised, and the holder believes in the longest promise it got.
    let floor_ms = hold.duration.as_millis() as u64;
    let new = (hold.sets_durations && rng.chance_ppm(250_000))
        .then(|| Duration::from_millis(rng.range(floor_ms, floor_ms.max(3 * lease_ms / 2))));
    let called = ctx.clock().monotonic();
    let op = ctx.invoke(Call::Renew { lock: lock.clone(), token: hold.fence });
    let mut options = RenewOptions::new();
    if let Some(new) = new {
        options = options.duration(new);
    }
    if let Some(window) = hold.window {
        options = options.only_within(window);
    }
    match locks.renew(&hold.token, options).await {
        Ok(true) => {
            ctx.complete(op, Outcome::Ok, Value::None);
            hold.duration = match (new, hold.window) {
                // Without a window it writes, with the new duration.
                (Some(new), None) => new,
                // With one it may not have written: the shorter of the two.
                (Some(new), Some(_)) => hold.duration.min(new),
                (None, _) => hold.duration,
            };
            Renewed::Until(called + hold.window.map_or(hold.duration, |window| window.min(hold.duration)))
        }
        Ok(false) => {
            ctx.complete(op, Outcome::Fail, Value::Text(String::from("lost")));
            Renewed::Lost
        }
        Err(err) => {
            ctx.complete(op, Outcome::Info, Value::Text(err.to_string()));
            // It may have been written all the same.
            if let Some(new) = new {
                hold.duration = hold.duration.min(new);
            }
            Renewed::Unknown
        }
    }
}

/// How many tokens a sloppy holder keeps after their holds ended.
const KEPT: usize = 4;

/// A sloppy hold: takes a token another process handed over, or creates the lock; makes `steps`
/// steps, each a renewal with a small minimum window whose answer it ignores, and every fourth
/// also a renewal of a token it kept from an earlier hold; then releases the lock and renews it
/// once more, hands the token over, or leaves it to run out; and keeps the token.
async fn sloppy(
    ctx: &ProcessCtx,
    lock: &Lock,
    name: &str,
    locks: &ProcessLocks,
    steps: u32,
    kept: &mut Vec<(ProcessLockToken, u64)>,
    rng: &mut SimRng,
) {
    // The duration the lock was written with, which a handoff must carry: processes may run
    // with leases of their own.
    let lease_ms = ctx.lease().as_millis() as u64;
    let (token, fence, duration) = match ctx.mailbox().take(name, ctx.process().id) {
        Some(handoff) => {
            ctx.handed_over(lock, handoff.fence, handoff.from);
            (handoff.token, handoff.fence, handoff.duration)
        }
        None => {
            let op = ctx.invoke(Call::TryAcquire { lock: lock.clone() });
            match ctx.as_operation(op, locks.create(name, ctx.lease())).await {
                Ok(Some(token)) => {
                    let fence = token.fencing_token();
                    ctx.complete(op, Outcome::Ok, Value::Token(fence));
                    (token, fence, ctx.lease())
                }
                Ok(None) => {
                    ctx.complete(op, Outcome::Fail, Value::Text(String::from("held")));
                    return;
                }
                Err(err) => {
                    ctx.check_error(lock, name, &err);
                    ctx.complete(op, Outcome::Info, Value::Text(err.to_string()));
                    return;
                }
            }
        }
    };
    let window = Duration::from_millis(rng.range(500, lease_ms / 4));
    for step in 0..steps {
        ctx.sleep(Duration::from_millis(rng.range(lease_ms / 40, lease_ms / 10))).await;
        renew_ignoring(ctx, lock, locks, &token, fence, window).await;
        if step % 4 == 3 && !kept.is_empty() {
            let (old, old_fence) = &kept[rng.below(kept.len() as u64) as usize];
            renew_ignoring(ctx, lock, locks, old, *old_fence, window).await;
        }
    }
    match rng.below(3) {
        0 => {
            release(ctx, lock, locks, &token, fence).await;
            renew_ignoring(ctx, lock, locks, &token, fence, window).await;
        }
        1 => {
            let handoff = Handoff { token: token.clone(), fence, duration, from: ctx.process() };
            ctx.mailbox().post(name, handoff);
        }
        _ => {}
    }
    kept.push((token, fence));
    if kept.len() > KEPT {
        kept.remove(0);
    }
}

/// Renews the lock by `token` within `window`, and records the answer, which the caller ignores.
async fn renew_ignoring(
    ctx: &ProcessCtx,
    lock: &Lock,
    locks: &ProcessLocks,
    token: &ProcessLockToken,
    fence: u64,
    window: Duration,
) {
    let op = ctx.invoke(Call::Renew { lock: lock.clone(), token: fence });
    match locks.renew(token, RenewOptions::new().only_within(window)).await {
        Ok(true) => ctx.complete(op, Outcome::Ok, Value::None),
        Ok(false) => ctx.complete(op, Outcome::Fail, Value::Text(String::from("lost"))),
        Err(err) => ctx.complete(op, Outcome::Info, Value::Text(err.to_string())),
    }
}
