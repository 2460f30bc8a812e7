//! The catalogue of bad requests and DynamoDB's exact answers, one test per area. The messages
//! are the ones DynamoDB sends (as the dynalite suite records them, checked against the service).

use serde_json::{Value as Json, json};

use super::{as_bool, as_integer, check, check_after_values, check_expression_maps, parse_body};
use crate::error::DynamoError;

const SERIALIZATION: &str = "com.amazon.coral.service#SerializationException";
const VALIDATION: &str = "com.amazon.coral.validate#ValidationException";

fn refused(operation: &str, body: Json) -> DynamoError {
    match check(operation, &body) {
        Ok(()) => panic!("{operation} {body} passed"),
        Err(error) => error,
    }
}

/// The message of the `SerializationException` the request gets.
fn serialization(operation: &str, body: Json) -> String {
    let error = refused(operation, body);
    assert_eq!(error.type_name, SERIALIZATION, "{}", error.message);
    error.message
}

/// The message of the `ValidationException` the request gets.
fn validation(operation: &str, body: Json) -> String {
    let error = refused(operation, body);
    assert_eq!(error.type_name, VALIDATION, "{}", error.message);
    error.message
}

fn after_values(operation: &str, body: Json) -> String {
    check(operation, &body).unwrap_or_else(|e| panic!("{operation} {body}: {e}"));
    let error = check_after_values(operation, &body).expect_err("passed");
    assert_eq!(error.type_name, VALIDATION);
    error.message
}

fn passes(operation: &str, body: Json) {
    if let Err(error) = check(operation, &body).and_then(|()| check_after_values(operation, &body)) {
        panic!("{operation} {body}: {error}");
    }
}

/// Sets the value at a dotted path (`Item.a.L.0`) of a request, building the objects and lists
/// on the way, as the dynalite suite builds its type probes.
fn probe(path: &str, value: Json) -> Json {
    let pieces: Vec<&str> = path.split('.').collect();
    let mut root = json!({});
    let mut slot = &mut root;
    for (i, piece) in pieces.iter().enumerate() {
        let child = if i + 1 == pieces.len() {
            value.clone()
        } else if pieces[i + 1] == "0" {
            json!([])
        } else {
            json!({})
        };
        slot = match slot {
            Json::Array(items) => {
                items.push(child);
                items.last_mut().expect("just pushed")
            }
            Json::Object(map) => map.entry(piece.to_string()).or_insert(child),
            _ => unreachable!(),
        };
    }
    root
}

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
fn bodies_that_are_not_json_objects_get_a_bare_serialization_exception() {
    for body in [&b""[..], b" ", b"hi", b"{", b"null", b"[]", b"23", b"\"x\"", b"true", b"{\"a\":1}x"] {
        let error = parse_body(body).expect_err(&String::from_utf8_lossy(body));
        assert_eq!(error.type_name, SERIALIZATION);
        assert_eq!(error.message, "");
    }
    assert_eq!(parse_body(b" {\"TableName\": \"abc\"} ").ok(), Some(json!({"TableName": "abc"})));
    assert_eq!(parse_body(b"{}").ok(), Some(json!({})));
}

#[test]
fn deep_nesting_is_refused_by_the_parser_without_overflow() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse_body(deep.as_bytes()).is_err());
    let mut value = json!({"S": "x"});
    for _ in 0..100 {
        value = json!({"L": [value]});
    }
    passes("PutItem", json!({"TableName": "abc", "Item": {"a": value}}));
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
    passes("PutItem", json!({"TableName": "abc", "Item": {"a": {"NULL": "no"}, "b": {"B": ""}, "c": null}}));
    assert_eq!(as_bool(&json!("Yes")), Some(true));
    assert_eq!(as_bool(&json!("0")), Some(false));
    assert_eq!(as_bool(&json!("23")), None);
    assert_eq!(as_integer(&json!(2.9)), Some(2));
    assert_eq!(as_integer(&json!(-1.5)), Some(-2));
}

#[test]
fn the_type_check_comes_before_every_constraint() {
    let message = serialization("PutItem", json!({"TableName": "a;", "Item": {"a": {"S": 5}}}));
    assert_eq!(message, "NUMBER_VALUE cannot be converted to String");
    let message = serialization("CreateTable", json!({"KeySchema": "x"}));
    assert_eq!(message, "Unexpected field type");
}

