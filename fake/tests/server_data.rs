//! `dynalease-fake serve --data FILE`: the tables survive a restart, a write is atomic whatever
//! moment the server is killed at, and a file that does not read stops the server untouched.

mod server_support;

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use server_support::{Server, arg, create_table, run_to_end};

/// A folder of its own for one test, removed when the test ends.
struct Folder(PathBuf);

impl Folder {
    fn new(test: &str) -> Folder {
        let path = std::env::temp_dir().join(format!("dynalease-fake-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        Folder(path)
    }

    fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn ok(server: &Server, operation: &str, body: Json) -> Json {
    let reply = server.call(operation, &body);
    assert_eq!(reply.status, 200, "{operation}: {}", String::from_utf8_lossy(&reply.body));
    reply.json()
}

fn with_data(file: &Path) -> Server {
    Server::start(&["--data", arg(file)])
}

/// The items of table `Shop` in a data file.
fn items_in(file: &Path) -> Vec<Json> {
    let document: Json = serde_json::from_slice(&fs::read(file).unwrap()).expect("the data file is whole JSON");
    document["Tables"][0]["Items"].as_array().unwrap().clone()
}

#[test]
fn tables_survive_a_restart_through_the_data_file() {
    let folder = Folder::new("restart");
    let file = folder.file("tables.json");
    let server = with_data(&file);
    create_table(&server, "Shop");
    ok(&server, "PutItem", json!({"TableName": "Shop", "Item": {"pk": {"S": "kept"}, "n": {"N": "7"}}}));
    let described = ok(&server, "DescribeTable", json!({"TableName": "Shop"}));
    server.signal("TERM");
    assert_eq!(server.wait().code(), Some(0));
    assert_eq!(items_in(&file), vec![json!({"pk": {"S": "kept"}, "n": {"N": "7"}})]);

    let restarted = with_data(&file);
    let item = ok(&restarted, "GetItem", json!({"TableName": "Shop", "Key": {"pk": {"S": "kept"}}}));
    assert_eq!(item["Item"]["n"]["N"], "7");
    let again = ok(&restarted, "DescribeTable", json!({"TableName": "Shop"}));
    assert_eq!(again["Table"]["TableId"], described["Table"]["TableId"]);
    assert_eq!(again["Table"]["CreationDateTime"], described["Table"]["CreationDateTime"]);
}

#[test]
fn a_save_request_writes_the_file_at_once_and_needs_a_data_file() {
    let folder = Folder::new("save");
    let file = folder.file("tables.json");
    let server = with_data(&file);
    assert!(!file.exists(), "no file before there is something to write");
    create_table(&server, "Shop");
    ok(&server, "PutItem", json!({"TableName": "Shop", "Item": {"pk": {"S": "a"}}}));
    let saved = server.control_ok("POST", "save", None);
    assert_eq!(saved, json!({"File": arg(&file), "Tables": ["Shop"]}));
    assert_eq!(items_in(&file), vec![json!({"pk": {"S": "a"}})]);

    let without = Server::start(&[]);
    let refused = without.control("POST", "save", None);
    assert_eq!(refused.status, 409);
    assert_eq!(refused.json()["Message"], "this server has no data file: start it with --data FILE");
}

/// A snapshot of table `Shop` with `count` items of about a kilobyte, each marked with `mark`.
fn big_snapshot(count: usize, mark: &str) -> Json {
    let filler = "x".repeat(1000);
    let items: Vec<Json> = (0..count)
        .map(|i| json!({"pk": {"S": format!("item-{i:05}")}, "mark": {"S": mark}, "filler": {"S": filler}}))
        .collect();
    json!({"Tables": [{
        "TableName": "Shop",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "Items": items,
    }]})
}

/// The mark of every item in a data file, which must read as a whole snapshot.
fn marks_in(file: &Path) -> Vec<String> {
    let mut marks: Vec<String> =
        items_in(file).iter().map(|item| item["mark"]["S"].as_str().unwrap().to_owned()).collect();
    marks.dedup();
    marks
}

#[test]
fn a_server_killed_while_it_writes_leaves_the_previous_file_or_the_new_one_never_a_torn_one() {
    let folder = Folder::new("killed");
    let file = folder.file("tables.json");
    let temporary = folder.file("tables.json.tmp");
    let mut caught_mid_write = 0;
    let mut previous = "first".to_owned();
    let server = with_data(&file);
    server.control_ok("PUT", "snapshot", Some(&big_snapshot(8000, &previous)));
    server.control_ok("POST", "save", None);
    let mut server = Some(server);
    for attempt in 0..8 {
        let mut running = server.take().unwrap_or_else(|| with_data(&file));
        let mark = format!("attempt-{attempt}");
        running.control_ok("PUT", "snapshot", Some(&big_snapshot(8000, &mark)));
        // Ask for a save and kill the server the moment its temporary file appears, while the
        // new snapshot is being written; if the answer comes first, the write was too quick.
        let mut connection = running.connect();
        connection.send_to("POST", "/_dynalease/save", None, b"", "");
        connection.stream.set_nonblocking(true).unwrap();
        let killed = loop {
            if temporary.exists() {
                running.child.kill().unwrap();
                running.child.wait().unwrap();
                break true;
            }
            match connection.stream.peek(&mut [0u8; 1]) {
                Ok(_) => break false,
                Err(error) if error.kind() == ErrorKind::WouldBlock => {}
                Err(error) => panic!("{error}"),
            }
        };
        let marks = marks_in(&file);
        assert!(marks == [previous.clone()] || marks == [mark.clone()], "attempt {attempt}: {marks:?}");
        if killed {
            drop(running);
            caught_mid_write += 1;
            // The server starts again from what the file holds.
            let restarted = with_data(&file);
            let described = ok(&restarted, "DescribeTable", json!({"TableName": "Shop"}));
            assert_eq!(described["Table"]["ItemCount"], 8000);
            let last = ok(&restarted, "GetItem", json!({"TableName": "Shop", "Key": {"pk": {"S": "item-07999"}}}));
            assert_eq!(last["Item"]["mark"]["S"].as_str(), Some(marks_in(&file)[0].as_str()));
            server = Some(restarted);
        } else {
            server = Some(running);
        }
        previous = marks_in(&file).remove(0);
        if caught_mid_write == 2 {
            break;
        }
    }
    assert!(caught_mid_write > 0, "no attempt caught the server in the middle of a write");
}

#[test]
fn a_data_file_that_does_not_parse_stops_the_server_naming_the_file_the_line_and_the_fault_and_is_kept() {
    let folder = Folder::new("broken");
    let cases = [
        ("{\n  \"Tables\": [\n    {\"TableName\": }\n  ]\n}\n", "line 3, column 19: expected value"),
        (
            "{\"Tables\": [{\"TableName\": \"Shop\",\n \"AttributeDefinitions\": [{\"AttributeName\": \"pk\", \"AttributeType\": \"S\"}],\n \
             \"KeySchema\": [{\"AttributeName\": \"pk\", \"KeyType\": \"HASH\"}], \"BillingMode\": \"PAY_PER_REQUEST\",\n \
             \"Items\": [{\"pk\": {\"S\": \"a\"}}, {\"pk\": {\"N\": \"1\"}}]}]}\n",
            "line 4, column 52: table 1 of Tables: Shop: item 2: ValidationException: One or more parameter values \
             were invalid: Type mismatch for key pk expected: S actual: N",
        ),
        (
            "{\"Version\": 9, \"Tables\": []}",
            "line 1, column 13: this is a snapshot of version 9; this dynalease-fake reads version 1",
        ),
        ("", "line 1, column 0: EOF while parsing a value"),
    ];
    for (at, (text, expected)) in cases.into_iter().enumerate() {
        let file = folder.file(&format!("broken-{at}.json"));
        fs::write(&file, text).unwrap();
        let output = run_to_end(&["--data", arg(&file)]);
        assert_eq!(output.status.code(), Some(1), "{text}");
        assert!(output.stdout.is_empty(), "the server never listened");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            stderr.trim_end(),
            format!("dynalease-fake: cannot load the data file {}: {expected}", file.display())
        );
        assert_eq!(fs::read_to_string(&file).unwrap(), text, "the file is left as it was");
    }
}

#[test]
fn a_data_file_in_a_folder_that_does_not_exist_stops_the_server_at_start() {
    let folder = Folder::new("nofolder");
    let file = folder.file("missing/tables.json");
    let output = run_to_end(&["--data", arg(&file)]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not a folder"), "{stderr}");
}

#[test]
fn one_fixture_file_starts_a_fake_in_process_and_a_server_alike() {
    let folder = Folder::new("fixture");
    let file = folder.file("fixture.json");
    let fixture = r#"{"Tables": [{
        "TableName": "Shop",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "Items": [{"pk": {"S": "order#1"}, "total": {"N": "12.5"}}]
    }]}"#;
    fs::write(&file, fixture).unwrap();
    let snapshot = dynalease_fake::Snapshot::read_file(&file).unwrap();
    let fake = dynalease_fake::FakeDynamoDb::builder().snapshot(snapshot).build();
    let key = [("pk".to_owned(), aws_sdk_dynamodb::types::AttributeValue::S("order#1".into()))].into();
    let in_process = fake.read_item("Shop", &key).expect("the fixture's item");
    assert_eq!(in_process["total"], aws_sdk_dynamodb::types::AttributeValue::N("12.5".into()));
    let server = with_data(&file);
    let over_http = ok(&server, "GetItem", json!({"TableName": "Shop", "Key": {"pk": {"S": "order#1"}}}));
    assert_eq!(over_http["Item"]["total"]["N"], "12.5");
}
