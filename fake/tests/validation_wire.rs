//! Request validation as a client on the wire sees it: raw bodies in through
//! `FakeDynamoDb::handle_json`, DynamoDB's status and error body out. The messages are the ones
//! DynamoDB sends, as the dynalite suite records them.

use dynalease_fake::FakeDynamoDb;
use serde_json::{Value as Json, json};

const SERIALIZATION: &str = "com.amazon.coral.service#SerializationException";
const VALIDATION: &str = "com.amazon.coral.validate#ValidationException";

/// Status and parsed body of the answer to a raw body.
fn answer_raw(fake: &FakeDynamoDb, operation: &str, body: &[u8]) -> (u16, Json) {
    let (status, body) = fake.handle_json(operation, body);
    (status, serde_json::from_slice(&body).expect("the answer is JSON"))
}

fn answer(fake: &FakeDynamoDb, operation: &str, body: Json) -> (u16, Json) {
    answer_raw(fake, operation, body.to_string().as_bytes())
}

/// The message of a `ValidationException` answer.
fn validation(fake: &FakeDynamoDb, operation: &str, body: Json) -> String {
    let (status, answer) = answer(fake, operation, body);
    assert_eq!((status, answer["__type"].as_str()), (400, Some(VALIDATION)), "{answer}");
    answer["message"].as_str().expect("a message").to_owned()
}

/// The message of a `SerializationException` answer.
fn serialization(fake: &FakeDynamoDb, operation: &str, body: Json) -> String {
    let (status, answer) = answer(fake, operation, body);
    assert_eq!((status, answer["__type"].as_str()), (400, Some(SERIALIZATION)), "{answer}");
    answer["Message"].as_str().expect("a message").to_owned()
}

#[test]
fn unreadable_bodies_get_a_serialization_exception_without_a_message() {
    let fake = FakeDynamoDb::new();
    for body in [&b""[..], b"hi", b"{\"TableName\":", b"null", b"[]", b"42", b"\"ListTables\""] {
        for operation in ["ListTables", "PutItem", "CreateTable"] {
            let (status, answer) = answer_raw(&fake, operation, body);
            assert_eq!(status, 400);
            assert_eq!(answer["__type"], SERIALIZATION, "{}", String::from_utf8_lossy(body));
            // DynamoDB sends no message at all here; an empty one is the most the body may carry.
            assert_eq!(answer.get("Message").and_then(Json::as_str).unwrap_or(""), "");
        }
    }
}

#[test]
fn a_body_with_unknown_or_null_members_is_read_like_an_empty_one() {
    let fake = FakeDynamoDb::new();
    for body in [json!({"hi": "yo", "stuff": "things"}), json!({"ExclusiveStartTableName": null, "Limit": null})] {
        let (status, reply) = answer(&fake, "ListTables", body);
        assert_eq!((status, reply["TableNames"].is_array()), (200, true), "{reply}");
    }
}

#[test]
fn wrong_json_types_are_refused_before_any_constraint() {
    let fake = FakeDynamoDb::new();
    let cases = [
        ("ListTables", json!({"Limit": "23"}), "STRING_VALUE cannot be converted to Integer"),
        ("ListTables", json!({"ExclusiveStartTableName": 34.56}), "DECIMAL_VALUE cannot be converted to String"),
        (
            "GetItem",
            json!({"TableName": "a;", "Key": {}, "ConsistentRead": "maybe"}),
            "Unexpected token received from parser",
        ),
        (
            "PutItem",
            json!({"TableName": "Shop", "Item": {"a": {"S": true}}}),
            "TRUE_VALUE cannot be converted to String",
        ),
        (
            "PutItem",
            json!({"TableName": "Shop", "Item": {"a": {"B": 5}}}),
            "only base-64-encoded strings are convertible to bytes",
        ),
        ("PutItem", json!({"TableName": "Shop", "Item": {"a": {"L": ["x"]}}}), "Unexpected value type in payload"),
        (
            "PutItem",
            json!({"TableName": "Shop", "Item": []}),
            "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>",
        ),
        ("CreateTable", json!({"ProvisionedThroughput": 5}), "Unexpected field type"),
        (
            "CreateTable",
            json!({"KeySchema": [[]]}),
            "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.KeySchemaElement",
        ),
        ("BatchWriteItem", json!({"RequestItems": {"Shop": {}}}), "Start of structure or map found where not expected"),
    ];
    for (operation, body, message) in cases {
        assert_eq!(serialization(&fake, operation, body.clone()), message, "{operation} {body}");
    }
}

