//! One API call: the operation from `X-Amz-Target`, the account and region from the signature,
//! the faults the request meets, the engine's answer.

use tokio::runtime::Handle;

use super::http::Headers;
use crate::fake::{Call, FakeDynamoDb, Reply};
use crate::operation::Service;
use crate::place::Place;
use crate::signature::{Signature, place_of};

/// Answers one API call; `Reply::Lost` means the connection must drop without an answer.
///
/// A target without the prefix of DynamoDB (`DynamoDB_20120810.`) or of DynamoDB Streams
/// (`DynamoDBStreams_20120810.`) names no operation. A latency fault waits on the fake's
/// clock, driven by `runtime`.
pub(super) fn answer(fake: &FakeDynamoDb, runtime: &Handle, headers: &Headers, body: &[u8]) -> Reply {
    let (service, operation) = match Service::of_target(&headers.target) {
        (Some(service), operation) => (Some(service), operation),
        (None, _) => (None, ""),
    };
    let authorization = headers.authorization.as_deref();
    let signature = Signature::Header { authorization, dated: headers.dated, query: &headers.query };
    // A credential that names no place is refused by the signature's check; until then, the
    // request is taken to be for the default place.
    let credential = signature.credential();
    let place = credential.as_deref().and_then(place_of).unwrap_or(Place::DEFAULT);
    let drawn = fake.draw_faults(operation, body, None, place);
    if let Some(latency) = drawn.latency {
        // The sleep is made inside `block_on`, where the runtime's timer is in reach.
        runtime.block_on(async { fake.clock().sleep(latency).await });
    }
    let call = Call { operation, service, body, client: None, signed: authorization.is_some(), signature, place };
    let reply = fake.answer(&call, &drawn);
    if let Some(delay) = drawn.response_delay {
        runtime.block_on(async { fake.clock().sleep(delay).await });
    }
    reply
}
