//! The network between the processes and DynamoDB (and the external store), which the world
//! controls.
//!
//! - [`NetSpec`]: the usual latency of one machine's network.
//! - `Network`: the conditions of one machine's network, which the nemesis changes: partitions,
//!   latency spikes, lost answers to writes.
//! - `Link`: the network of one incarnation: every request passes its gate (a paused process
//!   sends nothing, a crashed one never again), crosses the network, is applied at the far end
//!   and comes back, or does not.
//! - `SimConnector`: the SDK's HTTP client of a process: a `Link` in front of the fake. When
//!   the fake applies a request, it records what DynamoDB granted or committed, the ground truth
//!   of the checker.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use dynalease_fake::FakeHttpClient;

use crate::clock::WorldClock;
use crate::gate::Gate;
use crate::history::{Actor, Event, OpId, ProcessRef, Recorder};
use crate::rng::SimRng;

/// How long a client waits for an answer that the network dropped.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// The HTTP header that names the operation ([`OpId`]) of a write: when DynamoDB commits a
/// request that carries it, the world records [`Event::Committed`]
/// for that operation. Set it on the fenced writes of a workload of your own with
/// `.customize().mutate_request(..)`.
pub const OP_HEADER: &str = "x-dynalease-sim-op";

/// The prefix of the partition key of a lock item of the library.
pub(crate) const LIBRARY_PREFIX: &str = "LOCK#";

/// The prefix of the partition key of a lock item of the naive lock.
pub(crate) const NAIVE_PREFIX: &str = "NAIVE#";

/// The usual latency of one machine's network, each way.
///
/// # Examples
///
/// ```
/// let spec = dynalease_sim::NetSpec { latency_ms_min: 1, latency_ms_max: 12 };
/// # let _ = spec;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NetSpec {
    /// The shortest one-way latency.
    pub latency_ms_min: u64,
    /// The longest one-way latency, spikes aside.
    pub latency_ms_max: u64,
}

impl Default for NetSpec {
    fn default() -> Self {
        NetSpec { latency_ms_min: 1, latency_ms_max: 10 }
    }
}

/// Why a request got no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NetError {
    /// The request or its answer was dropped by a partition: the client timed out.
    Timeout,
    /// The request was applied but its answer was lost: the connection reset.
    Lost,
}

/// The network of one machine, shared by the incarnations of its process.
#[derive(Debug)]
pub(crate) struct Network {
    spec: NetSpec,
    state: Mutex<NetState>,
}

#[derive(Debug)]
struct NetState {
    partitioned: bool,
    extra_ms: u64,
    loss_ppm: u32,
    rng: SimRng,
}

/// What one request meets on its way.
struct Draw {
    there: Duration,
    back: Duration,
    lost: bool,
    partitioned: bool,
}

impl Network {
    pub(crate) fn new(spec: NetSpec, loss_ppm: u32, rng: SimRng) -> Self {
        Network { spec, state: Mutex::new(NetState { partitioned: false, extra_ms: 0, loss_ppm, rng }) }
    }

    fn state(&self) -> MutexGuard<'_, NetState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn set_partitioned(&self, partitioned: bool) {
        self.state().partitioned = partitioned;
    }

    pub(crate) fn set_extra_latency_ms(&self, extra_ms: u64) {
        self.state().extra_ms = extra_ms;
    }

    pub(crate) fn set_loss_ppm(&self, loss_ppm: u32) {
        self.state().loss_ppm = loss_ppm;
    }

    fn partitioned(&self) -> bool {
        self.state().partitioned
    }

    fn draw(&self, write: bool) -> Draw {
        let mut state = self.state();
        let (min, max, extra) = (self.spec.latency_ms_min, self.spec.latency_ms_max, state.extra_ms);
        let there = Duration::from_millis(state.rng.range(min, max) + extra);
        let back = Duration::from_millis(state.rng.range(min, max) + extra);
        let loss_ppm = state.loss_ppm;
        let lost = write && loss_ppm > 0 && state.rng.chance_ppm(loss_ppm);
        Draw { there, back, lost, partitioned: state.partitioned }
    }
}

/// The network of one incarnation of a process.
#[derive(Debug)]
pub(crate) struct Link {
    pub(crate) process: ProcessRef,
    gate: Gate,
    network: Arc<Network>,
    clock: WorldClock,
    recorder: Recorder,
    partition_key: Arc<str>,
}

impl Link {
    pub(crate) fn new(
        process: ProcessRef,
        gate: Gate,
        network: Arc<Network>,
        clock: WorldClock,
        recorder: Recorder,
        partition_key: Arc<str>,
    ) -> Self {
        Link { process, gate, network, clock, recorder, partition_key }
    }

