"""Benchmark of `dynalease-fake serve` (release build) against boto3.

Prints:
- startup: time from spawning the server until it accepts a TCP connection, and until it has
  answered a first ListTables (median and worst of several starts; measured from before the spawn,
  so the figures include Python's own fork and exec);
- resident memory when idle, from /proc/<pid>/status;
- for a boto3 loop of conditional PutItem, GetItem and UpdateItem (one keep-alive client):
  client ops/s, and the server's CPU time per operation, read before and after each round from
  /proc/<pid>/stat (utime + stime, all threads). Several rounds, because a shared machine is noisy.

With `--floor`, the same loop also runs against `fake/examples/http_floor.rs`, a server that
answers `{}` to everything: the CPU it spends per operation is the floor that loopback TCP and
HTTP framing set on this machine before any server does its work.

Run (after .ci/install-python.sh):
    .venv/bin/python fake/e2e/bench_boto3.py [--iterations 2000] [--floor]
"""

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import time

import fake_server

TABLE = "Bench"
LIST_TABLES = (
    b"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
    b"Content-Type: application/x-amz-json-1.0\r\nX-Amz-Date: 20260101T000000Z\r\n"
    # Like DynamoDB, the server refuses a request without a SigV4 header; it never checks the signature.
    b"Authorization: AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/dynamodb/aws4_request, "
    b"SignedHeaders=host;x-amz-date, Signature=00\r\n"
    b"Content-Length: 2\r\n\r\n{}"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def measure_startup(executable: str) -> tuple[float, float]:
    """Seconds from spawn to the first accepted connection, and to the first ListTables answer."""
    port = free_port()
    start = time.perf_counter()
    process = subprocess.Popen([executable, "serve", "--port", str(port)], stdout=subprocess.DEVNULL)
    try:
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port))
                break
            except ConnectionRefusedError:
                if process.poll() is not None:
                    raise RuntimeError("the server exited during startup")
        accepted = time.perf_counter() - start
        with connection:
            connection.sendall(LIST_TABLES)
            response = http.client.HTTPResponse(connection)
            response.begin()
            response.read()
            answered = time.perf_counter() - start
            if response.status != 200:
                raise RuntimeError(f"ListTables answered {response.status}")
        return accepted, answered
    finally:
        process.terminate()
        process.wait()


def cpu_ticks(pid: int) -> tuple[int, int]:
    """utime and stime of the process, in clock ticks."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    # Fields 14 and 15 of proc(5); the split starts at field 3.
    return int(fields[11]), int(fields[12])


def status_field(pid: int, name: str) -> str:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return line.split(":", 1)[1].strip()
    return "?"


def run_loop(client, iterations: int, offset: int) -> None:
    one = {":one": {"N": "1"}}
    for i in range(offset, offset + iterations):
        key = {"pk": {"S": f"item#{i}"}}
        client.put_item(
            TableName=TABLE,
            Item={**key, "n": {"N": "0"}, "owner": {"S": "bench"}},
            ConditionExpression="attribute_not_exists(pk)",
        )
        client.get_item(TableName=TABLE, Key=key, ConsistentRead=True)
        client.update_item(
            TableName=TABLE,
            Key=key,
            UpdateExpression="SET n = n + :one",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeValues=one,
        )


def measure_rounds(pid: int, client, args, first: int) -> list[float]:
    """Server CPU ms per operation of each measured round, printed as they finish."""
    tick_ms = 1000 / os.sysconf("SC_CLK_TCK")
    ops = 3 * args.iterations
    per_op = []
    for round_index in range(args.rounds):
        ticks_before = cpu_ticks(pid)
        wall_start = time.perf_counter()
        run_loop(client, args.iterations, first + round_index * args.iterations)
        wall = time.perf_counter() - wall_start
        ticks_after = cpu_ticks(pid)
        user_ms = (ticks_after[0] - ticks_before[0]) * tick_ms
        system_ms = (ticks_after[1] - ticks_before[1]) * tick_ms
        per_op.append((user_ms + system_ms) / ops)
        print(
            f"round {round_index + 1}: {ops} operations (conditional PutItem, GetItem, UpdateItem) in "
            f"{wall:.2f} s, {ops / wall:.0f} ops/s; server CPU (utime+stime) {user_ms + system_ms:.0f} ms, "
            f"{per_op[-1]:.4f} ms per op (user {user_ms / ops:.4f}, system {system_ms / ops:.4f})"
        )
    print(
        f"server CPU per op over {args.rounds} rounds: median {statistics.median(per_op):.4f} ms, "
        f"best {min(per_op):.4f} ms, worst {max(per_op):.4f} ms"
    )
    return per_op


def measure_floor(args) -> None:
    floor = fake_server.cargo_executable("--example", "http_floor", release=True)
    process = subprocess.Popen([floor, "0"], stdout=subprocess.PIPE, text=True)
    try:
        endpoint = process.stdout.readline().strip().removeprefix("listening on ")
        client = fake_server.client_for(endpoint, max_attempts=1)
        print(f"floor: {endpoint}, a server that answers {{}} to every request")
        run_loop(client, args.warmup, 0)
        measure_rounds(process.pid, client, args, args.warmup)
    finally:
        process.kill()
        process.wait()
        process.stdout.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="loop iterations of 3 operations each")
    parser.add_argument("--rounds", type=int, default=3, help="measured rounds (the machine may be shared)")
    parser.add_argument("--warmup", type=int, default=200, help="iterations before the measurement")
    parser.add_argument("--starts", type=int, default=20, help="server starts for the startup figures")
    parser.add_argument("--binary", help="the dynalease-fake executable (default: cargo build --release)")
    parser.add_argument("--floor", action="store_true", help="also measure the loop against examples/http_floor.rs")
    args = parser.parse_args()

    executable = args.binary or fake_server.binary(release=True)
    print(f"server: {executable}")

    startups = [measure_startup(executable) for _ in range(args.starts)]
    accepted = [a * 1000 for a, _ in startups]
    answered = [b * 1000 for _, b in startups]
    print(
        f"startup over {args.starts} starts: accepts a connection after {statistics.median(accepted):.2f} ms "
        f"(worst {max(accepted):.2f} ms), answers its first ListTables after "
        f"{statistics.median(answered):.2f} ms (worst {max(answered):.2f} ms)"
    )

    with fake_server.FakeServer(executable=executable) as server:
        client = server.client(max_attempts=1)
        client.list_tables()
        print(f"idle: VmRSS {status_field(server.pid, 'VmRSS')}, threads {status_field(server.pid, 'Threads')}")
        client.create_table(
            TableName=TABLE,
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            BillingMode="PAY_PER_REQUEST",
        )
        fake_server.wait_until_active(client, TABLE)
        run_loop(client, args.warmup, 0)
        measure_rounds(server.pid, client, args, args.warmup)
        print(f"after the loop: VmRSS {status_field(server.pid, 'VmRSS')}, VmHWM {status_field(server.pid, 'VmHWM')}")
        code = server.stop()
        if code != 0:
            raise SystemExit(f"the server exited with {code}")
    if args.floor:
        measure_floor(args)

if __name__ == "__main__":
    main()
