//! The seam between the SDK and the fake: an `HttpClient` that hands each request to the engine
//! in-process, and the client configuration that runs on the fake's clock without credentials.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_dynamodb::config::retry::{RetryConfig, RetryPartition};
use aws_sdk_dynamodb::config::{BehaviorVersion, IdentityCache, Region, StalledStreamProtectionConfig};
use aws_smithy_async::rt::sleep::{AsyncSleep, Sleep};
use aws_smithy_async::time::TimeSource;
use aws_smithy_runtime_api::client::auth::{AuthSchemeId, AuthSchemeOption, AuthSchemeOptionsFuture};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use http::header::{CONTENT_TYPE, HeaderName};

use crate::clock::FakeClock;
use crate::fake::{Call, FakeDynamoDb, Reply};
use crate::in_process::InProcessOnly;
use crate::operation::Service;
use crate::place::{OwnedPlace, Place};
use crate::signature::Signature;

/// The fake as the SDK's HTTP client. Give it to `aws_sdk_dynamodb::Config::builder().http_client(..)`
/// to use the fake with a configuration of your own.
#[derive(Debug, Clone)]
pub struct FakeHttpClient {
    fake: FakeDynamoDb,
    name: Option<Arc<str>>,
    /// The account and region of its requests; `None`: the default ones.
    place: Option<Arc<OwnedPlace>>,
}

impl FakeHttpClient {
    pub(crate) fn new(fake: FakeDynamoDb, name: Option<String>) -> Self {
        FakeHttpClient { fake, name: name.map(Arc::from), place: None }
    }

    /// The same client, with its requests for `place`.
    pub(crate) fn for_place(mut self, place: OwnedPlace) -> Self {
        self.place = Some(Arc::new(place));
        self
    }

    fn place(&self) -> Place<'_> {
        self.place.as_deref().map_or(Place::DEFAULT, OwnedPlace::as_place)
    }
}

/// The header that carries the request id, as DynamoDB names it.
const REQUEST_ID: HeaderName = HeaderName::from_static("x-amzn-requestid");

fn http_response(reply: Reply) -> Result<HttpResponse, ConnectorError> {
    match reply {
        Reply::Http { status, body, request_id } => {
            let status =
                StatusCode::try_from(status).unwrap_or_else(|_| StatusCode::try_from(500).expect("500 is a status"));
            let mut response = HttpResponse::new(status, SdkBody::from(body));
            // Names the SDK takes as they are: a name given as a string is parsed on every insert.
            response.headers_mut().insert(CONTENT_TYPE, "application/x-amz-json-1.0");
            response.headers_mut().insert(REQUEST_ID, request_id.to_text());
            Ok(response)
        }
        Reply::Lost => Err(ConnectorError::io(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "dynalease-fake: the response was lost after the request was applied",
        )))),
    }
}

impl HttpConnector for FakeHttpClient {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let target = request.headers().get("x-amz-target").unwrap_or("");
        let (service, operation) = Service::of_target(target);
        let signed = request.headers().get("authorization").is_some();
        let body = request.body().bytes().unwrap_or_default();
        let drawn = self.fake.draw_faults(operation, body, self.name.as_deref(), self.place());
        if drawn.latency.is_none() && drawn.response_delay.is_none() {
            let call = Call {
                operation,
                service,
                body,
                client: self.name.as_ref(),
                signed,
                signature: Signature::Unchecked,
                place: self.place(),
            };
            return HttpConnectorFuture::ready(http_response(self.fake.answer(&call, &drawn)));
        }
        let fake = self.fake.clone();
        let name = self.name.clone();
        let place = self.place.clone();
        let (operation, body) = (operation.to_owned(), body.to_vec());
        HttpConnectorFuture::new(async move {
            if let Some(latency) = drawn.latency {
                fake.shared.clock.sleep(latency).await;
            }
            let call = Call {
                operation: &operation,
                service,
                body: &body,
                client: name.as_ref(),
                signed,
                signature: Signature::Unchecked,
                place: place.as_deref().map_or(Place::DEFAULT, OwnedPlace::as_place),
            };
            let reply = fake.answer(&call, &drawn);
            if let Some(delay) = drawn.response_delay {
                fake.shared.clock.sleep(delay).await;
            }
            http_response(reply)
        })
    }
}

impl HttpClient for FakeHttpClient {
    fn http_connector(&self, _: &HttpConnectorSettings, _: &RuntimeComponents) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}

/// Resolves every operation to the `noAuth` scheme: the fake checks no signature.
#[derive(Debug)]
struct NoAuth;

impl aws_sdk_dynamodb::config::auth::ResolveAuthScheme for NoAuth {
    fn resolve_auth_scheme<'a>(
        &'a self,
        _params: &'a aws_sdk_dynamodb::config::auth::Params,
        _cfg: &'a aws_smithy_types::config_bag::ConfigBag,
        _components: &'a RuntimeComponents,
    ) -> AuthSchemeOptionsFuture<'a> {
        AuthSchemeOptionsFuture::ready(Ok(vec![AuthSchemeOption::from(AuthSchemeId::new("noAuth"))]))
    }
}

