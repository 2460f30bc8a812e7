"""Speed of dynalease-fake for Python, measured side by side with moto.

    python fake/python/bench/speed.py [--rounds 5] [--starts 50] [--resets 1000]

Run it with the interpreter of a virtual environment where the dynalease-fake wheel (built with
--release), pytest, boto3 and moto are installed. It prints:

- the small test module (test_small_module.py: a table, 200 puts and gets, a query; three
  tests) run by pytest with the ``dynalease_fake`` fixture and with moto's ``mock_aws``, in
  alternating rounds: the wall time of the whole pytest process, and the time of the tests
  themselves (setup, call and teardown, the server's start and moto's import included);
- the server's start: from FakeServer.start() until it names its address (the process spawned,
  its first line read), and until its first answer;
- FakeServer.reset() after a test that left a table, a fault rule, requests and a moved clock
  (the fixture's reset before each test).

Medians and 95th percentiles of real time; the machine's load changes them, so run it when the
machine is quiet and keep the rounds alternating.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

import dynalease_fake
from dynalease_fake import FakeServer

HERE = Path(__file__).resolve().parent


def percentile(values: List[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def module_round(backend: str) -> Dict[str, float]:
    """One pytest run of the small module: its wall time and the time of its tests, in seconds."""
    with tempfile.TemporaryDirectory() as folder:
        timings = Path(folder) / "timings.json"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--backend", backend]
        command += ["--timings", str(timings), "--rootdir", str(HERE), str(HERE / "test_small_module.py")]
        began = time.perf_counter()
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=HERE)
        wall = time.perf_counter() - began
        if run.returncode != 0:
            raise SystemExit(f"the small module failed with {backend}:\n{run.stdout}")
        phases = json.loads(timings.read_text())
    return {"wall": wall, "tests": sum(phase["seconds"] for phase in phases)}


def starts(count: int) -> Dict[str, List[float]]:
    """Milliseconds from start() to the address named, and to the first answer."""
    named, answered = [], []
    for _ in range(count):
        server = FakeServer()
        began = time.perf_counter()
        server.start()
        named.append((time.perf_counter() - began) * 1000)
        server.now()
        answered.append((time.perf_counter() - began) * 1000)
        server.stop()
    return {"named": named, "answered": answered}


def resets(count: int) -> List[float]:
    """Milliseconds of reset() after a test that left a table, a fault rule, requests and a
    clock moved and let run, on a manual clock."""
    durations = []
    with FakeServer(clock="manual") as fake:
        dynamodb = fake.client()
        for number in range(count):
            dynamodb.create_table(
                TableName="Leftover",
                AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                BillingMode="PAY_PER_REQUEST",
            )
            dynamodb.put_item(TableName="Leftover", Item={"pk": {"S": str(number)}})
            fake.add_fault("throttle", operation="Scan")
            fake.advance(days=1)
            fake.run()
            began = time.perf_counter()
            fake.reset()
            durations.append((time.perf_counter() - began) * 1000)
    return durations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--starts", type=int, default=50)
    parser.add_argument("--resets", type=int, default=1000)
    arguments = parser.parse_args()

    import boto3
    import moto

    binary = dynalease_fake.binary_path()
    version = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    print(f"{binary} ({version}); Python {sys.version.split()[0]}, boto3 {boto3.__version__}, moto {moto.__version__}")
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")

    rounds: Dict[str, List[Dict[str, float]]] = {"dynalease-fake": [], "moto": []}
    for _ in range(arguments.rounds):
        for backend in rounds:
            rounds[backend].append(module_round(backend))
    print(f"\nthe small module (3 tests: a table, 200 puts and gets, a query), median of {arguments.rounds} rounds:")
    print(f"{'':16} {'pytest wall':>12} {'the tests':>10}")
    for backend, measured in rounds.items():
        wall = statistics.median(round_["wall"] for round_ in measured)
        tests = statistics.median(round_["tests"] for round_ in measured)
        print(f"{backend:16} {wall:10.3f} s {tests:8.3f} s")

    started = starts(arguments.starts)
    print(f"\nserver start, {arguments.starts} starts (ms): median, p95")
    print(f"  address named  {statistics.median(started['named']):6.2f} {percentile(started['named'], 0.95):6.2f}")
    print(f"  first answer   {statistics.median(started['answered']):6.2f} {percentile(started['answered'], 0.95):6.2f}")

    reset = resets(arguments.resets)
    print(f"\nreset after a test, {arguments.resets} resets (ms): median, p95")
    print(f"  reset()        {statistics.median(reset):6.3f} {percentile(reset, 0.95):6.3f}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
