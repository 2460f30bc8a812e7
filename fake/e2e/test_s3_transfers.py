"""End to end: exports to S3 and imports from it, with `dynalease-fake serve --s3-endpoint` and a
moto server as the S3 (installed into the virtualenv by .ci/install-python.sh), both on loopback
ports, driven with boto3: DynamoDB's layout of an export, imports of DynamoDB JSON and CSV, and
what a missing bucket or an S3 that does not answer does to them (the server stays up).

Run with the virtualenv that .ci/install-python.sh creates:
    .venv/bin/python -m unittest discover -s fake/e2e -p 'test_*.py' -v
"""

import gzip
import json
import socket
import subprocess
import sys
import time
import unittest
import urllib.request
from pathlib import Path

import boto3

from fake_server import FakeServer, wait_until_active

TABLE = "Orders"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class MotoServer:
    """`moto_server` of this virtualenv on a free loopback port, as the S3 of the tests."""

    def __init__(self):
        executable = Path(sys.executable).parent / "moto_server"
        if not executable.exists():
            raise RuntimeError(f"{executable} is missing: run `bash .ci/install-python.sh`, which installs moto[server]")
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            [str(executable), "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{self.endpoint}/moto-api/", timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("moto_server did not start")

    def s3(self):
        return boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
        )

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def wait_for(describe, status_of, timeout=30.0):
    """Polls `describe()` until `status_of` its answer is no longer IN_PROGRESS; returns the answer."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = describe()
        if status_of(answer) != "IN_PROGRESS":
            return answer
        time.sleep(0.05)
    raise TimeoutError("still IN_PROGRESS")


class TransfersThroughMoto(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.moto = MotoServer()
        cls.s3 = cls.moto.s3()

    @classmethod
    def tearDownClass(cls):
        cls.moto.stop()

    def setUp(self):
        self.server = FakeServer("--s3-endpoint", self.moto.endpoint)
        self.client = self.server.client()
        self.bucket = f"bucket-{self.id().rsplit('.', 1)[-1].replace('_', '-')[:40]}"
        self.s3.create_bucket(Bucket=self.bucket)

    def tearDown(self):
        self.assertEqual(self.server.stop(), 0, "the server stays up and stops cleanly")

    def orders_with_recovery(self):
        self.client.create_table(
            TableName=TABLE,
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
        wait_until_active(self.client, TABLE)
        self.client.update_continuous_backups(
            TableName=TABLE, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
        )
        return self.client.describe_table(TableName=TABLE)["Table"]["TableArn"]

    def export(self, table_arn, bucket, **extra):
        started = self.client.export_table_to_point_in_time(TableArn=table_arn, S3Bucket=bucket, **extra)
        description = started["ExportDescription"]
        self.assertEqual(description["ExportStatus"], "IN_PROGRESS")
        return wait_for(
            lambda: self.client.describe_export(ExportArn=description["ExportArn"])["ExportDescription"],
            lambda d: d["ExportStatus"],
        )

    def import_table(self, source, table, **extra):
        started = self.client.import_table(
            S3BucketSource=source,
            TableCreationParameters={
                "TableName": table,
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "BillingMode": "PAY_PER_REQUEST",
            },
            **extra,
        )["ImportTableDescription"]
        self.assertEqual(started["ImportStatus"], "IN_PROGRESS")
        return wait_for(
            lambda: self.client.describe_import(ImportArn=started["ImportArn"])["ImportTableDescription"],
            lambda d: d["ImportStatus"],
        )

    def test_an_export_writes_dynamodbs_layout_into_the_bucket(self):
        table_arn = self.orders_with_recovery()
        for pk in ("a", "b", "c"):
            self.client.put_item(TableName=TABLE, Item={"pk": {"S": pk}, "blob": {"B": b"bar"}})
        done = self.export(table_arn, self.bucket, S3Prefix="nightly", ExportFormat="DYNAMODB_JSON")
        self.assertEqual((done["ExportStatus"], done["ItemCount"]), ("COMPLETED", 3))
        folder = f"nightly/AWSDynamoDB/{done['ExportArn'].rsplit('/', 1)[1]}/"
        keys = [o["Key"] for o in self.s3.list_objects_v2(Bucket=self.bucket, Prefix="nightly")["Contents"]]
        for name in ("_started", "manifest-files.json", "manifest-summary.json"):
            self.assertIn(folder + name, keys)
        summary = json.loads(self.s3.get_object(Bucket=self.bucket, Key=done["ExportManifest"])["Body"].read())
        self.assertEqual((summary["exportArn"], summary["itemCount"]), (done["ExportArn"], 3))
        manifest = self.s3.get_object(Bucket=self.bucket, Key=folder + "manifest-files.json")["Body"].read()
        data_key = json.loads(manifest.splitlines()[0])["dataFileS3Key"]
        rows = gzip.decompress(self.s3.get_object(Bucket=self.bucket, Key=data_key)["Body"].read()).splitlines()
        self.assertIn({"Item": {"pk": {"S": "a"}, "blob": {"B": "YmFy"}}}, [json.loads(row) for row in rows])
        exports = self.client.list_exports(TableArn=table_arn)["ExportSummaries"]
        self.assertEqual(exports, [{"ExportArn": done["ExportArn"], "ExportStatus": "COMPLETED", "ExportType": "FULL_EXPORT"}])

    def test_an_export_to_a_missing_bucket_fails_and_one_without_recovery_is_refused(self):
        table_arn = self.orders_with_recovery()
        done = self.export(table_arn, "no-such-bucket-here")
        self.assertEqual((done["ExportStatus"], done["FailureCode"]), ("FAILED", "S3NoSuchBucket"))
        self.assertIn("The specified bucket does not exist", done["FailureMessage"])
        self.client.update_continuous_backups(
            TableName=TABLE, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False}
        )
        with self.assertRaises(self.client.exceptions.PointInTimeRecoveryUnavailableException) as refused:
            self.client.export_table_to_point_in_time(TableArn=table_arn, S3Bucket=self.bucket)
        self.assertEqual(
            refused.exception.response["Error"]["Message"], f"Point in time recovery is not enabled for table '{TABLE}'"
        )

    def test_an_import_reads_dynamodb_json_gzipped_and_csv(self):
        lines = "\n".join(json.dumps({"Item": {"pk": {"S": f"j{i}"}}}) for i in range(4))
        self.s3.put_object(Bucket=self.bucket, Key="json/part-1.json.gz", Body=gzip.compress(lines.encode()))
        self.s3.put_object(Bucket=self.bucket, Key="csv/part-1.csv", Body=b"pk,colour\nc1,red\nc2,\"dark, blue\"\n")
        done = self.import_table(
            {"S3Bucket": self.bucket, "S3KeyPrefix": "json/"}, "FromJson",
            InputFormat="DYNAMODB_JSON", InputCompressionType="GZIP",
        )
        self.assertEqual((done["ImportStatus"], done["ImportedItemCount"], done["ErrorCount"]), ("COMPLETED", 4, 0))
        self.assertEqual(self.client.describe_table(TableName="FromJson")["Table"]["ItemCount"], 4)
        done = self.import_table({"S3Bucket": self.bucket, "S3KeyPrefix": "csv/"}, "FromCsv", InputFormat="CSV")
        self.assertEqual(done["ImportedItemCount"], 2)
        item = self.client.get_item(TableName="FromCsv", Key={"pk": {"S": "c2"}})["Item"]
        self.assertEqual(item["colour"], {"S": "dark, blue"})
        summaries = self.client.list_imports()["ImportSummaryList"]
        self.assertEqual(sorted(s["ImportStatus"] for s in summaries), ["COMPLETED", "COMPLETED"])

    def test_an_import_from_a_missing_bucket_fails_and_leaves_no_table(self):
        done = self.import_table({"S3Bucket": "no-such-bucket-either"}, "Nothing", InputFormat="DYNAMODB_JSON")
        self.assertEqual((done["ImportStatus"], done["FailureCode"]), ("FAILED", "S3NoSuchBucket"))
        self.assertIn("The specified bucket does not exist", done["FailureMessage"])
        self.assertNotIn("Nothing", self.client.list_tables()["TableNames"])


class TransfersThroughAnS3ThatDoesNotAnswer(unittest.TestCase):
    def test_an_export_and_an_import_fail_naming_the_endpoint_and_the_server_stays_up(self):
        dead = f"http://127.0.0.1:{free_port()}"
        with FakeServer("--s3-endpoint", dead) as server:
            client = server.client()
            client.create_table(
                TableName=TABLE,
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                BillingMode="PAY_PER_REQUEST",
            )
            client.update_continuous_backups(
                TableName=TABLE, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
            )
            arn = client.describe_table(TableName=TABLE)["Table"]["TableArn"]
            started = client.export_table_to_point_in_time(TableArn=arn, S3Bucket="anything")["ExportDescription"]
            done = wait_for(
                lambda: client.describe_export(ExportArn=started["ExportArn"])["ExportDescription"],
                lambda d: d["ExportStatus"],
            )
            self.assertEqual((done["ExportStatus"], done["FailureCode"]), ("FAILED", "S3ConnectionError"))
            self.assertIn(dead, done["FailureMessage"])
            started = client.import_table(
                S3BucketSource={"S3Bucket": "anything"},
                InputFormat="DYNAMODB_JSON",
                TableCreationParameters={
                    "TableName": "Imported",
                    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                    "BillingMode": "PAY_PER_REQUEST",
                },
            )["ImportTableDescription"]
            done = wait_for(
                lambda: client.describe_import(ImportArn=started["ImportArn"])["ImportTableDescription"],
                lambda d: d["ImportStatus"],
            )
            self.assertEqual((done["ImportStatus"], done["FailureCode"]), ("FAILED", "S3ConnectionError"))
            self.assertEqual(client.list_tables()["TableNames"], [TABLE], "the server still answers, no table made")
            self.assertEqual(server.stop(), 0)

    def test_without_an_s3_endpoint_an_export_is_refused_with_the_option_to_give(self):
        with FakeServer() as server:
            client = server.client()
            client.create_table(
                TableName=TABLE,
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                BillingMode="PAY_PER_REQUEST",
            )
            client.update_continuous_backups(
                TableName=TABLE, PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True}
            )
            arn = client.describe_table(TableName=TABLE)["Table"]["TableArn"]
            with self.assertRaises(client.exceptions.ClientError) as refused:
                client.export_table_to_point_in_time(TableArn=arn, S3Bucket="anything")
            self.assertIn("--s3-endpoint", refused.exception.response["Error"]["Message"])
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    unittest.main()
