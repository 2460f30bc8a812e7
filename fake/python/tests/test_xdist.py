"""pytest-xdist: the workers of one run share one server, each in an account of its own, so
tests that create tables of the same names and move the clock run side by side."""

import json
import os

import pytest

from conftest import run_python, wait_until_gone

pytest.importorskip("xdist")


SUITE = '''
import json, os
from datetime import datetime, timedelta, timezone

import pytest

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="session")
def dynalease_fake_options():
    return {"start_time": START}


@pytest.mark.parametrize("hours", range(1, 13))
def test_a_shop_of_its_own(dynalease_fake, hours):
    assert dynalease_fake.now() == START, "each test finds its account's clock where it started"
    dynamodb = dynalease_fake.client()
    assert dynamodb.list_tables()["TableNames"] == []
    dynamodb.create_table(TableName="Shop", BillingMode="PAY_PER_REQUEST",
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}])
    dynamodb.put_item(TableName="Shop", Item={"pk": {"S": str(hours)}})
    dynalease_fake.add_fault("throttle", operation="DeleteTable")
    dynalease_fake.advance(hours=hours)
    assert dynalease_fake.now() == START + timedelta(hours=hours)
    assert dynamodb.scan(TableName="Shop")["Items"] == [{"pk": {"S": str(hours)}}]
    assert len(dynalease_fake.faults()) == 1
    assert [r["Operation"] for r in dynalease_fake.requests()] == ["ListTables", "CreateTable", "PutItem", "Scan"]
    with open(os.environ["RECORDS"], "a") as records:
        records.write(json.dumps({"worker": os.environ["PYTEST_XDIST_WORKER"], "account": dynalease_fake.account,
                                  "endpoint": dynalease_fake.endpoint_url, "pid": dynalease_fake.pid}) + "\\n")
'''


def test_four_workers_share_one_server_each_in_an_account_of_its_own(tmp_path):
    (tmp_path / "test_shops.py").write_text(SUITE)
    records = tmp_path / "records.jsonl"
    run = run_python(
        "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "4", "--dynalease-fake-clock=manual", str(tmp_path),
        cwd=tmp_path, env={**os.environ, "RECORDS": str(records)},
    )
    out, _ = run.communicate()
    assert run.returncode == 0, out
    assert "12 passed" in out, out
    seen = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(seen) == 12
    assert len({record["endpoint"] for record in seen}) == 1, "one server for every worker"
    assert len({record["pid"] for record in seen}) == 1
    accounts = {record["worker"]: record["account"] for record in seen}
    assert len(set(accounts.values())) == len(accounts) >= 2, accounts
    for worker, account in accounts.items():
        assert account == str(100_000_000_000 + int(worker[2:]))
    # The run's controller stopped the server before pytest ended.
    wait_until_gone(seen[0]["pid"])
