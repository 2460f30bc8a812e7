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

/// How many rounds an operation's ops are split into (`BENCH_ROUNDS`, default 20). Other work on
/// a shared machine only ever adds time, so the best round is the figure least disturbed by it;
/// the median round is printed beside it.
fn rounds() -> u64 {
    std::env::var("BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).filter(|&r| r > 0).unwrap_or(20)
}

/// Times of the rounds of one operation.
struct Rounds {
    per_op_us: Vec<f64>,
    ops: u64,
}

impl Rounds {
    fn new() -> Self {
        Rounds { per_op_us: Vec::new(), ops: 0 }
    }

    fn add(&mut self, elapsed: Duration, ops: u64) {
        if ops > 0 {
            self.per_op_us.push(elapsed.as_nanos() as f64 / ops as f64 / 1000.0);
            self.ops += ops;
        }
    }

    fn report(mut self, name: &str) {
        self.per_op_us.sort_by(f64::total_cmp);
        let (Some(&best), Some(&median)) = (self.per_op_us.first(), self.per_op_us.get(self.per_op_us.len() / 2))
        else {
            return;
        };
        let (rounds, ops) = (self.per_op_us.len(), self.ops);
        println!("{name:<44} {best:>8.2} us/op best, {median:>8.2} median  ({rounds} rounds, {ops} ops)");
    }
}

/// The ops `0..count`, cut into the [`rounds`] that are timed one by one.
fn round_ranges(count: u64) -> impl Iterator<Item = std::ops::Range<u64>> {
    let per_round = count.div_ceil(rounds()).max(1);
    (0..count).step_by(per_round as usize).map(move |first| first..(first + per_round).min(count))
}

/// Runs `op` for ops `0..count` in [`rounds`] timed rounds.
fn timed(count: u64, mut op: impl FnMut(u64)) -> Rounds {
    let mut rounds = Rounds::new();
    for range in round_ranges(count) {
        let (ops, start) = (range.end - range.start, Instant::now());
        range.for_each(&mut op);
        rounds.add(start.elapsed(), ops);
    }
    rounds
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
    let rounds = timed(puts, |i| {
        let (status, _) = fake.handle_json("PutItem", bodies[(i % 1000) as usize].as_bytes());
        assert_eq!(status, 200);
    });
    if wanted("PutItem") {
        rounds.report("engine alone: conditional PutItem");
    }

    let gets: Vec<String> = (0..1000)
        .map(|i| format!(r#"{{"TableName":"Bench","Key":{{"pk":{{"S":"k{i}"}}}},"ConsistentRead":true}}"#))
        .collect();
    let count = if wanted("GetItem") { ops() } else { 0 };
    let rounds = timed(count, |i| {
        let (status, body) = fake.handle_json("GetItem", gets[(i % 1000) as usize].as_bytes());
        assert_eq!(status, 200);
        black_box(body);
    });
    rounds.report("engine alone: consistent GetItem");

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
    let rounds = timed(count, |i| {
        let (status, _) = fake.handle_json("UpdateItem", updates[(i % 1000) as usize].as_bytes());
        assert_eq!(status, 200);
    });
    rounds.report("engine alone: UpdateItem with ADD");
}

/// [`timed`] for an operation that awaits.
async fn timed_async(count: u64, mut op: impl AsyncFnMut(u64)) -> Rounds {
    let mut rounds = Rounds::new();
    for range in round_ranges(count) {
        let (ops, start) = (range.end - range.start, Instant::now());
        for i in range {
            op(i).await;
        }
        rounds.add(start.elapsed(), ops);
    }
    rounds
}

/// The three calls through `client`, reported under `label`.
async fn through_sdk(client: &aws_sdk_dynamodb::Client, label: &str) {
    let ops = ops() / 5;
    let count = if wanted("PutItem") { ops } else { 0 };
    let rounds = timed_async(count, async |i| {
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
    })
    .await;
    rounds.report(&format!("{label}: conditional PutItem"));
    let count = if wanted("GetItem") { ops } else { 0 };
    let rounds = timed_async(count, async |i| {
        let out = client
            .get_item()
            .table_name("Bench")
            .key("pk", AttributeValue::S(format!("s{}", i % 1000)))
            .consistent_read(true)
            .send()
            .await
            .unwrap();
        black_box(out);
    })
    .await;
    rounds.report(&format!("{label}: consistent GetItem"));
    let count = if wanted("UpdateItem") { ops } else { 0 };
    let rounds = timed_async(count, async |i| {
        client
            .update_item()
            .table_name("Bench")
            .key("pk", AttributeValue::S(format!("s{}", i % 1000)))
            .update_expression("ADD n :one")
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send()
            .await
            .unwrap();
    })
    .await;
    rounds.report(&format!("{label}: UpdateItem with ADD"));
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
