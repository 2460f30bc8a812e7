//! The control API of `dynalease-fake serve` (`/_dynalease/...`): the clock, fault rules, state
//! and the request log, steered over HTTP as a test in any language does.

mod server_support;

use serde_json::{Value as Json, json};
use server_support::{Server, create_table};

const START: &str = "2026-01-01T00:00:00Z";

/// A server whose clock stands at [`START`] until the test moves it.
fn frozen() -> Server {
    Server::start(&["--clock", "manual", "--start-time", START])
}

fn time_of(server: &Server) -> String {
    server.control_ok("GET", "clock", None)["Time"].as_str().unwrap().to_owned()
}

fn ok(server: &Server, operation: &str, body: Json) -> Json {
    let reply = server.call(operation, &body);
    assert_eq!(reply.status, 200, "{operation}: {}", String::from_utf8_lossy(&reply.body));
    reply.json()
}

fn streams(server: &Server, operation: &str, body: Json) -> server_support::Reply {
    let mut connection = server.connect();
    connection.send(Some(&format!("DynamoDBStreams_20120810.{operation}")), body.to_string().as_bytes(), "");
    connection.read_reply().expect("an answer")
}

#[test]
fn the_clock_is_read_frozen_advanced_set_and_let_run() {
    let server = frozen();
    let clock = server.control_ok("GET", "clock", None);
    assert_eq!(
        clock,
        json!({"Time": "2026-01-01T00:00:00.000Z", "EpochSeconds": 1767225600.0, "EpochMillis": 1767225600000u64, "Frozen": true})
    );
    let advanced = server.control_ok("POST", "clock/advance", Some(&json!({"Seconds": 90})));
    assert_eq!(advanced["Time"], "2026-01-01T00:01:30.000Z");
    let advanced = server.control_ok("POST", "clock/advance", Some(&json!({"By": "2h 30m"})));
    assert_eq!(advanced["Time"], "2026-01-01T02:31:30.000Z");
    let set = server.control_ok("POST", "clock/set", Some(&json!({"Time": "2026-03-01T12:00:00Z"})));
    assert_eq!((set["Time"].as_str(), set["Frozen"].as_bool()), (Some("2026-03-01T12:00:00.000Z"), Some(true)));
    assert_eq!(time_of(&server), "2026-03-01T12:00:00.000Z", "a frozen clock stands still");
    let resumed = server.control_ok("POST", "clock/resume", None);
    assert_eq!(resumed["Frozen"], false);
    assert!(resumed["Time"].as_str().unwrap() >= "2026-03-01T12:00:00.000Z");
    let frozen = server.control_ok("POST", "clock/freeze", Some(&json!({})));
    assert_eq!(frozen["Frozen"], true);
    assert_eq!(time_of(&server), frozen["Time"].as_str().unwrap());
    let by_epoch = server.control_ok("POST", "clock/set", Some(&json!({"EpochSeconds": 1893456000})));
    assert_eq!(by_epoch["Time"], "2030-01-01T00:00:00.000Z");
}

#[test]
fn every_answer_is_dated_by_the_fakes_clock() {
    let server = Server::start(&["--clock", "manual", "--start-time", "2030-06-01T12:00:00Z"]);
    assert_eq!(server.call("ListTables", &json!({})).header("date"), Some("Sat, 01 Jun 2030 12:00:00 GMT"));
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "1day"})));
    assert_eq!(server.call("ListTables", &json!({})).header("date"), Some("Sun, 02 Jun 2030 12:00:00 GMT"));
    assert_eq!(server.control("GET", "clock", None).header("date"), Some("Sun, 02 Jun 2030 12:00:00 GMT"));
}

#[test]
fn setting_the_clock_back_is_refused_and_changes_nothing() {
    let server = frozen();
    let reply = server.control("POST", "clock/set", Some(&json!({"Time": "2025-12-31T23:59:59Z"})));
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.json()["Message"],
        "the clock only moves forward: 2025-12-31T23:59:59.000Z is before its time, 2026-01-01T00:00:00.000Z"
    );
    assert_eq!(time_of(&server), "2026-01-01T00:00:00.000Z");
}

