//! `dynalease-fake serve` over raw HTTP/1.1: the real binary, started with `--port 0`, and a
//! minimal client that writes requests byte for byte, so that malformed ones can be sent too.

mod server_support;

use std::io::Write;
use std::net::Shutdown;
use std::process::Command;

use serde_json::{Value as Json, json};
use server_support::{Connection, Reply, SIGNED, Server, create_table};

fn put(server: &Server, table: &str, pk: &str) {
    let reply = server.call("PutItem", &json!({"TableName": table, "Item": {"pk": {"S": pk}, "n": {"N": "1"}}}));
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
}

fn get(server: &Server, table: &str, pk: &str) -> Json {
    let reply = server.call("GetItem", &json!({"TableName": table, "Key": {"pk": {"S": pk}}, "ConsistentRead": true}));
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
    reply.json()
}

#[test]
fn first_stdout_line_names_the_port_that_was_picked() {
    let server = Server::start(&[]);
    let (host, port) = server.address.rsplit_once(':').unwrap();
    assert_eq!(host, "127.0.0.1");
    assert_ne!(port.parse::<u16>().unwrap(), 0);
    assert_eq!(server.call("ListTables", &json!({})).status, 200);
}

#[test]
fn answers_carry_the_json_content_type_a_request_id_and_the_crc32_of_the_exact_body() {
    let server = Server::start(&[]);
    create_table(&server, "Shop");
    let mut connection = server.connect();
    for reply in [
        connection.call("ListTables", &json!({})),
        connection.call("DescribeTable", &json!({"TableName": "Shop"})),
        connection.call("DescribeTable", &json!({"TableName": "Nowhere"})),
    ] {
        assert_eq!(reply.header("content-type"), Some("application/x-amz-json-1.0"));
        let request_id = reply.header("x-amzn-requestid").expect("a request id");
        assert!(!request_id.is_empty() && request_id.bytes().all(|b| b.is_ascii_alphanumeric()));
        let crc32: u32 = reply.header("x-amz-crc32").expect("a crc32").parse().unwrap();
        assert_eq!(crc32, crc32fast::hash(&reply.body));
    }
}

#[test]
fn dynamodb_errors_are_400_with_the_error_type_in_the_body() {
    let server = Server::start(&[]);
    let reply = server.call("DescribeTable", &json!({"TableName": "Nowhere"}));
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), "ResourceNotFoundException");
}

#[test]
fn one_keep_alive_connection_carries_many_requests() {
    let server = Server::start(&[]);
    create_table(&server, "Shop");
    let mut connection = server.connect();
    for i in 0..50 {
        let put = connection.call("PutItem", &json!({"TableName": "Shop", "Item": {"pk": {"S": format!("k{i}")}}}));
        assert_eq!(put.status, 200);
    }
    for i in 0..50 {
        let get = connection.call("GetItem", &json!({"TableName": "Shop", "Key": {"pk": {"S": format!("k{i}")}}}));
        assert_eq!(get.json()["Item"]["pk"]["S"], format!("k{i}"));
    }
}

#[test]
fn any_sigv4_signature_is_accepted_whatever_its_credentials() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_with(
        Some("DynamoDB_20120810.ListTables"),
        b"{}",
        "Content-Type: application/x-amz-json-1.0\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential=nobody/19990101/nowhere/dynamodb/aws4_request, \
         SignedHeaders=host, Signature=not-even-hex\r\n",
    );
    assert_eq!(connection.read_reply().unwrap().status, 200);
}

#[test]
fn an_unsigned_call_is_refused_for_a_missing_token_and_a_partial_signature_for_what_it_lacks() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    let json = "Content-Type: application/x-amz-json-1.0\r\n";
    for authorization in ["", "Authorization: AWS4\r\n", "Authorization: Basic dXNlcg==\r\n"] {
        connection.send_with(Some("DynamoDB_20120810.ListTables"), b"{}", &format!("{json}{authorization}"));
        let reply = connection.read_reply().unwrap();
        assert_eq!(reply.status, 400);
        assert_eq!(
            reply.json(),
            json!({
                "__type": "com.amazon.coral.service#MissingAuthenticationTokenException",
                "message": "Request is missing Authentication Token",
            })
        );
    }
    connection.send_with(Some("DynamoDB_20120810.ListTables"), b"{}", &format!("{json}Authorization: AWS4-\r\n"));
    let reply = connection.read_reply().unwrap();
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), "IncompleteSignatureException");
    assert_eq!(
        reply.json()["message"],
        "Authorization header requires 'Credential' parameter. \
         Authorization header requires 'Signature' parameter. \
         Authorization header requires 'SignedHeaders' parameter. \
         Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. \
         Authorization=AWS4-"
    );
}

