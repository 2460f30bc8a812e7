//! The request log: one record per request the fake answered, for tests that count calls.

use std::time::SystemTime;

/// One request the fake received, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestRecord {
    /// The operation, for example `GetItem`.
    pub operation: String,
    /// The table the request named, if any (the first one for batches and transactions).
    pub table: Option<String>,
    /// The error code the client saw, for example `ConditionalCheckFailedException`; `None` on success.
    pub error: Option<String>,
    /// The name of the client that sent it, for clients made with `client_named`.
    pub client: Option<String>,
    /// The fault injected into this request, if any (for example `LostResponse`).
    pub fault: Option<String>,
    /// When the fake applied it, on its wall clock: after any [`Fault::Latency`](crate::Fault)
    /// before it, before any [`Fault::SlowResponse`](crate::Fault) after it.
    pub at: SystemTime,
    /// Whether the request asked for a strongly consistent read (`ConsistentRead: true`).
    pub consistent_read: bool,
    /// Whether the request was signed (it carried an `Authorization` header).
    pub signed: bool,
}