#[test]
fn advancing_two_days_deletes_expired_items_in_order_with_their_stream_records() {
    let server = frozen();
    let table = json!({
        "TableName": "Carts",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "OLD_IMAGE"},
    });
    let arn = ok(&server, "CreateTable", table)["TableDescription"]["LatestStreamArn"].as_str().unwrap().to_owned();
    let ttl = json!({"TableName": "Carts", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires"}});
    ok(&server, "UpdateTimeToLive", ttl);
    let start = 1_767_225_600u64;
    for (pk, expires) in [("early", start + 3600), ("late", start + 30 * 3600), ("kept", start + 3 * 86_400)] {
        let item = json!({"pk": {"S": pk}, "expires": {"N": expires.to_string()}});
        ok(&server, "PutItem", json!({"TableName": "Carts", "Item": item}));
    }
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "2days"})));
    let scan = ok(&server, "Scan", json!({"TableName": "Carts"}));
    assert_eq!(scan["Items"], json!([{"pk": {"S": "kept"}, "expires": {"N": (start + 3 * 86_400).to_string()}}]));
    // The early deletion and the three inserts are more than 24 hours old: trimmed. The late
    // deletion ran at the first sweep after its expiry (sweeps every 10 minutes from the start).
    let shards =
        streams(&server, "DescribeStream", json!({"StreamArn": arn})).json()["StreamDescription"]["Shards"].clone();
    let mut records = Vec::new();
    let mut last_iterator = Json::Null;
    for shard in shards.as_array().unwrap() {
        let iterator = streams(
            &server,
            "GetShardIterator",
            json!({"StreamArn": arn, "ShardId": shard["ShardId"], "ShardIteratorType": "TRIM_HORIZON"}),
        )
        .json()["ShardIterator"]
            .clone();
        let page = streams(&server, "GetRecords", json!({"ShardIterator": iterator})).json();
        records.extend(page["Records"].as_array().unwrap().iter().cloned());
        last_iterator = iterator;
    }
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["eventName"], "REMOVE");
    assert_eq!(records[0]["dynamodb"]["OldImage"]["pk"]["S"], "late");
    assert_eq!(records[0]["dynamodb"]["ApproximateCreationDateTime"], json!(start + 30 * 3600));
    assert_eq!(records[0]["userIdentity"]["PrincipalId"], "dynamodb.amazonaws.com");
    // An iterator is good for 15 minutes of the fake's clock.
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "16m"})));
    let expired = streams(&server, "GetRecords", json!({"ShardIterator": last_iterator}));
    assert_eq!(expired.error_code(), "ExpiredIteratorException");
}

#[test]
fn a_table_created_on_a_frozen_clock_with_a_creation_time_becomes_active_when_the_clock_moves() {
    let server = Server::start(&["--clock", "manual", "--table-creation-ms", "30000"]);
    create_table(&server, "Slow");
    let status =
        |server: &Server| ok(server, "DescribeTable", json!({"TableName": "Slow"}))["Table"]["TableStatus"].clone();
    assert_eq!(status(&server), "CREATING");
    server.control_ok("POST", "clock/advance", Some(&json!({"Seconds": 30})));
    assert_eq!(status(&server), "ACTIVE");
}

#[test]
fn a_latency_fault_on_a_frozen_clock_is_served_on_real_time() {
    let server = frozen();
    let rule = server.control_ok("POST", "faults", Some(&json!({"Fault": "Latency", "DelayMs": 20, "Times": 1})));
    assert_eq!(server.call("ListTables", &json!({})).status, 200, "answered, not held for ever");
    assert_eq!(server.control_ok("GET", "faults", None)["Rules"][0]["Fired"], 1, "{rule}");
    assert_eq!(time_of(&server), "2026-01-01T00:00:00.000Z", "the fake's clock did not move");
}

