"""Starting and stopping `dynalease-fake serve` from Python, and boto3 clients for it.

The binary comes from $DYNALEASE_FAKE_BIN if set; otherwise it is built with cargo (a no-op when
it is up to date) and located from cargo's own report of the executable it produced.
"""

import functools
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import boto3
from botocore.config import Config

REPO = Path(__file__).resolve().parents[2]


@functools.cache
def binary(release: bool = False) -> str:
    """The path of the `dynalease-fake` executable, built if needed."""
    explicit = os.environ.get("DYNALEASE_FAKE_BIN")
    if explicit:
        return explicit
    return cargo_executable("--bin", "dynalease-fake", release)


def cargo_executable(kind: str, name: str, release: bool) -> str:
    """Builds target `name` of dynalease-fake (`kind` is `--bin` or `--example`) with cargo, a
    no-op when it is up to date, and returns the executable cargo reports."""
    command = ["cargo", "build", "-q", "-p", "dynalease-fake", kind, name, "--message-format=json"]
    if release:
        command.append("--release")
    out = subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message.get("executable"):
            if message["target"]["name"] == name:
                return message["executable"]
    raise RuntimeError(f"cargo did not report the {name} executable")


def wait_until_active(client, table: str) -> None:
    """Polls DescribeTable until `table` is ACTIVE: at once against `serve` (unless started with
    --table-creation-ms), after a moment against DynamoDB and some other fakes, where botocore's
    own waiter would sleep 20 s after its first look."""
    for _ in range(200):
        if client.describe_table(TableName=table)["Table"]["TableStatus"] == "ACTIVE":
            return
        time.sleep(0.02)
    raise TimeoutError(f"table {table} did not become ACTIVE")


def client_for(endpoint: str, max_attempts: int = 3, service: str = "dynamodb"):
    """A boto3 DynamoDB client (or, with `service="dynamodbstreams"`, a DynamoDB Streams client)
    for any server at `endpoint`; `max_attempts=1` disables retries."""
    return boto3.client(
        service,
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="fake",
        aws_secret_access_key="fake",
        config=Config(retries={"mode": "standard", "total_max_attempts": max_attempts}),
    )


class ControlError(Exception):
    """A control request the server refused: its HTTP status and the server's message."""

    def __init__(self, status: int, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message


def control(endpoint: str, method: str, path: str, body=None):
    """One request to the control API of the server at `endpoint` (`path` under /_dynalease/);
    returns the JSON answer, or raises ControlError with the server's message."""
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(
        f"{endpoint}/_dynalease/{path}", data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise ControlError(error.code, json.load(error)["Message"]) from None


class FakeServer:
    """`dynalease-fake serve --port 0 ARGS...`, running until `stop()`."""

    def __init__(self, *args: str, release: bool = False, executable: str | None = None):
        self.process = subprocess.Popen(
            [executable or binary(release), "serve", "--port", "0", *args],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline().strip()
        prefix = "listening on "
        if not line.startswith(prefix):
            self.process.kill()
            raise RuntimeError(f"unexpected first line from the server: {line!r}")
        self.endpoint = line[len(prefix):]

    @property
    def pid(self) -> int:
        return self.process.pid

    def client(self, max_attempts: int = 3):
        """A boto3 DynamoDB client for this server; `max_attempts=1` disables retries."""
        return client_for(self.endpoint, max_attempts)

    def control(self, method: str, path: str, body=None):
        """A control API request (see fake/README.md): `control("POST", "clock/advance", {"By": "2days"})`."""
        return control(self.endpoint, method, path, body)

    def reset(self) -> None:
        """Every table gone, every fault rule removed, the request log emptied."""
        self.control("POST", "reset")
        self.control("DELETE", "faults")
        self.control("DELETE", "requests")

    def advance(self, by: str) -> dict:
        """Moves the fake's clock forward (`by` such as "90s", "2days"); returns the new reading."""
        return self.control("POST", "clock/advance", {"By": by})

    def add_fault(self, **rule) -> dict:
        """Adds a fault rule, such as `add_fault(Fault="Throttle", Operation="UpdateItem", Times=1)`."""
        return self.control("POST", "faults", rule)

    def requests(self) -> list:
        """The request log: operation, table, outcome of each request, oldest first."""
        return self.control("GET", "requests")["Requests"]

    def streams_client(self):
        """A boto3 DynamoDB Streams client for this server, which answers on the same port."""
        return client_for(self.endpoint, service="dynamodbstreams")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Sends `sig` and returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        code = self.process.wait(timeout=30)
        self.process.stdout.close()
        return code

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
