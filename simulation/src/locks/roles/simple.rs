//! The workloads of a lease held for a short while: the store writer, the one-shot job and the
//! try-loop.

use std::time::Duration;

use super::pause;
use crate::locks::workload::{Fence, ProcessCtx};

/// Every while, tries `lock` once; on success writes `writes` times to the external store with
/// its fencing token, and releases.
pub(super) async fn store_writer(ctx: ProcessCtx, lock: &str, every_ms_max: u64, writes: u32) {
    let mut rng = ctx.rng();
    let step = ctx.lease() / 4;
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        let Some(held) = ctx.try_acquire(lock).await else { continue };
        let ended = held.ended();
        for _ in 0..writes {
            if ended.is_cancelled() {
                break;
            }
            ctx.store_write(&held).await;
            tokio::select! {
                biased;
                () = ended.cancelled() => {}
                () = ctx.sleep(step) => {}
            }
        }
        ctx.release(held).await;
    }
}

/// Every while, acquires `lock` (waiting at most `timeout_ms` three runs in four, as a
/// scheduled job does, and as long as it takes otherwise), makes `writes` fenced writes, each
/// on a lease renewed just before, and releases the lease or drops it.
///
/// Of the runs that wait at most `timeout_ms`, one in three waits with `try_acquire_for`; one
/// run in eight takes its lock with a `LockTable` of its own, and ends by shutting that table
/// down instead of a release. Half the runs ask for a warning before the lease would run out.
pub(super) async fn job(ctx: ProcessCtx, lock: &str, every_ms_max: u64, timeout_ms: u64, writes: u32) {
    let mut rng = ctx.rng();
    let step = ctx.lease() / 4;
    let lease_ms = ctx.lease().as_millis() as u64;
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        let timeout = rng.chance_ppm(750_000).then(|| Duration::from_millis(timeout_ms));
        let own = (!ctx.is_naive() && rng.chance_ppm(125_000)).then(|| ctx.own_table(rng.next_u64()));
        let held = match (&own, timeout) {
            (Some(table), _) => ctx.try_acquire_for(table, lock, Duration::from_millis(timeout_ms)).await,
            (None, Some(wait)) if rng.chance_ppm(333_333) => ctx.try_acquire_for(ctx.lock_table(), lock, wait).await,
            (None, timeout) => ctx.acquire(lock, timeout).await,
        };
        let Some(held) = held else { continue };
        if rng.chance_ppm(500_000) {
            ctx.warn(&held, Duration::from_millis(rng.range(lease_ms / 10, lease_ms / 2)));
        }
        let ended = held.ended();
        let fence = if rng.chance_ppm(500_000) { Fence::Marked } else { Fence::Plain };
        for _ in 0..writes {
            // Each step starts on a lease renewed just now, as a step that must not start on a
            // lease about to run out does.
            if ended.is_cancelled() || !ctx.renew(&held).await {
                break;
            }
            ctx.fenced_write_as(&held, fence).await;
            tokio::select! {
                biased;
                () = ended.cancelled() => {}
                () = ctx.sleep(step) => {}
            }
        }
        if let Some(table) = own {
            // A service that stops: its table releases what it holds, within a bound.
            let within = Duration::from_millis(rng.range(lease_ms / 20, lease_ms / 4));
            let held = [held];
            ctx.shutdown(&table, within, &held, lock).await;
        } else if rng.chance_ppm(750_000) {
            ctx.release(held).await;
        } else {
            // Dropped: the library releases it in the background.
            drop(held);
        }
    }
}

/// Every while, tries `lock` once; on success makes one fenced write and releases.
pub(super) async fn try_loop(ctx: ProcessCtx, lock: &str, every_ms_max: u64) {
    let mut rng = ctx.rng();
    let step = ctx.lease() / 4;
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        let Some(held) = ctx.try_acquire(lock).await else { continue };
        ctx.fenced_write(&held).await;
        let ended = held.ended();
        tokio::select! {
            biased;
            () = ended.cancelled() => {}
            () = ctx.sleep(step) => {}
        }
        ctx.release(held).await;
    }
}
