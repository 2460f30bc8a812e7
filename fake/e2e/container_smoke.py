"""A smoke test of the container image's server, run by .ci/container-image.sh against the binary
of the exported image, started with the image's own arguments: boto3 creates, writes and reads a
table, the control API (on, as in the image) moves the clock and throttles a write that boto3
retries, and POST /_dynalease/save writes the tables to the image's data file.

    python fake/e2e/container_smoke.py ENDPOINT DATA_FILE
"""

import json
import os
import sys
import urllib.request

from types import SimpleNamespace

import boto3
import botocore.endpoint
from botocore.config import Config


def control(endpoint, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{endpoint}/_dynalease/{path}", data=data, method=method)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def main(endpoint, data_file):
    dynamodb = boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="fake",
        aws_secret_access_key="fake",
        config=Config(retries={"mode": "standard", "max_attempts": 3}),
    )
    assert dynamodb.list_tables()["TableNames"] == []
    dynamodb.create_table(
        TableName="Smoke",
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
    )
    dynamodb.put_item(TableName="Smoke", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    assert dynamodb.get_item(TableName="Smoke", Key={"pk": {"S": "a"}})["Item"]["n"] == {"N": "1"}

    before = control(endpoint, "GET", "clock")["EpochSeconds"]
    after = control(endpoint, "POST", "clock/advance", {"By": "1h"})["EpochSeconds"]
    assert after - before >= 3600, (before, after)

    control(endpoint, "POST", "faults", {"Fault": "Throttle", "Operation": "UpdateItem", "Times": 1})
    # The delay boto3 asks for before its retry is recorded instead of slept.
    delays = []
    botocore.endpoint.time = SimpleNamespace(sleep=delays.append)
    dynamodb.update_item(
        TableName="Smoke",
        Key={"pk": {"S": "a"}},
        UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    outcomes = [r["Outcome"] for r in control(endpoint, "GET", "requests")["Requests"] if r["Operation"] == "UpdateItem"]
    assert outcomes == ["ProvisionedThroughputExceededException", "OK"], outcomes
    assert len(delays) == 1, delays

    saved = control(endpoint, "POST", "save")
    assert saved["Tables"] == ["Smoke"] and os.path.samefile(saved["File"], data_file), saved
    print(f"boto3 against {endpoint}: a table written and read, the clock moved, a throttled write retried, "
          f"the tables saved to {data_file}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