#[test]
fn constraint_violations_are_listed_together() {
    let fake = FakeDynamoDb::new();
    assert_eq!(
        validation(&fake, "DeleteItem", json!({"TableName": "ab", "ReturnValues": "SOME"})),
        "3 validation errors detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have \
         length greater than or equal to 3; Value 'SOME' at 'returnValues' failed to satisfy constraint: Member must \
         satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]; Value null at 'key' failed to \
         satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation(&fake, "DescribeTable", json!({})),
        "The parameter 'TableName' is required but was not present in the request"
    );
    assert_eq!(
        validation(
            &fake,
            "UpdateTimeToLive",
            json!({"TableName": "Shop", "TimeToLiveSpecification": {"Enabled": true}})
        ),
        "1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy \
         constraint: Member must not be null"
    );
}

#[test]
fn a_missing_time_to_live_specification_is_not_listed_among_constraint_failures() {
    let fake = FakeDynamoDb::new();
    assert_eq!(
        validation(&fake, "UpdateTimeToLive", json!({"TableName": "abc;"})),
        "1 validation error detected: Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy \
         regular expression pattern: [a-zA-Z0-9_.-]+"
    );
}

#[test]
fn tag_operations_check_the_shape_of_the_arn_then_their_list_then_the_table() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", None);
    for arn in ["abcd", "not-a-valid-arn", " ", "a:b:c:d:e:f/g"] {
        for operation in ["TagResource", "UntagResource", "ListTagsOfResource"] {
            assert_eq!(
                validation(&fake, operation, json!({"ResourceArn": arn, "Tags": [{"Key": "a", "Value": "b"}]})),
                format!("One or more parameter values were invalid: ARNs must start with 'arn:': {arn}")
            );
        }
    }
    for (arn, resource) in [("", "*"), ("arn:b:c:d:e:f", "arn:b:c:d:e:f"), ("arn:b:c:d:e/f", "arn:b:c:d:e/f")] {
        for operation in ["TagResource", "UntagResource", "ListTagsOfResource"] {
            let (status, answer) = answer(&fake, operation, json!({"ResourceArn": arn}));
            assert_eq!(
                (status, answer["__type"].as_str()),
                (400, Some("com.amazon.coral.service#AccessDeniedException"))
            );
            let message = answer["Message"].as_str().unwrap();
            assert!(message.starts_with("User: arn:aws:iam::000000000000:"), "{message}");
            assert!(
                message
                    .ends_with(&format!(" is not authorized to perform: dynamodb:{operation} on resource: {resource}"))
            );
        }
    }
    assert_eq!(validation(&fake, "ListTagsOfResource", json!({})), "Invalid TableArn");
    let shaped = "arn:b:c:d:e:f/g";
    assert_eq!(
        validation(&fake, "TagResource", json!({"ResourceArn": shaped})),
        "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null"
    );
    assert_eq!(
        validation(&fake, "UntagResource", json!({"ResourceArn": shaped})),
        "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null"
    );
    let short = "arn:aws:dynamodb:us-east-1:000000000000:table/ab";
    for arn in [shaped, short] {
        assert_eq!(
            validation(&fake, "TagResource", json!({"ResourceArn": arn, "Tags": []})),
            format!("Invalid TableArn: Invalid ResourceArn provided as input {arn}")
        );
    }
    let table = "arn:aws:dynamodb:us-east-1:000000000000:table/Shop";
    assert_eq!(
        validation(&fake, "TagResource", json!({"ResourceArn": table, "Tags": []})),
        "Atleast one Tag needs to be provided as Input."
    );
    assert_eq!(
        validation(&fake, "UntagResource", json!({"ResourceArn": table, "TagKeys": []})),
        "Atleast one Tag Key needs to be provided as Input."
    );
    let missing = "arn:aws:dynamodb:us-east-1:000000000000:table/Nowhere";
    let (_, tagged) =
        answer(&fake, "TagResource", json!({"ResourceArn": missing, "Tags": [{"Key": "a", "Value": "b"}]}));
    assert_eq!(tagged["message"], format!("Requested resource not found: ResourcArn: {missing} not found"));
    let (_, untagged) = answer(&fake, "UntagResource", json!({"ResourceArn": missing, "TagKeys": ["a"]}));
    assert_eq!(untagged["message"], "Requested resource not found");
    // ListTagsOfResource is denied a table the fake does not hold, as DynamoDB denies the ARN of a
    // table of another account (nubo-db's conformance suite names one in the fake's account).
    let (status, listed) = answer(&fake, "ListTagsOfResource", json!({"ResourceArn": missing}));
    assert_eq!((status, listed["__type"].as_str()), (400, Some("com.amazon.coral.service#AccessDeniedException")));
    assert_eq!(
        listed["Message"],
        format!(
            "User: arn:aws:iam::000000000000:user/dynalease-fake is not authorized to perform: \
             dynamodb:ListTagsOfResource on resource: {missing}"
        )
    );
}