#[test]
fn missing_and_malformed_members_are_listed_in_one_message() {
    assert_eq!(
        validation("PutItem", json!({})),
        "2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: Member must not be \
         null; Value null at 'item' failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation("GetItem", json!({"TableName": "abc;", "ReturnConsumedCapacity": "hi", "AttributesToGet": []})),
        "4 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member \
         must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value '[]' at 'attributesToGet' failed to satisfy \
         constraint: Member must have length greater than or equal to 1; Value 'abc;' at 'tableName' failed to \
         satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value null at 'key' \
         failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation("ListTables", json!({"ExclusiveStartTableName": "a;", "Limit": 500})),
        "3 validation errors detected: Value 'a;' at 'exclusiveStartTableName' failed to satisfy constraint: Member \
         must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value 'a;' at 'exclusiveStartTableName' failed to \
         satisfy constraint: Member must have length greater than or equal to 3; Value '500' at 'limit' failed to \
         satisfy constraint: Member must have value less than or equal to 100"
    );
    let long = "a".repeat(256);
    assert_eq!(
        validation("ListTables", json!({"ExclusiveStartTableName": long})),
        format!(
            "1 validation error detected: Value '{long}' at 'exclusiveStartTableName' failed to satisfy constraint: \
             Member must have length less than or equal to 255"
        )
    );
    assert_eq!(
        validation("ListTables", json!({"Limit": 0.5})),
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value \
         greater than or equal to 1"
    );
}

