"""A flood of idle connections against `dynalease-fake serve` (release build).

Opens N TCP connections (3,000 by default) that send nothing (with `--warm`, one request each,
then nothing: a client's pool of keep-alive connections), then prints the server's resident
memory (VmRSS, and its peak VmHWM) and its threads, from /proc/<pid>/status, and the latency of
ListTables requests each on a fresh connection while the flood stays open (median, 95th
percentile, worst). With `--idle-timeout S`, the server is started with `--idle-timeout-secs S`
and the script waits S seconds more to count the flood's connections the server has closed.

Run (after .ci/install-python.sh):
    .venv/bin/python fake/e2e/flood.py [--connections 3000] [--requests 50] [--idle-timeout 2]
    .venv/bin/python fake/e2e/flood.py --binary PATH      # another build, for a side-by-side run
"""

import argparse
import http.client
import os
import selectors
import socket
import statistics
import subprocess
import time

import bench_boto3
import fake_server


def status(pid: int) -> dict:
    """The fields of /proc/<pid>/status that matter here."""
    fields = {}
    with open(f"/proc/{pid}/status") as lines:
        for line in lines:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM", "Threads"):
                fields[name] = value.strip()
    return fields


def list_tables_ms(port: int) -> float:
    """One ListTables on a fresh connection: milliseconds from connect to the whole answer."""
    began = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(bench_boto3.LIST_TABLES)
        response = http.client.HTTPResponse(connection)
        response.begin()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"ListTables answered {response.status}")
    return (time.perf_counter() - began) * 1000


def closed_by_server(connections: list, wait_s: float) -> int:
    """How many of `connections` the server has closed (end of stream or reset) within `wait_s`."""
    deadline = time.monotonic() + wait_s
    watch = selectors.DefaultSelector()
    for connection in connections:
        watch.register(connection, selectors.EVENT_READ)
    closed = 0
    while closed < len(connections) and time.monotonic() < deadline:
        for key, _ in watch.select(timeout=0.2):
            try:
                data = key.fileobj.recv(1)
            except ConnectionResetError:
                data = b""
            if data == b"":
                closed += 1
                watch.unregister(key.fileobj)
    watch.close()
    return closed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=3000)
    parser.add_argument("--requests", type=int, default=50, help="ListTables requests timed during the flood")
    parser.add_argument("--warm", action="store_true", help="each connection of the flood sends one request first")
    parser.add_argument("--idle-timeout", type=float, help="start the server with --idle-timeout-secs and check it")
    parser.add_argument("--binary", help="the dynalease-fake executable (default: cargo build --release)")
    args = parser.parse_args()
    executable = args.binary or fake_server.binary(release=True)
    port = bench_boto3.free_port()
    command = [executable, "serve", "--port", str(port)]
    if args.idle_timeout is not None:
        command += ["--idle-timeout-secs", str(int(args.idle_timeout))]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        for _ in range(500):
            try:
                list_tables_ms(port)
                break
            except OSError:
                time.sleep(0.01)
        before = status(process.pid)
        quiet = sorted(list_tables_ms(port) for _ in range(args.requests))
        flood = [socket.create_connection(("127.0.0.1", port)) for _ in range(args.connections)]
        if args.warm:
            for connection in flood:
                connection.sendall(bench_boto3.LIST_TABLES)
                response = http.client.HTTPResponse(connection)
                response.begin()
                response.read()
        # Measure once the server holds every connection of the flood.
        for _ in range(1000):
            if len(os.listdir(f"/proc/{process.pid}/fd")) >= args.connections:
                break
            time.sleep(0.01)
        else:
            raise RuntimeError("the server did not accept the whole flood")
        during = status(process.pid)
        timed = sorted(list_tables_ms(port) for _ in range(args.requests))
        print(f"server: {executable}")
        print(f"idle, before the flood: RSS {before['VmRSS']}, threads {before['Threads']}")
        kind = "keep-alive connections idle after one request" if args.warm else "idle connections"
        print(f"with {len(flood)} {kind}: RSS {during['VmRSS']} (peak {during['VmHWM']}), threads {during['Threads']}")
        for name, series in (("before the flood", quiet), ("during the flood", timed)):
            p95 = series[max(0, int(len(series) * 0.95) - 1)]
            print(
                f"ListTables on a fresh connection {name}: median {statistics.median(series):.2f} ms, "
                f"95th percentile {p95:.2f} ms, worst {series[-1]:.2f} ms ({len(series)} requests)"
            )
        if args.idle_timeout is not None:
            closed = closed_by_server(flood, args.idle_timeout + 5)
            print(f"closed by the server within {args.idle_timeout + 5:.0f} s of the measurement: {closed} of {len(flood)}")
        for connection in flood:
            connection.close()
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
