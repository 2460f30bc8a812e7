//! The watcher: asks now and then whether a lock is held, as a monitor or a process that
//! starts only where no other runs does.

use super::pause;
use crate::history::{Call, Outcome, Value};
use crate::workload::ProcessCtx;

/// Every while, asks whether `name` is held, and records the answer: the checker holds it
/// against the lock item as DynamoDB held it during the call.
pub(super) async fn watcher(ctx: ProcessCtx, name: &str, every_ms_max: u64) {
    let mut rng = ctx.rng();
    let lock = ctx.lock_id(name);
    loop {
        pause(&ctx, &mut rng, every_ms_max).await;
        let op = ctx.invoke(Call::Exists { lock });
        match ctx.process_locks().exists(name).await {
            Ok(held) => ctx.complete(op, Outcome::Ok, Value::Bool(held)),
            Err(err) => ctx.complete(op, Outcome::Info, Value::Text(err.to_string())),
        }
    }
}
