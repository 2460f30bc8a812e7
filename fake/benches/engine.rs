//! Cost per operation of the fake: the engine alone (the compact JSON the SDK sends in, JSON out)
//! and through the real SDK client in-process. Run with `cargo bench -p dynalease-fake --bench engine`.
#![allow(clippy::disallowed_methods)] // A benchmark measures real time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use dynalease_fake::FakeDynamoDb;

// The allocator a sweep or a server would use; the system one adds about a fifth to every call.
#[global_allocator]
static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;

/// Whether the operation `name` runs: `BENCH_ONLY=UpdateItem` runs that one alone (for
/// instruction counts of one operation under callgrind).
fn wanted(name: &str) -> bool {
    std::env::var("BENCH_ONLY").map_or(true, |only| only == name)
}

fn ops() -> u64 {
    std::env::var("BENCH_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(50_000)
}

fn report(name: &str, elapsed: Duration, ops: u64) {
    let per_op = elapsed.as_nanos() as f64 / ops as f64 / 1000.0;
    println!("{name:<44} {per_op:>8.2} us/op  ({ops} ops)");
}

fn engine_alone(fake: &FakeDynamoDb) {
    let put = |i: u64| {
        format!(
            concat!(
                r##"{{"TableName":"Bench","Item":{{"pk":{{"S":"k{i}"}},"owner":{{"S":"me"}},"n":{{"N":"1"}}}},"##,
                r##""ConditionExpression":"attribute_not_exists(pk) OR #o = :me","##,
                r##""ExpressionAttributeNames":{{"#o":"owner"}},"ExpressionAttributeValues":{{":me":{{"S":"me"}}}}}}"##
            ),
            i = i
        )
    };
    let bodies: Vec<String> = (0..1000).map(put).collect();
    // GetItem and UpdateItem find the items PutItem wrote, also when only they run.
    let puts = if wanted("PutItem") { ops() } else { 1000 };
    let start = Instant::now();
    for i in 0..puts {
        let (status, _) = fake.handle_json("PutItem", bodies[(i % 1000) as usize].as_bytes());
        assert_eq!(status, 200);
    }
    if wanted("PutItem") {
        report("engine alone: conditional PutItem", start.elapsed(), ops());
    }

    let gets: Vec<String> = (0..1000)
        .map(|i| format!(r#"{{"TableName":"Bench","Key":{{"pk":{{"S":"k{i}"}}}},"ConsistentRead":true}}"#))
        .collect();
    let count = if wanted("GetItem") { ops() } else { 0 };
    let start = Instant::now();
    for i in 0..count {
        let (status, body) = fake.handle_json("GetItem", gets[(i % 1000) as usize].as_bytes());
        assert_eq!(status, 200);
        black_box(body);
    }
    if wanted("GetItem") {
        report("engine alone: consistent GetItem", start.elapsed(), ops());
    }

    let updates: Vec<String> = (0..1000)
        .map(|i| {
            format!(
                concat!(
                    r#"{{"TableName":"Bench","Key":{{"pk":{{"S":"k{i}"}}}},"UpdateExpression":"ADD n :one","#,
                    r#""ExpressionAttributeValues":{{":one":{{"N":"1"}}}}}}"#
                ),
                i = i
            )
        })
        .collect();
    let count = if wanted("UpdateItem") { ops() } else { 0 };
    let start = Instant::now();
    for i in 0..count {
        let (status, _) = fake.handle_json("UpdateItem", updates[(i % 1000) as usize].as_bytes());
        assert_eq!(status, 200);
    }
    if wanted("UpdateItem") {
        report("engine alone: UpdateItem with ADD", start.elapsed(), ops());
    }
}

/// The three calls through `client`, reported under `label`.
async fn through_sdk(client: &aws_sdk_dynamodb::Client, label: &str) {
    let ops = ops() / 5;
    let count = if wanted("PutItem") { ops } else { 0 };
    let start = Instant::now();
    for i in 0..count {
        client
            .put_item()
            .table_name("Bench")
            .item("pk", AttributeValue::S(format!("s{}", i % 1000)))
            .item("owner", AttributeValue::S("me".into()))
            .condition_expression("attribute_not_exists(pk) OR #o = :me")
            .expression_attribute_names("#o", "owner")
            .expression_attribute_values(":me", AttributeValue::S("me".into()))
            .send()
            .await
            .unwrap();
    }
    if wanted("PutItem") {
        report(&format!("{label}: conditional PutItem"), start.elapsed(), ops);
    }
    let count = if wanted("GetItem") { ops } else { 0 };
    let start = Instant::now();
    for i in 0..count {
        let out = client
            .get_item()
            .table_name("Bench")
            .key("pk", AttributeValue::S(format!("s{}", i % 1000)))
            .consistent_read(true)
            .send()
            .await
            .unwrap();
        black_box(out);
    }
    if wanted("GetItem") {
        report(&format!("{label}: consistent GetItem"), start.elapsed(), ops);
    }
    let count = if wanted("UpdateItem") { ops } else { 0 };
    let start = Instant::now();
    for i in 0..count {
        client
            .update_item()
            .table_name("Bench")
            .key("pk", AttributeValue::S(format!("s{}", i % 1000)))
            .update_expression("ADD n :one")
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send()
            .await
            .unwrap();
    }
    if wanted("UpdateItem") {
        report(&format!("{label}: UpdateItem with ADD"), start.elapsed(), ops);
    }
}

/// The SDK alone: the same calls with a connector that answers every request with `{}` at once.
async fn sdk_floor(fake: &FakeDynamoDb) {
    use aws_smithy_runtime_api::client::http::{
        HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
    };
    use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
    use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
    #[derive(Debug, Clone)]
    struct Empty;
    impl HttpConnector for Empty {
        fn call(&self, _request: HttpRequest) -> HttpConnectorFuture {
            let status = aws_smithy_runtime_api::http::StatusCode::try_from(200).unwrap();
            HttpConnectorFuture::ready(Ok(HttpResponse::new(status, aws_smithy_types::body::SdkBody::from("{}"))))
        }
    }
    impl HttpClient for Empty {
        fn http_connector(&self, _: &HttpConnectorSettings, _: &RuntimeComponents) -> SharedHttpConnector {
            SharedHttpConnector::new(self.clone())
        }
    }
    let client = aws_sdk_dynamodb::Client::from_conf(fake.client_config().http_client(Empty).build());
    through_sdk(&client, "the SDK alone (answers {})").await;
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let fake = FakeDynamoDb::builder().seed(1).build();
        fake.create_table("Bench", "pk", None);
        // `cargo bench -p dynalease-fake --bench engine -- engine` runs only the engine part,
        // `-- sdk` only the SDK part and `-- floor` only the SDK against a connector that answers `{}`.
        let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
        if matches!(only.as_deref(), None | Some("engine")) {
            engine_alone(&fake);
        }
        if matches!(only.as_deref(), None | Some("floor")) {
            sdk_floor(&fake).await;
        }
        if matches!(only.as_deref(), None | Some("sdk")) {
            through_sdk(&fake.client(), "through the SDK").await;
        }
    });
}
