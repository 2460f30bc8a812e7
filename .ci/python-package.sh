#!/usr/bin/env bash
# CI: builds the wheel of the Python package dynalease-fake (fake/python) once, installs it into
# a fresh virtual environment with pytest, pytest-xdist and boto3 only, and runs the package's
# tests (fake/python/tests) against the installed wheel and the binary it carries.
#
#   bash .ci/python-package.sh [--release]
#
# Without --release the wheel carries a debug build of the binary, which reuses what the test
# build compiled; the speed figures of fake/python/README.md come from a --release wheel.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
profile=dev
[ "${1:-}" = --release ] && profile=release
work="$(mktemp -d /tmp/dynalease-python-package.XXXXXX)"
trap 'rm -rf "$work"' EXIT
pip_install() { "$1/bin/python" -m pip install --quiet --disable-pip-version-check "${@:2}"; }

python3 -m venv "$work/build"
pip_install "$work/build" "maturin>=1.5,<2"
(cd "$root/fake/python" && "$work/build/bin/maturin" build --profile "$profile" --out "$work/wheels")

# The wheel installs and its tests run with no Rust toolchain on PATH, from outside the
# repository (so that only the installed package can be imported), and with the binary the
# wheel installed, never one named by the environment.
without_toolchain="$(tr ':' '\n' <<<"$PATH" | while read -r dir; do
    [ -e "$dir/cargo" ] || [ -e "$dir/rustc" ] || printf '%s:' "$dir"
done)"
export PATH="${without_toolchain%:}"
if command -v cargo >/dev/null; then
    echo "cargo is still on PATH: $(command -v cargo)" >&2
    exit 1
fi
unset DYNALEASE_FAKE_BIN
python3 -m venv "$work/test"
pip_install "$work/test" "$work"/wheels/dynalease_fake-*.whl pytest pytest-xdist boto3
cd "$work"
"$work/test/bin/python" -m pytest "$root/fake/python/tests" -q -p no:cacheprovider
