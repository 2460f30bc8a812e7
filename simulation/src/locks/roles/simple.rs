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
pub(super) async fn job(ctx: ProcessCtx, lock: &str, every_ms_max: u64, timeout_ms: u64, writes: u32) {
    let mut rng = ctx.rng();
    let step = ctx.lease() / 4;
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        let timeout = rng.chance_ppm(750_000).then(|| Duration::from_millis(timeout_ms));
        let Some(held) = ctx.acquire(lock, timeout).await else { continue };
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
        if rng.chance_ppm(750_000) {
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
