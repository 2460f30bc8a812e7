"""Shared by the package's tests: the options of the run's server, boto3 clients, and a look at
whether a process is still alive."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List

import pytest

#: Where the clock of the run's server starts (the package's pytest configuration makes it manual).
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def dynalease_fake_options() -> Dict[str, Any]:
    return {"start_time": START, "seed": 7}


@pytest.fixture
def dynamodb(dynalease_fake):
    """A boto3 DynamoDB client of the run's server."""
    return dynalease_fake.client()


@pytest.fixture
def backoffs(monkeypatch) -> List[float]:
    """The delays boto3 asks for before each retry, recorded instead of slept: the tests never
    wait on real time."""
    import botocore.endpoint

    delays: List[float] = []
    monkeypatch.setattr(botocore.endpoint, "time", SimpleNamespace(sleep=delays.append))
    return delays


def create_table(dynamodb, name: str, **extra: Any) -> None:
    """A pay-per-request table of string partition key ``pk`` (and, with ``sort=True``, string
    sort key ``sk``)."""
    sort = extra.pop("sort", False)
    attributes = [{"AttributeName": "pk", "AttributeType": "S"}]
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if sort:
        attributes.append({"AttributeName": "sk", "AttributeType": "S"})
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
    dynamodb.create_table(
        TableName=name, AttributeDefinitions=attributes, KeySchema=keys, BillingMode="PAY_PER_REQUEST", **extra
    )


def is_alive(pid: int) -> bool:
    """Whether process ``pid`` runs; one that exited and waits to be reaped does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], stdout=subprocess.PIPE, text=True).stdout
    return bool(state.strip()) and not state.strip().startswith("Z")


def wait_until_gone(pid: int, within_seconds: float = 10.0) -> None:
    """Polls until process ``pid`` has exited; fails the test if it still runs after
    ``within_seconds`` (a safety net, not a timing claim)."""
    deadline = time.monotonic() + within_seconds
    while is_alive(pid):
        assert time.monotonic() < deadline, f"process {pid} still runs"
        time.sleep(0.005)


def run_python(*arguments: str, **options: Any) -> subprocess.Popen:
    """This interpreter running ``arguments``, its stdout piped."""
    return subprocess.Popen([sys.executable, *arguments], stdout=subprocess.PIPE, text=True, **options)
