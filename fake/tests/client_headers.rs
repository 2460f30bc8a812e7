//! What the fake's own client puts on the wire: the headers DynamoDB's protocol needs, and not
//! the user agent (which names the machine), attempt counts or per-call invocation ids.

use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::AttributeValue;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeTransmitInterceptorContextRef;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use dynalease_fake::FakeDynamoDb;

/// Records the header names of every request as it leaves for the fake.
#[derive(Debug, Clone, Default)]
struct HeaderNames(Arc<Mutex<Vec<Vec<String>>>>);

impl Intercept for HeaderNames {
    fn name(&self) -> &'static str {
        "HeaderNames"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let mut names: Vec<String> = context.request().headers().iter().map(|(k, _)| k.to_ascii_lowercase()).collect();
        names.sort();
        self.0.lock().unwrap().push(names);
        Ok(())
    }
}

#[tokio::test]
async fn the_fake_client_sends_the_protocol_headers_and_nothing_of_the_machine() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Locks", "pk", None);
    let seen = HeaderNames::default();
    let client = aws_sdk_dynamodb::Client::from_conf(fake.client_config().interceptor(seen.clone()).build());

    client.put_item().table_name("Locks").item("pk", AttributeValue::S("a".into())).send().await.unwrap();
    let got = client.get_item().table_name("Locks").key("pk", AttributeValue::S("a".into())).send().await.unwrap();
    assert!(got.item.is_some(), "the put went through the client");

    let requests = seen.0.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    for names in &requests {
        for needed in ["content-type", "x-amz-target"] {
            assert!(names.iter().any(|n| n == needed), "{needed} missing from {names:?}");
        }
        for absent in ["user-agent", "x-amz-user-agent", "amz-sdk-request", "amz-sdk-invocation-id"] {
            assert!(!names.iter().any(|n| n == absent), "{absent} sent: {names:?}");
        }
    }
    assert_eq!(requests[0].len(), requests[1].len(), "both operations send the same header set");
}
