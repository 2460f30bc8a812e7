"""End to end: PartiQL statements sent with boto3 to `dynalease-fake serve` over real HTTP.

Run with the virtualenv that .ci/install-python.sh creates:
    .venv/bin/python -m unittest discover -s fake/e2e -p 'test_*.py' -v
"""

import unittest

from botocore.exceptions import ClientError

from fake_server import FakeServer, wait_until_active

TABLE = "Orders"


class PartiQLAgainstTheServer(unittest.TestCase):
    def setUp(self):
        self.server = FakeServer()
        self.client = self.server.client()
        self.client.create_table(
            TableName=TABLE,
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
        wait_until_active(self.client, TABLE)

    def tearDown(self):
        self.assertEqual(self.server.stop(), 0, "SIGTERM stops the server with exit code 0")

    def test_statements_insert_update_select_and_delete(self):
        run = self.client.execute_statement
        self.assertEqual(run(Statement=f"INSERT INTO \"{TABLE}\" VALUE {{'pk': 'o1', 'qty': 3}}")["Items"], [])
        with self.assertRaises(ClientError) as duplicate:
            run(Statement=f"INSERT INTO \"{TABLE}\" VALUE {{'pk': ?}}", Parameters=[{"S": "o1"}])
        self.assertEqual(duplicate.exception.response["Error"]["Code"], "DuplicateItemException")
        updated = run(
            Statement=f'UPDATE "{TABLE}" SET qty = qty + ? WHERE pk = ? RETURNING ALL NEW *',
            Parameters=[{"N": "2"}, {"S": "o1"}],
        )
        self.assertEqual(updated["Items"], [{"pk": {"S": "o1"}, "qty": {"N": "5"}}])
        self.assertEqual(
            run(Statement=f"SELECT qty FROM \"{TABLE}\" WHERE pk = 'o1'")["Items"], [{"qty": {"N": "5"}}]
        )
        batch = self.client.batch_execute_statement(
            Statements=[
                {"Statement": f"DELETE FROM \"{TABLE}\" WHERE pk = 'o1'"},
                {"Statement": f"UPDATE \"{TABLE}\" SET qty = 1 WHERE pk = 'nobody'"},
            ]
        )["Responses"]
        self.assertEqual(batch[0], {"TableName": TABLE})
        self.assertEqual(batch[1]["Error"]["Code"], "ConditionalCheckFailed")
        self.assertEqual(self.client.scan(TableName=TABLE)["Items"], [])

    def test_a_statement_that_does_not_parse_is_a_validation_error(self):
        with self.assertRaises(ClientError) as refused:
            self.client.execute_statement(Statement="SELEC * FROM Orders")
        error = refused.exception.response["Error"]
        self.assertEqual(error["Code"], "ValidationException")
        self.assertEqual(error["Message"], "Statement wasn't well formed, can't be processed: Expected data manipulation")


if __name__ == "__main__":
    unittest.main()
