//! One snapshot of the error bodies, and the sanity of the schemas themselves.

use serde_json::{Value as Json, json};

use super::refused;
use super::tables::table;

/// A message of each area, as the wire body DynamoDB sends, so that a change of
/// wording shows up in review.
#[test]
fn error_bodies_snapshot() {
    let catalogue = [
        ("PutItem", json!({"TableName": 5})),
        ("PutItem", json!({"TableName": "abc", "Item": {"a": {"B": "23456"}}})),
        ("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": ["x"]}}})),
        ("CreateTable", json!({"TableName": "abc", "KeySchema": []})),
        ("PutItem", json!({})),
        ("CreateTable", json!({})),
        ("CreateTable", table(json!({"ProvisionedThroughput": null}))),
        ("UpdateTable", json!({"TableName": "abc"})),
        ("PutItem", json!({"TableName": "abc", "Item": {}, "Expected": {}, "ConditionExpression": "x"})),
        ("TransactWriteItems", json!({"TransactItems": [{}]})),
        ("Query", json!({"TableName": "abc", "Select": "SPECIFIC_ATTRIBUTES", "KeyConditionExpression": "a = :a"})),
    ];
    let bodies: Vec<Json> = catalogue
        .iter()
        .map(|(operation, request)| {
            let error = refused(operation, request.clone());
            json!({"operation": operation, "request": request, "status": error.status, "response": error.to_body()})
        })
        .collect();
    insta::with_settings!({prepend_module_to_snapshot => false}, {
        insta::assert_json_snapshot!("validation_error_bodies", bodies);
    });
}

#[test]
fn every_schema_names_its_members_as_messages_do() {
    use crate::validate::schema::{batch, items, reads, tables, transact};
    use crate::validate::shape::{MAX_MEMBERS, Shape, StructShape};

    fn walk(shape: &StructShape, seen: &mut Vec<&'static str>) {
        assert!(shape.members.len() <= MAX_MEMBERS, "{}", shape.name);
        if seen.contains(&shape.name) {
            return;
        }
        seen.push(shape.name);
        for member in shape.members {
            let mut chars = member.name.chars();
            let lowered: String = chars.next().map(|c| c.to_ascii_lowercase()).into_iter().chain(chars).collect();
            assert_eq!(member.path, lowered, "{}.{}", shape.name, member.name);
            let mut inner = member.shape;
            loop {
                match inner {
                    Shape::List(list) => inner = list.member,
                    Shape::Map(map) => inner = map.value,
                    Shape::Structure(s) => {
                        walk(s, seen);
                        break;
                    }
                    _ => break,
                }
            }
        }
    }
    let mut seen = Vec::new();
    for shape in [
        &tables::CREATE_TABLE,
        &tables::UPDATE_TABLE,
        &tables::TABLE_ONLY,
        &tables::LIST_TABLES,
        &tables::UPDATE_TIME_TO_LIVE,
        &tables::TAG_RESOURCE,
        &tables::UNTAG_RESOURCE,
        &tables::LIST_TAGS_OF_RESOURCE,
        &items::PUT_ITEM,
        &items::GET_ITEM,
        &items::UPDATE_ITEM,
        &items::DELETE_ITEM,
        &reads::QUERY,
        &reads::SCAN,
        &batch::BATCH_GET_ITEM,
        &batch::BATCH_WRITE_ITEM,
        &transact::TRANSACT_WRITE_ITEMS,
        &transact::TRANSACT_GET_ITEMS,
    ] {
        walk(shape, &mut seen);
    }
}
