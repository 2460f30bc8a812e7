"""One server, many accounts: ``for_account`` sees the server from an account of its own, whose
tables, fault rules, request log, reset and clock are its own."""

import os
from datetime import timedelta

import pytest

from conftest import START, create_table


@pytest.fixture
def two(dynalease_fake):
    """Two accounts of the run's server, reset, of this test worker alone (a pytest-xdist run's
    workers share the server)."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:])
    accounts = [dynalease_fake.for_account(str(200_000_000_000 + 2 * worker + n)) for n in (0, 1)]
    for account in accounts:
        account.reset()
    return accounts


def test_two_accounts_with_a_table_of_the_same_name_never_see_each_other(dynalease_fake, two):
    alice, bob = two
    for fake in (alice, bob):
        create_table(fake.client(), "Shop")
        fake.client().put_item(TableName="Shop", Item={"pk": {"S": fake.account}})
    assert alice.client().scan(TableName="Shop")["Items"] == [{"pk": {"S": alice.account}}]
    assert bob.client().scan(TableName="Shop")["Items"] == [{"pk": {"S": bob.account}}]
    assert dynalease_fake.client().list_tables()["TableNames"] == []
    arn = alice.client().describe_table(TableName="Shop")["Table"]["TableArn"]
    assert arn == f"arn:aws:dynamodb:us-east-1:{alice.account}:table/Shop"
    assert alice.access_key_id == alice.account


def test_an_accounts_faults_log_clock_and_reset_are_its_own(dynalease_fake, two):
    alice, bob = two
    create_table(alice.client(), "Shop")
    create_table(bob.client(), "Shop")
    alice.add_fault("error", operation="GetItem", code="AccessDeniedException")
    with pytest.raises(Exception, match="AccessDeniedException"):
        alice.client().get_item(TableName="Shop", Key={"pk": {"S": "a"}})
    assert "Item" not in bob.client().get_item(TableName="Shop", Key={"pk": {"S": "a"}})
    assert [rule["Account"] for rule in alice.faults()] == [alice.account]
    assert bob.faults() == []
    assert [request["Operation"] for request in bob.requests()] == ["CreateTable", "GetItem"]

    alice.advance(days=2)
    assert alice.now() == START + timedelta(days=2)
    assert bob.now() == START and dynalease_fake.now() == START, "the others' clocks stand where they were"

    alice.reset()
    assert alice.now() == START and alice.is_frozen()
    assert alice.faults() == [] and alice.requests() == []
    assert alice.client().list_tables()["TableNames"] == []
    assert bob.client().list_tables()["TableNames"] == ["Shop"]
    assert [request["Operation"] for request in bob.requests()] == ["CreateTable", "GetItem", "ListTables"]


def test_an_account_is_twelve_digits():
    from dynalease_fake import FakeServer

    with pytest.raises(ValueError, match="twelve digits"):
        FakeServer().for_account("alice")
