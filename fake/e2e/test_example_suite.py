"""An example test suite for code that uses DynamoDB through boto3, run against
`dynalease-fake serve`: one server for the whole suite, reset between tests, its clock and faults
in the test's hands through the control API.

Run: .venv/bin/python -m unittest fake/e2e/test_example_suite.py -v
"""

import tempfile
import time
import unittest
from pathlib import Path

from fake_server import ControlError, FakeServer

START = "2026-01-01T00:00:00Z"


def create_carts_table(dynamodb, name: str = "Carts") -> None:
    dynamodb.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )


class ExampleSuite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The fake's clock stands still at START until a test moves it.
        cls.server = FakeServer("--clock", "manual", "--start-time", START)
        cls.dynamodb = cls.server.client()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def setUp(self):
        self.server.reset()

    def test_create_table_and_the_table_waiter_take_under_a_second(self):
        began = time.monotonic()
        create_carts_table(self.dynamodb)
        self.dynamodb.get_waiter("table_exists").wait(TableName="Carts")
        elapsed = time.monotonic() - began
        # The waiter's first DescribeTable sees the table ACTIVE: it never sleeps its 20 s.
        described = [r for r in self.server.requests() if r["Operation"] == "DescribeTable"]
        self.assertEqual(len(described), 1, described)
        self.assertLess(elapsed, 1.0)

    def test_an_item_expires_when_the_clock_moves_two_days(self):
        create_carts_table(self.dynamodb)
        self.dynamodb.update_time_to_live(
            TableName="Carts", TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"}
        )
        now = int(self.server.control("GET", "clock")["EpochSeconds"])
        self.dynamodb.put_item(
            TableName="Carts", Item={"id": {"S": "s1"}, "expires": {"N": str(now + 86_400)}}
        )
        self.dynamodb.put_item(TableName="Carts", Item={"id": {"S": "s2"}})
        self.assertIn("Item", self.dynamodb.get_item(TableName="Carts", Key={"id": {"S": "s1"}}))

        self.server.advance("2days")

        self.assertNotIn("Item", self.dynamodb.get_item(TableName="Carts", Key={"id": {"S": "s1"}}))
        self.assertIn("Item", self.dynamodb.get_item(TableName="Carts", Key={"id": {"S": "s2"}}))

    def test_one_throttled_update_is_retried_by_the_client(self):
        create_carts_table(self.dynamodb)
        rule = self.server.add_fault(Fault="Throttle", Operation="UpdateItem", Times=1)

        self.dynamodb.update_item(
            TableName="Carts",
            Key={"id": {"S": "s1"}},
            UpdateExpression="ADD hits :one",
            ExpressionAttributeValues={":one": {"N": "1"}},
        )

        item = self.dynamodb.get_item(TableName="Carts", Key={"id": {"S": "s1"}}, ConsistentRead=True)["Item"]
        self.assertEqual(item["hits"], {"N": "1"}, "applied once, by the retry")
        updates = [r["Outcome"] for r in self.server.requests() if r["Operation"] == "UpdateItem"]
        self.assertEqual(updates, ["ProvisionedThroughputExceededException", "OK"])
        fired = [r["Fired"] for r in self.server.control("GET", "faults")["Rules"] if r["Id"] == rule["Id"]]
        self.assertEqual(fired, [1])

    def test_a_malformed_control_request_is_refused_with_what_is_wrong(self):
        with self.assertRaises(ControlError) as refused:
            self.server.add_fault(Fault="Throttle", Operation="UpdateItems")
        self.assertEqual(refused.exception.status, 400)
        self.assertIn("unknown Operation `UpdateItems`", refused.exception.message)
        self.assertEqual(self.server.control("GET", "faults"), {"Rules": []})


class RestartFromDataFile(unittest.TestCase):
    def test_the_server_restarts_from_its_data_file_with_its_items(self):
        with tempfile.TemporaryDirectory() as folder:
            data = str(Path(folder) / "tables.json")
            with FakeServer("--data", data) as first:
                dynamodb = first.client()
                create_carts_table(dynamodb)
                for i in range(3):
                    dynamodb.put_item(TableName="Carts", Item={"id": {"S": f"s{i}"}, "n": {"N": str(i)}})
                self.assertEqual(first.stop(), 0)
            with FakeServer("--data", data) as second:
                items = second.client().scan(TableName="Carts", ConsistentRead=True)["Items"]
                self.assertEqual(sorted(item["id"]["S"] for item in items), ["s0", "s1", "s2"])
                self.assertEqual(second.stop(), 0)


if __name__ == "__main__":
    unittest.main()
