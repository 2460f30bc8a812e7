//! One `dynalease-fake serve` for many accounts and regions: a request is for the region of its
//! signature's scope (the `Authorization` header's or a presigned query's `X-Amz-Credential`)
//! and for the account of its access key id when the id is twelve digits; the control API reads
//! and resets one account and region or all; the data file keeps every one; a credential that
//! names no region is refused as DynamoDB refuses it, and the server stays up.

mod server_support;

use std::fs;

use serde_json::{Value as Json, json};
use server_support::{Connection, Reply, Server, arg};

const ALICE: &str = "111111111111";
const BOB: &str = "222222222222";

/// The headers of a request signed with `access_key` for `region`.
fn signed_by(access_key: &str, region: &str) -> String {
    format!(
        "Content-Type: application/x-amz-json-1.0\r\nX-Amz-Date: 20240101T000000Z\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential={access_key}/20240101/{region}/dynamodb/aws4_request, \
         SignedHeaders=host;x-amz-date;x-amz-target, Signature=0123456789abcdef\r\n"
    )
}

fn call_as(server: &Server, access_key: &str, region: &str, operation: &str, body: &Json) -> Reply {
    let mut connection = server.connect();
    let target = format!("DynamoDB_20120810.{operation}");
    connection.send_with(Some(&target), body.to_string().as_bytes(), &signed_by(access_key, region));
    connection.read_reply().expect("an answer")
}

fn ok_as(server: &Server, access_key: &str, region: &str, operation: &str, body: Json) -> Json {
    let reply = call_as(server, access_key, region, operation, &body);
    assert_eq!(reply.status, 200, "{operation}: {}", String::from_utf8_lossy(&reply.body));
    reply.json()
}

fn create_as(server: &Server, access_key: &str, region: &str, name: &str) -> Json {
    ok_as(
        server,
        access_key,
        region,
        "CreateTable",
        json!({
            "TableName": name,
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
        }),
    )
}

fn tables_of(server: &Server, access_key: &str, region: &str) -> Json {
    ok_as(server, access_key, region, "ListTables", json!({}))["TableNames"].clone()
}

fn put_as(server: &Server, access_key: &str, region: &str, pk: &str) {
    ok_as(server, access_key, region, "PutItem", json!({"TableName": "Shop", "Item": {"pk": {"S": pk}}}));
}

fn keys_of(server: &Server, access_key: &str, region: &str) -> Vec<String> {
    let scanned = ok_as(server, access_key, region, "Scan", json!({"TableName": "Shop"}));
    let mut keys: Vec<String> =
        scanned["Items"].as_array().unwrap().iter().map(|item| item["pk"]["S"].as_str().unwrap().to_owned()).collect();
    keys.sort();
    keys
}

#[test]
fn the_signatures_access_key_and_region_pick_the_account_and_region() {
    let server = Server::start(&[]);
    let alice = create_as(&server, ALICE, "eu-west-1", "Shop");
    assert_eq!(alice["TableDescription"]["TableArn"], "arn:aws:dynamodb:eu-west-1:111111111111:table/Shop");
    let bob = create_as(&server, BOB, "eu-west-1", "Shop");
    assert_eq!(bob["TableDescription"]["TableArn"], "arn:aws:dynamodb:eu-west-1:222222222222:table/Shop");
    // An access key id that is not an account id is the default account's.
    let default = create_as(&server, "AKIDEXAMPLE", "eu-west-1", "Shop");
    assert_eq!(default["TableDescription"]["TableArn"], "arn:aws:dynamodb:eu-west-1:000000000000:table/Shop");
    assert_eq!(tables_of(&server, ALICE, "us-east-1"), json!([]), "another region of the same account");
    assert_eq!(tables_of(&server, "anything", "us-east-1"), json!([]));

    put_as(&server, ALICE, "eu-west-1", "a");
    put_as(&server, BOB, "eu-west-1", "b");
    assert_eq!(keys_of(&server, ALICE, "eu-west-1"), ["a"]);
    assert_eq!(keys_of(&server, BOB, "eu-west-1"), ["b"]);
    assert_eq!(keys_of(&server, "fake", "eu-west-1"), Vec::<String>::new());
}

