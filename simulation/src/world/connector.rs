//! [`SimConnector`]: the SDK's HTTP client of a process, its [`Link`] in front of the fake.
//!
//! Every request crosses the process's network. As it leaves, the world finds the item it is
//! about (from the table's key schema, or as the service's probe says); at the far end, right
//! after the fake answered it, the probe looks at what DynamoDB did, and the triggers of the
//! nemesis hear the moment; on the way back, its answer may be delayed or lost.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::Headers;
use dynalease_fake::{FakeDynamoDb, FakeHttpClient};
use serde::Deserialize;

use crate::ctx::mark_uncertain;
use crate::history::{Actor, Event, ProcessRef, Recorder, Step};
use crate::item::ItemRef;
use crate::nemesis::Moment;
use crate::net::{Ended, Extra, Link, Message, NetError};
use crate::probe::{Far, Fate, Look, Outgoing, Probe};

/// The key attributes of each table, which the world finds the item of a request by.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    keys: BTreeMap<String, (String, Option<String>)>,
    /// Numbers the requests that leave processes, for the history.
    next: AtomicU32,
    /// Whether the steps of requests go into the history.
    pub(crate) record: bool,
}

impl Catalog {
    pub(crate) fn new(keys: BTreeMap<String, (String, Option<String>)>, record: bool) -> Self {
        Catalog { keys, next: AtomicU32::new(0), record }
    }

    /// The names of the partition key and the sort key of `table`.
    pub(crate) fn key_names(&self, table: &str) -> Option<(&str, Option<&str>)> {
        self.keys.get(table).map(|(p, s)| (p.as_str(), s.as_deref()))
    }

    /// The item a request is about: the one it names by its key, or the first one a batch or a
    /// transaction writes.
    pub(crate) fn item_of(&self, operation: &str, body: &[u8]) -> Option<ItemRef> {
        match operation {
            "GetItem" | "UpdateItem" | "DeleteItem" | "PutItem" => {
                let single: Single<'_> = serde_json::from_slice(body).ok()?;
                let key = single.key.or(single.item)?;
                self.item(&single.table, &key)
            }
            "TransactWriteItems" => {
                let transaction: Transaction<'_> = serde_json::from_slice(body).ok()?;
                transaction.items.into_iter().find_map(|action| {
                    let single = action.put.or(action.update).or(action.delete)?;
                    let key = single.key.or(single.item)?;
                    self.item(&single.table, &key)
                })
            }
            _ => None,
        }
    }

    fn item(&self, table: &str, attributes: &BTreeMap<Cow<'_, str>, KeyAttr>) -> Option<ItemRef> {
        let (partition, sort) = self.keys.get(table)?;
        let text = |name: &str| attributes.get(name).and_then(|a| a.0.as_deref());
        let partition = text(partition)?;
        match sort {
            Some(sort) => Some(ItemRef::of(table, partition, Some(text(sort)?))),
            None => Some(ItemRef::of(table, partition, None)),
        }
    }
}

#[derive(Deserialize)]
struct Single<'a> {
    #[serde(rename = "TableName", borrow)]
    table: Cow<'a, str>,
    #[serde(rename = "Key", borrow)]
    key: Option<BTreeMap<Cow<'a, str>, KeyAttr>>,
    #[serde(rename = "Item", borrow)]
    item: Option<BTreeMap<Cow<'a, str>, KeyAttr>>,
}

#[derive(Deserialize)]
struct Transaction<'a> {
    #[serde(rename = "TransactItems", borrow)]
    items: Vec<Action<'a>>,
}

#[derive(Deserialize)]
struct Action<'a> {
    #[serde(rename = "Put", borrow)]
    put: Option<Single<'a>>,
    #[serde(rename = "Update", borrow)]
    update: Option<Single<'a>>,
    #[serde(rename = "Delete", borrow)]
    delete: Option<Single<'a>>,
}

/// An attribute value, kept only if it is of a type a key can have (its text).
struct KeyAttr(Option<String>);

