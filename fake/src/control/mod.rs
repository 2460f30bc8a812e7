//! The control API of `dynalease-fake serve`: the fake's clock, faults, state and request log,
//! steered over HTTP with JSON, under one path prefix beside DynamoDB's API.
//!
//! - `clock`: read, freeze, set, advance, resume.
//! - `faults`: add a rule, list them with how often each fired, remove one or all.
//! - `state`: reset, snapshot, load, save to the data file.
//! - `requests`: the request log.
//!
//! - `query`: the query string: `account` and `region`, which narrow the fault rules, the reset,
//!   the snapshot and the request log to the places they name, and `limit`.
//!
//! Every request is checked whole before anything changes: a malformed one gets a 400 with a
//! message that says what is wrong, and changes nothing.

mod clock;
mod faults;
mod query;
mod requests;
mod state;

use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::fake::FakeDynamoDb;
use crate::time_control::Step;
use query::Takes;

/// The path prefix of the control API.
pub(crate) const PREFIX: &str = "/_dynalease";

/// Whether `path` is the control API's.
pub(crate) fn is_under_prefix(path: &str) -> bool {
    path.strip_prefix(PREFIX).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The endpoints, as the answer to an unknown path lists them.
const ENDPOINTS: &str = "GET clock, POST clock/freeze, POST clock/resume, POST clock/set, POST clock/advance, \
     GET faults, POST faults, DELETE faults, DELETE faults/ID, POST reset, GET snapshot, PUT snapshot, POST save, \
     GET requests, DELETE requests";

/// A server's control API: whether it is on, and the data file it saves to.
#[derive(Debug)]
pub(crate) struct Control {
    enabled: bool,
    data: Option<PathBuf>,
}

/// A refused control request: its status and what is wrong.
#[derive(Debug)]
pub(crate) struct Refusal {
    status: u16,
    message: String,
}

impl Refusal {
    /// 400: the request is malformed.
    fn bad(message: impl Into<String>) -> Refusal {
        Refusal { status: 400, message: message.into() }
    }

    /// The name of the status, as the answer's `Error` gives it.
    fn kind(&self) -> &'static str {
        match self.status {
            400 => "BadRequest",
            403 => "Forbidden",
            404 => "NotFound",
            405 => "MethodNotAllowed",
            409 => "Conflict",
            _ => "InternalError",
        }
    }
}

/// What a control endpoint answers: a JSON document, or a refusal.
type Answer = Result<Value, Refusal>;

impl Control {
    pub(crate) fn new(enabled: bool, data: Option<PathBuf>) -> Control {
        Control { enabled, data }
    }

    /// Answers a request to a path under [`PREFIX`]: the status and the JSON body.
    pub(crate) fn answer(
        &self,
        fake: &FakeDynamoDb,
        method: &str,
        path: &str,
        query: Option<&str>,
        body: &[u8],
    ) -> (u16, Vec<u8>) {
        let (status, json) = match self.route(fake, method, path, query, body) {
            Ok(json) => (200, json),
            Err(refusal) => (refusal.status, json!({"Error": refusal.kind(), "Message": refusal.message})),
        };
        (status, serde_json::to_vec_pretty(&json).unwrap_or_default())
    }

