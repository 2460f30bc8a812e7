"""The boto3 benchmark of bench_boto3.py against several DynamoDB fakes, side by side.

Runs the same loop (`bench_boto3.run_loop`: conditional PutItem, consistent GetItem, UpdateItem
with a condition) with one keep-alive boto3 client against each server, three rounds each, and
prints a Markdown table of client ops/s and the server's CPU time per operation (read from
/proc/<pid>/task/*/schedstat before and after a round, every thread of the server process) for
the median round, so the numbers compare the servers, not the client.

Servers:
- `dynalease-fake serve` (release build; always);
- `moto_server` (the `moto[server]` package), `dynalite` (the npm package) and `dynoxide` (the
  `dynoxide-rs` crate, in memory), when installed. `--install` installs them into the scratch
  folder (`--scratch`, default target/compare-fakes): moto into a virtualenv there, dynalite with
  npm, without its optional LevelDB binding (it then keeps tables in memory, as the others do),
  dynoxide with `cargo install` (its HTTP server and command line only).

Run (after .ci/install-python.sh):
    .venv/bin/python fake/e2e/compare.py --install [--iterations 2000]
"""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import bench_boto3
import fake_server

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode} during startup")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the server did not accept connections in time")


def cpu_ns(pid: int) -> int:
    """Time on CPU of every thread of the process, in nanoseconds (schedstat)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as schedstat:
                total += int(schedstat.read().split()[0])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return total


def rss(pid: int) -> str:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return line.split(":", 1)[1].strip()
    return "?"


def client_for(endpoint: str):
    return fake_server.client_for(endpoint, max_attempts=1)


class Server:
    """A server process on a port, stopped on exit."""

    def __init__(self, name: str, command: list[str], port: int, env: dict | None = None):
        self.name = name
        self.port = port
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})}
        )
        wait_for_port(port, self.process)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def moto_command(scratch: Path) -> list[str] | None:
    local = scratch / "venv" / "bin" / "moto_server"
    if local.exists():
        return [str(local)]
    found = shutil.which("moto_server")
    return [found] if found else None


def dynalite_command(scratch: Path) -> list[str] | None:
    local = scratch / "node" / "node_modules" / ".bin" / "dynalite"
    if local.exists():
        return [str(local)]
    found = shutil.which("dynalite")
    return [found] if found else None


def dynoxide_command(scratch: Path, explicit: str | None) -> list[str] | None:
    if explicit:
        return [explicit]
    local = scratch / "dynoxide" / "bin" / "dynoxide"
    if local.exists():
        return [str(local)]
    found = shutil.which("dynoxide")
    return [found] if found else None


def install(scratch: Path) -> None:
    """Installs moto's server, dynalite and dynoxide into the scratch folder."""
    scratch.mkdir(parents=True, exist_ok=True)
    venv = scratch / "venv"
    if not (venv / "bin" / "moto_server").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "moto[server]"],
            check=True,
        )
    node = scratch / "node"
    if not (node / "node_modules" / ".bin" / "dynalite").exists() and shutil.which("npm"):
        node.mkdir(exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(node), "--omit=optional", "--no-audit", "--no-fund", "--silent", "dynalite"],
            check=True,
        )
    dynoxide = scratch / "dynoxide"
    if not (dynoxide / "bin" / "dynoxide").exists() and shutil.which("cargo"):
        subprocess.run(
            ["cargo", "install", "--quiet", "--root", str(dynoxide), "dynoxide-rs",
             "--no-default-features", "--features", "native-sqlite,http-server,cli"],
            check=True,
        )


def dynoxide_version(executable: str) -> str:
    try:
        out = subprocess.run([executable, "--version"], capture_output=True, text=True, check=True)
        return out.stdout.strip() or "dynoxide"
    except (OSError, subprocess.CalledProcessError):
        return "dynoxide"


def version_of(name: str, scratch: Path) -> str:
    try:
        if name == "moto_server":
            pip = scratch / "venv" / "bin" / "python"
            python = str(pip) if pip.exists() else sys.executable
            out = subprocess.run(
                [python, "-c", "import moto; print(moto.__version__)"], capture_output=True, text=True, check=True
            )
            return "moto " + out.stdout.strip()
        if name == "dynalite":
            package = scratch / "node" / "node_modules" / "dynalite" / "package.json"
            if package.exists():
                import json

                return "dynalite " + json.loads(package.read_text())["version"]
    except (OSError, subprocess.CalledProcessError, KeyError, ValueError):
        pass
    return name


