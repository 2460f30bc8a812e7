#!/usr/bin/env bash
# CI: builds the dynalease-fake server once as a static Linux x86-64 binary, for the npm package,
# the Maven artifact and the container image alike, and prints its path on the last line.
#
#   binary="$(bash .ci/static-binary.sh | tail -n 1)"
#
# x86_64-unknown-linux-musl when rustup can add that target; else the gnu target with its C
# library linked statically (+crt-static). Optimized as a release build, but without the
# workspace's fat LTO, whose single code unit takes minutes to build; stripped. A static binary
# runs on any Linux x86-64 (glibc or musl distributions alike) and in an image from scratch.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
export CARGO_PROFILE_RELEASE_DEBUG=false CARGO_PROFILE_RELEASE_STRIP=true
# mimalloc (the crate's default feature) is for the in-process fake and needs a C compiler for
# musl; the server does not use it.
build=(cargo build --release --locked -p dynalease-fake --bin dynalease-fake --no-default-features)
if rustup target add x86_64-unknown-linux-musl >&2 2>/dev/null; then
    target=x86_64-unknown-linux-musl
    "${build[@]}" --target "$target" >&2
else
    echo "rustup cannot add x86_64-unknown-linux-musl here: the gnu target, linked statically" >&2
    target=x86_64-unknown-linux-gnu
    RUSTFLAGS="-C target-feature=+crt-static" "${build[@]}" --target "$target" >&2
fi
binary="$root/target/$target/release/dynalease-fake"
if ! file -b "$binary" | grep -qE 'static(-pie)? linked'; then
    echo "$binary is linked dynamically: $(file -b "$binary")" >&2
    exit 1
fi
echo "$binary: $(stat -c %s "$binary") bytes, $(file -b "$binary" | cut -d, -f1-5)" >&2
echo "$binary"
