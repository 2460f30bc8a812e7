//! A member that is not part of an operation's input is ignored, as DynamoDB's JSON protocol
//! ignores it: GetItem, a table of BatchGetItem and a `Get` of TransactGetItems have no
//! `ExpressionAttributeValues`, so one they carry is neither checked nor reported unused.

mod support;

use dynalease_fake::FakeDynamoDb;
use serde_json::json;
use support::{invalid, ok};

#[test]
fn expression_attribute_values_of_a_read_without_them_are_ignored() {
    let fake = FakeDynamoDb::new();
    fake.create_table("Things", "pk", None);
    ok(&fake, "PutItem", json!({"TableName": "Things", "Item": {"pk": {"S": "a"}, "v": {"N": "1"}}}));
    let item = json!({"pk": {"S": "a"}, "v": {"N": "1"}});
    for values in [json!({":v": {"N": "1"}}), json!({}), json!({"bad key": {"N": "not a number"}})] {
        let get = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "ExpressionAttributeValues": values});
        assert_eq!(ok(&fake, "GetItem", get)["Item"], item, "{values}");
        let batch =
            json!({"RequestItems": {"Things": {"Keys": [{"pk": {"S": "a"}}], "ExpressionAttributeValues": values}}});
        assert_eq!(ok(&fake, "BatchGetItem", batch)["Responses"]["Things"], json!([item]), "{values}");
        let transact = json!({"TransactItems": [{"Get": {"TableName": "Things", "Key": {"pk": {"S": "a"}},
                                                          "ExpressionAttributeValues": values}}]});
        assert_eq!(ok(&fake, "TransactGetItems", transact)["Responses"], json!([{"Item": item}]), "{values}");
    }
    // Their names are part of their input, and checked.
    let get = json!({"TableName": "Things", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "v",
                     "ExpressionAttributeNames": {"#unused": "x"}, "ExpressionAttributeValues": {":v": {"N": "1"}}});
    assert_eq!(
        invalid(&fake, "GetItem", get),
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}"
    );
    // An operation whose input has them still reports one left unused.
    let query = json!({"TableName": "Things", "KeyConditionExpression": "pk = :p",
                       "ExpressionAttributeValues": {":p": {"S": "a"}, ":v": {"N": "1"}}});
    assert_eq!(
        invalid(&fake, "Query", query),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}"
    );
}
