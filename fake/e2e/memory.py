"""The resident memory an item costs `dynalease-fake serve`, beside dynoxide, in the same run.

Loads 100,000 items of about 200 bytes (a partition key of 100 values, a sort key, a number and
a text) into one table with boto3's BatchWriteItem (25 items a request), reads them all back with
a Scan, and reports for each server: its resident memory (VmRSS) after creating the table and
after the load, the bytes of resident memory per item (the difference over the items), and the
CPU time the server spent on the load and on the scan (/proc/<pid>/task/*/schedstat, every
thread). The client is the same for both; only the server's figures are compared.

dynoxide (the `dynoxide-rs` crate, in memory) runs when it is installed: `compare.py --install`
puts it into the scratch folder (target/compare-fakes), or give `--dynoxide PATH`.

Run (after .ci/install-python.sh):
    .venv/bin/python fake/e2e/memory.py [--items 100000] [--binary target/release/dynalease-fake]
"""

import argparse
import sys
import time

import compare
import fake_server

TABLE = "Memory"
PARTITIONS = 100


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def item(i: int) -> dict:
    # About 200 bytes by DynamoDB's count: names and values of the four attributes.
    return {
        "pk": {"S": f"partition#{i % PARTITIONS:03d}"},
        "sk": {"S": f"item#{i:08d}"},
        "n": {"N": str(i * 7)},
        "body": {"S": f"{i:08d}-" + "x" * 140},
    }


def load(client, items: int) -> None:
    batch = []
    for i in range(items):
        batch.append({"PutRequest": {"Item": item(i)}})
        if len(batch) == 25:
            client.batch_write_item(RequestItems={TABLE: batch})
            batch = []
    if batch:
        client.batch_write_item(RequestItems={TABLE: batch})


def scan(client) -> int:
    count, start = 0, None
    while True:
        page = client.scan(TableName=TABLE, **({"ExclusiveStartKey": start} if start else {}))
        count += page["Count"]
        start = page.get("LastEvaluatedKey")
        if not start:
            return count


def measure(server: compare.Server, items: int) -> dict:
    client = compare.client_for(server.endpoint)
    client.create_table(
        TableName=TABLE,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
    )
    pid = server.process.pid
    before = rss_bytes(pid)
    cpu = compare.cpu_ns(pid)
    load(client, items)
    load_cpu = compare.cpu_ns(pid) - cpu
    time.sleep(0.5)  # let the allocator settle before reading RSS
    after = rss_bytes(pid)
    cpu = compare.cpu_ns(pid)
    counted = scan(client)
    scan_cpu = compare.cpu_ns(pid) - cpu
    if counted != items:
        raise RuntimeError(f"the scan found {counted} items of {items}")
    return {
        "before": before,
        "after": after,
        "per_item": (after - before) / items,
        "load_cpu_s": load_cpu / 1e9,
        "scan_cpu_s": scan_cpu / 1e9,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--binary", help="the dynalease-fake executable (default: cargo build --release)")
    parser.add_argument("--dynoxide", help="the dynoxide executable (default: the scratch folder's, or on PATH)")
    parser.add_argument("--scratch", default=str(compare.REPO / "target" / "compare-fakes"))
    args = parser.parse_args()
    executable = args.binary or fake_server.binary(release=True)
    candidates = [("dynalease-fake serve", lambda port: [executable, "serve", "--port", str(port)])]
    dynoxide = compare.dynoxide_command(compare.Path(args.scratch), args.dynoxide)
    if dynoxide:
        name = compare.dynoxide_version(dynoxide[0])
        candidates.append((name, lambda port: dynoxide + ["serve", "--port", str(port), "--log", "quiet"]))
    rows = []
    for name, command in candidates:
        port = compare.free_port()
        print(f"loading {args.items} items into {name} ...", file=sys.stderr)
        with compare.Server(name, command(port), port) as server:
            rows.append((name, measure(server, args.items)))
    print(f"{args.items} items of about 200 bytes over {PARTITIONS} partitions, BatchWriteItem of 25, then a Scan")
    print()
    print("| server | RSS before | RSS after | bytes per item | load CPU | scan CPU |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for name, r in rows:
        print(
            f"| {name} | {r['before'] / 2**20:.1f} MB | {r['after'] / 2**20:.1f} MB | {r['per_item']:.0f} | "
            f"{r['load_cpu_s']:.2f} s | {r['scan_cpu_s']:.2f} s |"
        )
    if not dynoxide:
        print()
        print("dynoxide is not installed: compare.py --install, or --dynoxide PATH")


if __name__ == "__main__":
    main()
