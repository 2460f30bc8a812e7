"""Fault rules added by the test, as boto3 meets them."""

import pytest
from botocore.exceptions import ClientError

from conftest import create_table
from dynalease_fake import ControlError


def outcomes(fake, operation):
    return [request["Outcome"] for request in fake.requests() if request["Operation"] == operation]


def test_a_throttled_update_item_is_retried_by_boto3_and_applied_once(dynalease_fake, dynamodb, backoffs):
    create_table(dynamodb, "Counters")
    rule = dynalease_fake.add_fault("throttle", operation="UpdateItem", times=1)

    dynamodb.update_item(
        TableName="Counters",
        Key={"pk": {"S": "visits"}},
        UpdateExpression="ADD hits :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )

    assert outcomes(dynalease_fake, "UpdateItem") == ["ProvisionedThroughputExceededException", "OK"]
    assert len(backoffs) == 1, "boto3 backed off once before its retry"
    item = dynamodb.get_item(TableName="Counters", Key={"pk": {"S": "visits"}}, ConsistentRead=True)["Item"]
    assert item["hits"] == {"N": "1"}
    [shown] = dynalease_fake.faults()
    assert (shown["Id"], shown["Fault"], shown["Fired"], shown["Remaining"]) == (rule, "Throttle", 1, 0)


def test_the_retry_of_a_conditional_put_whose_answer_was_lost_meets_its_own_write(dynalease_fake, dynamodb, backoffs):
    create_table(dynamodb, "Orders")
    dynalease_fake.add_fault("lost_response", operation="PutItem", times=1)

    with pytest.raises(ClientError) as failed:
        dynamodb.put_item(
            TableName="Orders",
            Item={"pk": {"S": "order#1"}, "state": {"S": "new"}},
            ConditionExpression="attribute_not_exists(pk)",
        )

    # The first put was applied and its answer lost; boto3 sent it again, and the condition
    # failed on the item the first one wrote.
    assert failed.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert failed.value.response["ResponseMetadata"]["RetryAttempts"] == 1
    puts = [request for request in dynalease_fake.requests() if request["Operation"] == "PutItem"]
    assert [(put["Outcome"], put.get("Fault")) for put in puts] == [
        ("OK", "LostResponse"),
        ("ConditionalCheckFailedException", None),
    ]
    item = dynamodb.get_item(TableName="Orders", Key={"pk": {"S": "order#1"}}, ConsistentRead=True)["Item"]
    assert item["state"] == {"S": "new"}


def test_an_error_rule_answers_its_code_and_message_to_the_table_it_names(dynalease_fake, dynamodb):
    create_table(dynamodb, "Locked")
    create_table(dynamodb, "Open")
    dynalease_fake.add_fault("error", table="Locked", code="AccessDeniedException", message="not for you")

    with pytest.raises(ClientError) as denied:
        dynamodb.get_item(TableName="Locked", Key={"pk": {"S": "a"}})
    assert denied.value.response["Error"] == {"Code": "AccessDeniedException", "Message": "not for you"}
    dynamodb.get_item(TableName="Open", Key={"pk": {"S": "a"}})


def test_a_latency_rule_lets_requests_through_after_its_times(dynalease_fake, dynamodb):
    rule = dynalease_fake.add_fault("latency", operation="ListTables", ms=1, times=1, after=1)
    for _ in range(3):
        dynamodb.list_tables()
    [shown] = dynalease_fake.faults()
    assert (shown["Id"], shown["DelayMs"], shown["Matched"], shown["Fired"]) == (rule, 1, 2, 1)


def test_a_stale_read_rule_hides_a_fresh_write_from_eventually_consistent_reads_until_its_lag_has_passed(
    dynalease_fake, dynamodb
):
    create_table(dynamodb, "Carts")
    rule = dynalease_fake.add_fault("stale_read", table="Carts", max_lag_ms=2000)
    dynamodb.put_item(TableName="Carts", Item={"pk": {"S": "cart#1"}})

    key = {"pk": {"S": "cart#1"}}
    assert "Item" not in dynamodb.get_item(TableName="Carts", Key=key)
    assert "Item" in dynamodb.get_item(TableName="Carts", Key=key, ConsistentRead=True)
    stale, consistent = dynalease_fake.requests()[-2:]
    assert (stale["Fault"], "ReadAsOf" in stale) == ("StaleRead", True)
    assert ("Fault" in consistent, "ReadAsOf" in consistent) == (False, False)
    dynalease_fake.advance(2)
    assert "Item" in dynamodb.get_item(TableName="Carts", Key=key)
    [shown] = dynalease_fake.faults()
    assert (shown["Id"], shown["Fault"], shown["MaxLagMs"]) == (rule, "StaleRead", 2000)


def test_rules_are_removed_one_by_one_or_all_at_once(dynalease_fake, dynamodb):
    first = dynalease_fake.add_fault("internal_error", operation="PutItem", probability=0.5)
    second = dynalease_fake.add_fault("throttle", table="Shop")
    third = dynalease_fake.add_fault("unprocessed", operation="BatchWriteItem", processed=1)
    dynalease_fake.remove_fault(first)
    assert [rule["Id"] for rule in dynalease_fake.faults()] == [second, third]
    with pytest.raises(ControlError) as missing:
        dynalease_fake.remove_fault(first)
    assert (missing.value.status, missing.value.message) == (404, f"there is no fault rule {first}")
    assert dynalease_fake.clear_faults() == [second, third]
    assert dynalease_fake.faults() == []


def test_a_fault_that_is_not_well_formed_is_refused_before_it_is_sent(dynalease_fake):
    with pytest.raises(ValueError, match="unknown fault kind 'slow'; the kinds are throttle, "):
        dynalease_fake.add_fault("slow")
    with pytest.raises(TypeError, match="a latency fault needs ms="):
        dynalease_fake.add_fault("latency")
    with pytest.raises(TypeError, match="a throttle fault does not take code; it takes no details"):
        dynalease_fake.add_fault("throttle", code="X")
    with pytest.raises(ControlError, match="unknown Operation `PutItems`"):
        dynalease_fake.add_fault("throttle", operation="PutItems")
    assert dynalease_fake.faults() == []