#[test]
fn nested_paths_name_list_elements_and_map_entries() {
    let message = validation(
        "CreateTable",
        json!({"TableName": "abc", "AttributeDefinitions": [],
               "KeySchema": [{"KeyType": "HASH"}, {"AttributeName": "a"}, {"KeyType": "Woop", "AttributeName": "a"}],
               "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001i64, "WriteCapacityUnits": 1000000000001i64}}),
    );
    assert_eq!(
        message,
        "4 validation errors detected: Value '[{\"KeyType\":\"HASH\"}, {\"AttributeName\":\"a\"}, \
         {\"KeyType\":\"Woop\",\"AttributeName\":\"a\"}]' at 'keySchema' failed to satisfy constraint: Member must \
         have length less than or equal to 2; Value null at 'keySchema.1.member.attributeName' failed to satisfy \
         constraint: Member must not be null; Value null at 'keySchema.2.member.keyType' failed to satisfy \
         constraint: Member must not be null; Value 'Woop' at 'keySchema.3.member.keyType' failed to satisfy \
         constraint: Member must satisfy enum value set: [HASH, RANGE]"
    );
    let message = validation(
        "BatchWriteItem",
        json!({"RequestItems": {"aa;": [{"PutRequest": {}, "DeleteRequest": {}}]},
               "ReturnConsumedCapacity": "hi", "ReturnItemCollectionMetrics": "hi"}),
    );
    assert_eq!(
        message,
        "5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member \
         must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value 'hi' at 'returnItemCollectionMetrics' failed to \
         satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]; Value \
         '{\"aa;\":[{\"PutRequest\":{},\"DeleteRequest\":{}}]}' at 'requestItems' failed to satisfy constraint: Map \
         keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length \
         greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]; Value null \
         at 'requestItems.aa;.member.1.member.deleteRequest.key' failed to satisfy constraint: Member must not be \
         null; Value null at 'requestItems.aa;.member.1.member.putRequest.item' failed to satisfy constraint: Member \
         must not be null"
    );
    // Map entries are listed from the last to the first.
    let message =
        validation("Scan", json!({"TableName": "abc", "ScanFilter": {"a": {}, "b": {"ComparisonOperator": ""}}}));
    assert_eq!(
        message,
        "2 validation errors detected: Value '' at 'scanFilter.b.member.comparisonOperator' failed to satisfy \
         constraint: Member must satisfy enum value set: [IN, NULL, BETWEEN, LT, NOT_CONTAINS, EQ, GT, NOT_NULL, NE, \
         LE, BEGINS_WITH, GE, CONTAINS]; Value null at 'scanFilter.a.member.comparisonOperator' failed to satisfy \
         constraint: Member must not be null"
    );
}

#[test]
fn at_most_ten_violations_are_reported() {
    let message = validation(
        "CreateTable",
        json!({"TableName": "abc", "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}],
               "KeySchema": [{"KeyType": "HASH", "AttributeName": "a"}],
               "LocalSecondaryIndexes": [{}, {}, {}, {}, {}, {}, {}, {}, {}],
               "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}),
    );
    assert!(message.starts_with("10 validation errors detected: "), "{message}");
    assert_eq!(message.matches("; ").count(), 9);
    assert!(message.ends_with(
        "Value null at 'localSecondaryIndexes.4.member.indexName' failed to satisfy constraint: Member must not be null"
    ));
}

#[test]
fn map_values_of_batch_writes_hold_one_to_twenty_five_requests() {
    let writes: Vec<Json> = (0..26).map(|i| json!({"PutRequest": {"Item": {"a": {"S": i.to_string()}}}})).collect();
    let message = validation("BatchWriteItem", json!({"RequestItems": {"abc": writes}}));
    assert!(message.starts_with("1 validation error detected: Value '{\"abc\":[{"), "{message}");
    assert!(message.ends_with(
        "}]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have \
         length less than or equal to 25, Member must have length greater than or equal to 1]"
    ));
    assert_eq!(
        validation("BatchWriteItem", json!({"RequestItems": {}})),
        "1 validation error detected: Value '{}' at 'requestItems' failed to satisfy constraint: Member must have \
         length greater than or equal to 1"
    );
}

#[test]
fn table_operations_check_the_table_name_before_the_constraints() {
    for operation in
        ["CreateTable", "DeleteTable", "DescribeTable", "UpdateTable", "UpdateTimeToLive", "DescribeTimeToLive"]
    {
        assert_eq!(
            validation(operation, json!({})),
            "The parameter 'TableName' is required but was not present in the request",
            "{operation}"
        );
        for name in [json!(""), json!("a;"), json!("a".repeat(256))] {
            assert_eq!(
                validation(operation, json!({"TableName": name})),
                "TableName must be at least 3 characters long and at most 255 characters long"
            );
        }
    }
    assert_eq!(
        validation("DeleteTable", json!({"TableName": "abc;"})),
        "1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy \
         regular expression pattern: [a-zA-Z0-9_.-]+"
    );
    passes("DescribeTable", json!({"TableName": "abc"}));
}

fn table(extra: Json) -> Json {
    let mut body = json!({
        "TableName": "abc",
        "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}],
        "KeySchema": [{"KeyType": "HASH", "AttributeName": "a"}, {"KeyType": "RANGE", "AttributeName": "b"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    });
    if let (Some(body), Json::Object(extra)) = (body.as_object_mut(), extra) {
        for (key, value) in extra {
            if value.is_null() {
                body.remove(&key);
            } else {
                body.insert(key, value);
            }
        }
    }
    body
}

fn index(name: &str, keys: Json, projection: Json) -> Json {
    json!({"IndexName": name, "KeySchema": keys, "Projection": projection})
}

fn global(name: &str, keys: Json, projection: Json) -> Json {
    let mut index = index(name, keys, projection);
    index["ProvisionedThroughput"] = json!({"ReadCapacityUnits": 1, "WriteCapacityUnits": 1});
    index
}

#[test]
fn create_table_checks_billing_and_throughput() {
    let invalid = "One or more parameter values were invalid: ";
    assert_eq!(
        validation("CreateTable", table(json!({"ProvisionedThroughput": null}))),
        format!(
            "{invalid}ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
        )
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(
                json!({"BillingMode": "PAY_PER_REQUEST", "KeySchema": [{"KeyType": "HASH", "AttributeName": "a"}, {"KeyType": "HASH", "AttributeName": "a"}]})
            )
        ),
        format!(
            "{invalid}Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
        )
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(
                json!({"ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001i64, "WriteCapacityUnits": 1000000000001i64}})
            )
        ),
        "Given value 1000000000001 for ReadCapacityUnits is out of bounds"
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(
                json!({"ProvisionedThroughput": {"ReadCapacityUnits": 1000000000000i64, "WriteCapacityUnits": 1000000000001i64}})
            )
        ),
        "Given value 1000000000001 for WriteCapacityUnits is out of bounds"
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(json!({"ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001i64, "WriteCapacityUnits": -1}}))
        ),
        "1 validation error detected: Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy \
         constraint: Member must have value greater than or equal to 1"
    );
    let message = validation(
        "CreateTable",
        json!({"TableName": "abc", "AttributeDefinitions": [], "KeySchema": [],
               "ProvisionedThroughput": {"ReadCapacityUnits": -1, "WriteCapacityUnits": -1}, "BillingMode": "A"}),
    );
    assert!(message.starts_with("4 validation errors detected: "), "{message}");
    assert!(message.contains("Value 'A' at 'billingMode' failed to satisfy constraint: Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"));
    passes("CreateTable", table(json!({"BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": null})));
}

#[test]
fn create_table_checks_the_key_schema_against_the_definitions() {
    let invalid = "One or more parameter values were invalid: ";
    let keys = |k: Json| json!({"KeySchema": k});
    let case = |defs: Json, key_schema: Json| {
        let mut extra = keys(key_schema);
        extra["AttributeDefinitions"] = defs;
        validation("CreateTable", table(extra))
    };
    let hash = |n: &str| json!({"KeyType": "HASH", "AttributeName": n});
    let range = |n: &str| json!({"KeyType": "RANGE", "AttributeName": n});
    let def = |n: &str| json!({"AttributeName": n, "AttributeType": "S"});
    let no_definition = "Invalid KeySchema: Some index key attribute have no definition";
    assert_eq!(case(json!([]), json!([hash("a"), hash("a")])), no_definition);
    assert_eq!(case(json!([def("b")]), json!([hash("a"), hash("a")])), no_definition);
    assert_eq!(case(json!([def("b")]), json!([hash("a"), range("b")])), no_definition);
    assert_eq!(case(json!([def("a")]), json!([hash("a"), hash("a")])), no_definition);
    assert_eq!(
        case(json!([def("b")]), json!([hash("a")])),
        format!(
            "{invalid}Some index key attributes are not defined in AttributeDefinitions. Keys: [a], AttributeDefinitions: [b]"
        )
    );
    assert_eq!(
        case(json!([def("a"), def("b")]), json!([hash("a"), hash("a")])),
        "Both the Hash Key and the Range Key element in the KeySchema have the same name"
    );
    assert_eq!(
        case(json!([def("a"), def("b")]), json!([hash("a"), hash("b")])),
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
    );
    assert_eq!(
        case(json!([def("a"), def("b")]), json!([range("a"), hash("b")])),
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
    );
    assert_eq!(
        case(json!([def("a"), def("c"), def("b")]), json!([hash("a"), range("b")])),
        format!(
            "{invalid}Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"
        )
    );
    assert_eq!(
        validation(
            "CreateTable",
            json!({"TableName": "abc", "AttributeDefinitions": [], "KeySchema": [hash("a")], "BillingMode": "PAY_PER_REQUEST"})
        ),
        no_definition
    );
    assert_eq!(
        validation("CreateTable", json!({"TableName": "abc", "AttributeDefinitions": [{}], "KeySchema": [hash("a")]})),
        "2 validation errors detected: Value null at 'attributeDefinitions.1.member.attributeName' failed to satisfy \
         constraint: Member must not be null; Value null at 'attributeDefinitions.1.member.attributeType' failed to \
         satisfy constraint: Member must not be null"
    );
}

#[test]
fn create_table_checks_local_secondary_indexes() {
    let invalid = "One or more parameter values were invalid: ";
    let hash = |n: &str| json!({"AttributeName": n, "KeyType": "HASH"});
    let range = |n: &str| json!({"AttributeName": n, "KeyType": "RANGE"});
    let all = json!({"ProjectionType": "ALL"});
    let lsi = |indexes: Json| validation("CreateTable", table(json!({"LocalSecondaryIndexes": indexes})));
    assert_eq!(
        validation("CreateTable", table(json!({"LocalSecondaryIndexes": [], "KeySchema": [hash("a")]}))),
        format!("{invalid}List of LocalSecondaryIndexes is empty")
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(
                json!({"LocalSecondaryIndexes": [index("abc", json!([range("c")]), json!({}))], "KeySchema": [hash("a")]})
            )
        ),
        format!(
            "{invalid}Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"
        )
    );
    assert_eq!(
        lsi(json!([
            index("abc", json!([range("c"), range("d")]), json!({})),
            index("abc", json!([range("e")]), json!({}))
        ])),
        format!(
            "{invalid}Some index key attributes are not defined in AttributeDefinitions. Keys: [c, d], AttributeDefinitions: [a, b]"
        )
    );
    assert_eq!(
        lsi(json!([index("abc", json!([range("a")]), json!({}))])),
        "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
    );
    assert_eq!(
        lsi(json!([index("abc", json!([hash("a"), hash("a")]), json!({}))])),
        "Both the Hash Key and the Range Key element in the KeySchema have the same name"
    );
    assert_eq!(
        lsi(json!([index("abc", json!([hash("a"), hash("b")]), json!({}))])),
        "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
    );
    assert_eq!(
        lsi(json!([index("abc", json!([hash("b")]), json!({}))])),
        format!("{invalid}Index KeySchema does not have a range key for index: abc")
    );
    assert_eq!(
        lsi(json!([index("abc", json!([hash("b"), range("a")]), json!({}))])),
        format!(
            "{invalid}Index KeySchema does not have the same leading hash key as table KeySchema for index: abc. index hash key: b, table hash key: a"
        )
    );
    assert_eq!(
        lsi(json!([index("abc", json!([hash("a"), range("b")]), json!({}))])),
        format!("{invalid}Unknown ProjectionType: null")
    );
    assert_eq!(
        lsi(json!([index("abc", json!([hash("a"), range("b")]), json!({"NonKeyAttributes": ["a"]}))])),
        format!("{invalid}Unknown ProjectionType: null")
    );
    assert_eq!(
        lsi(json!([index(
            "abc",
            json!([hash("a"), range("b")]),
            json!({"ProjectionType": "KEYS_ONLY", "NonKeyAttributes": ["a"]})
        )])),
        format!("{invalid}ProjectionType is KEYS_ONLY, but NonKeyAttributes is specified")
    );
    let same = index("abc", json!([hash("a"), range("b")]), all.clone());
    assert_eq!(lsi(json!([same.clone(), same.clone()])), format!("{invalid}Duplicate index name: abc"));
    let six: Vec<Json> =
        (0..6).map(|i| index(&format!("ab{i}"), json!([hash("a"), range("b")]), all.clone())).collect();
    assert_eq!(lsi(json!(six)), format!("{invalid}Number of LocalSecondaryIndexes exceeds per-table limit of 5"));
    let message = lsi(
        json!([{"IndexName": "h;", "KeySchema": [], "Projection": {}}, {"IndexName": "a".repeat(256), "KeySchema": [hash("a")], "Projection": {}}]),
    );
    assert!(
        message.starts_with("4 validation errors detected: Value 'h;' at 'localSecondaryIndexes.1.member.indexName'"),
        "{message}"
    );
}

#[test]
fn create_table_checks_global_secondary_indexes() {
    let invalid = "One or more parameter values were invalid: ";
    let hash = |n: &str| json!({"AttributeName": n, "KeyType": "HASH"});
    let range = |n: &str| json!({"AttributeName": n, "KeyType": "RANGE"});
    let all = json!({"ProjectionType": "ALL"});
    let gsi = |indexes: Json| validation("CreateTable", table(json!({"GlobalSecondaryIndexes": indexes})));
    assert_eq!(gsi(json!([])), format!("{invalid}List of GlobalSecondaryIndexes is empty"));
    assert_eq!(
        gsi(json!([global("abc", json!([hash("b")]), json!({}))])),
        format!("{invalid}Unknown ProjectionType: null")
    );
    assert_eq!(
        gsi(json!([global("abc", json!([range("c")]), json!({}))])),
        format!(
            "{invalid}Some index key attributes are not defined in AttributeDefinitions. Keys: [c], AttributeDefinitions: [a, b]"
        )
    );
    let twenty_one: Vec<Json> =
        (0..21).map(|i| global(&format!("abc{i}"), json!([hash("a"), range("b")]), all.clone())).collect();
    assert_eq!(
        gsi(json!(twenty_one)),
        format!("{invalid}GlobalSecondaryIndex count exceeds the per-table limit of 20")
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(json!({
                "LocalSecondaryIndexes": [index("abc", json!([hash("a"), range("b")]), all.clone())],
                "GlobalSecondaryIndexes": [global("abc", json!([hash("a"), range("b")]), all.clone())],
            }))
        ),
        format!("{invalid}Duplicate index name: abc")
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(json!({
                "KeySchema": [hash("a")], "BillingMode": "PAY_PER_REQUEST", "ProvisionedThroughput": null,
                "GlobalSecondaryIndexes": [index("abc", json!([hash("a"), range("b")]), all.clone()), global("abd", json!([hash("a"), range("b")]), all.clone())],
            }))
        ),
        format!(
            "{invalid}ProvisionedThroughput should not be specified for index: abd when BillingMode is PAY_PER_REQUEST"
        )
    );
    assert_eq!(
        gsi(json!([index("abc", json!([hash("a")]), all.clone())])),
        format!("{invalid}ProvisionedThroughput is not specified for index: abc")
    );
    assert_eq!(
        validation(
            "CreateTable",
            table(json!({
                "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}, {"AttributeName": "z", "AttributeType": "N"}],
                "GlobalSecondaryIndexes": [global("abc", json!([hash("b")]), all.clone())],
            }))
        ),
        format!("{invalid}Some AttributeDefinitions are not used. AttributeDefinitions: [a, b, z], keys used: [a, b]")
    );
    let message = gsi(json!([{}, {}, {}, {}, {}, {}, {}, {}, {}]));
    assert!(
        message.starts_with("10 validation errors detected: Value null at 'globalSecondaryIndexes.1.member.indexName'"),
        "{message}"
    );
    passes(
        "CreateTable",
        table(json!({
            "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "S"}, {"AttributeName": "c", "AttributeType": "S"}],
            "LocalSecondaryIndexes": [index("index1", json!([hash("a"), range("c")]), all.clone())],
            "GlobalSecondaryIndexes": [global("index3", json!([hash("c")]), json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["e"]}))],
        })),
    );
}

#[test]
fn update_table_needs_an_update_and_one_action_per_index() {
    let invalid = "One or more parameter values were invalid: ";
    let at_least_one = "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification is required";
    assert_eq!(validation("UpdateTable", json!({"TableName": "abc"})), at_least_one);
    assert_eq!(validation("UpdateTable", json!({"TableName": "abc", "GlobalSecondaryIndexUpdates": []})), at_least_one);
    assert_eq!(
        validation(
            "UpdateTable",
            json!({"TableName": "abc", "ProvisionedThroughput": {"ReadCapacityUnits": 1000000000001i64, "WriteCapacityUnits": 1000000000001i64}})
        ),
        "Given value 1000000000001 for ReadCapacityUnits is out of bounds"
    );
    let one_of = format!(
        "{invalid}One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null"
    );
    assert_eq!(validation("UpdateTable", json!({"TableName": "abc", "GlobalSecondaryIndexUpdates": [{}]})), one_of);
    assert_eq!(
        validation("UpdateTable", json!({"TableName": "abc", "GlobalSecondaryIndexUpdates": [{}, {}, {}, {}, {}, {}]})),
        one_of
    );
    assert_eq!(
        validation(
            "UpdateTable",
            json!({"TableName": "abc", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "abc"}}, {"Delete": {"IndexName": "abc"}}]})
        ),
        format!("{invalid}Only one global secondary index update per index is allowed simultaneously. Index: abc")
    );
    assert_eq!(
        validation("UpdateTable", json!({"TableName": "abc", "GlobalSecondaryIndexUpdates": [{"Update": {}}]})),
        "2 validation errors detected: Value null at 'globalSecondaryIndexUpdates.1.member.update.indexName' failed \
         to satisfy constraint: Member must not be null; Value null at \
         'globalSecondaryIndexUpdates.1.member.update.provisionedThroughput' failed to satisfy constraint: Member \
         must not be null"
    );
    passes("UpdateTable", json!({"TableName": "abc", "BillingMode": "PAY_PER_REQUEST"}));
}