#[test]
fn an_unreadable_body_or_an_unknown_target_is_reported_before_a_missing_signature() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    let json = "Content-Type: application/x-amz-json-1.0\r\n";
    connection.send_with(Some("DynamoDB_20120810.ListTables"), b"hi", json);
    assert_eq!(
        connection.read_reply().unwrap().json(),
        json!({"__type": "com.amazon.coral.service#SerializationException"})
    );
    connection.send_with(Some("DynamoDB_20120810.ListTable"), b"{}", json);
    assert_eq!(connection.read_reply().unwrap().error_code(), "UnknownOperationException");
    connection.send_with(Some("ListTables"), b"{}", json);
    assert_eq!(connection.read_reply().unwrap().error_code(), "UnknownOperationException", "no API prefix");
    // An empty body is reported after the signature.
    connection.send_with(Some("DynamoDB_20120810.ListTables"), b"", "");
    assert_eq!(connection.read_reply().unwrap().error_code(), "MissingAuthenticationTokenException");
    connection.send(Some("DynamoDB_20120810.ListTables"), b"", "");
    assert_eq!(connection.read_reply().unwrap().error_code(), "SerializationException");
}

#[test]
fn errors_are_answered_in_the_json_content_type_the_request_named() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_with(None, b"{}", "Content-Type: application/json\r\n");
    let plain = connection.read_reply().unwrap();
    assert_eq!(plain.header("content-type"), Some("application/json"));
    assert_eq!(plain.json(), json!({"__type": "com.amazon.coral.service#UnknownOperationException"}));
    connection.send_with(None, b"", "");
    assert_eq!(connection.read_reply().unwrap().header("content-type"), Some("application/json"));
    connection.send_with(None, b"{}", "Content-Type: application/x-amz-json-1.0\r\n");
    assert_eq!(connection.read_reply().unwrap().header("content-type"), Some("application/x-amz-json-1.0"));
}

#[test]
fn other_methods_and_bodies_that_are_not_json_by_their_content_type_get_404() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    let expect_404 = |reply: Reply| {
        assert_eq!(reply.status, 404);
        assert_eq!(reply.body, b"<UnknownOperationException/>\n");
        assert_eq!(reply.header("x-amz-crc32"), Some("3552371480"));
        assert_eq!(reply.header("x-amzn-requestid").map(str::len), Some(52));
    };
    for method in ["PUT", "DELETE", "OPTIONS", "PATCH"] {
        connection.send_method(method, None, b"", "");
        expect_404(connection.read_reply().unwrap());
    }
    for content_type in ["", "Content-Type: text/plain\r\n", "Content-Type: whatever\r\n"] {
        connection.send_with(Some("DynamoDB_20120810.ListTables"), b"{}", content_type);
        expect_404(connection.read_reply().unwrap());
    }
    assert_eq!(connection.call("ListTables", &json!({})).status, 200, "the connection keeps serving");
}

#[test]
fn a_request_with_an_origin_gets_cors_headers_and_a_preflight_is_answered() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send(Some("DynamoDB_20120810.ListTables"), b"{}", "Origin: http://app.example\r\n");
    let call = connection.read_reply().unwrap();
    assert_eq!(call.status, 200);
    assert_eq!(call.header("access-control-allow-origin"), Some("*"));
    connection.send_method(
        "OPTIONS",
        None,
        b"",
        "Origin: http://app.example\r\nAccess-Control-Request-Headers: a, b, c\r\n\
         Access-Control-Request-Method: POST\r\n",
    );
    let preflight = connection.read_reply().unwrap();
    assert_eq!(preflight.status, 200);
    assert!(preflight.body.is_empty());
    assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));
    assert_eq!(preflight.header("access-control-allow-headers"), Some("a, b, c"));
    assert_eq!(preflight.header("access-control-allow-methods"), Some("POST"));
    assert_eq!(preflight.header("access-control-max-age"), Some("172800"));
    assert_eq!(preflight.header("x-amzn-requestid").map(str::len), Some(52));
    connection.send_method("OPTIONS", None, b"", "Origin: http://app.example\r\n");
    let bare = connection.read_reply().unwrap();
    assert_eq!((bare.status, bare.header("access-control-allow-headers")), (200, None));
    connection.send(Some("DynamoDB_20120810.ListTables"), b"{}", "");
    assert_eq!(connection.read_reply().unwrap().header("access-control-allow-origin"), None);
}

