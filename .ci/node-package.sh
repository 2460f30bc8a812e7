#!/usr/bin/env bash
# CI: packs the npm package dynalease-fake (fake/node) with the server binary inside, installs the
# tarball into a fresh folder beside vitest, jest, the AWS SDK and TypeScript (fake/node/example),
# and there type-checks and runs the example suite and the package's tests (fake/node/test) with
# vitest, and the jest helpers' suite (fake/node/example/jest) with jest, against the installed
# package and the binary it carries.
#
#   bash .ci/node-package.sh [BINARY]
#
# BINARY is the server the package carries (default: target/debug/dynalease-fake, which CI has
# built already); the speed figures of fake/node/README.md come from a release binary.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="$(realpath "${1:-$root/target/debug/dynalease-fake}")"
work="$(mktemp -d /tmp/dynalease-node-package.XXXXXX)"
trap 'rm -rf "$work"' EXIT
npm_quiet=(--no-audit --no-fund --loglevel=error)

echo "-- npm pack (tsc, and the binary $binary)"
(cd "$root/fake/node" && npm ci "${npm_quiet[@]}" && DYNALEASE_FAKE_PACK_BINARY="$binary" npm pack --pack-destination "$work" --loglevel=warn)
tarball="$(ls "$work"/dynalease-fake-*.tgz)"

# The tarball installs and its tests run with no Rust toolchain on PATH, from outside the
# repository, with the binary the package carries, never one named by the environment.
without_toolchain="$(tr ':' '\n' <<<"$PATH" | while read -r dir; do
    [ -e "$dir/cargo" ] || [ -e "$dir/rustc" ] || printf '%s:' "$dir"
done)"
export PATH="${without_toolchain%:}"
if command -v cargo >/dev/null; then
    echo "cargo is still on PATH: $(command -v cargo)" >&2
    exit 1
fi
unset DYNALEASE_FAKE_BIN

echo "-- a fresh folder: the tarball, vitest, the AWS SDK"
suite="$work/suite"
mkdir -p "$suite/test"
cp -r "$root"/fake/node/example/{package.json,tsconfig.json,vitest.config.ts,carts.test.ts,jest} "$suite/"
cp "$root"/fake/node/test/*.ts "$suite/test/"
# The first test of the README, as a reader pastes it.
awk '/^```ts$/ && !done {inside=1; next} /^```$/ && inside {exit} inside {print}' "$root/fake/node/README.md" >"$suite/test/readme.test.ts"
grep -q '^test(' "$suite/test/readme.test.ts"
(cd "$suite" && npm install "${npm_quiet[@]}" && npm install "${npm_quiet[@]}" --save-dev "$tarball")

cd "$suite"
echo "-- tsc --noEmit: the suite type-checks against the package's .d.ts"
npx tsc --noEmit
echo "-- vitest run"
DYNALEASE_FAKE_REPOSITORY="$root" NODE_NO_WARNINGS=1 npx vitest run
echo "-- jest: the jest helpers"
NODE_NO_WARNINGS=1 npx jest --config jest/jest.config.cjs --rootDir jest
