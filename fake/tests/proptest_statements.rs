//! Properties of the PartiQL statements: random text and statement-like token soup never panic
//! the fake; every statement is answered, or refused with a client error.

use dynalease_fake::FakeDynamoDb;
use proptest::prelude::*;
use serde_json::{Value as Json, json};

fn fake() -> FakeDynamoDb {
    let fake = FakeDynamoDb::new();
    fake.create_table("Props", "pk", Some("sk"));
    let item = json!({"TableName": "Props", "Item": {"pk": {"S": "k"}, "sk": {"S": "1"}, "n": {"N": "1"}}});
    assert_eq!(fake.handle_json("PutItem", item.to_string().as_bytes()).0, 200);
    fake
}

/// Sends a statement (with `params` string parameters) by each of the three operations; each
/// answer must be a success or a client error with a `__type`.
fn answered(fake: &FakeDynamoDb, statement: &str, params: usize) {
    let parameters: Vec<Json> = (0..params).map(|i| json!({"S": i.to_string()})).collect();
    let mut single = json!({"Statement": statement});
    if params > 0 {
        single["Parameters"] = json!(parameters);
    }
    for (operation, body) in [
        ("ExecuteStatement", single.clone()),
        ("BatchExecuteStatement", json!({"Statements": [single.clone()]})),
        ("ExecuteTransaction", json!({"TransactStatements": [single]})),
    ] {
        let (status, answer) = fake.handle_json(operation, body.to_string().as_bytes());
        let answer: Json = serde_json::from_slice(&answer).expect("a JSON answer");
        assert!(
            status == 200 || (status == 400 && answer["__type"].is_string()),
            "{operation} {statement:?}: {status} {answer}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_statement_text_never_panics(text in "[ -~]{0,80}", params in 0usize..3) {
        answered(&fake(), &text, params);
    }

    #[test]
    fn statement_like_token_soup_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
        "SELECT", "INSERT", "INTO", "VALUE", "UPDATE", "DELETE", "FROM", "WHERE", "SET", "REMOVE", "RETURNING",
        "ALL", "MODIFIED", "OLD", "NEW", "*", "Props", "\"Props\"", "\"Props\".\"idx\"", "pk", "sk", "n", "a.b",
        "l[0]", "'k'", "'1'", "1", "-2.5e3", "?", "=", "<>", "<", ">=", "AND", "OR", "NOT", "BETWEEN", "IN", "IS",
        "MISSING", "NULL", "TRUE", "(", ")", "[", "]", "{", "}", "<<", ">>", ",", ":", "+", "-", "begins_with",
        "contains", "size", "attribute_type", "list_append", "set_add", "set_delete",
    ]), 0..30), params in 0usize..3) {
        answered(&fake(), &parts.join(" "), params);
    }
}

#[test]
fn a_well_formed_statement_of_each_kind_is_answered() {
    let fake = fake();
    for statement in [
        "SELECT * FROM Props WHERE pk = 'k' AND sk = '1'",
        "UPDATE Props SET n = n + 1 WHERE pk = 'k' AND sk = '1'",
        "INSERT INTO Props VALUE {'pk': 'j', 'sk': '2'}",
        "DELETE FROM Props WHERE pk = 'j' AND sk = '2'",
    ] {
        let (status, answer) =
            fake.handle_json("ExecuteStatement", json!({"Statement": statement}).to_string().as_bytes());
        assert_eq!(status, 200, "{statement}: {}", String::from_utf8_lossy(&answer));
    }
}
