"""The small test module the speed comparison times: a table, 200 puts and gets, a query; the
same body whatever serves the ``dynamodb`` client (see conftest.py, ``--backend``)."""

import pytest


@pytest.mark.parametrize("run", range(3))
def test_orders_are_written_read_and_queried(dynamodb, run):
    dynamodb.create_table(
        TableName="Orders",
        AttributeDefinitions=[
            {"AttributeName": "customer", "AttributeType": "S"},
            {"AttributeName": "order", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "customer", "KeyType": "HASH"}, {"AttributeName": "order", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for number in range(200):
        key = {"customer": {"S": f"customer#{number % 10}"}, "order": {"S": f"order#{number:03d}"}}
        dynamodb.put_item(TableName="Orders", Item={**key, "total": {"N": str(number)}})
    for number in range(200):
        key = {"customer": {"S": f"customer#{number % 10}"}, "order": {"S": f"order#{number:03d}"}}
        item = dynamodb.get_item(TableName="Orders", Key=key, ConsistentRead=True)["Item"]
        assert item["total"] == {"N": str(number)}
    orders = dynamodb.query(
        TableName="Orders",
        KeyConditionExpression="customer = :customer",
        ExpressionAttributeValues={":customer": {"S": "customer#3"}},
    )["Items"]
    assert len(orders) == 20