#[test]
fn time_to_live_and_tags_rules() {
    assert_eq!(
        validation("UpdateTimeToLive", json!({"TableName": "abc", "TimeToLiveSpecification": {}})),
        "2 validation errors detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy \
         constraint: Member must not be null; Value null at 'timeToLiveSpecification.enabled' failed to satisfy \
         constraint: Member must not be null"
    );
    assert_eq!(
        validation(
            "UpdateTimeToLive",
            json!({"TableName": "abc", "TimeToLiveSpecification": {"AttributeName": "", "Enabled": true}})
        ),
        "TimeToLiveSpecification.AttributeName must be non empty"
    );
    for operation in ["TagResource", "UntagResource", "ListTagsOfResource"] {
        assert_eq!(validation(operation, json!({})), "Invalid TableArn");
    }
    passes("DescribeLimits", json!({"anything": 1}));
}

#[test]
fn expressions_and_legacy_parameters_do_not_mix() {
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc", "Item": {"a": {}}, "Expected": {"a": {}}, "ExpressionAttributeNames": {},
                   "ExpressionAttributeValues": {}, "ConditionExpression": ""}),
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {Expected} Expression parameters: {ConditionExpression}"
    );
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc", "Item": {"a": {}}, "Expected": {"a": {}}, "ExpressionAttributeNames": {}, "ExpressionAttributeValues": {}})
        ),
        "ExpressionAttributeNames can only be specified when using expressions"
    );
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc", "Item": {"a": {}}, "Expected": {"a": {}}, "ExpressionAttributeValues": {}})
        ),
        "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"
    );
    assert_eq!(
        validation("UpdateItem", json!({"TableName": "abc", "Key": {}, "ExpressionAttributeValues": {}})),
        "ExpressionAttributeValues can only be specified when using expressions: UpdateExpression and ConditionExpression are null"
    );
    assert_eq!(
        validation(
            "UpdateItem",
            json!({"TableName": "abc", "Key": {}, "AttributeUpdates": {}, "Expected": {}, "UpdateExpression": "", "ConditionExpression": ""})
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}"
    );
    assert_eq!(
        validation(
            "Query",
            json!({"TableName": "abc", "QueryFilter": {}, "KeyConditions": {}, "FilterExpression": "", "KeyConditionExpression": ""})
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {QueryFilter, KeyConditions} Expression parameters: {FilterExpression, KeyConditionExpression}"
    );
    // KeyConditions may come with a FilterExpression when there is no KeyConditionExpression.
    passes(
        "Query",
        json!({"TableName": "abc", "KeyConditions": {}, "FilterExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "x"}}}),
    );
    assert_eq!(
        validation("Scan", json!({"TableName": "abc", "ExpressionAttributeValues": {}})),
        "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"
    );
    assert_eq!(
        validation(
            "BatchGetItem",
            json!({"RequestItems": {"abc": {"Keys": [{}], "AttributesToGet": ["a"], "ExpressionAttributeNames": {}, "ProjectionExpression": ""}}})
        ),
        "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: \
         {AttributesToGet} Expression parameters: {ProjectionExpression}"
    );
    assert_eq!(
        validation(
            "BatchGetItem",
            json!({"RequestItems": {"abc": {"Keys": [{}], "AttributesToGet": ["a"], "ExpressionAttributeNames": {}}}})
        ),
        "ExpressionAttributeNames can only be specified when using expressions"
    );
    assert_eq!(
        validation(
            "TransactWriteItems",
            json!({"TransactItems": [{"Put": {"TableName": "abc", "Item": {}, "ExpressionAttributeNames": {"#a": "a"}}}]})
        ),
        "ExpressionAttributeNames can only be specified when using expressions"
    );
}

#[test]
fn expression_maps_must_hold_placeholders() {
    let maps = |request: Json| check_expression_maps(&request).map_err(|e| e.message);
    assert_eq!(maps(json!({"ExpressionAttributeNames": {}})), Err("ExpressionAttributeNames must not be empty".into()));
    assert_eq!(
        maps(json!({"ExpressionAttributeValues": {}})),
        Err("ExpressionAttributeValues must not be empty".into())
    );
    assert_eq!(
        maps(json!({"ExpressionAttributeNames": {"a": "a"}})),
        Err("ExpressionAttributeNames contains invalid key: Syntax error; key: \"a\"".into())
    );
    assert_eq!(
        maps(json!({"ExpressionAttributeValues": {":ok": {"S": "a"}, "::x": {"S": "a"}}})),
        Err("ExpressionAttributeValues contains invalid key: Syntax error; key: \"::x\"".into())
    );
    assert_eq!(
        maps(json!({"ExpressionAttributeNames": {"#a_1": "a"}, "ExpressionAttributeValues": {":B2": {}}})),
        Ok(())
    );
    // Not part of `check`: DynamoDB reports the attribute values of the item first.
    passes(
        "PutItem",
        json!({"TableName": "abc", "Item": {}, "ExpressionAttributeNames": {}, "ConditionExpression": ""}),
    );
}

#[test]
fn item_writes_return_only_what_they_can() {
    for operation in ["PutItem", "DeleteItem"] {
        let member = if operation == "PutItem" { "Item" } else { "Key" };
        for returns in ["UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"] {
            assert_eq!(
                after_values(operation, json!({"TableName": "abc", member: {}, "ReturnValues": returns})),
                "ReturnValues can only be ALL_OLD or NONE"
            );
        }
        passes(operation, json!({"TableName": "abc", member: {}, "ReturnValues": "ALL_OLD"}));
    }
    passes("UpdateItem", json!({"TableName": "abc", "Key": {}, "ReturnValues": "UPDATED_NEW"}));
    assert_eq!(
        validation(
            "PutItem",
            json!({"TableName": "abc;", "ReturnConsumedCapacity": "hi", "ReturnItemCollectionMetrics": "hi", "ReturnValues": "hi"})
        ),
        "5 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member \
         must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value 'abc;' at 'tableName' failed to satisfy \
         constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+; Value null at 'item' failed to \
         satisfy constraint: Member must not be null; Value 'hi' at 'returnValues' failed to satisfy constraint: \
         Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; Value 'hi' at \
         'returnItemCollectionMetrics' failed to satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]"
    );
}

#[test]
fn attributes_to_get_may_not_repeat_a_name() {
    let duplicate = "One or more parameter values were invalid: Duplicate value in attribute name: a";
    assert_eq!(
        after_values("GetItem", json!({"TableName": "abc", "Key": {}, "AttributesToGet": ["a", "a"]})),
        duplicate
    );
    assert_eq!(
        after_values("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": [{}], "AttributesToGet": ["a", "a"]}}})),
        duplicate
    );
    assert_eq!(
        after_values("Query", json!({"TableName": "abc", "KeyConditions": {}, "AttributesToGet": ["b", "a", "a"]})),
        duplicate
    );
    assert_eq!(validation("Scan", json!({"TableName": "abc", "AttributesToGet": ["a", "b", "a"]})), duplicate);
}

