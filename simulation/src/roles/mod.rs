//! [`Role`]: the built-in workloads of a simulated process.
//!
//! - a leader holds a lock for as long as it can (`run_as_leader`) and writes under it with
//!   `is_held`;
//! - a store writer tries its lock now and then, and while it holds it writes to the external
//!   store with its fencing token;
//! - a one-shot job wakes now and then, waits for its lock at most a little longer than a lease,
//!   renews before each step, writes, and releases;
//! - a try-loop tries its lock on its own schedule and writes when it gets it;
//! - a token holder uses the process-lock shape: it creates its lock now and then, renews it by
//!   token with a minimum window, writes to the external store with the token's fence, and
//!   releases it by token. It believes in the lock only as long as the library promised: a
//!   lease from when it called `create`, and the window of each renewal that returned true.

use std::time::Duration;

use crate::history::{Call, Outcome, Unheld, Value};
use crate::workload::{Held, ProcessCtx, TokenBelief, Workload, WorkloadFuture};

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
    /// Every while (up to `every_ms_max`), creates `lock` with [`dynalease::ProcessLocks`]; on
    /// success makes `steps` short steps, each a renewal by token with a minimum window (a
    /// quarter to three quarters of the lease, drawn for each hold) and every fourth a store
    /// write with the token's fence, and releases by token.
    TokenHolder {
        /// The lock.
        lock: String,
        /// The longest pause between two tries.
        every_ms_max: u64,
        /// How many steps one hold makes.
        steps: u32,
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
            | Role::TokenHolder { lock, .. } => lock,
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
            Role::TokenHolder { lock, .. } => format!("token-holder({lock})"),
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
                Role::TokenHolder { lock, every_ms_max, steps } => token_holder(ctx, &lock, every_ms_max, steps).await,
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

async fn token_holder(ctx: ProcessCtx, name: &str, every_ms_max: u64, steps: u32) {
    let mut rng = ctx.rng();
    let lease = ctx.lease();
    let lease_ms = lease.as_millis() as u64;
    let lock = ctx.lock_id(name);
    let clock = ctx.clock().clone();
    let locks = ctx.process_locks().clone();
    loop {
        ctx.sleep(Duration::from_millis(rng.range(every_ms_max / 4, every_ms_max))).await;
        let called = clock.monotonic();
        let op = ctx.invoke(Call::TryAcquire { lock });
        let token = match ctx.as_operation(op, locks.create(name, lease)).await {
            Ok(Some(token)) => token,
            Ok(None) => {
                ctx.complete(op, Outcome::Fail, Value::Text(String::from("held")));
                continue;
            }
            Err(err) => {
                ctx.complete(op, Outcome::Info, Value::Text(err.to_string()));
                continue;
            }
        };
        let Ok(fence) = dynalease::ProcessLocks::fencing_token(&token) else {
            ctx.complete(op, Outcome::Info, Value::Text(String::from("a token without a fence")));
            continue;
        };
        ctx.complete(op, Outcome::Ok, Value::Token(fence));
        // The library promises the lease from the call at the latest, since it counts it from
        // the send of the write; and each renewal that returns true promises its window from
        // its call.
        let promise = Promise::start(&ctx, lock, fence, called + lease);
        // A window of its own for each hold. The holder asks often, as the window is made for:
        // the library writes only when less than the window is left.
        let window_ms = rng.range(lease_ms / 4, 3 * lease_ms / 4);
        let window = Duration::from_millis(window_ms);
        for step in 0..steps {
            ctx.sleep(Duration::from_millis(rng.range(lease_ms / 40, lease_ms / 10))).await;
            if !promise.believed() {
                break;
            }
            if step % 4 == 3 {
                ctx.store_write_token(lock, fence).await;
            }
            let called = clock.monotonic();
            let renew = ctx.invoke(Call::Renew { lock, token: fence });
            match locks.renew(&token, None, Some(window)).await {
                Ok(true) => {
                    ctx.complete(renew, Outcome::Ok, Value::None);
                    promise.extend(called + window, &clock);
                }
                Ok(false) => {
                    ctx.complete(renew, Outcome::Fail, Value::Text(String::from("lost")));
                    promise.end(Unheld::Lost(String::from("taken_over")));
                    break;
                }
                Err(err) => ctx.complete(renew, Outcome::Info, Value::Text(err.to_string())),
            }
        }
        if !promise.believed() {
            continue;
        }
        promise.end(Unheld::Released);
        let release = ctx.invoke(Call::Release { lock, token: fence });
        match locks.release(&token).await {
            Ok(_) => ctx.complete(release, Outcome::Ok, Value::None),
            Err(err) => ctx.complete(release, Outcome::Info, Value::Text(err.to_string())),
        }
    }
}

/// The belief of a token holder: it lasts until the promise of the library runs out on the
/// process's clock, unless it ends before.
struct Promise {
    state: std::sync::Arc<std::sync::Mutex<(Duration, Option<TokenBelief>)>>,
}

impl Promise {
    /// Believes in `lock` with `token` until `until` on the process's monotonic clock.
    fn start(ctx: &ProcessCtx, lock: crate::history::LockId, token: u64, until: Duration) -> Promise {
        let state = std::sync::Arc::new(std::sync::Mutex::new((until, None)));
        if ctx.clock().monotonic() >= until {
            return Promise { state };
        }
        state.lock().unwrap_or_else(|e| e.into_inner()).1 = Some(ctx.believe_token(lock, token));
        let (watched, clock) = (state.clone(), ctx.clock().clone());
        ctx.spawn(async move {
            loop {
                let until = watched.lock().unwrap_or_else(|e| e.into_inner()).0;
                let now = clock.monotonic();
                if now < until {
                    clock.sleep(until - now).await;
                    continue;
                }
                let mut state = watched.lock().unwrap_or_else(|e| e.into_inner());
                if clock.monotonic() >= state.0 {
                    if let Some(belief) = state.1.take() {
                        belief.end(Unheld::Lost(String::from("expired")));
                    }
                    return;
                }
            }
        });
        Promise { state }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (Duration, Option<TokenBelief>)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn believed(&self) -> bool {
        self.lock().1.is_some()
    }

    /// The library promised the lease until `until` on `clock`.
    fn extend(&self, until: Duration, clock: &crate::clock::ProcessClock) {
        let mut state = self.lock();
        let now = clock.monotonic();
        // A promise that ran out while the renewal was on its way promises nothing.
        if let Some(belief) = &state.1
            && until > now
        {
            belief.promised(until - now);
            state.0 = state.0.max(until);
        }
    }

    fn end(&self, why: Unheld) {
        if let Some(belief) = self.lock().1.take() {
            belief.end(why);
        }
    }
}
