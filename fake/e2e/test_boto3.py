"""End to end: `dynalease-fake serve` driven by boto3 over real HTTP.

Run with the virtualenv that .ci/install-python.sh creates:
    .venv/bin/python -m unittest discover -s fake/e2e -p 'test_*.py' -v
"""

import signal
import unittest

import boto3

from botocore.exceptions import ClientError, ConnectionClosedError

from fake_server import FakeServer, wait_until_active

TABLE = "Orders"


def create_table(client, name=TABLE):
    client.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    wait_until_active(client, name)


def error_code(error: ClientError) -> str:
    return error.response["Error"]["Code"]


class Boto3AgainstTheServer(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer()
        self.client = self.server.client()
        create_table(self.client)

    def tearDown(self):
        self.assertEqual(self.server.stop(), 0, "SIGTERM stops the server with exit code 0")

    def test_the_table_is_listed_and_described(self):
        self.assertEqual(self.client.list_tables()["TableNames"], [TABLE])
        table = self.client.describe_table(TableName=TABLE)["Table"]
        self.assertEqual(table["TableStatus"], "ACTIVE")
        self.assertEqual(table["KeySchema"], [{"AttributeName": "pk", "KeyType": "HASH"}])

    def test_a_conditional_put_succeeds_once_then_fails_with_the_old_item(self):
        put = dict(
            TableName=TABLE,
            Item={"pk": {"S": "order#1"}, "total": {"N": "12.50"}},
            ConditionExpression="attribute_not_exists(pk)",
        )
        self.client.put_item(**put)
        with self.assertRaises(ClientError) as failed:
            self.client.put_item(**put, ReturnValuesOnConditionCheckFailure="ALL_OLD")
        self.assertEqual(error_code(failed.exception), "ConditionalCheckFailedException")
        self.assertEqual(failed.exception.response["Item"]["total"], {"N": "12.5"})
        got = self.client.get_item(TableName=TABLE, Key={"pk": {"S": "order#1"}}, ConsistentRead=True)
        self.assertEqual(got["Item"]["total"], {"N": "12.5"})

    def test_a_conditional_update_applies_and_returns_the_new_values(self):
        self.client.put_item(TableName=TABLE, Item={"pk": {"S": "counter"}, "n": {"N": "1"}})
        updated = self.client.update_item(
            TableName=TABLE,
            Key={"pk": {"S": "counter"}},
            UpdateExpression="SET n = n + :one",
            ConditionExpression="n = :expected",
            ExpressionAttributeValues={":one": {"N": "1"}, ":expected": {"N": "1"}},
            ReturnValues="UPDATED_NEW",
        )
        self.assertEqual(updated["Attributes"], {"n": {"N": "2"}})

    def test_a_failed_transaction_reports_its_reasons_in_request_order_and_applies_nothing(self):
        self.client.put_item(TableName=TABLE, Item={"pk": {"S": "taken"}})
        with self.assertRaises(ClientError) as failed:
            self.client.transact_write_items(
                TransactItems=[
                    {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "first"}}}},
                    {
                        "Put": {
                            "TableName": TABLE,
                            "Item": {"pk": {"S": "taken"}, "v": {"S": "new"}},
                            "ConditionExpression": "attribute_not_exists(pk)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                        }
                    },
                    {"Update": {"TableName": TABLE, "Key": {"pk": {"S": "third"}}, "UpdateExpression": "SET v = :v",
                                "ExpressionAttributeValues": {":v": {"S": "x"}}}},
                ]
            )
        self.assertEqual(error_code(failed.exception), "TransactionCanceledException")
        reasons = failed.exception.response["CancellationReasons"]
        self.assertEqual([reason["Code"] for reason in reasons], ["None", "ConditionalCheckFailed", "None"])
        self.assertEqual(reasons[1]["Item"], {"pk": {"S": "taken"}})
        for key in ("first", "third"):
            got = self.client.get_item(TableName=TABLE, Key={"pk": {"S": key}}, ConsistentRead=True)
            self.assertNotIn("Item", got, f"{key} was not written")

    def test_a_successful_transaction_applies_every_action(self):
        self.client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "a"}}}},
                {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "b"}}}},
            ]
        )
        got = self.client.transact_get_items(
            TransactItems=[{"Get": {"TableName": TABLE, "Key": {"pk": {"S": key}}}} for key in ("a", "b")]
        )
        self.assertEqual([r["Item"]["pk"]["S"] for r in got["Responses"]], ["a", "b"])

    def test_a_missing_table_is_resource_not_found(self):
        with self.assertRaises(ClientError) as failed:
            self.client.get_item(TableName="Nowhere", Key={"pk": {"S": "x"}})
        self.assertEqual(error_code(failed.exception), "ResourceNotFoundException")


    def test_each_account_and_region_of_boto3s_signature_has_tables_of_its_own(self):
        def client(access_key, region):
            return boto3.client("dynamodb", endpoint_url=self.server.endpoint, region_name=region,
                                aws_access_key_id=access_key, aws_secret_access_key="x")

        alice, bob = client("111111111111", "us-east-1"), client("222222222222", "us-east-1")
        alice_west = client("111111111111", "eu-west-1")
        for each in (alice, bob, alice_west):
            create_table(each)
        alice.put_item(TableName=TABLE, Item={"pk": {"S": "o1"}, "by": {"S": "alice"}})
        bob.put_item(TableName=TABLE, Item={"pk": {"S": "o1"}, "by": {"S": "bob"}})
        self.assertEqual(alice.get_item(TableName=TABLE, Key={"pk": {"S": "o1"}})["Item"]["by"], {"S": "alice"})
        self.assertEqual(bob.get_item(TableName=TABLE, Key={"pk": {"S": "o1"}})["Item"]["by"], {"S": "bob"})
        self.assertNotIn("Item", alice_west.get_item(TableName=TABLE, Key={"pk": {"S": "o1"}}))
        self.assertNotIn("Item", self.client.get_item(TableName=TABLE, Key={"pk": {"S": "o1"}}))
        arn = alice_west.describe_table(TableName=TABLE)["Table"]["TableArn"]
        self.assertEqual(arn, "arn:aws:dynamodb:eu-west-1:111111111111:table/Orders")
        self.server.control("POST", "reset?account=111111111111")
        self.assertEqual(alice.list_tables()["TableNames"], [])
        self.assertEqual(alice_west.list_tables()["TableNames"], [])
        self.assertEqual(bob.list_tables()["TableNames"], [TABLE])