#[test]
fn a_presigned_request_is_for_the_account_and_region_of_its_query_credential() {
    let server = Server::start(&[]);
    create_as(&server, ALICE, "ap-south-1", "Shop");
    put_as(&server, ALICE, "ap-south-1", "p");
    let query = format!(
        "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={ALICE}%2F20240101%2Fap-south-1%2Fdynamodb%2Faws4_request\
         &X-Amz-Date=20240101T000000Z&X-Amz-SignedHeaders=host&X-Amz-Signature=00"
    );
    let mut connection = server.connect();
    connection.send_to(
        "POST",
        &format!("/?{query}"),
        Some("DynamoDB_20120810.Scan"),
        br#"{"TableName": "Shop"}"#,
        "Content-Type: application/x-amz-json-1.0\r\n",
    );
    let reply = connection.read_reply().unwrap();
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.body));
    assert_eq!(reply.json()["Count"], 1);
}

fn refusal(connection: &mut Connection, credential: &str) -> (u16, String, String) {
    let headers = format!(
        "Content-Type: application/x-amz-json-1.0\r\nX-Amz-Date: 20240101T000000Z\r\n\
         Authorization: AWS4-HMAC-SHA256 Credential={credential}, SignedHeaders=host, Signature=00\r\n"
    );
    connection.send_with(Some("DynamoDB_20120810.ListTables"), b"{}", &headers);
    let reply = connection.read_reply().expect("an answer");
    let message = reply.json()["message"].as_str().unwrap_or_default().to_owned();
    (reply.status, reply.error_code(), message)
}

#[test]
fn a_credential_without_a_region_is_refused_as_dynamodb_refuses_it_and_the_server_stays_up() {
    let server = Server::start(&[]);
    let mut connection = server.connect();
    assert_eq!(
        refusal(&mut connection, "AKID/20240101//dynamodb/aws4_request"),
        (400, "InvalidSignatureException".into(), "Credential should be scoped to a valid region, not ''. ".into())
    );
    assert_eq!(
        refusal(&mut connection, "AKID/20240101/dynamodb/aws4_request"),
        (
            400,
            "IncompleteSignatureException".into(),
            "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, \
             got 'AKID/20240101/dynamodb/aws4_request'"
                .into()
        )
    );
    let (status, code, _) = refusal(&mut connection, "AKID/20240101/Not_A_Region/dynamodb/aws4_request");
    assert_eq!((status, code.as_str()), (400, "InvalidSignatureException"));
    // The same connection, and the server, go on.
    assert_eq!(tables_of(&server, ALICE, "eu-west-1"), json!([]));
    let log = server.control_ok("GET", "requests", None);
    let outcomes: Vec<&str> =
        log["Requests"].as_array().unwrap().iter().map(|r| r["Outcome"].as_str().unwrap()).collect();
    assert_eq!(
        outcomes,
        ["InvalidSignatureException", "IncompleteSignatureException", "InvalidSignatureException", "OK"]
    );
}

