//! [`Role`]: the built-in workloads of a simulated process. Together they use every operation
//! and option of the library's public API, each under the faults of the run:
//!
//! - a leader contends with `run_as_leader`, writes under each term with every form of
//!   `fenced_by`, and now and then ends a term on its own (with a value or an error) or stops the
//!   election, while it leads or while it waits (`leader.rs`);
//! - a store writer tries its lock now and then, and while it holds it writes to the external
//!   store with its fencing token;
//! - a one-shot job waits for its lock, most times at most a little longer than a lease (now and
//!   then with `try_acquire_for`, with a `LockTable` of its own that it shuts down at the end),
//!   asks for a warning before its lease would run out, renews before each step, writes, and
//!   releases or drops its lease;
//! - a try-loop tries its lock on its own schedule and writes when it gets it (`simple.rs`);
//! - a token holder uses the process-lock shape: it creates its lock, renews it by token with
//!   and without a new duration and a minimum window, writes with the token's fence, and
//!   releases it, hands its token to another process, or leaves it to run out; it takes the
//!   tokens that others hand it; one hold in four is sloppy, renewing on every step and ignoring
//!   the answer, and renewing tokens it kept after their release or shares with another process
//!   (`token.rs`);
//! - a scope holder holds its lock with a `ProcessLockScope`, believes in it as long as the
//!   scope says it is locked, and releases or drops the scope (`scope.rs`);
//! - a watcher asks now and then whether a lock is held, describes it, or lists every lock
//!   (`watcher.rs`).

use std::time::Duration;

use crate::locks::workload::{ProcessCtx, WorkloadFuture};

mod leader;
mod promise;
mod scope;
mod simple;
mod token;
mod watcher;

/// A built-in workload, with its lock and its pace.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(tag = "role", rename_all = "kebab-case", deny_unknown_fields)]
#[non_exhaustive]
pub enum Role {
    /// Leads `lock` and makes a fenced write every `write_every_ms` while it leads. If it
    /// `resigns`, now and then it stops its election, or ends a term on its own.
    Leader {
        /// The lock.
        lock: String,
        /// Between two writes.
        write_every_ms: u64,
        /// Whether it stops its election now and then (one in four, while it leads or waits),
        /// and ends a term on its own now and then (one in ten with a value, one in ten with an
        /// error), before every fault is healed.
        resigns: bool,
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
    /// Every while (up to `every_ms_max`), acquires `lock` waiting at most `timeout_ms` (or, one
    /// run in four, as long as it takes; now and then with `try_acquire_for`, and one run in eight
    /// with a `LockTable` of its own that it shuts down instead of a release), asks for a warning
    /// one run in two, makes `writes` fenced writes, each after a renewal, and releases or drops
    /// the lease.
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
    /// Every while (up to `every_ms_max`), takes a token of `lock` that another process handed
    /// over, or creates the lock with [`dynalease::ProcessLocks`]; makes `steps` short steps,
    /// each a renewal by token (with a minimum window most times, and now and then a new
    /// duration) and every fourth a store write with the token's fence; and then releases the
    /// lock, hands its token to another process, or leaves it to run out. One hold in four is
    /// sloppy: it renews on every step with a small window and ignores the answer, and keeps its
    /// tokens to renew them again after their release, takeover or deletion.
    TokenHolder {
        /// The lock.
        lock: String,
        /// The longest pause between two tries.
        every_ms_max: u64,
        /// How many steps one hold makes.
        steps: u32,
    },
    /// Every while (up to `every_ms_max`), takes `lock` with a [`dynalease::ProcessLockScope`];
    /// while the scope says it is locked, makes `steps` steps (a fenced write, a store write,
    /// now and then a renewal); then releases the scope or drops it.
    ScopeHolder {
        /// The lock.
        lock: String,
        /// The longest pause between two tries.
        every_ms_max: u64,
        /// How many steps one hold makes.
        steps: u32,
    },
    /// Every while (up to `every_ms_max`), asks whether `lock` is held
    /// ([`dynalease::ProcessLocks::exists`]), describes it, or lists every lock of the table.
    Watcher {
        /// The lock.
        lock: String,
        /// The longest pause between two questions.
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
            | Role::TryLoop { lock, .. }
            | Role::TokenHolder { lock, .. }
            | Role::ScopeHolder { lock, .. }
            | Role::Watcher { lock, .. } => lock,
        }
    }
}

impl Role {
    /// A short name, for the summary of a run: `leader(leader)`.
    pub fn name(&self) -> String {
        match self {
            Role::Leader { lock, .. } => format!("leader({lock})"),
            Role::StoreWriter { lock, .. } => format!("store-writer({lock})"),
            Role::Job { lock, .. } => format!("job({lock})"),
            Role::TryLoop { lock, .. } => format!("try-loop({lock})"),
            Role::TokenHolder { lock, .. } => format!("token-holder({lock})"),
            Role::ScopeHolder { lock, .. } => format!("scope-holder({lock})"),
            Role::Watcher { lock, .. } => format!("watcher({lock})"),
        }
    }

    /// Runs the role in one incarnation of a process.
    pub(crate) fn run(self, ctx: ProcessCtx) -> WorkloadFuture {
        let role = self;
        Box::pin(async move {
            match role {
                Role::Leader { lock, write_every_ms, resigns } => {
                    leader::leader(ctx, &lock, write_every_ms, resigns).await;
                }
                Role::StoreWriter { lock, every_ms_max, writes } => {
                    simple::store_writer(ctx, &lock, every_ms_max, writes).await;
                }
                Role::Job { lock, every_ms_max, timeout_ms, writes } => {
                    simple::job(ctx, &lock, every_ms_max, timeout_ms, writes).await;
                }
                Role::TryLoop { lock, every_ms_max } => simple::try_loop(ctx, &lock, every_ms_max).await,
                Role::TokenHolder { lock, every_ms_max, steps } => {
                    token::token_holder(ctx, &lock, every_ms_max, steps).await;
                }
                Role::ScopeHolder { lock, every_ms_max, steps } => {
                    scope::scope_holder(ctx, &lock, every_ms_max, steps).await;
                }
                Role::Watcher { lock, every_ms_max } => watcher::watcher(ctx, &lock, every_ms_max).await,
            }
        })
    }
}

/// Waits a random while of at most `every_ms_max`, and at least a quarter of it.
async fn pause(ctx: &ProcessCtx, rng: &mut crate::rng::SimRng, every_ms_max: u64) {
    ctx.sleep(Duration::from_millis(rng.range(every_ms_max / 4, every_ms_max))).await;
}
