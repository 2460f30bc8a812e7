"""A global table across two regions of one server: a replica made by UpdateTable, each write
reaching it after the replication lag on the manual clock, and a stall that holds it back."""

from conftest import create_table


def replicated(fake):
    east, west = fake.client(), fake.client(region_name="eu-west-1")
    create_table(east, "Orders")
    east.update_table(TableName="Orders", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    return east, west


def test_a_write_reaches_the_replica_after_the_lag_unless_a_stall_holds_it(dynalease_fake):
    east, west = replicated(dynalease_fake)
    table = west.describe_table(TableName="Orders")["Table"]
    assert [r["RegionName"] for r in table["Replicas"]] == ["us-east-1"]
    assert table["GlobalTableVersion"] == "2019.11.21"

    east.put_item(TableName="Orders", Item={"pk": {"S": "a"}})
    assert "Item" not in west.get_item(TableName="Orders", Key={"pk": {"S": "a"}})
    dynalease_fake.advance(seconds=1)
    assert "Item" in west.get_item(TableName="Orders", Key={"pk": {"S": "a"}})

    dynalease_fake.add_fault("stall_replication", region="eu-west-1", table="Orders")
    east.put_item(TableName="Orders", Item={"pk": {"S": "b"}})
    dynalease_fake.advance(minutes=10)
    assert "Item" not in west.get_item(TableName="Orders", Key={"pk": {"S": "b"}})
    dynalease_fake.clear_faults()
    assert "Item" in west.get_item(TableName="Orders", Key={"pk": {"S": "b"}})