#[test]
fn the_control_api_resets_reads_and_loads_one_account_and_region_or_all() {
    let server = Server::start(&["--clock", "manual"]);
    for (key, region) in [(ALICE, "us-east-1"), (ALICE, "eu-west-1"), (BOB, "us-east-1"), ("AKIDEXAMPLE", "us-east-1")]
    {
        create_as(&server, key, region, "Shop");
        put_as(&server, key, region, key);
    }

    // Alice's tables of us-east-1 in Tables (where a load for Alice puts them back), those of her
    // other regions in Regions.
    let alice = server.control_ok("GET", &format!("snapshot?account={ALICE}"), None);
    assert_eq!(alice["Tables"][0]["Items"], json!([{"pk": {"S": ALICE}}]));
    let places: Vec<(&str, &str)> = alice["Regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|group| (group["Account"].as_str().unwrap(), group["Region"].as_str().unwrap()))
        .collect();
    assert_eq!(places, [(ALICE, "eu-west-1")]);
    let west = server.control_ok("GET", &format!("snapshot?account={ALICE}&region=eu-west-1"), None);
    assert_eq!((west["Tables"][0]["Items"].clone(), west.get("Regions")), (json!([{"pk": {"S": ALICE}}]), None));
    let everything = server.control_ok("GET", "snapshot", None);
    assert_eq!(everything["Tables"][0]["Items"], json!([{"pk": {"S": "AKIDEXAMPLE"}}]));
    assert_eq!(everything["Regions"].as_array().unwrap().len(), 3);

    server.control_ok("POST", &format!("reset?account={ALICE}&region=eu-west-1"), None);
    assert_eq!(tables_of(&server, ALICE, "eu-west-1"), json!([]));
    assert_eq!(tables_of(&server, ALICE, "us-east-1"), json!(["Shop"]));
    server.control_ok("POST", &format!("reset?account={ALICE}"), None);
    assert_eq!(tables_of(&server, ALICE, "us-east-1"), json!([]));
    assert_eq!(keys_of(&server, BOB, "us-east-1"), [BOB], "Bob's tables are left alone");
    assert_eq!(keys_of(&server, "AKIDEXAMPLE", "us-east-1"), ["AKIDEXAMPLE"]);

    // A fixture's Tables load into the account (and region) the load names.
    let fixture = json!({"Tables": [{
        "TableName": "Fixture",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
    }]});
    server.control_ok("PUT", &format!("snapshot?account={ALICE}&region=eu-west-1"), Some(&fixture));
    assert_eq!(tables_of(&server, ALICE, "eu-west-1"), json!(["Fixture"]));
    assert_eq!(tables_of(&server, BOB, "us-east-1"), json!(["Shop"]));
    // A snapshot with tables of a place the load is not for changes nothing.
    let stray = server.control(
        "PUT",
        &format!("snapshot?account={ALICE}"),
        Some(&json!({"Regions": [{"Account": BOB, "Region": "us-east-1", "Tables": []}]})),
    );
    assert_eq!(stray.status, 400);
    assert_eq!(
        stray.json()["Message"],
        "the snapshot cannot be loaded: the snapshot has tables of account 222222222222 in us-east-1, which this load is not for"
    );
    assert_eq!(tables_of(&server, BOB, "us-east-1"), json!(["Shop"]));

    server.control_ok("POST", "reset", None);
    for (key, region) in [(ALICE, "eu-west-1"), (BOB, "us-east-1"), ("AKIDEXAMPLE", "us-east-1")] {
        assert_eq!(tables_of(&server, key, region), json!([]));
    }
}

#[test]
fn the_request_log_and_the_fault_rules_are_read_and_cleared_per_account() {
    let server = Server::start(&[]);
    tables_of(&server, ALICE, "us-east-1");
    tables_of(&server, BOB, "eu-west-1");
    let alice = server.control_ok("GET", &format!("requests?account={ALICE}"), None);
    assert_eq!(alice["Requests"].as_array().unwrap().len(), 1);
    assert_eq!(
        (alice["Requests"][0]["Account"].as_str(), alice["Requests"][0]["Region"].as_str()),
        (Some(ALICE), Some("us-east-1"))
    );
    let west = server.control_ok("GET", "requests?region=eu-west-1&limit=5", None);
    assert_eq!(west["Requests"][0]["Account"], BOB);
    server.control_ok("DELETE", &format!("requests?account={ALICE}"), None);
    let left = server.control_ok("GET", "requests", None);
    assert_eq!(left["Requests"].as_array().unwrap().len(), 1);
    assert_eq!(left["Requests"][0]["Account"], BOB);

    let rule = server.control_ok(
        "POST",
        "faults",
        Some(&json!({"Fault": "Error", "Code": "AccessDeniedException", "Account": ALICE, "Operation": "ListTables"})),
    );
    assert_eq!(rule["Account"], ALICE);
    server.control_ok("POST", "faults", Some(&json!({"Fault": "Throttle", "Account": BOB, "Times": 5})));
    let reply = call_as(&server, ALICE, "us-east-1", "ListTables", &json!({}));
    assert_eq!((reply.status, reply.error_code()), (400, "AccessDeniedException".to_owned()));
    assert_eq!(tables_of(&server, "AKIDEXAMPLE", "us-east-1"), json!([]), "the default account meets neither rule");
    let listed = server.control_ok("GET", &format!("faults?account={ALICE}"), None);
    assert_eq!(listed["Rules"].as_array().unwrap().len(), 1);
    let removed = server.control_ok("DELETE", &format!("faults?account={ALICE}"), None);
    assert_eq!(removed["Removed"], json!([1]));
    assert_eq!(tables_of(&server, ALICE, "us-east-1"), json!([]));
    assert_eq!(server.control_ok("GET", "faults", None)["Rules"].as_array().unwrap().len(), 1, "Bob's rule stays");

    let bad = server.control("POST", "faults", Some(&json!({"Fault": "Throttle", "Account": "alice"})));
    assert_eq!(
        (bad.status, bad.json()["Message"].as_str()),
        (400, Some("Account `alice` is not an account id of twelve digits"))
    );
    let bad = server.control("GET", "requests?account=12", None);
    assert_eq!(
        (bad.status, bad.json()["Message"].as_str()),
        (400, Some("account `12` is not an account id of twelve digits"))
    );
    let bad = server.control("POST", "save?account=111111111111", None);
    assert_eq!(bad.status, 400);
}

#[test]
fn the_data_file_keeps_every_account_and_region_across_a_restart() {
    let folder = std::env::temp_dir().join(format!("dynalease-fake-accounts-{}", std::process::id()));
    let _ = fs::remove_dir_all(&folder);
    fs::create_dir_all(&folder).unwrap();
    let file = folder.join("tables.json");
    let server = Server::start(&["--data", arg(&file)]);
    for (key, region) in [(ALICE, "us-east-1"), (BOB, "eu-central-1"), ("AKIDEXAMPLE", "us-east-1")] {
        create_as(&server, key, region, "Shop");
        put_as(&server, key, region, key);
    }
    server.signal("TERM");
    assert_eq!(server.wait().code(), Some(0));

    let restarted = Server::start(&["--data", arg(&file)]);
    assert_eq!(keys_of(&restarted, ALICE, "us-east-1"), [ALICE]);
    assert_eq!(keys_of(&restarted, BOB, "eu-central-1"), [BOB]);
    assert_eq!(keys_of(&restarted, "AKIDEXAMPLE", "us-east-1"), ["AKIDEXAMPLE"]);
    assert_eq!(tables_of(&restarted, BOB, "us-east-1"), json!([]));
    drop(restarted);
    let _ = fs::remove_dir_all(&folder);
}

fn clock_of(server: &Server, account: Option<&str>) -> String {
    let path = account.map_or_else(|| "clock".to_owned(), |account| format!("clock?account={account}"));
    server.control_ok("GET", &path, None)["Time"].as_str().unwrap().to_owned()
}

fn expiring_cart(server: &Server, access_key: &str, expires_epoch_secs: u64) {
    create_as(server, access_key, "us-east-1", "Shop");
    ok_as(
        server,
        access_key,
        "us-east-1",
        "UpdateTimeToLive",
        json!({"TableName": "Shop", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires"}}),
    );
    ok_as(
        server,
        access_key,
        "us-east-1",
        "PutItem",
        json!({"TableName": "Shop", "Item": {"pk": {"S": "cart"}, "expires": {"N": expires_epoch_secs.to_string()}}}),
    );
}

#[test]
fn an_accounts_clock_steered_alone_moves_that_account_alone() {
    // 2026-01-01T00:00:00Z, standing still.
    let server = Server::start(&["--clock", "manual", "--start-time", "2026-01-01T00:00:00Z"]);
    let tomorrow = 1_767_225_600 + 86_400;
    expiring_cart(&server, ALICE, tomorrow);
    expiring_cart(&server, BOB, tomorrow);

    let alice = server.control_ok("POST", &format!("clock/advance?account={ALICE}"), Some(&json!({"By": "2days"})));
    assert_eq!((alice["Time"].as_str(), alice["Frozen"].as_bool()), (Some("2026-01-03T00:00:00.000Z"), Some(true)));
    assert_eq!(clock_of(&server, Some(ALICE)), "2026-01-03T00:00:00.000Z");
    assert_eq!(clock_of(&server, Some(BOB)), "2026-01-01T00:00:00.000Z", "Bob's account reads the server's clock");
    assert_eq!(clock_of(&server, None), "2026-01-01T00:00:00.000Z");
    // Alice's cart expired on her clock and was swept; Bob's has not expired on his.
    assert_eq!(keys_of(&server, ALICE, "us-east-1"), Vec::<String>::new());
    assert_eq!(keys_of(&server, BOB, "us-east-1"), ["cart"]);
    // Alice's requests happen at her time.
    let created = create_as(&server, ALICE, "eu-west-1", "Later");
    assert_eq!(created["TableDescription"]["CreationDateTime"], json!(1_767_398_400.0));

    // The server's clock moves every account's; an account ahead of a time it is set to stays ahead.
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "1h"})));
    assert_eq!(clock_of(&server, Some(ALICE)), "2026-01-03T01:00:00.000Z");
    assert_eq!(clock_of(&server, Some(BOB)), "2026-01-01T01:00:00.000Z");
    server.control_ok("POST", "clock/set", Some(&json!({"Time": "2026-01-02T12:00:00Z"})));
    assert_eq!(clock_of(&server, Some(ALICE)), "2026-01-03T01:00:00.000Z");
    assert_eq!(clock_of(&server, Some(BOB)), "2026-01-02T12:00:00.000Z");
    assert_eq!(keys_of(&server, BOB, "us-east-1"), Vec::<String>::new(), "Bob's cart expired on the server's clock");

    // An account's clock is set back with a reset of that account alone.
    let reset =
        server.control_ok("POST", &format!("reset?account={ALICE}"), Some(&json!({"Time": "2026-01-01T00:00:00Z"})));
    assert_eq!(reset["Clock"]["Time"], "2026-01-01T00:00:00.000Z");
    assert_eq!(clock_of(&server, Some(ALICE)), "2026-01-01T00:00:00.000Z");
    assert_eq!(tables_of(&server, ALICE, "eu-west-1"), json!([]));
    assert_eq!(tables_of(&server, BOB, "us-east-1"), json!(["Shop"]));
    assert_eq!(clock_of(&server, None), "2026-01-02T12:00:00.000Z");

    let refused = server.control("POST", "reset?region=eu-west-1", Some(&json!({"Time": "2026-01-01T00:00:00Z"})));
    assert_eq!(refused.status, 400);
    let refused =
        server.control("POST", &format!("clock/advance?account={ALICE}&region=eu-west-1"), Some(&json!({"By": "1h"})));
    assert_eq!(
        (refused.status, refused.json()["Message"].as_str()),
        (400, Some("`region=eu-west-1` is not a parameter of clock/advance; it takes account=ID"))
    );
    assert_eq!(clock_of(&server, Some(ALICE)), "2026-01-01T00:00:00.000Z");
}