#[test]
fn query_and_scan_rules() {
    assert_eq!(
        after_values("Query", json!({"TableName": "abc"})),
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
    );
    assert_eq!(
        after_values("Scan", json!({"TableName": "abc", "Segment": 1})),
        "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"
    );
    assert_eq!(
        after_values("Scan", json!({"TableName": "abc", "TotalSegments": 1})),
        "The Segment parameter is required but was not present in the request when parameter TotalSegments is present"
    );
    assert_eq!(
        after_values("Scan", json!({"TableName": "abc", "Segment": 1, "TotalSegments": 1})),
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 1 is not less than TotalSegments: 1"
    );
    passes("Scan", json!({"TableName": "abc", "Segment": 0, "TotalSegments": 1}));
    assert_eq!(
        validation("Scan", json!({"TableName": "abc", "Segment": -1, "TotalSegments": 1000001, "Limit": 0})),
        "3 validation errors detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value \
         greater than or equal to 1; Value '-1' at 'segment' failed to satisfy constraint: Member must have value \
         greater than or equal to 0; Value '1000001' at 'totalSegments' failed to satisfy constraint: Member must \
         have value less than or equal to 1000000"
    );
}

#[test]
fn select_combines_with_projections_and_indexes() {
    let query = |extra: Json| {
        let mut body = json!({"TableName": "abc", "KeyConditionExpression": "a = :a", "ExpressionAttributeValues": {":a": {"S": "x"}}});
        for (k, v) in extra.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        body
    };
    let scan = |extra: Json| {
        let mut body = json!({"TableName": "abc"});
        for (k, v) in extra.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        body
    };
    let prefix = "1 validation error detected: ";
    for (select, what) in [
        ("ALL_ATTRIBUTES", "ALL_ATTRIBUTES"),
        ("ALL_PROJECTED_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"),
        ("COUNT", "only the Count"),
    ] {
        let with = json!({"Select": select, "IndexName": "idx", "ProjectionExpression": "a"});
        assert_eq!(
            validation("Query", query(with.clone())),
            format!("{prefix}Cannot specify the ProjectionExpression when choosing to get {what}")
        );
        assert_eq!(
            validation("Scan", scan(with)),
            format!("Cannot specify the ProjectionExpression when choosing to get {what}")
        );
        let with = json!({"Select": select, "IndexName": "idx", "AttributesToGet": ["a"]});
        assert_eq!(
            validation("Scan", scan(with)),
            format!("Cannot specify the AttributesToGet when choosing to get {what}")
        );
    }
    assert_eq!(
        validation("Query", query(json!({"Select": "SPECIFIC_ATTRIBUTES"}))),
        format!(
            "{prefix}Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
        )
    );
    assert_eq!(
        validation("Scan", scan(json!({"Select": "ALL_PROJECTED_ATTRIBUTES"}))),
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
    );
    assert_eq!(
        validation("Query", query(json!({"Select": "count"}))),
        "1 validation error detected: Value 'count' at 'select' failed to satisfy constraint: Member must satisfy \
         enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"
    );
    passes("Query", query(json!({"Select": "SPECIFIC_ATTRIBUTES", "ProjectionExpression": "a"})));
    passes("Scan", scan(json!({"Select": "ALL_PROJECTED_ATTRIBUTES", "IndexName": "idx"})));
}

