//! One API call: the operation from `X-Amz-Target`, the faults the request meets, the engine's
//! answer.

use tokio::runtime::Handle;

use crate::fake::{Call, FakeDynamoDb, Reply};

/// The prefix of every `X-Amz-Target` of DynamoDB.
const TARGET_PREFIX: &str = "DynamoDB_20120810.";

/// Answers one API call; `Reply::Lost` means the connection must drop without an answer.
///
/// A latency fault waits on the fake's clock, driven by `runtime`.
pub(super) fn answer(fake: &FakeDynamoDb, runtime: &Handle, target: &str, body: &[u8]) -> Reply {
    let operation = target.strip_prefix(TARGET_PREFIX).unwrap_or(target);
    let drawn = fake.draw_faults(operation, body, None);
    if let Some(latency) = drawn.latency {
        // The sleep is made inside `block_on`, where the runtime's timer is in reach.
        runtime.block_on(async { fake.clock().sleep(latency).await });
    }
    let reply = fake.answer(&Call { operation, body, client: None, signed: false }, &drawn);
    if let Some(delay) = drawn.response_delay {
        runtime.block_on(async { fake.clock().sleep(delay).await });
    }
    reply
}