#[test]
fn malformed_empty_and_null_bodies_get_400_and_the_connection_keeps_serving() {
    let server = Server::start(&[]);
    create_table(&server, "Shop");
    put(&server, "Shop", "kept");
    let mut connection = server.connect();
    let bodies: [&[u8]; 9] =
        [b"", b"null", b"{", b"[]", b"\"text\"", b"42", b"\xff\xfe\x00", b"{\"TableName\":}", b"{}{}"];
    for body in bodies {
        let reply = connection.call_raw("PutItem", body);
        assert_eq!(reply.status, 400, "body {:?}", String::from_utf8_lossy(body));
        assert_eq!(reply.error_code(), "SerializationException", "body {:?}", String::from_utf8_lossy(body));
    }
    let wrong_types = connection.call("PutItem", &json!({"TableName": 7, "Item": null}));
    assert_eq!(wrong_types.status, 400);
    assert_eq!(connection.call("ListTables", &json!({})).status, 200);
    assert_eq!(get(&server, "Shop", "kept")["Item"]["pk"]["S"], "kept");
}

#[test]
fn a_missing_or_foreign_target_is_an_unknown_operation() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send(None, b"{}", "");
    let missing = connection.read_reply().unwrap();
    assert_eq!((missing.status, missing.error_code().as_str()), (400, "UnknownOperationException"));
    let foreign = connection.call("DropEverything", &json!({}));
    assert_eq!((foreign.status, foreign.error_code().as_str()), (400, "UnknownOperationException"));
    assert_eq!(connection.call("ListTables", &json!({})).status, 200);
}

#[test]
fn garbage_instead_of_http_gets_400_and_the_server_keeps_serving() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_raw(b"\x16\x03\x01\x02\x00 this is not HTTP\r\n\r\n");
    let reply = connection.read_reply();
    assert!(reply.as_ref().is_none_or(|reply| reply.status == 400), "{reply:?}");
    assert_eq!(server.call("ListTables", &json!({})).status, 200);
}

#[test]
fn a_chunked_body_is_read_whole() {
    let server = Server::start(&[]);
    create_table(&server, "Shop");
    let mut connection = server.connect();
    connection.send_raw(
        format!(
            "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n{SIGNED}\
             Transfer-Encoding: chunked\r\n\r\n\
             11\r\n{{\"TableName\":\"Sho\r\n\
             1b;note=split\r\np\",\"Item\":{{\"pk\":{{\"S\":\"c\"}}}}}}\r\n\
             0\r\n\r\n"
        )
        .as_bytes(),
    );
    assert_eq!(connection.read_reply().unwrap().status, 200);
    assert_eq!(connection.call("ListTables", &json!({})).status, 200, "the connection stays usable");
    assert_eq!(get(&server, "Shop", "c")["Item"]["pk"]["S"], "c");
}

#[test]
fn expect_100_continue_gets_an_interim_answer_before_the_body_is_sent() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_raw(
        format!(
            "POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n{SIGNED}\
             Expect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        )
        .as_bytes(),
    );
    let interim = connection.read_reply().unwrap();
    assert_eq!(interim.status, 100);
    connection.send_raw(b"{}");
    let reply = connection.read_reply().unwrap();
    assert_eq!((reply.status, reply.json()), (200, json!({"TableNames": []})));
}

#[test]
fn an_http_1_0_request_gets_its_answer_and_the_connection_closes() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_raw(
        format!(
            "POST / HTTP/1.0\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n{SIGNED}Content-Length: 2\r\n\r\n{{}}"
        )
        .as_bytes(),
    );
    let reply = connection.read_reply().unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("connection"), Some("close"));
    assert!(connection.is_closed_by_server());
}

#[test]
fn a_head_with_too_many_headers_gets_431_and_the_server_keeps_serving() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    let headers: String = (0..100).map(|i| format!("X-Filler-{i}: {i}\r\n")).collect();
    connection.send_raw(format!("POST / HTTP/1.1\r\n{headers}Content-Length: 2\r\n\r\n{{}}").as_bytes());
    assert_eq!(connection.read_reply().unwrap().status, 431);
    assert_eq!(server.call("ListTables", &json!({})).status, 200);
}

