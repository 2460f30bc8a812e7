//! The list of the control API in `fake/control-api.json`, which the Python, Node and Java
//! packages read in their own tests, is the server's: every endpoint it names answers with its
//! example, the server names no other endpoint, and the fault kinds are the ones a rule takes,
//! each with the members it needs.

mod server_support;

use serde_json::{Value as Json, json};
use server_support::{Server, arg};

/// The shared list, read from the repository.
fn list() -> Json {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/control-api.json");
    serde_json::from_slice(&std::fs::read(path).expect("fake/control-api.json reads")).expect("it is JSON")
}

/// `(method, path)` of each endpoint of the list, in its order.
fn endpoints(list: &Json) -> Vec<(String, String)> {
    list["Endpoints"]
        .as_array()
        .expect("Endpoints is a list")
        .iter()
        .map(|endpoint| {
            (endpoint["Method"].as_str().unwrap().to_owned(), endpoint["Path"].as_str().unwrap().to_owned())
        })
        .collect()
}

fn data_file(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("dynalease-fake-api-list-{}-{name}.json", std::process::id()))
}

#[test]
fn every_endpoint_of_the_shared_list_answers_its_example() {
    let list = list();
    let file = data_file("examples");
    let _ = std::fs::remove_file(&file);
    let server = Server::start(&["--clock", "manual", "--start-time", "2026-01-01T00:00:00Z", "--data", arg(&file)]);
    for endpoint in list["Endpoints"].as_array().unwrap() {
        let method = endpoint["Method"].as_str().unwrap();
        let mut path = endpoint["Path"].as_str().unwrap().to_owned();
        let mut body = endpoint.get("Example").cloned();
        if path == "faults/ID" {
            let rule = json!({"Fault": "Throttle", "Operation": "Scan"});
            path = format!("faults/{}", server.control_ok("POST", "faults", Some(&rule))["Id"]);
            body = None;
        }
        let reply = server.control(method, &path, body.as_ref());
        assert_eq!(reply.status, 200, "{method} {path}: {}", String::from_utf8_lossy(&reply.body));
    }
    drop(server);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn the_server_names_exactly_the_endpoints_of_the_shared_list() {
    let listed: Vec<String> = endpoints(&list()).into_iter().map(|(method, path)| format!("{method} {path}")).collect();
    let server = Server::start(&[]);
    let unknown = server.control("GET", "no-such-endpoint", None);
    assert_eq!(unknown.status, 404);
    let message = unknown.json()["Message"].as_str().unwrap().to_owned();
    let named = message.split_once("there are: ").expect("the answer lists the endpoints").1;
    let named: Vec<String> = named.split(", ").map(str::to_owned).collect();
    assert_eq!(named, listed);
}

#[test]
fn the_fault_kinds_of_the_shared_list_are_the_ones_a_rule_takes_each_with_what_it_needs() {
    let list = list();
    let kinds: Vec<&str> =
        list["FaultKinds"].as_array().unwrap().iter().map(|kind| kind["Fault"].as_str().unwrap()).collect();
    let server = Server::start(&[]);

    let unknown = server.control("POST", "faults", Some(&json!({"Fault": "Meteor"})));
    assert_eq!(unknown.status, 400);
    let message = unknown.json()["Message"].as_str().unwrap().to_owned();
    assert_eq!(message, format!("unknown Fault `Meteor`; the kinds are {}", kinds.join(", ")));

    let value = |member: &str| match member {
        "Code" => json!("AccessDeniedException"),
        "Message" => json!("no"),
        "Status" => json!(403),
        _ => json!(1),
    };
    for kind in list["FaultKinds"].as_array().unwrap() {
        let name = kind["Fault"].as_str().unwrap();
        let needs: Vec<&str> = kind["Needs"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let may: Vec<&str> = kind
            .get("May")
            .and_then(Json::as_array)
            .map_or(vec![], |m| m.iter().map(|m| m.as_str().unwrap()).collect());
        let mut rule = json!({"Fault": name, "Operation": "GetItem", "Times": 1});
        for member in needs.iter().chain(&may) {
            rule[*member] = value(member);
        }
        let added = server.control("POST", "faults", Some(&rule));
        assert_eq!(added.status, 200, "{rule}: {}", String::from_utf8_lossy(&added.body));
        for member in &needs {
            let mut lacking = rule.clone();
            lacking.as_object_mut().unwrap().remove(*member);
            let refused = server.control("POST", "faults", Some(&lacking));
            assert_eq!(refused.status, 400, "{lacking}");
            let message = refused.json()["Message"].as_str().unwrap().to_owned();
            assert!(message.starts_with(&format!("a {name} fault needs {member}")), "{message}");
        }
    }
    let rules = server.control_ok("GET", "faults", None);
    assert_eq!(rules["Rules"].as_array().unwrap().len(), kinds.len());
}

#[test]
fn each_endpoint_takes_the_query_parameters_the_shared_list_names_and_no_other() {
    let list = list();
    let value = |name: &str| match name {
        "account" => "111122223333",
        "region" => "eu-west-1",
        "limit" => "5",
        other => panic!("a query parameter the test does not know: {other}"),
    };
    let file = data_file("query");
    let _ = std::fs::remove_file(&file);
    let server = Server::start(&["--clock", "manual", "--start-time", "2026-01-01T00:00:00Z", "--data", arg(&file)]);
    for endpoint in list["Endpoints"].as_array().unwrap() {
        let method = endpoint["Method"].as_str().unwrap();
        let mut path = endpoint["Path"].as_str().unwrap().to_owned();
        let mut body = endpoint.get("Example").cloned();
        if path == "faults/ID" {
            let rule = json!({"Fault": "Throttle", "Operation": "Scan"});
            path = format!("faults/{}", server.control_ok("POST", "faults", Some(&rule))["Id"]);
            body = None;
        }
        let takes: Vec<&str> =
            endpoint["Query"].as_array().unwrap().iter().map(|name| name.as_str().unwrap()).collect();
        let query: Vec<String> = takes.iter().map(|name| format!("{name}={}", value(name))).collect();
        let reply = server.control(method, &format!("{path}?{}", query.join("&")), body.as_ref());
        assert_eq!(reply.status, 200, "{method} {path}?{}: {}", query.join("&"), String::from_utf8_lossy(&reply.body));

        let stray = if takes.contains(&"account") { "shard=1" } else { "account=111122223333" };
        let refused = server.control(method, &format!("{path}?{stray}"), body.as_ref());
        assert_eq!(refused.status, 400, "{method} {path}?{stray}");
        let message = refused.json()["Message"].as_str().unwrap().to_owned();
        assert!(message.starts_with(&format!("`{stray}` is not a parameter of")), "{method} {path}: {message}");
    }
    drop(server);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_rule_takes_every_member_the_shared_list_names() {
    let list = list();
    let server = Server::start(&[]);
    let mut rule = json!({"Fault": "Throttle"});
    for member in list["RuleMembers"].as_array().unwrap() {
        let member = member.as_str().unwrap();
        rule[member] = match member {
            "Operation" => json!("PutItem"),
            "Table" => json!("Carts"),
            "Account" => json!("111122223333"),
            "Region" => json!("eu-west-1"),
            "Probability" => json!(0.5),
            _ => json!(1),
        };
    }
    let added = server.control("POST", "faults", Some(&rule));
    assert_eq!(added.status, 200, "{rule}: {}", String::from_utf8_lossy(&added.body));
    rule["Shard"] = json!(1);
    assert_eq!(server.control("POST", "faults", Some(&rule)).status, 400, "a member the list does not name");
}
