"""End to end: a DynamoDB Streams consumer written with boto3, reading the stream of a table that
`dynalease-fake serve` keeps, over real HTTP on the server's one port.

Run with the virtualenv that .ci/install-python.sh creates:
    .venv/bin/python -m unittest discover -s fake/e2e -p 'test_*.py' -v
"""

import unittest

from boto3.dynamodb.types import TypeDeserializer
from botocore.exceptions import ClientError

from fake_server import FakeServer, wait_until_active

TABLE = "Orders"
DESERIALIZE = TypeDeserializer().deserialize


def plain(image):
    """A stream image as Python values."""
    return None if image is None else {name: DESERIALIZE(value) for name, value in image.items()}


def consume(streams, arn):
    """Every record of the stream, as a consumer reads it: each shard from its trim horizon,
    GetRecords until the shard's end or an empty page."""
    records = []
    description = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    for shard in description["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        while iterator:
            page = streams.get_records(ShardIterator=iterator, Limit=2)
            if not page["Records"]:
                break
            records.extend(page["Records"])
            iterator = page.get("NextShardIterator")
    return records


class StreamConsumerAgainstTheServer(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer()
        self.client = self.server.client()
        self.streams = self.server.streams_client()
        created = self.client.create_table(
            TableName=TABLE,
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )
        self.arn = created["TableDescription"]["LatestStreamArn"]
        wait_until_active(self.client, TABLE)

    def tearDown(self):
        self.assertEqual(self.server.stop(), 0, "SIGTERM stops the server with exit code 0")

    def test_a_consumer_sees_every_change_in_order_with_its_images(self):
        self.client.put_item(TableName=TABLE, Item={"pk": {"S": "o1"}, "amount": {"N": "10"}})
        self.client.put_item(TableName=TABLE, Item={"pk": {"S": "o1"}, "amount": {"N": "10"}})  # no change
        self.client.update_item(
            TableName=TABLE,
            Key={"pk": {"S": "o1"}},
            UpdateExpression="SET amount = amount + :d",
            ExpressionAttributeValues={":d": {"N": "5"}},
        )
        self.client.batch_write_item(
            RequestItems={TABLE: [{"PutRequest": {"Item": {"pk": {"S": "o2"}, "amount": {"N": "1"}}}}]}
        )
        self.client.delete_item(TableName=TABLE, Key={"pk": {"S": "o1"}})

        listed = self.streams.list_streams(TableName=TABLE)["Streams"]
        self.assertEqual([s["StreamArn"] for s in listed], [self.arn])
        records = consume(self.streams, self.arn)
        changes = [
            (r["eventName"], plain(r["dynamodb"].get("OldImage")), plain(r["dynamodb"].get("NewImage")))
            for r in records
        ]
        self.assertEqual(
            changes,
            [
                ("INSERT", None, {"pk": "o1", "amount": 10}),
                ("MODIFY", {"pk": "o1", "amount": 10}, {"pk": "o1", "amount": 15}),
                ("INSERT", None, {"pk": "o2", "amount": 1}),
                ("REMOVE", {"pk": "o1", "amount": 15}, None),
            ],
        )
        numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
        self.assertEqual(numbers, sorted(numbers))
        for record in records:
            self.assertEqual(record["eventSource"], "aws:dynamodb")
            self.assertEqual(record["dynamodb"]["StreamViewType"], "NEW_AND_OLD_IMAGES")
            self.assertIn("ApproximateCreationDateTime", record["dynamodb"])

    def test_a_consumer_resumes_after_the_last_sequence_number_it_saw(self):
        self.client.put_item(TableName=TABLE, Item={"pk": {"S": "a"}})
        seen = consume(self.streams, self.arn)
        checkpoint = seen[-1]["dynamodb"]["SequenceNumber"]
        self.client.put_item(TableName=TABLE, Item={"pk": {"S": "b"}})
        shard = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"][0]
        iterator = self.streams.get_shard_iterator(
            StreamArn=self.arn,
            ShardId=shard["ShardId"],
            ShardIteratorType="AFTER_SEQUENCE_NUMBER",
            SequenceNumber=checkpoint,
        )["ShardIterator"]
        page = self.streams.get_records(ShardIterator=iterator)
        self.assertEqual([r["dynamodb"]["Keys"] for r in page["Records"]], [{"pk": {"S": "b"}}])
        self.assertIn("NextShardIterator", page, "an open shard reads on")

    def test_a_disabled_stream_is_closed_but_still_readable(self):
        self.client.put_item(TableName=TABLE, Item={"pk": {"S": "a"}})
        self.client.update_table(TableName=TABLE, StreamSpecification={"StreamEnabled": False})
        description = self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]
        self.assertEqual(description["StreamStatus"], "DISABLED")
        self.assertIn("EndingSequenceNumber", description["Shards"][0]["SequenceNumberRange"])
        self.assertEqual([r["eventName"] for r in consume(self.streams, self.arn)], ["INSERT"])
        with self.assertRaises(ClientError) as refused:
            self.client.update_table(TableName=TABLE, StreamSpecification={"StreamEnabled": False})
        self.assertEqual(refused.exception.response["Error"]["Code"], "ValidationException")

    def test_bad_input_gets_dynamodb_streams_errors(self):
        cases = [
            (lambda: self.streams.describe_stream(StreamArn="x" * 40), "ValidationException"),
            (lambda: self.streams.get_records(ShardIterator="not-an-iterator"), "ValidationException"),
            (
                lambda: self.streams.get_shard_iterator(
                    StreamArn=self.arn, ShardId="shardId-" + "0" * 29, ShardIteratorType="LATEST"
                ),
                "ResourceNotFoundException",
            ),
            (
                lambda: self.streams.describe_stream(StreamArn=self.arn.replace("Orders", "Nobody")),
                "ResourceNotFoundException",
            ),
        ]
        for call, code in cases:
            with self.assertRaises(ClientError) as refused:
                call()
            self.assertEqual(refused.exception.response["Error"]["Code"], code)


if __name__ == "__main__":
    unittest.main()