#[test]
fn a_declared_length_over_16_mb_gets_413_before_the_body_is_sent() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_raw(
        b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n\
          Content-Length: 16777217\r\n\r\n{\"TableName\":",
    );
    let reply = connection.read_reply().expect("an answer without the rest of the body");
    assert_eq!(reply.status, 413);
    assert_eq!(reply.header("connection"), Some("close"));
    assert_eq!((reply.header("transfer-encoding"), reply.body.as_slice()), (Some("chunked"), &b""[..]));
    assert!(connection.is_closed_by_server());
    assert_eq!(server.call("ListTables", &json!({})).status, 200);
}

#[test]
fn a_client_still_sending_an_oversized_body_gets_its_413_without_a_reset() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    let length = 16 * 1024 * 1024 + 1;
    connection.send_raw(format!("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: {length}\r\n\r\n").as_bytes());
    let mut writer = connection.stream.try_clone().unwrap();
    let sender = std::thread::spawn(move || writer.write_all(&vec![b'a'; length]).is_ok());
    let reply = connection.read_reply().expect("an answer");
    assert_eq!(reply.status, 413);
    assert!(sender.join().unwrap(), "the server reads the rest of the body instead of resetting");
    assert!(connection.is_closed_by_server());
}

#[test]
fn a_chunked_body_over_16_mb_gets_413_and_is_not_buffered_whole() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_raw(
        b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n\
          Transfer-Encoding: chunked\r\n\r\n",
    );
    // 64 MB in 1 MB chunks; the server stops reading after 16 MB, so later writes may fail.
    let mut writer = connection.stream.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let chunk = vec![b' '; 1 << 20];
        for _ in 0..64 {
            let sent = writer
                .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .and_then(|()| writer.write_all(&chunk))
                .and_then(|()| writer.write_all(b"\r\n"));
            if sent.is_err() {
                return;
            }
        }
        let _ = writer.write_all(b"0\r\n\r\n");
    });
    let reply = connection.read_reply().expect("an answer");
    assert_eq!(reply.status, 413);
    let _ = connection.stream.shutdown(Shutdown::Both);
    sender.join().unwrap();
    assert_eq!(server.call("ListTables", &json!({})).status, 200);
    let peak_mb = server.peak_rss_kb() / 1024;
    assert!(peak_mb < 48, "the server peaked at {peak_mb} MB for a 64 MB body");
}

#[test]
fn a_condition_nested_5000_deep_gets_400_and_the_server_keeps_its_items() {
    let server = Server::start(&[]);
    create_table(&server, "Shop");
    put(&server, "Shop", "kept");
    let deep = format!("{}attribute_exists(pk){}", "(".repeat(5000), ")".repeat(5000));
    let unbalanced = "(".repeat(5000);
    let not_deep = format!("{}a{}", "NOT ".repeat(5000), "");
    for condition in [deep, unbalanced, not_deep] {
        let reply = server.call(
            "PutItem",
            &json!({"TableName": "Shop", "Item": {"pk": {"S": "kept"}, "n": {"N": "2"}}, "ConditionExpression": condition}),
        );
        assert_eq!(reply.status, 400);
        assert_eq!(reply.error_code(), "ValidationException");
    }
    let update = server.call(
        "UpdateItem",
        &json!({
            "TableName": "Shop", "Key": {"pk": {"S": "kept"}},
            "UpdateExpression": format!("SET n = {}n{}", "(".repeat(5000), ")".repeat(5000)),
        }),
    );
    assert_eq!(update.status, 400);
    let item = get(&server, "Shop", "kept");
    assert_eq!(item["Item"]["n"]["N"], "1");
}

#[test]
fn json_nested_100000_deep_gets_400_and_the_server_keeps_its_items() {
    let server = Server::start(&[]);
    create_table(&server, "Shop");
    put(&server, "Shop", "kept");
    let depth = 100_000;
    let value = format!("{}{{\"S\":\"x\"}}{}", "{\"L\":[".repeat(depth), "]}".repeat(depth));
    let body = format!("{{\"TableName\":\"Shop\",\"Item\":{{\"pk\":{{\"S\":\"kept\"}},\"deep\":{value}}}}}");
    let reply = server.connect().call_raw("PutItem", body.as_bytes());
    assert_eq!(reply.status, 400);
    assert_eq!(get(&server, "Shop", "kept")["Item"]["n"]["N"], "1");
}

