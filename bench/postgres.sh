#!/usr/bin/env bash
# bench/postgres.sh: Kura on PostgreSQL next to Kura on Pebble, in one run.
#
# Not part of CI. Starts a private PostgreSQL cluster (test/pg/cluster.sh,
# its defaults: synchronous_commit on), then for each repeat and workload
# runs ddbbench at concurrency 16 against Kura on Pebble (fresh data
# directory) and Kura on PostgreSQL (a fresh namespace), each with its
# defaults. The server CPU of the PostgreSQL run counts Kura and every
# PostgreSQL process (--server-pid with the postmaster, whose children
# are the backends). Appends ddbbench's JSON lines to $OUT.
#
#   OUT=bench/results/pg.jsonl bench/postgres.sh /tmp/kura get put query batchwrite
set -euo pipefail

KURA=${1:?usage: bench/postgres.sh KURA WORKLOAD...}
shift
DDBBENCH=${DDBBENCH:-/tmp/bench/ddbbench-bin}
DURATION=${DURATION:-10s}
REPEATS=${REPEATS:-1}
OUT=${OUT:-/dev/stdout}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $WORK, $PID, cleanup on exit
PGDIR=$(mktemp -d /tmp/kura-bench-pg.XXXXXX)
stop_pg() { "$ROOT/test/pg/cluster.sh" stop "$PGDIR" >/dev/null 2>&1 || true; rm -rf "$PGDIR"; cleanup; }
trap stop_pg EXIT
URL=$("$ROOT/test/pg/cluster.sh" start "$PGDIR")
POSTMASTER=$(head -1 "$PGDIR/data/postmaster.pid")

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

n=0
for _ in $(seq 1 "$REPEATS"); do
	for workload in "$@"; do
		for backend in pebble postgres; do
			n=$((n + 1))
			p=$(port)
			rm -rf "$WORK/data"
			pids=
			if [ $backend = pebble ]; then
				"$KURA" --data-dir "$WORK/data" --listen 127.0.0.1:$p --log-level warn >/dev/null 2>&1 &
				PID=$!
				pids=$PID
			else
				"$KURA" --postgres "$URL" --postgres-namespace "bench$n" --listen 127.0.0.1:$p --log-level warn >/dev/null 2>&1 &
				PID=$!
				pids=$PID,$POSTMASTER
			fi
			sleep 1
			"$DDBBENCH" --endpoint http://127.0.0.1:$p --workload "$workload" --concurrency 16 \
				--duration "$DURATION" --server-pid "$pids" --label "kura-$backend" --json >>"$OUT" || true
			kill "$PID" 2>/dev/null || true
			wait "$PID" 2>/dev/null || true
			PID=
		done
	done
done
