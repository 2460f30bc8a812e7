//! The request log: one record per request the fake answered, for tests that count calls.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::SystemTime;

use crate::operation::Operation;
use crate::place::{OwnedPlace, Place};

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
    /// For a read that a [`Fault::StaleRead`](crate::Fault::StaleRead) made stale: the instant
    /// whose state its eventually consistent reads saw, at most the rule's bound before `at`.
    /// `None` for every other request, and for a read the rule met that was strongly consistent.
    pub read_as_of: Option<SystemTime>,
    /// Whether the request was signed (it carried an `Authorization` header).
    pub signed: bool,
    /// The account it was for: that of its access key id when the id is twelve digits, that of
    /// [`FakeDynamoDb::client_for`](crate::FakeDynamoDb::client_for), else `000000000000`.
    pub account: String,
    /// The region it was for: that of its signature's scope, that of
    /// [`FakeDynamoDb::client_for`](crate::FakeDynamoDb::client_for), else `us-east-1`.
    pub region: String,
}

/// A request as the log keeps it until a test reads the log: the names it shares with the fake
/// (the operation, the client, the fault) are borrowed or shared, not copied for every request.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) operation: Cow<'static, str>,
    pub(crate) table: Option<Arc<str>>,
    pub(crate) error: Option<String>,
    pub(crate) client: Option<Arc<str>>,
    pub(crate) fault: Option<&'static str>,
    pub(crate) at: SystemTime,
    pub(crate) consistent_read: bool,
    pub(crate) read_as_of: Option<SystemTime>,
    pub(crate) signed: bool,
    /// The account and region, unless they are the default ones (most requests of most tests).
    pub(crate) place: Option<Arc<OwnedPlace>>,
}

impl Entry {
    /// A request to `operation`, or to an operation the fake does not serve named `name`
    /// (copied: a served operation's name is borrowed).
    pub(crate) fn new(
        operation: Option<Operation>,
        name: &str,
        client: Option<&Arc<str>>,
        fault: Option<&'static str>,
        at: SystemTime,
        place: Place<'_>,
    ) -> Entry {
        let operation = match operation {
            Some(operation) => Cow::Borrowed(operation.name()),
            None => Cow::Owned(name.to_owned()),
        };
        Entry {
            operation,
            table: None,
            error: None,
            client: client.cloned(),
            fault,
            at,
            consistent_read: false,
            read_as_of: None,
            signed: false,
            place: (place != Place::DEFAULT).then(|| Arc::new(place.to_owned())),
        }
    }

    /// The account and region of this request.
    pub(crate) fn place(&self) -> Place<'_> {
        self.place.as_deref().map_or(Place::DEFAULT, OwnedPlace::as_place)
    }

    /// The public record of this request.
    pub(crate) fn to_record(&self) -> RequestRecord {
        RequestRecord {
            operation: self.operation.to_string(),
            table: self.table.as_deref().map(str::to_owned),
            error: self.error.clone(),
            client: self.client.as_deref().map(str::to_owned),
            fault: self.fault.map(str::to_owned),
            at: self.at,
            consistent_read: self.consistent_read,
            read_as_of: self.read_as_of,
            signed: self.signed,
            account: self.place().account.to_owned(),
            region: self.place().region.to_owned(),
        }
    }
}

thread_local! {
    /// The table the thread's last request named: requests mostly name the table the one before
    /// named, and their records then share its name.
    static LAST_TABLE: std::cell::RefCell<Option<Arc<str>>> = const { std::cell::RefCell::new(None) };
}

/// The name of a request's table, for its record: shared with the record before when it named the
/// same table, so that logging a request seldom copies the name.
pub(crate) fn table_name(name: &str) -> Arc<str> {
    LAST_TABLE.with_borrow_mut(|last| match last {
        Some(shared) if **shared == *name => shared.clone(),
        _ => last.insert(Arc::from(name)).clone(),
    })
}