impl<'de> Deserialize<'de> for KeyAttr {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = KeyAttr;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an attribute value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<KeyAttr, A::Error> {
                let mut text = None;
                while let Some(kind) = map.next_key::<Cow<'de, str>>()? {
                    if matches!(&*kind, "S" | "N" | "B") {
                        text = map.next_value::<Option<String>>()?;
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(KeyAttr(text))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// Whether an operation of DynamoDB writes.
pub(crate) fn is_write(operation: &str) -> bool {
    matches!(
        operation,
        "UpdateItem"
            | "PutItem"
            | "DeleteItem"
            | "TransactWriteItems"
            | "BatchWriteItem"
            | "ExecuteStatement"
            | "ExecuteTransaction"
            | "BatchExecuteStatement"
    )
}

/// The SDK's HTTP client of one incarnation: its [`Link`] in front of the fake.
#[derive(Clone, Debug)]
pub(crate) struct SimConnector {
    http: FakeHttpClient,
    link: Arc<Link>,
    fake: FakeDynamoDb,
    probe: Option<Arc<dyn Probe>>,
    catalog: Arc<Catalog>,
    recorder: Recorder,
    requests: Arc<AtomicUsize>,
}

impl SimConnector {
    pub(crate) fn new(
        http: FakeHttpClient,
        link: Arc<Link>,
        fake: FakeDynamoDb,
        probe: Option<Arc<dyn Probe>>,
        catalog: Arc<Catalog>,
        recorder: Recorder,
        requests: Arc<AtomicUsize>,
    ) -> Self {
        SimConnector { http, link, fake, probe, catalog, recorder, requests }
    }
}

/// A request on its way: what was said of it as it left, shared by its two ends.
struct Trip {
    process: ProcessRef,
    operation: Arc<str>,
    write: bool,
    /// The request, until the far end hands it to the fake.
    request: Mutex<Option<HttpRequest>>,
    state: Mutex<TripState>,
}

#[derive(Default)]
struct TripState {
    look: Look,
    /// The body, kept for a probe that watches the request.
    body: Option<Arc<[u8]>>,
    number: u32,
    sent_at: Duration,
}

impl Trip {
    fn state(&self) -> MutexGuard<'_, TripState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn request(&self) -> MutexGuard<'_, Option<HttpRequest>> {
        self.request.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl SimConnector {
    /// The request leaves its process at `sent_at`: what the probe and the world say of it.
    fn leave(&self, trip: &Trip, body: &[u8], headers: &Headers, sent_at: Duration) -> Message {
        let outgoing = Outgoing { process: trip.process, operation: &trip.operation, body, write: trip.write, sent_at };
        let mut look = match &self.probe {
            Some(probe) => probe.sent(&outgoing, headers),
            None => Look { find: true, ..Look::default() },
        };
        if look.item.is_none() && look.find {
            look.item = self.catalog.item_of(&trip.operation, body);
        }
        let mut state = trip.state();
        if look.watch {
            state.body = Some(Arc::from(body));
        }
        state.sent_at = sent_at;
        if self.catalog.record {
            state.number = self.catalog.next.fetch_add(1, Ordering::Relaxed);
            let what = match &look.item {
                Some(item) => format!("{} {item}", trip.operation),
                None => trip.operation.to_string(),
            };
            let event = Event::Request { request: state.number, step: Step::Sent, what: Some(Arc::from(what)) };
            self.recorder.record(Actor::Process(trip.process), event);
        }
        let message = Message { item: look.item.clone(), label: look.label };
        state.look = look;
        message
    }

    fn far(&self) -> Far<'_> {
        Far { fake: &self.fake, recorder: &self.recorder, triggers: &self.link.triggers }
    }

    /// DynamoDB answered the request with `status` and `answer`: what the world records, what
    /// the probe says, and what the triggers add to the way back.
    fn observe(&self, trip: &Trip, status: u16, answer: &[u8]) -> Extra {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut state = trip.state();
        if self.catalog.record {
            let event = Event::Request { request: state.number, step: Step::Answered(status), what: None };
            self.recorder.record(Actor::Db, event);
        }
        let mut extra = Extra::default();
        let item = state.look.item.clone();
        let triggers = &self.link.triggers;
        if !trip.write && status == 200 {
            if let Some(item) = &item {
                triggers.read_applied(item);
                triggers.passed(item, trip.process, false);
            }
        }
        let mut label = None;
        if state.look.watch
            && let Some(probe) = &self.probe
        {
            let body = state.body.clone().unwrap_or_else(|| Arc::from(&[][..]));
            let outgoing = Outgoing {
                process: trip.process,
                operation: &trip.operation,
                body: &body,
                write: trip.write,
                sent_at: state.sent_at,
            };
            label = probe.applied(&outgoing, &mut state.look, status, answer, &self.far());
        }
        drop(state);
        if status != 200 {
            return extra;
        }
        if trip.write {
            extra.applied = Some(label);
            if let Some(item) = &item {
                triggers.passed(item, trip.process, true);
            }
        }
        if triggers.is_active() {
            let moment = if trip.write { Moment::WriteApplied } else { Moment::ReadApplied };
            let reaction = triggers.moment(moment, trip.process, item.as_ref(), label);
            extra.react(item.as_ref(), reaction);
        }
        extra
    }

    /// How the trip ended, on the process's side.
    fn ended(&self, trip: &Trip, ended: Ended) {
        let fate = match ended {
            Ended::Answered(applied) => Fate::Heard(if applied.is_some() { 200 } else { 400 }),
            Ended::NotSent => Fate::TimedOut,
            Ended::Failed(NetError::Timeout) => Fate::TimedOut,
            Ended::Failed(NetError::Lost) => Fate::Lost,
        };
        if trip.write && matches!(ended, Ended::Failed(_)) {
            mark_uncertain();
        }
        let state = trip.state();
        if self.catalog.record {
            let step = match fate {
                Fate::Heard(_) => Step::Heard,
                Fate::Lost => Step::Lost,
                Fate::TimedOut => Step::TimedOut,
            };
            let event = Event::Request { request: state.number, step, what: None };
            self.recorder.record(Actor::Process(trip.process), event);
        }
        if state.look.watch
            && let Some(probe) = &self.probe
        {
            let body = state.body.clone().unwrap_or_else(|| Arc::from(&[][..]));
            let outgoing = Outgoing {
                process: trip.process,
                operation: &trip.operation,
                body: &body,
                write: trip.write,
                sent_at: state.sent_at,
            };
            probe.answered(&outgoing, &state.look, fate, &self.far());
        }
    }
}

impl HttpConnector for SimConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let target = request.headers().get("x-amz-target").unwrap_or("");
        let operation: Arc<str> = Arc::from(target.strip_prefix("DynamoDB_20120810.").unwrap_or(target));
        let write = is_write(&operation);
        let process = self.link.process;
        let trip =
            Arc::new(Trip { process, operation, write, request: Mutex::new(Some(request)), state: Mutex::default() });
        let this = self.clone();
        HttpConnectorFuture::new(async move {
            let (leaving, far, near) = (trip.clone(), trip.clone(), trip);
            let (at_far, at_near) = (this.clone(), this.clone());
            let leave = |sent_at| {
                let request = leaving.request();
                let Some(request) = request.as_ref() else { return Message::default() };
                this.leave(&leaving, request.body().bytes().unwrap_or_default(), request.headers(), sent_at)
            };
            let sent = this.link.round_trip(
                write,
                leave,
                move |_| async move {
                    let Some(request) = far.request().take() else {
                        return (
                            Err(ConnectorError::other("dynalease-sim: a request sent twice".into(), None)),
                            Extra::default(),
                        );
                    };
                    let answer = at_far.http.call(request).await;
                    let extra = match &answer {
                        Ok(response) => {
                            let body = response.body().bytes().unwrap_or_default();
                            at_far.observe(&far, response.status().as_u16(), body)
                        }
                        Err(_) => Extra::default(),
                    };
                    (answer, extra)
                },
                |ended| at_near.ended(&near, ended),
            );
            match sent.await {
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
