#!/usr/bin/env bash
# Makes sure the PostgreSQL server binaries (initdb, pg_ctl) are on the machine, for the tests of
# the `postgres` feature, which start a throwaway cluster of their own. Idempotent: when a
# /usr/lib/postgresql/*/bin/initdb is there, it installs nothing. Debian: postgresql-15, or
# whichever `postgresql` names.
set -euo pipefail

found() { ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }

if ! found; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "the PostgreSQL server binaries are missing: install postgresql-15 (or postgresql)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql-15 >/dev/null 2>&1 || apt-get install -y -qq postgresql >/dev/null
fi
found
ls -d /usr/lib/postgresql/*/bin | tail -1
