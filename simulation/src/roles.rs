//! [`Role`]: the built-in workloads of a simulated process.
//!
//! - a leader holds a lock for as long as it can (`run_as_leader`) and writes under it with
//!   `is_held`;
//! - a store writer tries its lock now and then, and while it holds it writes to the external
//!   store with its fencing token;
//! - a one-shot job wakes now and then, waits for its lock at most a little longer than a lease,
//!   renews before each step, writes, and releases;
//! - a try-loop tries its lock on its own schedule and writes when it gets it.

use std::time::Duration;

use crate::workload::{Held, ProcessCtx, Workload, WorkloadFuture};

/// A built-in workload, with its lock and its pace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Leads `lock` and makes a fenced write every `write_every_ms` while it leads.
    Leader {
        /// The lock.
        lock: String,
        /// Between two writes.
        write_every_ms: u64,
    },
    /// Every while (up to `every_ms_max`), tries `lock` once; on success writes `writes` times
    /// to the external store with its fencing token, and releases.
    StoreWriter {
        /// The lock.
        lock: String,
        /// The longest pause between two tries.
        every_ms_max: u64,
        /// How many store writes one hold makes.
        writes: u32,
    },
    /// Every while (up to `every_ms_max`), acquires `lock` waiting at most `timeout_ms`, makes
    /// `writes` fenced writes and releases.
    Job {
        /// The lock.
        lock: String,
        /// The longest pause between two runs of the job.
        every_ms_max: u64,
        /// How long it waits for the lock.
        timeout_ms: u64,
        /// How many fenced writes one run makes.
        writes: u32,
    },
    /// Every while (up to `every_ms_max`), tries `lock` once; on success makes one fenced
    /// write and releases.
    TryLoop {
        /// The lock.
        lock: String,
        /// The longest pause between two tries.
        every_ms_max: u64,
    },
}

impl Role {
    /// The lock of the role.
    pub fn lock(&self) -> &str {
        match self {
            Role::Leader { lock, .. }
            | Role::StoreWriter { lock, .. }
            | Role::Job { lock, .. }
            | Role::TryLoop { lock, .. } => lock,
        }
    }
}

impl Workload for Role {
    fn name(&self) -> String {
        match self {
            Role::Leader { lock, .. } => format!("leader({lock})"),
            Role::StoreWriter { lock, .. } => format!("store-writer({lock})"),
            Role::Job { lock, .. } => format!("job({lock})"),
            Role::TryLoop { lock, .. } => format!("try-loop({lock})"),
        }
    }

    fn run(&self, ctx: ProcessCtx) -> WorkloadFuture {
        let role = self.clone();
        Box::pin(async move {
            match role {
                Role::Leader { lock, write_every_ms } => {
                    ctx.lead(&lock, move |ctx, held| write_while_held(ctx, held, write_every_ms)).await;
                }
                Role::StoreWriter { lock, every_ms_max, writes } => {
                    store_writer(ctx, &lock, every_ms_max, writes).await
                }
                Role::Job { lock, every_ms_max, timeout_ms, writes } => {
                    job(ctx, &lock, every_ms_max, timeout_ms, writes).await;
                }
                Role::TryLoop { lock, every_ms_max } => try_loop(ctx, &lock, every_ms_max).await,
            }
        })
    }
}

/// Makes a fenced write every `every_ms` until the lease ends.
async fn write_while_held(ctx: ProcessCtx, held: Held, every_ms: u64) {
    let ended = held.ended();
    loop {
        tokio::select! {
            biased;
            () = ended.cancelled() => return,
            () = ctx.sleep(Duration::from_millis(every_ms)) => {}
        }
        ctx.fenced_write(&held).await;
    }
}

async fn store_writer(ctx: ProcessCtx, lock: &str, every_ms_max: u64, writes: u32) {
    let mut rng = ctx.rng();
    let step = ctx.lease() / 4;
    loop {
        ctx.sleep(Duration::from_millis(rng.range(every_ms_max / 4, every_ms_max))).await;
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

async fn job(ctx: ProcessCtx, lock: &str, every_ms_max: u64, timeout_ms: u64, writes: u32) {
    let mut rng = ctx.rng();
    let step = ctx.lease() / 4;
    loop {
        ctx.sleep(Duration::from_millis(rng.range(every_ms_max / 4, every_ms_max))).await;
        let Some(held) = ctx.acquire(lock, Some(Duration::from_millis(timeout_ms))).await else { continue };
        let ended = held.ended();
        for _ in 0..writes {
            // Each step starts on a lease renewed just now, as a step that must not start on a
            // lease about to run out does.
            if ended.is_cancelled() || !ctx.renew(&held).await {
                break;
            }
            ctx.fenced_write(&held).await;
            tokio::select! {
                biased;
                () = ended.cancelled() => {}
                () = ctx.sleep(step) => {}
            }
        }
        ctx.release(held).await;
    }
}

async fn try_loop(ctx: ProcessCtx, lock: &str, every_ms_max: u64) {
    let mut rng = ctx.rng();
    let step = ctx.lease() / 4;
    loop {
        ctx.sleep(Duration::from_millis(rng.range(every_ms_max / 4, every_ms_max))).await;
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
