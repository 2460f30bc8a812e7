#!/usr/bin/env bash
# Creates the virtualenv .venv (or $VENV) with boto3, and moto's server as the S3 of the export and
# import tests, for dynalease-fake's end-to-end test and benchmark (fake/e2e/). Idempotent: when
# boto3 and moto already import, it installs nothing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${VENV:-$root/.venv}"
report='import boto3, moto, sys; print(f"boto3 {boto3.__version__}, moto {moto.__version__} in {sys.prefix}")'

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "$report" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$root/fake/e2e/requirements.txt"
    "$venv/bin/python" -c "$report"
fi
