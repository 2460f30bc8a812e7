//! The constraints: lists of violations, their paths, and the table name checked first.

use serde_json::{Value as Json, json};

use super::{passes, validation};

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
        "4 validation errors detected: Value '[KeySchemaElement(attributeName=null, keyType=HASH), \
         KeySchemaElement(attributeName=a, keyType=null), KeySchemaElement(attributeName=a, keyType=Woop)]' at \
         'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2; Value null at 'keySchema.1.member.attributeName' failed to satisfy \
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
    // Map entries are listed in the order of the request.
    let message =
        validation("Scan", json!({"TableName": "abc", "ScanFilter": {"b": {"ComparisonOperator": ""}, "a": {}}}));
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
    assert!(message.starts_with("1 validation error detected: Value '{abc=[{"), "{message}");
    assert!(message.ends_with(
        "}]}' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have \
         length less than or equal to 25, Member must have length greater than or equal to 1]"
    ));
}

#[test]
fn a_table_of_a_batch_given_nothing_breaks_the_constraints_of_what_it_lacks() {
    assert_eq!(
        validation("BatchWriteItem", json!({"RequestItems": {"abc": null}})),
        "1 validation error detected: Value '{abc=null}' at 'requestItems' failed to satisfy constraint: Map value \
         must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater \
         than or equal to 1]"
    );
    assert_eq!(
        validation("BatchGetItem", json!({"RequestItems": {"abc": null}})),
        "1 validation error detected: Value at 'RequestItems.abc.member.Keys' failed to satisfy constraint: Member \
         must not be null"
    );
    assert_eq!(
        validation("BatchWriteItem", json!({"RequestItems": {"abc": [null]}})),
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
    );
}

#[test]
fn an_empty_request_items_of_a_batch_is_a_missing_parameter_before_the_constraints() {
    for operation in ["BatchGetItem", "BatchWriteItem"] {
        assert_eq!(
            validation(operation, json!({"RequestItems": {}, "ReturnConsumedCapacity": "SOME"})),
            format!("The requestItems parameter is required for {operation}")
        );
        assert_eq!(
            validation(operation, json!({})),
            "1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must not \
             be null"
        );
    }
}

#[test]
fn create_table_reports_the_constraints_of_its_table_name_first_and_alone() {
    assert_eq!(
        validation("CreateTable", json!({})),
        "The parameter 'TableName' is required but was not present in the request"
    );
    let alone = |name: &str| validation("CreateTable", json!({"TableName": name, "KeySchema": [], "BillingMode": "X"}));
    assert_eq!(
        alone("ab"),
        "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have \
         length greater than or equal to 3"
    );
    assert_eq!(
        alone("x!"),
        "2 validation errors detected: Value 'x!' at 'tableName' failed to satisfy constraint: Member must satisfy \
         regular expression pattern: [a-zA-Z0-9_.-]+; Value 'x!' at 'tableName' failed to satisfy constraint: \
         Member must have length greater than or equal to 3"
    );
    let long = "a".repeat(256);
    assert_eq!(
        alone(&long),
        format!(
            "1 validation error detected: Value '{long}' at 'tableName' failed to satisfy constraint: Member must \
             have length less than or equal to 255"
        )
    );
    // A good name lets the other members' constraints be reported.
    assert!(alone("abc").contains("at 'keySchema'"), "{}", alone("abc"));
}

#[test]
fn table_operations_check_the_table_name_before_the_constraints() {
    for operation in ["DeleteTable", "DescribeTable", "UpdateTable", "UpdateTimeToLive", "DescribeTimeToLive"] {
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

#[test]
fn a_list_of_flat_structures_is_quoted_as_java_prints_it() {
    let key = |name: &str, kind: &str| json!({"AttributeName": name, "KeyType": kind});
    let message = validation(
        "CreateTable",
        json!({"TableName": "abc", "BillingMode": "PAY_PER_REQUEST",
               "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
               "KeySchema": [key("pk", "HASH"), key("sk", "RANGE"), key("extra", "RANGE")]}),
    );
    assert_eq!(
        message,
        "1 validation error detected: Value '[KeySchemaElement(attributeName=pk, keyType=HASH), \
         KeySchemaElement(attributeName=sk, keyType=RANGE), KeySchemaElement(attributeName=extra, keyType=RANGE)]' \
         at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2"
    );
}
