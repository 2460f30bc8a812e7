//! The type check: the deserializer's message for each kind of member and where it sits.

use serde_json::{Value as Json, json};

use super::{passes, probe, serialization};
use crate::validate::{as_bool, as_integer};

const CAST: &str = "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class \
                    java.lang.Class (sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and \
                    java.lang.Class are in module java.base of loader 'bootstrap')";

/// The probes and answers of one kind of member.
fn expected_for(kind: &str) -> Vec<(Json, String)> {
    let of = |pairs: &[(Json, &str)]| pairs.iter().map(|(v, m)| (v.clone(), (*m).to_owned())).collect::<Vec<_>>();
    let scalars = |message: &str| {
        [json!("23"), json!(true), json!(23), json!(-2147483648i64), json!(2147483648i64), json!(34.56)]
            .into_iter()
            .map(|v| (v, message.to_owned()))
            .collect::<Vec<_>>()
    };
    let start = "Start of structure or map found where not expected";
    if let Some(inner) = kind.strip_prefix("Map<").and_then(|k| k.strip_suffix('>')) {
        let java =
            if inner.contains('.') { inner.to_owned() } else { format!("com.amazonaws.dynamodb.v20120810.{inner}") };
        let mut probes = scalars("Unexpected field type");
        probes.push((json!([]), format!("Unrecognized collection type java.util.Map<java.lang.String, {java}>")));
        return probes;
    }
    if let Some(name) = kind.strip_prefix("FieldStruct<").and_then(|k| k.strip_suffix('>')) {
        let mut probes = scalars("Unexpected field type");
        probes.push((json!([]), format!("Unrecognized collection type class com.amazonaws.dynamodb.v20120810.{name}")));
        return probes;
    }
    if let Some(name) = kind.strip_prefix("ValueStruct<").and_then(|k| k.strip_suffix('>')) {
        let mut probes = scalars("Unexpected value type in payload");
        probes.push((json!([]), format!("Unrecognized collection type class com.amazonaws.dynamodb.v20120810.{name}")));
        return probes;
    }
    match kind {
        "String" => of(&[
            (json!(true), "TRUE_VALUE cannot be converted to String"),
            (json!(false), "FALSE_VALUE cannot be converted to String"),
            (json!(23), "NUMBER_VALUE cannot be converted to String"),
            (json!(-2147483648i64), "NUMBER_VALUE cannot be converted to String"),
            (json!(2147483648i64), "NUMBER_VALUE cannot be converted to String"),
            (json!(34.56), "DECIMAL_VALUE cannot be converted to String"),
            (json!([]), "Unrecognized collection type class java.lang.String"),
            (json!({}), start),
        ]),
        "Boolean" => of(&[
            (json!("23"), "Unexpected token received from parser"),
            (json!(23), "NUMBER_VALUE cannot be converted to Boolean"),
            (json!(-2147483648i64), "NUMBER_VALUE cannot be converted to Boolean"),
            (json!(2147483648i64), "NUMBER_VALUE cannot be converted to Boolean"),
            (json!(34.56), "DECIMAL_VALUE cannot be converted to Boolean"),
            (json!([]), "Unrecognized collection type class java.lang.Boolean"),
            (json!({}), start),
        ]),
        "Integer" | "Long" => of(&[
            (json!("23"), &format!("STRING_VALUE cannot be converted to {kind}")),
            (json!(true), &format!("TRUE_VALUE cannot be converted to {kind}")),
            (json!(false), &format!("FALSE_VALUE cannot be converted to {kind}")),
            (json!([]), &format!("Unrecognized collection type class java.lang.{kind}")),
            (json!({}), start),
        ]),
        "Blob" => {
            let mut probes = scalars("only base-64-encoded strings are convertible to bytes");
            probes.retain(|(v, _)| !v.is_string());
            probes.extend(of(&[
                (json!([]), "Unrecognized collection type class java.nio.ByteBuffer"),
                (json!({}), start),
                (json!("23456"), "Base64 encoded length is expected a multiple of 4 bytes but found: 5"),
                (json!("=+/="), "Invalid last non-pad Base64 character dectected"),
                (json!("+/+="), "Invalid last non-pad Base64 character dectected"),
            ]));
            probes
        }
        "List" => {
            let mut probes = scalars("Unexpected field type");
            probes.push((json!({}), start.to_owned()));
            probes
        }
        "ParameterizedList" => {
            let mut probes = scalars(CAST);
            probes.push((json!({}), start.to_owned()));
            probes
        }
        "ParameterizedMap" => {
            let mut probes = scalars(CAST);
            probes.push((
                json!([]),
                "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"
                    .to_owned(),
            ));
            probes
        }
        other => panic!("unknown kind {other}"),
    }
}