#[test]
fn validation_comes_before_the_table_lookup() {
    let fake = FakeDynamoDb::new();
    // No table exists: a valid request would get ResourceNotFoundException.
    assert_eq!(
        validation(
            &fake,
            "CreateTable",
            json!({"TableName": "Shop", "BillingMode": "PAY_PER_REQUEST",
                   "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                   "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                   "LocalSecondaryIndexes": [{"IndexName": "byX", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                                               "Projection": {"ProjectionType": "ALL"}}]}),
        ),
        "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required \
         when specifying a LocalSecondaryIndex"
    );
    assert_eq!(
        validation(&fake, "Scan", json!({"TableName": "Missing", "Select": "COUNT", "ProjectionExpression": "a"})),
        "1 validation error detected: Cannot specify the ProjectionExpression when choosing to get only the Count"
    );
    assert_eq!(
        validation(
            &fake,
            "TransactWriteItems",
            json!({"TransactItems": [{"Put": {"TableName": "Missing", "Item": {}}, "Delete": {"TableName": "Missing", "Key": {}}}]})
        ),
        "TransactItems can only contain one of Check, Put, Update or Delete"
    );
}

/// A bad request of every operation with members and the error body DynamoDB answers, as one snapshot: a
/// change of wording, type or status shows up in review.
#[test]
fn error_bodies_of_bad_requests_snapshot() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Shop", "pk", Some("sk"));
    let catalogue = [
        (
            "CreateTable",
            json!({"TableName": "Shop2", "AttributeDefinitions": [], "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}),
        ),
        ("CreateTable", json!({"TableName": "abc;"})),
        ("DeleteTable", json!({"TableName": 42})),
        ("DescribeTable", json!({"TableName": "x"})),
        ("ListTables", json!({"Limit": 101})),
        (
            "UpdateTable",
            json!({"TableName": "Shop", "GlobalSecondaryIndexUpdates": [{"Delete": {"IndexName": "idx1"}}, {"Delete": {"IndexName": "idx1"}}]}),
        ),
        (
            "UpdateTimeToLive",
            json!({"TableName": "Shop", "TimeToLiveSpecification": {"AttributeName": "", "Enabled": true}}),
        ),
        ("DescribeTimeToLive", json!({"TableName": ["Shop"]})),
        (
            "PutItem",
            json!({"TableName": "Shop", "Item": {"pk": {"S": "a"}}, "Expected": {"pk": {"Exists": false}}, "ConditionExpression": "attribute_not_exists(pk)"}),
        ),
        ("GetItem", json!({"TableName": "Shop", "Key": {"pk": {"S": "a"}}, "ExpressionAttributeNames": {"#a": "a"}})),
        ("UpdateItem", json!({"TableName": "Shop", "Key": {}, "ExpressionAttributeValues": {":a": {"N": "1"}}})),
        ("DeleteItem", json!({"TableName": "Shop", "Key": {"pk": {"NULL": "maybe"}}})),
        ("Query", json!({"TableName": "Shop", "KeyConditions": {}, "KeyConditionExpression": "pk = :p"})),
        ("Scan", json!({"TableName": "Shop", "Segment": 2, "TotalSegments": 0})),
        ("BatchGetItem", json!({"RequestItems": {"ab": {"Keys": []}}})),
        ("BatchWriteItem", json!({"RequestItems": {"Shop": [{}]}})),
        (
            "TransactWriteItems",
            json!({"TransactItems": [{
                "ConditionCheck": {"TableName": "Shop", "Key": {}, "ConditionExpression": "attribute_exists(pk)"},
                "Update": {"TableName": "Shop", "Key": {}, "UpdateExpression": "SET a = :a"}
            }]}),
        ),
        ("TransactGetItems", json!({"TransactItems": [{"Get": {"Key": {"pk": {"B": "=+/="}}}}]})),
        ("TagResource", json!({"Tags": []})),
        ("UntagResource", json!({"ResourceArn": {}})),
        ("ListTagsOfResource", json!({"ResourceArn": true})),
    ];
    let answers: Vec<Json> = catalogue
        .into_iter()
        .map(|(operation, request)| {
            let (status, response) = answer(&fake, operation, request.clone());
            json!({"operation": operation, "request": request, "status": status, "response": response})
        })
        .collect();
    insta::assert_json_snapshot!("error_bodies_of_bad_requests", answers);
}