class Boto3WithFaults(unittest.TestCase):
    def test_a_throttle_rate_of_1_is_provisioned_throughput_exceeded_without_retries(self):
        with FakeServer("--throttle-rate", "1.0") as server:
            client = server.client(max_attempts=1)
            with self.assertRaises(ClientError) as failed:
                client.list_tables()
            self.assertEqual(error_code(failed.exception), "ProvisionedThroughputExceededException")
            self.assertEqual(failed.exception.response["ResponseMetadata"]["HTTPStatusCode"], 400)
            self.assertEqual(server.stop(signal.SIGINT), 0)

    def test_an_error_rate_of_1_is_a_500_internal_server_error(self):
        with FakeServer("--error-rate", "1.0") as server:
            with self.assertRaises(ClientError) as failed:
                server.client(max_attempts=1).list_tables()
            self.assertEqual(error_code(failed.exception), "InternalServerError")
            self.assertEqual(failed.exception.response["ResponseMetadata"]["HTTPStatusCode"], 500)

    def test_a_lost_response_applied_the_put_that_boto3_saw_fail(self):
        with FakeServer("--lost-response-rate", "1.0", "--fault-operation", "PutItem") as server:
            client = server.client(max_attempts=1)
            create_table(client)
            with self.assertRaises(ConnectionClosedError):
                client.put_item(TableName=TABLE, Item={"pk": {"S": "applied"}})
            got = client.get_item(TableName=TABLE, Key={"pk": {"S": "applied"}}, ConsistentRead=True)
            self.assertEqual(got["Item"], {"pk": {"S": "applied"}})

    def test_a_conditional_put_retried_after_its_lost_response_meets_its_own_write(self):
        args = ("--lost-response-rate", "1.0", "--fault-operation", "PutItem", "--fault-times", "1")
        with FakeServer(*args) as server:
            client = server.client(max_attempts=2)
            create_table(client)
            with self.assertRaises(ClientError) as failed:
                client.put_item(
                    TableName=TABLE, Item={"pk": {"S": "once"}}, ConditionExpression="attribute_not_exists(pk)"
                )
            self.assertEqual(error_code(failed.exception), "ConditionalCheckFailedException")
            self.assertEqual(failed.exception.response["ResponseMetadata"]["RetryAttempts"], 1)

if __name__ == "__main__":
    unittest.main()