/// Asserts the answer to every probe of a member, as the dynalite suite's `assertType` does.
fn assert_type(operation: &str, path: &str, kind: &str) {
    if let Some(place) = kind.strip_prefix("AttrStruct<").and_then(|k| k.strip_suffix('>')) {
        assert_type(operation, path, &format!("{place}<AttributeValue>"));
        for (suffix, kind) in [
            ("S", "String"),
            ("N", "String"),
            ("B", "Blob"),
            ("BOOL", "Boolean"),
            ("NULL", "Boolean"),
            ("SS", "List"),
            ("SS.0", "String"),
            ("NS", "List"),
            ("NS.0", "String"),
            ("BS", "List"),
            ("BS.0", "Blob"),
            ("L", "List"),
            ("L.0", "ValueStruct<AttributeValue>"),
            ("L.0.BS", "List"),
            ("L.0.BS.0", "Blob"),
            ("M", "Map<AttributeValue>"),
            ("M.a", "ValueStruct<AttributeValue>"),
            ("M.a.BS", "List"),
            ("M.a.BS.0", "Blob"),
        ] {
            assert_type(operation, &format!("{path}.{suffix}"), kind);
        }
        return;
    }
    for (value, message) in expected_for(kind) {
        let body = probe(path, value.clone());
        assert_eq!(serialization(operation, body), message, "{operation} {path} = {value}");
    }
}

#[test]
fn scalar_members_get_the_deserializer_messages() {
    assert_type("PutItem", "TableName", "String");
    assert_type("GetItem", "ConsistentRead", "Boolean");
    assert_type("ListTables", "Limit", "Integer");
    assert_type("ListTables", "ExclusiveStartTableName", "String");
    assert_type("CreateTable", "ProvisionedThroughput.WriteCapacityUnits", "Long");
    assert_type("Scan", "Segment", "Integer");
    assert_type("UpdateItem", "AttributeUpdates.Attr.Action", "String");
}

#[test]
fn containers_get_messages_that_depend_on_where_they_sit() {
    assert_type("CreateTable", "AttributeDefinitions", "List");
    assert_type("CreateTable", "KeySchema.0", "ValueStruct<KeySchemaElement>");
    assert_type("CreateTable", "ProvisionedThroughput", "FieldStruct<ProvisionedThroughput>");
    assert_type("CreateTable", "LocalSecondaryIndexes.0.Projection", "FieldStruct<Projection>");
    assert_type("CreateTable", "GlobalSecondaryIndexes.0", "ValueStruct<GlobalSecondaryIndex>");
    assert_type("CreateTable", "GlobalSecondaryIndexes.0.Projection.NonKeyAttributes.0", "String");
    assert_type("UpdateTable", "GlobalSecondaryIndexUpdates.0.Update", "FieldStruct<UpdateGlobalSecondaryIndexAction>");
    assert_type("UpdateTable", "GlobalSecondaryIndexUpdates.0.Delete", "FieldStruct<DeleteGlobalSecondaryIndexAction>");
    assert_type("UpdateTimeToLive", "TimeToLiveSpecification", "FieldStruct<TimeToLiveSpecification>");
    assert_type("UpdateTimeToLive", "TimeToLiveSpecification.Enabled", "Boolean");
    assert_type("TagResource", "Tags.0", "ValueStruct<Tag>");
    assert_type("PutItem", "Item", "Map<AttributeValue>");
    assert_type("PutItem", "Expected", "Map<ExpectedAttributeValue>");
    assert_type("PutItem", "Expected.Attr", "ValueStruct<ExpectedAttributeValue>");
    assert_type("PutItem", "Expected.Attr.Exists", "Boolean");
    assert_type("PutItem", "ExpressionAttributeNames", "Map<java.lang.String>");
    assert_type("PutItem", "ExpressionAttributeNames.Attr", "String");
    assert_type("UpdateItem", "AttributeUpdates", "Map<AttributeValueUpdate>");
    assert_type("Query", "KeyConditions", "Map<Condition>");
    assert_type("Scan", "ScanFilter.Attr", "ValueStruct<Condition>");
    assert_type("BatchGetItem", "RequestItems", "Map<KeysAndAttributes>");
    assert_type("BatchGetItem", "RequestItems.Attr", "ValueStruct<KeysAndAttributes>");
    assert_type("BatchGetItem", "RequestItems.Attr.Keys", "List");
    assert_type("BatchGetItem", "RequestItems.Attr.Keys.0", "ParameterizedMap");
    assert_type("BatchWriteItem", "RequestItems", "Map<java.util.List<com.amazonaws.dynamodb.v20120810.WriteRequest>>");
    assert_type("BatchWriteItem", "RequestItems.Attr", "ParameterizedList");
    assert_type("BatchWriteItem", "RequestItems.Attr.0", "ValueStruct<WriteRequest>");
    assert_type("BatchWriteItem", "RequestItems.Attr.0.DeleteRequest", "FieldStruct<DeleteRequest>");
    assert_type("TransactWriteItems", "TransactItems", "List");
    assert_type("TransactWriteItems", "TransactItems.0.Put", "FieldStruct<Put>");
    assert_type("TransactWriteItems", "TransactItems.0.Update.UpdateExpression", "String");
    assert_type("TransactGetItems", "TransactItems.0.Get", "FieldStruct<Get>");
}