    /// Sends a request: waits while the process is stopped, crosses the network, lets `apply`
    /// answer it at the far end, and brings the answer back through the gate. The answer to a
    /// write may be lost on the way; a partition drops the request or its answer, and the
    /// client times out.
    pub(crate) async fn round_trip<T, F, Fut>(&self, write: bool, apply: F) -> Result<T, NetError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        self.gate.open().await;
        let draw = self.network.draw(write);
        if draw.partitioned {
            self.clock.sleep(REQUEST_TIMEOUT).await;
            self.gate.open().await;
            return Err(NetError::Timeout);
        }
        if !draw.there.is_zero() {
            self.clock.sleep(draw.there).await;
        }
        let answer = apply().await;
        if !draw.back.is_zero() {
            self.clock.sleep(draw.back).await;
        }
        if self.network.partitioned() {
            self.clock.sleep(REQUEST_TIMEOUT.saturating_sub(draw.there + draw.back)).await;
            self.gate.open().await;
            return Err(NetError::Timeout);
        }
        self.gate.open().await;
        if draw.lost {
            return Err(NetError::Lost);
        }
        Ok(answer)
    }

    /// Records what DynamoDB did with a request it answered: a lease it granted, a fenced
    /// write it committed.
    fn observe(&self, operation: &str, op: Option<OpId>, response: &HttpResponse) {
        if response.status().as_u16() != 200 {
            return;
        }
        if let Some(op) = op {
            self.recorder.record(Actor::Db, Event::Committed { op });
        }
        if operation != "UpdateItem" {
            return;
        }
        let Some(body) = response.body().bytes() else { return };
        if !contains(body, b"\"fence\"") {
            return;
        }
        if let Some((name, token)) = granted_lock(body, &self.partition_key) {
            let lock = self.recorder.lock(&name);
            self.recorder.record(Actor::Db, Event::Granted { lock, token, to: self.process });
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// The lock and fencing token of an acquire's answer (`ReturnValues` `ALL_NEW` on a lock item
/// that has an owner), if the body is one.
fn granted_lock(body: &[u8], partition_key: &str) -> Option<(String, u64)> {
    let json: serde_json::Value = serde_json::from_slice(body).ok()?;
    let item = json.get("Attributes")?;
    item.get("owner")?.get("S")?;
    let key = item.get(partition_key)?.get("S")?.as_str()?;
    let name = key.strip_prefix(LIBRARY_PREFIX).or_else(|| key.strip_prefix(NAIVE_PREFIX))?;
    let token = item.get("fence")?.get("N")?.as_str()?.parse().ok()?;
    Some((name.to_owned(), token))
}

/// Whether an operation of DynamoDB writes.
fn is_write(operation: &str) -> bool {
    matches!(operation, "UpdateItem" | "PutItem" | "DeleteItem" | "TransactWriteItems" | "BatchWriteItem")
}

/// The SDK's HTTP client of one incarnation: its [`Link`] in front of the fake.
#[derive(Clone, Debug)]
pub(crate) struct SimConnector {
    fake: FakeHttpClient,
    link: Arc<Link>,
}

impl SimConnector {
    pub(crate) fn new(fake: FakeHttpClient, link: Arc<Link>) -> Self {
        SimConnector { fake, link }
    }
}

impl HttpConnector for SimConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let target = request.headers().get("x-amz-target").unwrap_or("");
        let operation = target.strip_prefix("DynamoDB_20120810.").unwrap_or(target).to_owned();
        let op = request.headers().get(OP_HEADER).and_then(|v| v.parse().ok()).map(OpId);
        let fake = self.fake.clone();
        let link = self.link.clone();
        HttpConnectorFuture::new(async move {
            let write = is_write(&operation);
            let sent = link
                .round_trip(write, || async {
                    let answer = fake.call(request).await;
                    if let Ok(response) = &answer {
                        link.observe(&operation, op, response);
                    }
                    answer
                })
                .await;
            match sent {
                Ok(answer) => answer,
                Err(NetError::Timeout) => Err(ConnectorError::timeout("dynalease-sim: no answer (partition)".into())),
                Err(NetError::Lost) => Err(ConnectorError::io(Box::new(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "dynalease-sim: the answer was lost after the request was applied",
                )))),
            }
        })
    }
}

impl HttpClient for SimConnector {
    fn http_connector(&self, _: &HttpConnectorSettings, _: &RuntimeComponents) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_acquire_answer_names_its_lock_and_token() {
        let body =
            br#"{"Attributes":{"pk":{"S":"LOCK#leader"},"sk":{"S":"LOCK"},"owner":{"S":"o"},"fence":{"N":"12"}}}"#;
        assert_eq!(granted_lock(body, "pk"), Some((String::from("leader"), 12)));
        let naive = br#"{"Attributes":{"pk":{"S":"NAIVE#job"},"owner":{"S":"o"},"fence":{"N":"3"}}}"#;
        assert_eq!(granted_lock(naive, "pk"), Some((String::from("job"), 3)));
        let released = br#"{"Attributes":{"pk":{"S":"LOCK#leader"},"fence":{"N":"12"}}}"#;
        assert_eq!(granted_lock(released, "pk"), None);
    }
}