#[test]
fn fault_rules_are_added_listed_with_how_often_each_fired_and_removed() {
    let server = Server::start(&[]);
    create_table(&server, "Shop");
    let throttle = server.control_ok(
        "POST",
        "faults",
        Some(&json!({"Fault": "Throttle", "Operation": "UpdateItem", "Table": "Shop", "Times": 1})),
    );
    assert_eq!(
        throttle,
        json!({"Id": 1, "Fault": "Throttle", "Operation": "UpdateItem", "Table": "Shop", "Probability": 1.0,
               "Times": 1, "Remaining": 1, "After": 0, "Matched": 0, "Fired": 0})
    );
    let update = json!({"TableName": "Shop", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET n = :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}});
    assert_eq!(server.call("UpdateItem", &update).error_code(), "ProvisionedThroughputExceededException");
    assert_eq!(server.call("UpdateItem", &update).status, 200, "the rule fired once");
    let denied = server.control_ok(
        "POST",
        "faults",
        Some(&json!({"Fault": "Error", "Code": "AccessDeniedException", "Message": "not you", "Operation": "GetItem"})),
    );
    assert_eq!(denied["Id"], 2);
    let get = server.call("GetItem", &json!({"TableName": "Shop", "Key": {"pk": {"S": "a"}}}));
    assert_eq!(
        (get.status, get.error_code(), get.json()["Message"].clone()),
        (400, "AccessDeniedException".into(), json!("not you"))
    );
    let rules = server.control_ok("GET", "faults", None)["Rules"].clone();
    assert_eq!(
        (rules[0]["Id"].clone(), rules[0]["Fired"].clone(), rules[0]["Remaining"].clone()),
        (json!(1), json!(1), json!(0))
    );
    assert_eq!(
        (rules[1]["Id"].clone(), rules[1]["Matched"].clone(), rules[1]["Fired"].clone()),
        (json!(2), json!(1), json!(1))
    );
    assert_eq!(server.control_ok("DELETE", "faults/2", None), json!({"Removed": [2]}));
    assert_eq!(server.call("GetItem", &json!({"TableName": "Shop", "Key": {"pk": {"S": "a"}}})).status, 200);
    assert_eq!(server.control("DELETE", "faults/2", None).status, 404);
    server.control_ok("POST", "faults", Some(&json!({"Fault": "InternalServerError", "Probability": 0.5})));
    assert_eq!(server.control_ok("DELETE", "faults", None), json!({"Removed": [1, 3]}));
    assert_eq!(server.control_ok("GET", "faults", None), json!({"Rules": []}));
}

#[test]
fn a_stale_read_rule_makes_eventually_consistent_reads_see_the_past_and_the_log_says_which_instant() {
    let server = frozen();
    create_table(&server, "Shop");
    let rule = server.control_ok("POST", "faults", Some(&json!({"Fault": "StaleRead", "MaxLagMs": 2000})));
    assert_eq!(rule["MaxLagMs"], 2000);
    ok(&server, "PutItem", json!({"TableName": "Shop", "Item": {"pk": {"S": "a"}}}));
    let key = json!({"TableName": "Shop", "Key": {"pk": {"S": "a"}}});
    assert_eq!(ok(&server, "GetItem", key.clone()), json!({}), "the item was put at this very instant");
    let mut consistent = key.clone();
    consistent["ConsistentRead"] = json!(true);
    assert!(ok(&server, "GetItem", consistent)["Item"].is_object());
    let requests = server.control_ok("GET", "requests?limit=2", None)["Requests"].clone();
    assert_eq!(requests[0]["Fault"], "StaleRead");
    let seen = requests[0]["ReadAsOf"].as_str().unwrap();
    assert!(seen.starts_with("2025-12-31T23:59:5"), "up to two seconds before the clock: {seen}");
    assert_eq!((requests[1].get("Fault"), requests[1].get("ReadAsOf")), (None, None), "strongly consistent");

    server.control_ok("POST", "clock/advance", Some(&json!({"By": "2s"})));
    assert!(ok(&server, "GetItem", key)["Item"].is_object(), "two seconds on, every read sees the item");
}

