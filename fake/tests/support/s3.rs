//! An S3 in memory, as the SDK's S3 client speaks to it, for the tests of exports and imports:
//! PutObject, GetObject and ListObjectsV2 on path-style URLs, and S3's `NoSuchBucket` and
//! `NoSuchKey`. Written here because the tests need an S3 inside the test process, on paused
//! time, with no server to start; it answers only what the fake asks of S3.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use aws_sdk_s3::config::{
    BehaviorVersion, Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation,
};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;

type Buckets = BTreeMap<String, BTreeMap<String, Vec<u8>>>;

/// Buckets of objects, shared by the clones.
#[derive(Debug, Clone, Default)]
pub struct MemoryS3 {
    buckets: Arc<Mutex<Buckets>>,
}

impl MemoryS3 {
    /// Makes an empty bucket.
    pub fn create_bucket(&self, bucket: &str) {
        self.buckets.lock().unwrap().entry(bucket.to_owned()).or_default();
    }

    /// Writes an object into a bucket that exists.
    pub fn put(&self, bucket: &str, key: &str, body: &[u8]) {
        self.buckets.lock().unwrap().get_mut(bucket).expect("no such bucket").insert(key.to_owned(), body.to_vec());
    }

    /// An object.
    pub fn get(&self, bucket: &str, key: &str) -> Option<Vec<u8>> {
        self.buckets.lock().unwrap().get(bucket)?.get(key).cloned()
    }

    /// The keys of a bucket, in order.
    pub fn keys(&self, bucket: &str) -> Vec<String> {
        self.buckets.lock().unwrap().get(bucket).map(|objects| objects.keys().cloned().collect()).unwrap_or_default()
    }

    /// An S3 client whose every request this S3 answers.
    pub fn client(&self) -> aws_sdk_s3::Client {
        let config = aws_sdk_s3::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .endpoint_url("http://memory-s3.test")
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("x", "x", None, None, "test"))
            .force_path_style(true)
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
            .http_client(self.clone())
            .build();
        aws_sdk_s3::Client::from_conf(config)
    }

    fn answer(&self, request: &HttpRequest) -> (u16, Vec<u8>) {
        let uri: http::Uri = request.uri().parse().expect("a URI");
        let path = uri.path().trim_start_matches('/');
        let (bucket, key) = path.split_once('/').map_or((path, ""), |(bucket, key)| (bucket, key));
        let (bucket, key) = (decode(bucket), decode(key));
        let query: BTreeMap<String, String> = uri
            .query()
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| pair.split_once('=').map_or((pair, ""), |(k, v)| (k, v)))
            .map(|(k, v)| (decode(k), decode(v)))
            .collect();
        let mut buckets = self.buckets.lock().unwrap();
        let Some(objects) = buckets.get_mut(&bucket) else {
            return error(404, "NoSuchBucket", "The specified bucket does not exist");
        };
        match (request.method(), key.is_empty()) {
            ("PUT", false) => {
                objects.insert(key, request.body().bytes().unwrap_or_default().to_vec());
                (200, Vec::new())
            }
            ("GET", false) => match objects.get(&key) {
                Some(body) => (200, body.clone()),
                None => error(404, "NoSuchKey", "The specified key does not exist."),
            },
            ("GET", true) => {
                let prefix = query.get("prefix").cloned().unwrap_or_default();
                let contents: String = objects
                    .iter()
                    .filter(|(key, _)| key.starts_with(&prefix))
                    .map(|(key, body)| {
                        format!("<Contents><Key>{}</Key><Size>{}</Size></Contents>", escape(key), body.len())
                    })
                    .collect();
                let xml = format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>{}</Name><Prefix>{}</Prefix><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>",
                    escape(&bucket),
                    escape(&prefix)
                );
                (200, xml.into_bytes())
            }
            _ => error(400, "NotImplemented", "The memory S3 answers PutObject, GetObject and ListObjectsV2 only"),
        }
    }
}

fn error(status: u16, code: &str, message: &str) -> (u16, Vec<u8>) {
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>{code}</Code><Message>{message}</Message></Error>"
    );
    (status, xml.into_bytes())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Percent-decoding of a URL part.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' if at + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                at += 3;
            }
            b'+' => {
                out.push(b' ');
                at += 1;
            }
            b => {
                out.push(b);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl HttpConnector for MemoryS3 {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let (status, body) = self.answer(&request);
        let mut response = HttpResponse::new(StatusCode::try_from(status).unwrap(), SdkBody::from(body));
        response.headers_mut().insert("content-type", "application/xml");
        if status == 200 && request.method() == "PUT" {
            response.headers_mut().insert("etag", "\"0\"");
        }
        HttpConnectorFuture::ready(Ok(response))
    }
}

impl HttpClient for MemoryS3 {
    fn http_connector(&self, _: &HttpConnectorSettings, _: &RuntimeComponents) -> SharedHttpConnector {
        SharedHttpConnector::new(self.clone())
    }
}
