//! Bodies that are not JSON objects, and deep nesting.

use serde_json::json;

use super::{SERIALIZATION, passes};
use crate::json::test_support::arena;
use crate::validate::parse_body;

#[test]
fn bodies_that_are_not_json_objects_get_a_bare_serialization_exception() {
    for body in [&b""[..], b" ", b"hi", b"{", b"null", b"[]", b"23", b"\"x\"", b"true", b"{\"a\":1}x"] {
        let error = parse_body(body, arena()).expect_err(&String::from_utf8_lossy(body));
        assert_eq!(error.type_name, SERIALIZATION);
        assert_eq!(error.message, "");
    }
    assert_eq!(parse_body(b" {\"TableName\": \"abc\"} ", arena()).ok(), Some(super::doc(&json!({"TableName": "abc"}))));
    assert_eq!(parse_body(b"{}", arena()).ok(), Some(super::doc(&json!({}))));
}

#[test]
fn deep_nesting_is_refused_by_the_parser_without_overflow() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse_body(deep.as_bytes(), arena()).is_err());
    let mut value = json!({"S": "x"});
    for _ in 0..100 {
        value = json!({"L": [value]});
    }
    passes("PutItem", json!({"TableName": "abc", "Item": {"a": value}}));
}
