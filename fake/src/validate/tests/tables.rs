//! The rules of the control plane: CreateTable, UpdateTable, time to live, tags.

use serde_json::{Value as Json, json};

use super::{passes, validation};

pub(super) fn table(extra: Json) -> Json {
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
    assert_eq!(
        lsi(json!([index(
            "abc",
            json!([hash("a"), range("b")]),
            json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": ["x", "y", "x"]})
        )])),
        format!("{invalid}Duplicate element in NonKeyAttributes: x")
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
    let at_least_one = "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required";
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
    let create = json!({"IndexName": "abc", "KeySchema": [{"AttributeName": "b", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}});
    let both = json!({"Create": create, "Delete": {"IndexName": "abc"}});
    assert_eq!(
        validation("UpdateTable", json!({"TableName": "abc", "GlobalSecondaryIndexUpdates": [both]})),
        format!("{invalid}Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object")
    );
    assert_eq!(
        validation("UpdateTable", json!({"TableName": "abc", "GlobalSecondaryIndexUpdates": [{"Update": {}}]})),
        "1 validation error detected: Value null at 'globalSecondaryIndexUpdates.1.member.update.indexName' failed \
         to satisfy constraint: Member must not be null"
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
        "1 validation error detected: Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy \
         constraint: Member must have length greater than or equal to 1"
    );
    for operation in ["TagResource", "UntagResource", "ListTagsOfResource"] {
        assert_eq!(validation(operation, json!({})), "Invalid TableArn");
    }
    passes("DescribeLimits", json!({"anything": 1}));
}

#[test]
fn an_unknown_index_key_type_breaks_its_enum_as_a_tables_does() {
    // moto's test of an unknown key type, verified against DynamoDB, gets one constraint message
    // for each place a key schema can be.
    let keys = json!([{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "c", "KeyType": "SORT"}]);
    let enum_error = |at: &str| {
        format!(
            "1 validation error detected: Value 'SORT' at '{at}.1.member.keySchema.2.member.keyType' failed to \
             satisfy constraint: Member must satisfy enum value set: [HASH, RANGE]"
        )
    };
    let all = json!({"ProjectionType": "ALL"});
    assert_eq!(
        validation("CreateTable", table(json!({"GlobalSecondaryIndexes": [global("abc", keys.clone(), all.clone())]}))),
        enum_error("globalSecondaryIndexes")
    );
    assert_eq!(
        validation("CreateTable", table(json!({"LocalSecondaryIndexes": [index("abc", keys.clone(), all.clone())]}))),
        enum_error("localSecondaryIndexes")
    );
}