#[test]
fn batches_have_limits() {
    let keys: Vec<Json> = (0..101).map(|i| json!({"a": {"S": i.to_string()}})).collect();
    let message = validation("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": keys}}}));
    assert!(message.ends_with("' at 'requestItems.abc.member.keys' failed to satisfy constraint: Member must have length less than or equal to 100"), "{message}");
    let hundred: Vec<Json> = (0..100).map(|i| json!({"a": {"S": i.to_string()}})).collect();
    assert_eq!(
        validation(
            "BatchGetItem",
            json!({"RequestItems": {"abc": {"Keys": hundred.clone()}, "abd": {"Keys": [{"a": {"S": "100"}}]}}})
        ),
        "Too many items requested for the BatchGetItem call"
    );
    passes("BatchGetItem", json!({"RequestItems": {"abc": {"Keys": hundred}}}));
    let message = validation("BatchGetItem", json!({"RequestItems": {"a": {}}, "ReturnConsumedCapacity": "hi"}));
    assert_eq!(
        message,
        "3 validation errors detected: Value 'hi' at 'returnConsumedCapacity' failed to satisfy constraint: Member \
         must satisfy enum value set: [INDEXES, TOTAL, NONE]; Value '{\"a\":{}}' at 'requestItems' failed to satisfy \
         constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member \
         must have length greater than or equal to 3, Member must satisfy regular expression pattern: \
         [a-zA-Z0-9_.-]+]; Value null at 'requestItems.a.member.keys' failed to satisfy constraint: Member must not \
         be null"
    );
    assert_eq!(
        validation("BatchWriteItem", json!({"RequestItems": {"abc": [{}]}})),
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
    );
    let writes = |n: usize| -> Vec<Json> {
        (0..n).map(|i| json!({"DeleteRequest": {"Key": {"a": {"S": i.to_string()}}}})).collect()
    };
    assert_eq!(
        validation("BatchWriteItem", json!({"RequestItems": {"abc": writes(25), "abd": writes(1)}})),
        "Too many items requested for the BatchWriteItem call"
    );
    passes("BatchWriteItem", json!({"RequestItems": {"abc": writes(25)}}));
}

