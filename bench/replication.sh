#!/usr/bin/env bash
# bench/replication.sh: what global tables cost under ddbbench's put load.
#
# Not part of CI. For each repeat it runs three servers in turn, each
# freshly started on an empty data directory (durable writes, the
# defaults) with --regions us-east-1,eu-west-1,us-east-2 --admin, and
# ddbbench put at concurrency 16 with --server-pid:
#   0 replicas: ddbbench's table stays a table of us-east-1 alone;
#   1 replica:  bench/replag makes it a global table with a replica in
#               eu-west-1 during the preload and probes the lag to it;
#   2 replicas: the same with replicas in eu-west-1 and us-east-2.
# It prints one JSON line per run: ddbbench's result, and replag's (lag
# percentiles, backlog at the end) under "replag". ddbbench keeps its
# table (--keep-table), so that replag can finish a replica whose
# backfill outlasts the run; the server is stopped after each run.
#
#   KURA=/tmp/kura REPLAG=/tmp/replag DDBBENCH=/tmp/ddbbench bench/replication.sh 2
#   KURA_FLAGS=--sync=false ... bench/replication.sh 1   # extra server flags
set -euo pipefail

REPEATS=${1:-1}
KURA=${KURA:?KURA: a built kura}
REPLAG=${REPLAG:?REPLAG: a built bench/replag}
DDBBENCH=${DDBBENCH:-/tmp/bench/ddbbench-bin}
DURATION=${DURATION:-20s}
# A short preload and a long warm-up: the replicas' backfills (one after
# the other) are done before the measured window starts.
ITEMS=${ITEMS:-2000}
WARMUP=${WARMUP:-8s}
PORT=${PORT:-8300}
KURA_FLAGS=${KURA_FLAGS:-}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $WORK, $PID, cleanup on exit

for _ in $(seq 1 "$REPEATS"); do
	for replicas in "" eu-west-1 eu-west-1,us-east-2; do
		rm -rf "$WORK/data" "$WORK/replag"
		# shellcheck disable=SC2086 # KURA_FLAGS may hold several flags
		"$KURA" --data-dir "$WORK/data" --listen 127.0.0.1:$PORT --log-level warn \
			--regions us-east-1,eu-west-1,us-east-2 --admin $KURA_FLAGS >/dev/null 2>&1 &
		PID=$!
		sleep 0.5
		RPID=
		if [ -n "$replicas" ]; then
			"$REPLAG" --endpoint http://127.0.0.1:$PORT --replicas "$replicas" --probe-after 1s >"$WORK/replag" &
			RPID=$!
		fi
		"$DDBBENCH" --endpoint http://127.0.0.1:$PORT --workload put --concurrency 16 \
			--items "$ITEMS" --warmup "$WARMUP" --duration "$DURATION" --server-pid $PID --keep-table --json --label "replicas=${replicas:-none}" >"$WORK/out" || true
		if [ -n "$RPID" ]; then
			wait "$RPID" || true
		fi
		kill "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
		PID=
		python3 - "$WORK/out" "$WORK/replag" <<'EOF'
import json, os, sys
res = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
if os.path.exists(sys.argv[2]) and os.path.getsize(sys.argv[2]):
    res["replag"] = json.loads(open(sys.argv[2]).read())
print(json.dumps(res))
EOF
	done
done