/// The fake's one endpoint: every request goes to the in-process engine, so the SDK's endpoint
/// rules (evaluated on every request otherwise) are not needed.
#[derive(Debug)]
struct FakeEndpoint;

impl aws_sdk_dynamodb::config::endpoint::ResolveEndpoint for FakeEndpoint {
    fn resolve_endpoint<'a>(
        &'a self,
        _params: &'a aws_sdk_dynamodb::config::endpoint::Params,
    ) -> aws_smithy_runtime_api::client::endpoint::EndpointFuture<'a> {
        let endpoint = aws_smithy_types::endpoint::Endpoint::builder().url("http://dynalease-fake.local").build();
        aws_smithy_runtime_api::client::endpoint::EndpointFuture::ready(Ok(endpoint))
    }
}

/// Resolves every Streams operation to the `noAuth` scheme, as [`NoAuth`] does for DynamoDB's.
#[derive(Debug)]
struct StreamsNoAuth;

impl aws_sdk_dynamodbstreams::config::auth::ResolveAuthScheme for StreamsNoAuth {
    fn resolve_auth_scheme<'a>(
        &'a self,
        _params: &'a aws_sdk_dynamodbstreams::config::auth::Params,
        _cfg: &'a aws_smithy_types::config_bag::ConfigBag,
        _components: &'a RuntimeComponents,
    ) -> AuthSchemeOptionsFuture<'a> {
        AuthSchemeOptionsFuture::ready(Ok(vec![AuthSchemeOption::from(AuthSchemeId::new("noAuth"))]))
    }
}

impl aws_sdk_dynamodbstreams::config::endpoint::ResolveEndpoint for FakeEndpoint {
    fn resolve_endpoint<'a>(
        &'a self,
        _params: &'a aws_sdk_dynamodbstreams::config::endpoint::Params,
    ) -> aws_smithy_runtime_api::client::endpoint::EndpointFuture<'a> {
        let endpoint = aws_smithy_types::endpoint::Endpoint::builder().url("http://dynalease-fake.local").build();
        aws_smithy_runtime_api::client::endpoint::EndpointFuture::ready(Ok(endpoint))
    }
}

/// The fake's clock as the SDK's time source and sleep.
#[derive(Debug, Clone)]
pub(crate) struct ClockAdapter(pub(crate) Arc<dyn FakeClock>);

impl TimeSource for ClockAdapter {
    fn now(&self) -> SystemTime {
        self.0.now()
    }
}

impl AsyncSleep for ClockAdapter {
    fn sleep(&self, duration: Duration) -> Sleep {
        Sleep::new(self.0.sleep(duration))
    }
}

/// A client configuration for the fake: no environment, no files, no network, deterministic given
/// `seed`, and without the headers only a network service reads ([`InProcessOnly`]). Callers may
/// replace any part (the HTTP client, the time source, the sleep) before building.
pub(crate) fn client_config(
    http: FakeHttpClient,
    clock: Arc<dyn FakeClock>,
    seed: u64,
) -> aws_sdk_dynamodb::config::Builder {
    let region = Region::new(http.place().region.to_owned());
    let mut builder = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(region)
        .auth_scheme_resolver(NoAuth)
        .endpoint_resolver(FakeEndpoint)
        .http_client(http)
        .time_source(ClockAdapter(clock.clone()))
        .sleep_impl(ClockAdapter(clock))
        // Backoff without jitter: the jitter would come from a thread-local random source, and the
        // same test would back off differently from run to run.
        .retry_config(RetryConfig::standard().with_use_static_exponential_base(true))
        // Each client owns its retry token bucket: the default one, and any partition made with
        // `RetryPartition::new`, is shared process-wide under its name.
        .retry_partition(RetryPartition::custom(format!("dynalease-fake-{seed:016x}")).build())
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
        // The fake's client resolves the `noAuth` identity, which costs nothing to make again: a
        // cache around it would only add its own work to every call.
        .identity_cache(IdentityCache::no_cache());
    builder.push_interceptor(InProcessOnly::interceptor());
    builder
}

/// [`client_config`] for the DynamoDB Streams client: the same wiring, the same settings.
pub(crate) fn streams_client_config(
    http: FakeHttpClient,
    clock: Arc<dyn FakeClock>,
    seed: u64,
) -> aws_sdk_dynamodbstreams::config::Builder {
    use aws_sdk_dynamodbstreams::config as streams;
    let region = streams::Region::new(http.place().region.to_owned());
    let mut builder = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(streams::BehaviorVersion::latest())
        .region(region)
        .auth_scheme_resolver(StreamsNoAuth)
        .endpoint_resolver(FakeEndpoint)
        .http_client(http)
        .time_source(ClockAdapter(clock.clone()))
        .sleep_impl(ClockAdapter(clock))
        .retry_config(streams::retry::RetryConfig::standard().with_use_static_exponential_base(true))
        .retry_partition(streams::retry::RetryPartition::custom(format!("dynalease-fake-streams-{seed:016x}")).build())
        .stalled_stream_protection(streams::StalledStreamProtectionConfig::disabled())
        .identity_cache(streams::IdentityCache::no_cache());
    builder.push_interceptor(InProcessOnly::interceptor());
    builder
}