#[test]
fn transactions_hold_one_action_per_item() {
    assert_eq!(
        validation("TransactWriteItems", json!({})),
        "1 validation error detected: Value null at 'transactItems' failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation("TransactWriteItems", json!({"TransactItems": []})),
        "1 validation error detected: Value '[]' at 'transactItems' failed to satisfy constraint: Member must have length greater than or equal to 1"
    );
    assert_eq!(
        validation("TransactWriteItems", json!({"TransactItems": [{"Update": {}}]})),
        "1 validation error detected: Value null at 'transactItems.1.member.update.key' failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation("TransactWriteItems", json!({"TransactItems": [{"ConditionCheck": {}}]})),
        "1 validation error detected: Value null at 'transactItems.1.member.conditionCheck.key' failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation(
            "TransactWriteItems",
            json!({"TransactItems": [{"NotARealAction": {"TableName": "abc"}}, {"Put": {"TableName": "abc", "Item": {}}}]})
        ),
        "The action or operation requested is invalid. Verify that the action is typed correctly."
    );
    assert_eq!(
        validation(
            "TransactWriteItems",
            json!({"TransactItems": [{"Put": {"TableName": "abc", "Item": {}}, "Delete": {"TableName": "abc", "Key": {}}}]})
        ),
        "TransactItems can only contain one of Check, Put, Update or Delete"
    );
    let hundred_one: Vec<Json> =
        (0..101).map(|i| json!({"Put": {"TableName": "abc", "Item": {"a": {"S": i.to_string()}}}})).collect();
    let message = validation("TransactWriteItems", json!({"TransactItems": hundred_one}));
    assert!(message.ends_with(
        "at 'transactItems' failed to satisfy constraint: Member must have length less than or equal to 100"
    ));
    assert_eq!(
        validation("TransactGetItems", json!({"TransactItems": [{}]})),
        "1 validation error detected: Value null at 'transactItems.1.member.get' failed to satisfy constraint: Member must not be null"
    );
    passes(
        "TransactGetItems",
        json!({"TransactItems": [{"Get": {"TableName": "abc", "Key": {"a": {"S": "x"}}, "ProjectionExpression": "a"}}]}),
    );
}

/// Every message of the catalogue above, as the wire body DynamoDB sends, so that a change of
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
    use super::schema::{batch, items, reads, tables, transact};
    use super::shape::{MAX_MEMBERS, Shape, StructShape};

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
