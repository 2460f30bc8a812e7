"""Time to live on the fake's clock: two days pass in one call, and the deletion shows in the
table's stream as DynamoDB's own."""

from datetime import timedelta

from conftest import START, create_table


def expiring_tokens_table(dynamodb) -> None:
    stream = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    create_table(dynamodb, "Tokens", StreamSpecification=stream)
    dynamodb.update_time_to_live(
        TableName="Tokens", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}
    )


def test_an_item_expires_when_the_clock_advances_two_days(dynalease_fake, dynamodb):
    expiring_tokens_table(dynamodb)
    in_a_day = int((dynalease_fake.now() + timedelta(days=1)).timestamp())
    dynamodb.put_item(TableName="Tokens", Item={"pk": {"S": "s1"}, "expires": {"N": str(in_a_day)}})
    dynamodb.put_item(TableName="Tokens", Item={"pk": {"S": "s2"}})

    assert dynalease_fake.advance(days=2) == START + timedelta(days=2)

    assert "Item" not in dynamodb.get_item(TableName="Tokens", Key={"pk": {"S": "s1"}}, ConsistentRead=True)
    assert "Item" in dynamodb.get_item(TableName="Tokens", Key={"pk": {"S": "s2"}}, ConsistentRead=True)


def test_the_expiry_leaves_a_stream_record_by_the_service_at_the_time_of_its_sweep(dynalease_fake, dynamodb):
    expiring_tokens_table(dynamodb)
    due = START + timedelta(hours=36)
    dynamodb.put_item(TableName="Tokens", Item={"pk": {"S": "s1"}, "expires": {"N": str(int(due.timestamp()))}})
    dynalease_fake.advance(days=2)

    streams = dynalease_fake.streams_client()
    arn = dynamodb.describe_table(TableName="Tokens")["Table"]["LatestStreamArn"]
    records = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        records.extend(streams.get_records(ShardIterator=iterator)["Records"])

    # The insert, two days old, is past the stream's 24 hours; the deletion, 12 hours old, is not.
    assert [record["eventName"] for record in records] == ["REMOVE"]
    removal = records[0]
    assert removal["userIdentity"] == {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}
    assert removal["dynamodb"]["OldImage"]["pk"] == {"S": "s1"}
    # Sweeps run every 10 minutes of the fake's clock from its start: the one at the expiry.
    assert removal["dynamodb"]["ApproximateCreationDateTime"] == due