    fn route(&self, fake: &FakeDynamoDb, method: &str, path: &str, query: Option<&str>, body: &[u8]) -> Answer {
        if !self.enabled {
            return Err(Refusal {
                status: 403,
                message: "the control API is off: this server listens on an address other than loopback; start it \
                          with --control to turn the control API on"
                    .into(),
            });
        }
        let path = path.strip_prefix(PREFIX).unwrap_or("").trim_end_matches('/');
        let allowed = |methods: &[&str]| {
            if methods.contains(&method) {
                return Ok(());
            }
            let names = methods;
            Err(Refusal {
                status: 405,
                message: format!("{} {path} is not a control endpoint; {path} takes {}", method, names.join(" or ")),
            })
        };
        let endpoint = path.trim_start_matches('/');
        let query = |takes| query::parse(query, endpoint, takes);
        if path.starts_with("/faults/") || path == "/save" {
            query(Takes::Nothing)?;
        }
        let account = || query(Takes::Account).map(|query| query.places.account);
        match path {
            "/clock" => allowed(&["GET"]).and_then(|()| clock::read(fake, account()?.as_deref())),
            "/clock/freeze" => allowed(&["POST"])
                .and_then(|()| no_parameters(body))
                .and_then(|()| clock::steer(fake, account()?.as_deref(), Step::Freeze)),
            "/clock/resume" => allowed(&["POST"])
                .and_then(|()| no_parameters(body))
                .and_then(|()| clock::steer(fake, account()?.as_deref(), Step::Resume)),
            "/clock/set" => {
                allowed(&["POST"]).and_then(|()| clock::set(fake, account()?.as_deref(), parameters(body)?))
            }
            "/clock/advance" => {
                allowed(&["POST"]).and_then(|()| clock::advance(fake, account()?.as_deref(), parameters(body)?))
            }
            "/faults" => match method {
                "GET" => Ok(faults::list(fake, &query(Takes::Places)?.places)),
                "POST" => query(Takes::Nothing).and_then(|_| faults::add(fake, parameters(body)?)),
                "DELETE" => {
                    let places = query(Takes::Places)?.places;
                    no_parameters(body).map(|()| faults::remove_all(fake, &places))
                }
                _ => allowed(&["GET", "POST", "DELETE"]).map(|()| Value::Null),
            },
            "/reset" => allowed(&["POST"])
                .and_then(|()| query(Takes::Places))
                .and_then(|query| state::reset(fake, &query.places, parameters(body)?)),
            "/snapshot" => match method {
                "GET" => Ok(state::snapshot(fake, &query(Takes::Places)?.places)),
                "PUT" => state::load(fake, &query(Takes::Places)?.places, body),
                _ => allowed(&["GET", "PUT"]).map(|()| Value::Null),
            },
            "/save" => allowed(&["POST"])
                .and_then(|()| no_parameters(body))
                .and_then(|()| state::save(fake, self.data.as_deref())),
            "/requests" => match method {
                "GET" => requests::list(fake, &query(Takes::PlacesAndLimit)?),
                "DELETE" => {
                    let places = query(Takes::Places)?.places;
                    no_parameters(body).map(|()| requests::clear(fake, &places))
                }
                _ => allowed(&["GET", "DELETE"]).map(|()| Value::Null),
            },
            other => match other.strip_prefix("/faults/") {
                Some(id) => allowed(&["DELETE"]).and_then(|()| faults::remove(fake, id)),
                None => Err(Refusal {
                    status: 404,
                    message: format!(
                        "{PREFIX}{other} is not a control endpoint; under {PREFIX}/ there are: {ENDPOINTS}"
                    ),
                }),
            },
        }
    }
}

/// The parameters of a request: its body, a JSON object of the members `T` takes.
fn parameters<T: DeserializeOwned>(body: &[u8]) -> Result<T, Refusal> {
    let text = std::str::from_utf8(body).map_err(|_| Refusal::bad("the body is not UTF-8 text"))?;
    let text = if text.trim().is_empty() { "{}" } else { text };
    let value: Value =
        serde_json::from_str(text).map_err(|error| Refusal::bad(format!("the body is not JSON: {error}")))?;
    if !value.is_object() {
        return Err(Refusal::bad(format!("the body must be a JSON object, not {value}")));
    }
    T::deserialize(value).map_err(|error| Refusal::bad(format!("the body is not what this endpoint takes: {error}")))
}

/// Checks that a request without parameters has none: an empty body or `{}`.
fn no_parameters(body: &[u8]) -> Result<(), Refusal> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Nothing {}
    parameters::<Nothing>(body).map(drop)
}

/// A time as the control API writes it: RFC 3339 to the millisecond, in UTC.
fn time_text(time: std::time::SystemTime) -> String {
    humantime::format_rfc3339_millis(time).to_string()
}