def measure(server: Server, iterations: int, warmup: int) -> dict:
    client = client_for(server.endpoint)
    client.create_table(
        TableName=bench_boto3.TABLE,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    # dynalite creates tables asynchronously: wait until the table answers.
    for _ in range(200):
        status = client.describe_table(TableName=bench_boto3.TABLE)["Table"]["TableStatus"]
        if status == "ACTIVE":
            break
        time.sleep(0.05)
    bench_boto3.run_loop(client, warmup, 0)
    ops = 3 * iterations
    rounds = []
    for round_index in range(3):
        ns_before = cpu_ns(server.process.pid)
        wall_start = time.perf_counter()
        bench_boto3.run_loop(client, iterations, warmup + round_index * iterations)
        wall = time.perf_counter() - wall_start
        ns_after = cpu_ns(server.process.pid)
        rounds.append((ops / wall, (ns_after - ns_before) / 1000 / ops))
    # The machine may be shared: the median round of three.
    rounds.sort(key=lambda r: r[1])
    ops_per_s, cpu_us_per_op = rounds[1]
    return {"ops_per_s": ops_per_s, "cpu_us_per_op": cpu_us_per_op, "rss": rss(server.process.pid)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="loop iterations of 3 operations each")
    parser.add_argument("--warmup", type=int, default=200, help="iterations before the measurement")
    parser.add_argument("--scratch", default=str(REPO / "target" / "compare-fakes"), help="where --install puts the others")
    parser.add_argument("--install", action="store_true", help="install moto_server and dynalite into the scratch folder")
    parser.add_argument("--binary", help="the dynalease-fake executable (default: cargo build --release)")
    parser.add_argument("--dynoxide", help="the dynoxide executable (default: the scratch folder's, or on PATH)")
    parser.add_argument("--only", help="measure only the servers whose names contain this text")
    args = parser.parse_args()
    scratch = Path(args.scratch)
    if args.install:
        install(scratch)

    candidates = []
    executable = args.binary or fake_server.binary(release=True)
    candidates.append(("dynalease-fake serve", lambda port: [executable, "serve", "--port", str(port)], {}))
    moto = moto_command(scratch)
    if moto:
        candidates.append((version_of("moto_server", scratch), lambda port: moto + ["-p", str(port)], {}))
    dynalite = dynalite_command(scratch)
    if dynalite:
        candidates.append((version_of("dynalite", scratch), lambda port: dynalite + ["--port", str(port)], {}))
    dynoxide = dynoxide_command(scratch, args.dynoxide)
    if dynoxide:
        candidates.append(
            (dynoxide_version(dynoxide[0]), lambda port: dynoxide + ["serve", "--port", str(port), "--log", "quiet"], {})
        )
    if args.only:
        candidates = [candidate for candidate in candidates if args.only in candidate[0]]

    rows = []
    for name, command, env in candidates:
        port = free_port()
        print(f"measuring {name} ...", file=sys.stderr)
        with Server(name, command(port), port, env) as server:
            result = measure(server, args.iterations, args.warmup)
        rows.append((name, result))
    missing = [n for n, c in (("moto_server", moto), ("dynalite", dynalite), ("dynoxide", dynoxide)) if not c]

    print(f"3 rounds of {3 * args.iterations} operations (conditional PutItem, consistent GetItem, conditional "
          f"UpdateItem), one boto3 client, after {3 * args.warmup} of warm-up; the median round")
    print()
    print("| server | ops/s (client) | server CPU per op | server RSS after |")
    print("| --- | ---: | ---: | ---: |")
    for name, result in rows:
        print(f"| {name} | {result['ops_per_s']:.0f} | {result['cpu_us_per_op']:.0f} µs | {result['rss']} |")
    if missing:
        print()
        print(f"not installed, skipped: {', '.join(missing)} (use --install)")


if __name__ == "__main__":
    main()
