//! The S3 that exports write to and imports read from: any S3-compatible endpoint (a moto server
//! or MinIO in a test, S3 itself), through the AWS SDK's S3 client, and its errors as an export or
//! import reports them (`FailureCode`, `FailureMessage`).

use std::time::Duration;

use aws_sdk_s3::config::retry::RetryConfig;
use aws_sdk_s3::config::timeout::TimeoutConfig;
use aws_sdk_s3::config::{
    BehaviorVersion, Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation,
};
use aws_sdk_s3::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use aws_smithy_types::error::display::DisplayErrorContext;

/// How the fake reaches an S3 endpoint given by its URL: the credentials of the environment
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) or, without them, any;
/// the region of `AWS_REGION` (or `AWS_DEFAULT_REGION`, else `us-east-1`); path-style addressing,
/// which every S3-compatible server takes.
///
/// ```
/// let config = dynalease_fake::S3Config::new("http://127.0.0.1:5000");
/// let fake = dynalease_fake::FakeDynamoDb::builder().s3(config).build();
/// # drop(fake);
/// ```
#[derive(Debug, Clone)]
pub struct S3Config {
    endpoint: String,
    client: Option<aws_sdk_s3::Client>,
}

impl S3Config {
    /// The S3 at `endpoint` (for example `http://127.0.0.1:5000`), reached over plain HTTP.
    pub fn new(endpoint: &str) -> S3Config {
        S3Config { endpoint: endpoint.to_owned(), client: None }
    }

    /// An S3 client of your own (to reach S3 over HTTPS, with credentials of your choice, or
    /// through a client a test wired to something else); `endpoint` names it in messages.
    pub fn with_client(endpoint: &str, client: aws_sdk_s3::Client) -> S3Config {
        S3Config { endpoint: endpoint.to_owned(), client: Some(client) }
    }

    /// The client: the one given, or one for the endpoint.
    pub(crate) fn target(self) -> S3Target {
        let client = self.client.unwrap_or_else(|| client_for(&self.endpoint));
        S3Target { endpoint: self.endpoint, client }
    }
}

/// A client for the S3 at `endpoint`.
fn client_for(endpoint: &str) -> aws_sdk_s3::Client {
    let variable = |name: &str| std::env::var(name).ok().filter(|value| !value.is_empty());
    let credentials = Credentials::new(
        variable("AWS_ACCESS_KEY_ID").unwrap_or_else(|| "dynalease-fake".into()),
        variable("AWS_SECRET_ACCESS_KEY").unwrap_or_else(|| "dynalease-fake".into()),
        variable("AWS_SESSION_TOKEN"),
        None,
        "dynalease-fake",
    );
    let region =
        variable("AWS_REGION").or_else(|| variable("AWS_DEFAULT_REGION")).unwrap_or_else(|| "us-east-1".into());
    let config = aws_sdk_s3::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(Region::new(region))
        .credentials_provider(credentials)
        .force_path_style(true)
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        // Checksums only where S3 requires them: a test's S3 need not know the newer trailers.
        .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
        .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(Duration::from_secs(5))
                .operation_attempt_timeout(Duration::from_secs(60))
                .build(),
        )
        .retry_config(RetryConfig::standard().with_max_attempts(2))
        .build();
    aws_sdk_s3::Client::from_conf(config)
}

/// Why a request to S3 failed, as an export or import reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct S3Failure {
    pub(crate) code: String,
    pub(crate) message: String,
}

/// The S3 an engine's exports and imports use.
#[derive(Debug, Clone)]
pub(crate) struct S3Target {
    endpoint: String,
    client: aws_sdk_s3::Client,
}

impl S3Target {
    /// Writes an object.
    pub(crate) async fn put(&self, bucket: &str, key: &str, body: Vec<u8>) -> Result<(), S3Failure> {
        let request = self.client.put_object().bucket(bucket).key(key).body(ByteStream::from(body));
        request.send().await.map(drop).map_err(|error| self.failure(error))
    }

    /// The keys of a bucket under `prefix`, in S3's order.
    pub(crate) async fn list(&self, bucket: &str, prefix: Option<&str>) -> Result<Vec<String>, S3Failure> {
        let mut keys = Vec::new();
        let mut continuation: Option<String> = None;
        loop {
            let page = self
                .client
                .list_objects_v2()
                .bucket(bucket)
                .set_prefix(prefix.map(str::to_owned))
                .set_continuation_token(continuation.take())
                .send()
                .await
                .map_err(|error| self.failure(error))?;
            keys.extend(page.contents().iter().filter_map(|object| object.key().map(str::to_owned)));
            match page.next_continuation_token() {
                Some(token) if page.is_truncated() == Some(true) => continuation = Some(token.to_owned()),
                _ => return Ok(keys),
            }
        }
    }

    /// Reads an object.
    pub(crate) async fn get(&self, bucket: &str, key: &str) -> Result<Vec<u8>, S3Failure> {
        let object =
            self.client.get_object().bucket(bucket).key(key).send().await.map_err(|error| self.failure(error))?;
        match object.body.collect().await {
            Ok(bytes) => Ok(bytes.into_bytes().to_vec()),
            Err(error) => Err(S3Failure {
                code: "S3ConnectionError".into(),
                message: format!("The object {key} of the S3 endpoint {} could not be read: {error}", self.endpoint),
            }),
        }
    }

    /// An error of the S3 client as a failure: S3's own error as `S3<code>` with its message
    /// (`S3NoSuchBucket`, `The specified bucket does not exist`), an endpoint that cannot be reached
    /// as `S3ConnectionError`, naming it.
    fn failure<E, R>(&self, error: SdkError<E, R>) -> S3Failure
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
        R: std::fmt::Debug,
    {
        match &error {
            SdkError::ServiceError(service) => {
                let inner = service.err();
                let code = inner.code().unwrap_or("Unknown");
                let message = inner.message().map(str::to_owned).unwrap_or_else(|| match code {
                    "NoSuchBucket" => "The specified bucket does not exist".to_owned(),
                    other => format!("S3 answered {other}"),
                });
                S3Failure { code: format!("S3{code}"), message }
            }
            _ => S3Failure {
                code: "S3ConnectionError".into(),
                message: format!("The S3 endpoint {} did not answer: {}", self.endpoint, DisplayErrorContext(&error)),
            },
        }
    }
}
