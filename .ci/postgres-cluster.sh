#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a unix socket in a temporary directory, for the example that
# takes a connection URL: `start DIR` prints the URL, `stop DIR` stops the server and removes
# DIR. As root, the server runs as the user `postgres`, since it refuses to run as root.
set -euo pipefail

bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
as_postgres=()
[ "$(id -u)" = 0 ] && as_postgres=(runuser -u postgres --)
dir="$2"

case "$1" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    "${as_postgres[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres --no-sync --no-instructions >/dev/null
    "${as_postgres[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-k $dir -c listen_addresses=''" start >/dev/null
    echo "host=$dir port=5432 user=postgres dbname=postgres"
    ;;
stop)
    "${as_postgres[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    rm -rf "$dir"
    ;;
esac