#[test]
fn sigterm_stops_the_server_with_exit_code_0_despite_an_idle_keep_alive_connection() {
    let server = Server::start(&[]);
    let mut idle = server.connect();
    assert_eq!(idle.call("ListTables", &json!({})).status, 200);
    server.signal("TERM");
    assert!(idle.is_closed_by_server());
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn sigint_stops_the_server_with_exit_code_0() {
    let server = Server::start(&[]);
    server.signal("INT");
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn a_request_in_flight_at_sigterm_still_gets_its_answer() {
    // The latency holds DescribeTable in the server while the signal arrives; it stays under the
    // two seconds a shutdown waits for requests in flight.
    let server = Server::start(&["--latency-ms", "1000", "--fault-operation", "DescribeTable"]);
    let mut slow = server.connect();
    slow.send(Some("DynamoDB_20120810.DescribeTable"), br#"{"TableName":"Shop"}"#, "");
    // The slow request was sent before this connection opened, so the server, accepting and
    // reading in order, holds it by the time this answer comes back.
    assert_eq!(server.call("ListTables", &json!({})).status, 200);
    server.signal("TERM");
    let reply = slow.read_reply().expect("the answer in flight");
    assert_eq!(reply.error_code(), "ResourceNotFoundException");
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn throttle_rate_1_answers_every_request_provisioned_throughput_exceeded() {
    let server = Server::start(&["--throttle-rate", "1.0"]);
    let reply = server.call("ListTables", &json!({}));
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), "ProvisionedThroughputExceededException");
}

#[test]
fn error_rate_1_answers_500_internal_server_error() {
    let server = Server::start(&["--error-rate", "1"]);
    let reply = server.call("ListTables", &json!({}));
    assert_eq!(reply.status, 500);
    assert_eq!(reply.error_code(), "InternalServerError");
}

#[test]
fn faults_narrowed_to_an_operation_leave_the_others_alone() {
    let server = Server::start(&["--throttle-rate", "1.0", "--fault-operation", "PutItem"]);
    create_table(&server, "Shop");
    let reply = server.call("PutItem", &json!({"TableName": "Shop", "Item": {"pk": {"S": "a"}}}));
    assert_eq!(reply.error_code(), "ProvisionedThroughputExceededException");
    assert_eq!(get(&server, "Shop", "a"), json!({}));
}

#[test]
fn a_lost_response_applies_the_write_and_closes_the_connection_without_an_answer() {
    let server = Server::start(&["--lost-response-rate", "1.0", "--fault-operation", "PutItem"]);
    create_table(&server, "Shop");
    let mut connection = server.connect();
    connection.send(Some("DynamoDB_20120810.PutItem"), br#"{"TableName":"Shop","Item":{"pk":{"S":"applied"}}}"#, "");
    assert!(connection.read_reply().is_none(), "no answer, just a closed connection");
    assert_eq!(get(&server, "Shop", "applied")["Item"]["pk"]["S"], "applied");
}

#[test]
fn the_same_seed_draws_the_same_faults() {
    let outcomes = |seed: &str| {
        let server = Server::start(&["--seed", seed, "--throttle-rate", "0.5"]);
        let mut connection = server.connect();
        (0..40).map(|_| connection.call("ListTables", &json!({})).status).collect::<Vec<_>>()
    };
    let first = outcomes("7");
    assert!(first.contains(&200) && first.contains(&400), "{first:?}");
    assert_eq!(first, outcomes("7"));
}

#[test]
fn a_get_is_answered_like_dynamodbs_health_check() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    connection.send_raw(b"GET / HTTP/1.1\r\nHost: localhost:8000\r\n\r\n");
    let reply = connection.read_reply().unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, b"healthy: dynamodb.us-east-1.amazonaws.com ");
    assert_eq!(reply.header("x-amzn-requestid").map(str::len), Some(52));
    connection.send_raw(b"GET /health HTTP/1.1\r\nHost: localhost:8000\r\n\r\n");
    assert_eq!(connection.read_reply().unwrap().status, 404, "only the root is the health check");
}

#[test]
fn a_port_in_use_is_an_error_on_stderr_and_exit_code_1() {
    let server = Server::start(&[]);
    let port = server.address.rsplit_once(':').unwrap().1;
    let output = Command::new(env!("CARGO_BIN_EXE_dynalease-fake")).args(["serve", "--port", port]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot listen"));
}

#[test]
fn a_new_table_is_described_active_at_once_though_create_table_answers_creating() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    let table = json!({
        "TableName": "Quick",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"},
    });
    let created = connection.call("CreateTable", &table).json();
    assert_eq!(created["TableDescription"]["TableStatus"], "CREATING", "as DynamoDB answers CreateTable");
    let described = connection.call("DescribeTable", &json!({"TableName": "Quick"})).json();
    assert_eq!(described["Table"]["TableStatus"], "ACTIVE");
    let arn = described["Table"]["LatestStreamArn"].as_str().unwrap().to_owned();
    connection.send(
        Some("DynamoDBStreams_20120810.DescribeStream"),
        json!({"StreamArn": arn}).to_string().as_bytes(),
        "",
    );
    let stream = connection.read_reply().unwrap().json();
    assert_eq!(stream["StreamDescription"]["StreamStatus"], "ENABLED");
    let deleted = connection.call("DeleteTable", &json!({"TableName": "Quick"})).json();
    assert_eq!(deleted["TableDescription"]["TableStatus"], "DELETING");
    let gone = connection.call("DescribeTable", &json!({"TableName": "Quick"}));
    assert_eq!(gone.error_code(), "ResourceNotFoundException");
}

#[test]
fn a_new_table_is_creating_for_the_time_the_flag_gives() {
    let server = Server::start(&["--table-creation-ms", "600000"]);
    let mut connection = server.connect();
    let table = json!({
        "TableName": "Slow",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
    });
    assert_eq!(connection.call("CreateTable", &table).json()["TableDescription"]["TableStatus"], "CREATING");
    assert_eq!(
        connection.call("DescribeTable", &json!({"TableName": "Slow"})).json()["Table"]["TableStatus"],
        "CREATING"
    );
    let read = connection.call("GetItem", &json!({"TableName": "Slow", "Key": {"pk": {"S": "a"}}}));
    assert_eq!((read.status, read.error_code()), (400, "ResourceNotFoundException".to_owned()));
    let delete = connection.call("DeleteTable", &json!({"TableName": "Slow"}));
    assert_eq!(delete.error_code(), "ResourceInUseException");
}

#[test]
fn the_streams_targets_are_answered_on_the_same_port_and_each_service_serves_its_own() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    let created = connection.call(
        "CreateTable",
        &json!({
            "TableName": "Feed",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
            "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"},
        }),
    );
    assert_eq!(created.status, 200, "{}", String::from_utf8_lossy(&created.body));
    let arn = created.json()["TableDescription"]["LatestStreamArn"].as_str().unwrap().to_owned();
    let streams = |connection: &mut Connection, operation: &str, body: Json| {
        connection.send(Some(&format!("DynamoDBStreams_20120810.{operation}")), body.to_string().as_bytes(), "");
        connection.read_reply().expect("an answer")
    };
    let listed = streams(&mut connection, "ListStreams", json!({"TableName": "Feed"}));
    assert_eq!(listed.status, 200);
    assert_eq!(listed.json()["Streams"][0]["StreamArn"], json!(arn));
    let described = streams(&mut connection, "DescribeStream", json!({"StreamArn": arn}));
    assert_eq!(described.json()["StreamDescription"]["StreamStatus"], json!("ENABLED"));
    // Each prefix names its own service's operations only.
    assert_eq!(streams(&mut connection, "ListTables", json!({})).error_code(), "UnknownOperationException");
    assert_eq!(connection.call("ListStreams", &json!({})).error_code(), "UnknownOperationException");
}

#[test]
fn idle_connections_are_closed_after_the_idle_timeout() {
    let server = Server::start(&["--idle-timeout-secs", "1"]);
    let mut never_sent = server.connect();
    let mut after_a_request = server.connect();
    assert_eq!(after_a_request.call("ListTables", &json!({})).status, 200);
    // The idle timeout runs on real time: each read below returns when the server closes.
    assert!(never_sent.is_closed_by_server());
    assert!(after_a_request.is_closed_by_server());
    assert_eq!(server.call("ListTables", &json!({})).status, 200, "the server keeps serving");
}

#[test]
fn many_connections_share_a_bounded_number_of_threads() {
    let server = Server::start(&[]);
    let mut connections: Vec<Connection> = (0..300).map(|_| server.connect()).collect();
    for connection in connections.iter_mut().step_by(2) {
        assert_eq!(connection.call("ListTables", &json!({})).status, 200);
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.pid())).unwrap();
    let threads: usize = status.lines().find_map(|line| line.strip_prefix("Threads:")).unwrap().trim().parse().unwrap();
    assert!(threads <= 34, "{threads} threads for 300 connections");
    for connection in connections.iter_mut() {
        assert_eq!(connection.call("ListTables", &json!({})).status, 200, "every connection is still served");
    }
}
