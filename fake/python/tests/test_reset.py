"""Each test finds the run's server as it started: no table, no fault rule, an empty
request log, the manual clock at its start time and standing still."""

import pytest

from conftest import START, create_table


@pytest.mark.parametrize("turn", ["first", "second"])
def test_each_test_finds_the_server_reset_whatever_the_one_before_left(dynalease_fake, dynamodb, turn):
    # Whichever of the two runs second meets what the other left.
    assert dynamodb.list_tables()["TableNames"] == []
    assert dynalease_fake.faults() == []
    assert [request["Operation"] for request in dynalease_fake.requests()] == ["ListTables"]
    assert dynalease_fake.now() == START
    assert dynalease_fake.is_frozen()

    create_table(dynamodb, "Leftover")
    dynamodb.put_item(TableName="Leftover", Item={"pk": {"S": turn}})
    dynalease_fake.add_fault("throttle", operation="Scan")
    dynalease_fake.advance(days=3)
    dynalease_fake.run()


def test_a_table_of_the_same_name_is_new_after_a_reset(dynalease_fake, dynamodb):
    create_table(dynamodb, "Shop")
    dynamodb.put_item(TableName="Shop", Item={"pk": {"S": "a"}})
    dynalease_fake.reset()
    create_table(dynamodb, "Shop")
    assert dynamodb.scan(TableName="Shop")["Items"] == []
