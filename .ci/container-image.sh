#!/usr/bin/env bash
# CI: builds the container image of dynalease-fake (fake/Containerfile) from a static build of the
# server, checks its size, exports its root file system, runs the binary found there as the image
# would run it (on a loopback port, with its data folder), and drives it with boto3
# (fake/e2e/container_smoke.py). Containers cannot be run on CI's machines, images can be built:
# podman is installed from the distribution's packages if missing.
#
#   bash .ci/container-image.sh [STATIC_BINARY] [--keep-image]
#
# Without STATIC_BINARY, .ci/static-binary.sh builds it.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
image=localhost/dynalease-fake:ci
limit_bytes=$((15 * 1000 * 1000))
work="$(mktemp -d /tmp/dynalease-container-image.XXXXXX)"
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

if ! command -v podman >/dev/null; then
    echo "-- podman: installing it"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman >/dev/null
fi
podman --version

binary="${1:-}"
[ "$binary" = --keep-image ] && binary=""
if [ -z "$binary" ]; then
    echo "-- a static dynalease-fake"
    binary="$(bash .ci/static-binary.sh | tail -n 1)"
fi
if ! file -b "$binary" | grep -qE 'static(-pie)? linked'; then
    echo "$binary is linked dynamically: the image needs a static binary (.ci/static-binary.sh)" >&2
    exit 1
fi

echo "-- podman build"
mkdir -p "$work/context/data"
cp "$binary" "$work/context/dynalease-fake"
podman build --quiet -f fake/Containerfile -t "$image" "$work/context" >/dev/null
size="$(podman image inspect "$image" --format '{{.Size}}')"
echo "image $image: $size bytes (the goal: under $limit_bytes)"
if [ "$size" -ge "$limit_bytes" ]; then
    echo "the image is $size bytes, over $limit_bytes" >&2
    exit 1
fi

echo "-- its root file system, exported"
mkdir "$work/rootfs"
container="$(podman create "$image")"
podman export "$container" | tar -x -C "$work/rootfs"
podman rm "$container" >/dev/null
entrypoint="$(podman image inspect "$image" --format '{{json .Config.Entrypoint}}')"
command="$(podman image inspect "$image" --format '{{json .Config.Cmd}}')"
echo "entrypoint $entrypoint, command $command, volumes $(podman image inspect "$image" --format '{{json .Config.Volumes}}')"
[ "$(ls "$work/rootfs")" = "$(printf 'data\ndynalease-fake')" ] || { ls -la "$work/rootfs" >&2; exit 1; }
[ -z "$(ls -A "$work/rootfs/data")" ] || { echo "the data folder is not empty" >&2; exit 1; }

# The image's own command line, with three changes a host needs: the binary and the data file
# under the exported root, and a free loopback port in place of 0.0.0.0:8000.
mapfile -t args < <(python3 - "$entrypoint" "$command" "$work/rootfs" <<'PYTHON'
import json, sys
entrypoint, command, rootfs = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
assert entrypoint == ["/dynalease-fake", "serve", "--host", "0.0.0.0", "--port", "8000", "--control"], entrypoint
assert command == ["--data", "/data/tables.json"], command
args = entrypoint + command
args[0] = rootfs + args[0]
args[args.index("--host") + 1] = "127.0.0.1"
args[args.index("--port") + 1] = "0"
args[args.index("--data") + 1] = rootfs + args[args.index("--data") + 1]
print("\n".join(args))
PYTHON
)
echo "-- ${args[*]}"
"${args[@]}" >"$work/serve.out" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q '^listening on ' "$work/serve.out" && break; sleep 0.05; done
endpoint="$(sed -n 's/^listening on //p' "$work/serve.out")"
[ -n "$endpoint" ] || { cat "$work/serve.out" >&2; exit 1; }

echo "-- boto3 against it"
"$root/.venv/bin/python" fake/e2e/container_smoke.py "$endpoint" "$work/rootfs/data/tables.json"
kill -TERM "$server"
wait "$server"
server=""
python3 -c 'import json, sys; tables = json.load(open(sys.argv[1]))["Tables"]; assert [t["TableName"] for t in tables] == ["Smoke"], tables; print("on SIGTERM it wrote", sys.argv[1], "with", [t["TableName"] for t in tables])' "$work/rootfs/data/tables.json"

if [ "${2:-}" != --keep-image ] && [ "${1:-}" != --keep-image ]; then
    podman rmi "$image" >/dev/null
fi