#[test]
fn an_accounts_clock_is_frozen_and_let_run_alone() {
    let server = Server::start(&["--clock", "manual", "--start-time", "2026-01-01T00:00:00Z"]);
    let running = server.control_ok("POST", &format!("clock/resume?account={ALICE}"), None);
    assert_eq!(running["Frozen"], false);
    assert_eq!(server.control_ok("GET", "clock", None)["Frozen"], true, "the server's clock stands still");
    assert_eq!(server.control_ok("GET", &format!("clock?account={BOB}"), None)["Frozen"], true);
    let frozen = server.control_ok("POST", &format!("clock/freeze?account={ALICE}"), None);
    assert_eq!(frozen["Frozen"], true);
    assert_eq!(clock_of(&server, Some(ALICE)), frozen["Time"].as_str().unwrap());
    server.control_ok("POST", "clock/resume", None);
    assert_eq!(
        server.control_ok("GET", &format!("clock?account={ALICE}"), None)["Frozen"],
        false,
        "the server's resume lets every clock run"
    );
}

#[test]
fn a_global_table_replicates_over_http_after_the_lag_of_the_flag_and_a_stall_rule_holds_it_back() {
    let server =
        Server::start(&["--clock", "manual", "--start-time", "2026-01-01T00:00:00Z", "--replication-lag-ms", "5000"]);
    create_as(&server, ALICE, "us-east-1", "Shop");
    let updated = ok_as(
        &server,
        ALICE,
        "us-east-1",
        "UpdateTable",
        json!({"TableName": "Shop", "ReplicaUpdates": [{"Create": {"RegionName": "eu-west-1"}}]}),
    );
    assert_eq!(updated["TableDescription"]["GlobalTableVersion"], "2019.11.21");
    put_as(&server, ALICE, "us-east-1", "a");
    server.control_ok("POST", "clock/advance", Some(&json!({"Seconds": 4})));
    assert_eq!(keys_of(&server, ALICE, "eu-west-1"), Vec::<String>::new());
    server.control_ok("POST", "clock/advance", Some(&json!({"Seconds": 1})));
    assert_eq!(keys_of(&server, ALICE, "eu-west-1"), ["a"]);

    let rule = server.control_ok(
        "POST",
        "faults",
        Some(&json!({"Fault": "StallReplication", "Account": ALICE, "Region": "eu-west-1", "Table": "Shop"})),
    );
    assert_eq!((rule["Fault"].as_str(), rule["Region"].as_str()), (Some("StallReplication"), Some("eu-west-1")));
    put_as(&server, ALICE, "us-east-1", "b");
    server.control_ok("POST", "clock/advance", Some(&json!({"By": "1h"})));
    assert_eq!(keys_of(&server, ALICE, "eu-west-1"), ["a"], "held back");
    server.control_ok("DELETE", "faults", None);
    assert_eq!(keys_of(&server, ALICE, "eu-west-1"), ["a", "b"]);
}
