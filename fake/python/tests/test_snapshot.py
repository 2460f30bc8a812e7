"""Tables loaded from a snapshot, the way a suite keeps its fixtures: a JSON file, or the dict
another test's server saved."""

import json

import pytest

from conftest import FIXTURES, create_table
from dynalease_fake import ControlError


@pytest.fixture
def shop(dynalease_fake):
    """The run's server with the tables of fixtures/shop.json."""
    assert dynalease_fake.load(FIXTURES / "shop.json") == ["Shop"]
    return dynalease_fake


def test_a_snapshot_file_is_loaded_as_a_fixture(shop, dynamodb):
    orders = dynamodb.query(
        TableName="Shop",
        KeyConditionExpression="pk = :customer",
        ExpressionAttributeValues={":customer": {"S": "customer#1"}},
    )["Items"]
    assert [(order["sk"]["S"], order["total"]["N"]) for order in orders] == [("order#1", "12.5"), ("order#2", "7")]


def test_a_snapshot_taken_is_a_dict_that_loads_back_after_a_reset(shop, dynamodb):
    dynamodb.put_item(TableName="Shop", Item={"pk": {"S": "customer#3"}, "sk": {"S": "order#9"}})
    taken = shop.snapshot()
    json.dumps(taken)  # plain JSON data, to keep as a file
    assert [table["TableName"] for table in taken["Tables"]] == ["Shop"]
    assert len(taken["Tables"][0]["Items"]) == 4

    shop.reset()
    assert dynamodb.list_tables()["TableNames"] == []
    assert shop.load(taken) == ["Shop"]
    assert shop.snapshot() == taken
    assert dynamodb.scan(TableName="Shop", Select="COUNT")["Count"] == 4


def test_a_snapshot_that_does_not_load_says_where_and_changes_nothing(dynalease_fake, dynamodb):
    create_table(dynamodb, "Kept")
    with pytest.raises(ControlError) as refused:
        dynalease_fake.load(FIXTURES / "broken.json")
    assert refused.value.status == 400
    assert refused.value.message == (
        "the snapshot cannot be loaded: line 10, column 3: table 1 of Tables: Broken: item 2: ValidationException: "
        "One or more parameter values were invalid: Missing the key pk in the item"
    )
    assert dynamodb.list_tables()["TableNames"] == ["Kept"]