#[test]
fn a_stale_read_rule_needs_a_lag_from_zero_to_an_hour_and_a_read_operation() {
    let server = frozen();
    let cases: [(&[u8], &str); 5] = [
        (br#"{"Fault": "StaleRead"}"#, "a StaleRead fault needs MaxLagMs"),
        (
            br#"{"Fault": "StaleRead", "MaxLagMs": -1}"#,
            "MaxLagMs -1 is not a lag a StaleRead fault can have: give milliseconds from 0 to 3600000 (an hour)",
        ),
        (br#"{"Fault": "StaleRead", "MaxLagMs": 3600001}"#, "MaxLagMs 3600001 is not a lag"),
        (
            br#"{"Fault": "StaleRead", "MaxLagMs": 10, "Operation": "PutItem"}"#,
            "a StaleRead fault meets only reads that can be eventually consistent (GetItem, BatchGetItem, Query, Scan, ExecuteStatement, BatchExecuteStatement), not PutItem",
        ),
        (br#"{"Fault": "Throttle", "MaxLagMs": 10}"#, "MaxLagMs does not apply to a Throttle fault"),
    ];
    for (body, expected) in cases {
        let reply = server.control_raw("POST", "faults", body);
        assert_eq!(reply.status, 400, "{}", String::from_utf8_lossy(body));
        let message = reply.json()["Message"].as_str().unwrap().to_owned();
        assert!(message.contains(expected), "{message:?} should say {expected:?}");
    }
    assert_eq!(server.control_ok("GET", "faults", None), json!({"Rules": []}));
    let longest = json!({"Fault": "StaleRead", "MaxLagMs": 3_600_000, "Operation": "Query"});
    assert_eq!(server.control_ok("POST", "faults", Some(&longest))["MaxLagMs"], 3_600_000);
}

#[test]
fn malformed_control_requests_get_400_saying_what_is_wrong_and_change_nothing() {
    let server = frozen();
    create_table(&server, "Shop");
    server.control_ok("POST", "faults", Some(&json!({"Fault": "Throttle", "Operation": "PutItem"})));
    let faults_before = server.control_ok("GET", "faults", None);
    let snapshot_before = server.control_ok("GET", "snapshot", None);
    let cases: [(&str, &str, &[u8], &str); 16] = [
        ("POST", "faults", b"{\"Fault\": ", "EOF while parsing"),
        ("POST", "faults", b"[1]", "the body must be a JSON object, not [1]"),
        ("POST", "faults", br#"{"Fault": "Throttle", "Opration": "PutItem"}"#, "unknown field `Opration`"),
        ("POST", "faults", br#"{"Fault": "Slow"}"#, "unknown Fault `Slow`; the kinds are Throttle,"),
        ("POST", "faults", br#"{"Fault": "Throttle", "Operation": "PutItems"}"#, "unknown Operation `PutItems`"),
        ("POST", "faults", br#"{"Fault": "Throttle", "Probability": 2}"#, "Probability 2 is not from 0.0 to 1.0"),
        ("POST", "faults", br#"{"Fault": "Latency"}"#, "a Latency fault needs DelayMs"),
        ("POST", "faults", br#"{"Fault": "Throttle", "DelayMs": 5}"#, "DelayMs does not apply to a Throttle fault"),
        ("POST", "faults", br#"{"Fault": "Error", "Code": "X", "Status": 200}"#, "Status 200 is not an error status"),
        ("POST", "clock/advance", br#"{"By": "2days", "Seconds": 3}"#, "either By (such as 2days) or Seconds"),
        ("POST", "clock/advance", br#"{"Seconds": -5}"#, "the clock only moves forward"),
        ("POST", "clock/advance", br#"{"By": "two days"}"#, "is not a duration such as"),
        ("POST", "clock/set", br#"{"Time": "tomorrow"}"#, "is not an RFC 3339 time"),
        ("POST", "reset", br#"{"Tables": []}"#, "unknown field `Tables`"),
        ("POST", "reset", br#"{"Time": "yesterday"}"#, "Time `yesterday` is not an RFC 3339 time"),
        ("POST", "reset", br#"{"Time": "2026-01-01T00:00:00Z", "EpochSeconds": 1}"#, "reset takes either Time"),
    ];
    for (method, path, body, expected) in cases {
        let reply = server.control_raw(method, path, body);
        assert_eq!(reply.status, 400, "{method} {path} {}", String::from_utf8_lossy(body));
        let answer = reply.json();
        assert_eq!(answer["Error"], "BadRequest");
        let message = answer["Message"].as_str().unwrap();
        assert!(message.contains(expected), "{method} {path}: {message:?} should say {expected:?}");
    }
    let bad_snapshot = br#"{"Tables": [{"TableName": "Other",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "Items": [{"pk": {"S": "a"}}, {"sk": {"S": "b"}}]}]}"#;
    let reply = server.control_raw("PUT", "snapshot", bad_snapshot);
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.json()["Message"],
        "the snapshot cannot be loaded: line 5, column 59: table 1 of Tables: Other: item 2: ValidationException: \
         One or more parameter values were invalid: Missing the key pk in the item"
    );
    assert_eq!(server.control_ok("GET", "faults", None), faults_before);
    assert_eq!(server.control_ok("GET", "snapshot", None), snapshot_before);
    assert_eq!(time_of(&server), "2026-01-01T00:00:00.000Z");
}

#[test]
fn unknown_endpoints_get_404_and_wrong_methods_405() {
    let server = Server::start(&[]);
    let unknown = server.control("GET", "tables", None);
    assert_eq!(unknown.status, 404);
    assert!(unknown.json()["Message"].as_str().unwrap().starts_with("/_dynalease/tables is not a control endpoint"));
    let wrong = server.control("DELETE", "clock", None);
    assert_eq!(wrong.status, 405);
    assert_eq!(wrong.json()["Message"], "DELETE /clock is not a control endpoint; /clock takes GET");
}

#[test]
fn reset_drops_every_table_and_a_snapshot_loads_into_another_server() {
    let first = frozen();
    let table = json!({
        "TableName": "Orders",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "status", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "GlobalSecondaryIndexes": [{"IndexName": "by-status",
            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        "BillingMode": "PAY_PER_REQUEST",
        "Tags": [{"Key": "team", "Value": "shop"}],
    });
    ok(&first, "CreateTable", table);
    ok(
        &first,
        "UpdateTimeToLive",
        json!({"TableName": "Orders", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires"}}),
    );
    for (sk, status) in [(1, "open"), (2, "shipped"), (3, "open")] {
        let item = json!({"pk": {"S": "c1"}, "sk": {"N": sk.to_string()}, "status": {"S": status}, "tags": {"SS": ["x", "y"]}});
        ok(&first, "PutItem", json!({"TableName": "Orders", "Item": item}));
    }
    let snapshot = first.control_ok("GET", "snapshot", None);
    assert_eq!(snapshot["Version"], 1);
    assert_eq!(snapshot["Tables"][0]["Items"].as_array().unwrap().len(), 3);
    let described = ok(&first, "DescribeTable", json!({"TableName": "Orders"}));

    let second = Server::start(&[]);
    create_table(&second, "Leftover");
    let loaded = second.control_ok("PUT", "snapshot", Some(&snapshot));
    assert_eq!(loaded, json!({"Tables": ["Orders"]}));
    assert_eq!(ok(&second, "ListTables", json!({})), json!({"TableNames": ["Orders"]}));
    let again = ok(&second, "DescribeTable", json!({"TableName": "Orders"}));
    for member in ["TableId", "CreationDateTime", "KeySchema", "AttributeDefinitions", "ItemCount", "TableSizeBytes"] {
        assert_eq!(again["Table"][member], described["Table"][member], "{member}");
    }
    let open = ok(
        &second,
        "Query",
        json!({"TableName": "Orders", "IndexName": "by-status",
        "KeyConditionExpression": "#s = :open", "ExpressionAttributeNames": {"#s": "status"},
        "ExpressionAttributeValues": {":open": {"S": "open"}}}),
    );
    assert_eq!(open["Count"], 2);
    let ttl = ok(&second, "DescribeTimeToLive", json!({"TableName": "Orders"}));
    assert_eq!(ttl["TimeToLiveDescription"], json!({"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"}));
    let tags = ok(&second, "ListTagsOfResource", json!({"ResourceArn": described["Table"]["TableArn"]}));
    assert_eq!(tags["Tags"], json!([{"Key": "team", "Value": "shop"}]));

    assert_eq!(second.control_ok("POST", "reset", None), json!({"Tables": []}));
    assert_eq!(ok(&second, "ListTables", json!({})), json!({"TableNames": []}));
}

#[test]
fn reset_to_a_time_puts_a_frozen_clock_back_and_sweeps_count_from_there() {
    let server = frozen();
    create_table(&server, "Old");
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "2days"})));
    let reset = server.control_ok("POST", "reset", Some(&json!({"Time": START})));
    assert_eq!(
        reset,
        json!({"Tables": [], "Clock": {"Time": "2026-01-01T00:00:00.000Z", "EpochSeconds": 1767225600.0,
            "EpochMillis": 1767225600000u64, "Frozen": true}})
    );
    assert_eq!(ok(&server, "ListTables", json!({})), json!({"TableNames": []}));
    assert_eq!(time_of(&server), "2026-01-01T00:00:00.000Z");

    // An item due an hour after the start goes at the sweep of that hour, as on a new server.
    create_table(&server, "Tokens");
    let ttl = json!({"TableName": "Tokens", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires"}});
    ok(&server, "UpdateTimeToLive", ttl);
    let item = json!({"pk": {"S": "s1"}, "expires": {"N": (1_767_225_600u64 + 3600).to_string()}});
    ok(&server, "PutItem", json!({"TableName": "Tokens", "Item": item}));
    let get = json!({"TableName": "Tokens", "Key": {"pk": {"S": "s1"}}});
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "59m"})));
    assert!(ok(&server, "GetItem", get.clone()).get("Item").is_some(), "not due yet");
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "2m"})));
    assert_eq!(ok(&server, "GetItem", get), json!({}), "deleted by the sweep at 01:00");
}

#[test]
fn reset_to_a_time_leaves_a_running_clock_running_from_there() {
    let server = Server::start(&[]);
    let reset = server.control_ok("POST", "reset", Some(&json!({"EpochSeconds": 1_577_836_800})));
    assert_eq!(reset["Clock"]["Frozen"], false);
    let now = time_of(&server);
    assert!(now.as_str() >= "2020-01-01T00:00:00.000Z" && now.as_str() < "2020-01-02", "{now}");
}

#[test]
fn reset_to_a_time_with_frozen_stops_a_running_clock_exactly_there() {
    let server = Server::start(&[]);
    let reset = server.control_ok("POST", "reset", Some(&json!({"EpochSeconds": 1_577_836_800, "Frozen": true})));
    assert_eq!(
        (reset["Clock"]["Time"].as_str(), reset["Clock"]["Frozen"].as_bool()),
        (Some("2020-01-01T00:00:00.000Z"), Some(true))
    );
    assert_eq!(time_of(&server), "2020-01-01T00:00:00.000Z");
    let running = server.control_ok("POST", "reset", Some(&json!({"EpochSeconds": 1_577_836_800, "Frozen": false})));
    assert_eq!(running["Clock"]["Frozen"], false);
    let refused = server.control("POST", "reset", Some(&json!({"Frozen": true})));
    assert_eq!(
        (refused.status, refused.json()["Message"].as_str()),
        (400, Some("Frozen goes with a time (Time or EpochSeconds) to put the clock at"))
    );
}

#[test]
fn the_request_log_keeps_the_latest_requests_the_flag_allows() {
    let server = Server::start(&["--request-log", "3"]);
    create_table(&server, "Shop");
    ok(&server, "PutItem", json!({"TableName": "Shop", "Item": {"pk": {"S": "a"}}}));
    assert_eq!(server.call("GetItem", &json!({"TableName": "Nowhere", "Key": {"pk": {"S": "a"}}})).status, 400);
    ok(&server, "ListTables", json!({}));
    let log = server.control_ok("GET", "requests", None)["Requests"].clone();
    let seen: Vec<(Json, Json, Json)> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["Operation"].clone(), r["Table"].clone(), r["Outcome"].clone()))
        .collect();
    assert_eq!(
        seen,
        vec![
            (json!("PutItem"), json!("Shop"), json!("OK")),
            (json!("GetItem"), json!("Nowhere"), json!("ResourceNotFoundException")),
            (json!("ListTables"), Json::Null, json!("OK")),
        ]
    );
    let last = server.control_ok("GET", "requests?limit=1", None)["Requests"].clone();
    assert_eq!(last[0]["Operation"], "ListTables");
    assert_eq!(server.control("GET", "requests?limit=many", None).status, 400);
    server.control_ok("DELETE", "requests", None);
    assert_eq!(server.control_ok("GET", "requests", None), json!({"Requests": []}));
}

#[test]
fn the_control_api_is_off_on_another_address_than_loopback_unless_turned_on() {
    let open = Server::start(&["--host", "0.0.0.0"]);
    let refused = open.control("GET", "clock", None);
    assert_eq!(refused.status, 403);
    assert!(refused.json()["Message"].as_str().unwrap().contains("start it with --control"));
    assert_eq!(open.call("ListTables", &json!({})).status, 200, "DynamoDB's API is served");
    let turned_on = Server::start(&["--host", "0.0.0.0", "--control"]);
    assert_eq!(turned_on.control("GET", "clock", None).status, 200);
}