#[test]
fn attribute_values_are_type_checked_all_the_way_down() {
    assert_type("PutItem", "Item.Attr", "AttrStruct<ValueStruct>");
    assert_type("PutItem", "Expected.Attr.Value", "AttrStruct<FieldStruct>");
    assert_type("GetItem", "Key.Attr", "AttrStruct<ValueStruct>");
    assert_type("Query", "ExclusiveStartKey.Attr", "AttrStruct<ValueStruct>");
    assert_type("BatchWriteItem", "RequestItems.Attr.0.PutRequest.Item.Attr", "AttrStruct<ValueStruct>");
    assert_type("TransactWriteItems", "TransactItems.0.Delete.Key.Attr", "AttrStruct<ValueStruct>");
}

#[test]
fn nulls_unknown_members_and_boolean_words_pass_the_type_check() {
    passes("ListTables", json!({"ExclusiveStartTableName": null, "Limit": null, "hi": "yo", "stuff": [1]}));
    passes("GetItem", json!({"TableName": "abc", "Key": {"a": {"S": "x", "Z": 5}}, "ConsistentRead": "TRUE"}));
    passes("GetItem", json!({"TableName": "abc", "Key": {}, "ConsistentRead": "no"}));
    passes("PutItem", json!({"TableName": "abc", "Item": {"a": {"NULL": true}, "b": {"B": ""}, "c": null}}));
    assert_eq!(as_bool(&super::doc(&json!("Yes"))), Some(true));
    assert_eq!(as_bool(&super::doc(&json!("0"))), Some(false));
    assert_eq!(as_bool(&super::doc(&json!("23"))), None);
    assert_eq!(as_integer(&super::doc(&json!(2.9))), Some(2));
    assert_eq!(as_integer(&super::doc(&json!(-1.5))), Some(-2));
}

#[test]
fn a_boolean_of_an_attribute_value_is_a_json_boolean_and_no_text() {
    for value in [json!({"BOOL": "true"}), json!({"NULL": "TRUE"}), json!({"L": [{"BOOL": "no"}]})] {
        let body = json!({"TableName": "abc", "Item": {"a": value}});
        assert_eq!(serialization("PutItem", body), "Unexpected token received from parser");
    }
    passes("PutItem", json!({"TableName": "abc", "Item": {"a": {"BOOL": false}, "b": {"NULL": true}}}));
}

#[test]
fn the_type_check_comes_before_every_constraint() {
    let message = serialization("PutItem", json!({"TableName": "a;", "Item": {"a": {"S": 5}}}));
    assert_eq!(message, "NUMBER_VALUE cannot be converted to String");
    let message = serialization("CreateTable", json!({"KeySchema": "x"}));
    assert_eq!(message, "Unexpected field type");
}
