//! [`Promise`]: the belief of a process that holds a lock by a token, which lasts as long as
//! the library promised it.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::clock::ProcessClock;
use crate::locks::notes::{Lock, Unheld};
use crate::locks::workload::{ProcessCtx, TokenBelief};

/// The belief in a lock held by a token: it lasts until the promise of the library runs out on
/// the process's clock, unless it ends before.
pub(super) struct Promise {
    state: Arc<Mutex<(Duration, Option<TokenBelief>)>>,
}

impl Promise {
    /// Believes in `lock` with `token` until `until` on the process's monotonic clock.
    pub(super) fn start(ctx: &ProcessCtx, lock: &Lock, token: u64, until: Duration) -> Promise {
        let state = Arc::new(Mutex::new((until, None)));
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

    fn lock(&self) -> MutexGuard<'_, (Duration, Option<TokenBelief>)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the process still believes in the lock.
    pub(super) fn believed(&self) -> bool {
        self.lock().1.is_some()
    }

    /// The library promised the lease until `until` on `clock`.
    pub(super) fn extend(&self, until: Duration, clock: &ProcessClock) {
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

    /// Ends the belief, for `why`.
    pub(super) fn end(&self, why: Unheld) {
        if let Some(belief) = self.lock().1.take() {
            belief.end(why);
        }
    }
}
