#!/usr/bin/env bash
# bench/run.sh: Kura side by side with ddbbench's HTTP/JSON floor,
# dynalite 4.0.0 (in memory and on LevelDB) and moto, on this machine,
# interleaved.
#
# Not part of CI. For each repeat and workload it runs every target in turn
# (floor, kura, dynalite), each freshly started, with ddbbench at
# concurrency $CONC for $DURATION and --server-pid, appending one JSON line
# per run to $OUT. Then it measures Kura's start-to-first-answer time and
# idle RSS (in memory and on disk) with bench/startup. It stops only the
# processes it started. After each run it also records the server's resident
# memory under load (one {"rss_kb":...} line per run).
#
# Needs: a built ddbbench ($DDBBENCH), node and dynalite 4.0.0's cli.js
# ($DYNALITE_CLI), python3 with moto[server] for the moto target ($MOTO_PY),
# Go. Run from the repository root:
#
#   bench/run.sh
#   REPEATS=3 WORKLOADS="get put" bench/run.sh
#   REPEATS=1 DURATION=10s WORKLOADS="put get query batchwrite mixed update docflow" \
#     TARGETS="kura floor dynalite dynalite_disk moto" bench/run.sh   # the peers table
set -euo pipefail

DDBBENCH=${DDBBENCH:-/tmp/bench/ddbbench-bin}
DYNALITE_CLI=${DYNALITE_CLI:-/tmp/bench/dyn/node_modules/dynalite/cli.js}
WORKLOADS=${WORKLOADS:-"get put query batchwrite"}
TARGETS=${TARGETS:-"floor kura dynalite"}
REPEATS=${REPEATS:-2}
DURATION=${DURATION:-15s}
CONC=${CONC:-16}
ITEMS=${ITEMS:-10000}
STARTUP_RUNS=${STARTUP_RUNS:-10}
OUT=${OUT:-bench/results/$(date -u +%Y%m%dT%H%M%SZ).jsonl}
MOTO_PY=${MOTO_PY:-python3}
KURA_PORT=8300 DYN_PORT=5202 FLOOR_PORT=5203 DYN_DISK_PORT=5204 MOTO_PORT=5201

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $WORK, $PID, cleanup on exit
KURA=$WORK/kura

mkdir -p "$(dirname "$OUT")"
go build -o "$KURA" ./cmd/kura
go build -o "$WORK/startup" ./bench/startup
NOTE="kura $(git describe --always --dirty 2>/dev/null || echo unknown); $(nproc) cpus"

wait_port() { # port
	for _ in $(seq 1 600); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.05
	done
	echo "port $1 did not open" >&2
	return 1
}

start() { # target -> sets PID and PORT
	case $1 in
	kura)
		rm -rf "$WORK/data"
		"$KURA" --data-dir "$WORK/data" --listen 127.0.0.1:$KURA_PORT --log-level warn >/dev/null &
		PID=$! PORT=$KURA_PORT ;;
	floor)
		"$DDBBENCH" floor --listen 127.0.0.1:$FLOOR_PORT >/dev/null 2>&1 &
		PID=$! PORT=$FLOOR_PORT ;;
	dynalite)
		node "$DYNALITE_CLI" --port $DYN_PORT >/dev/null 2>&1 &
		PID=$! PORT=$DYN_PORT ;;
	dynalite_disk)
		rm -rf "$WORK/dyndata"
		node "$DYNALITE_CLI" --port $DYN_DISK_PORT --path "$WORK/dyndata" >/dev/null 2>&1 &
		PID=$! PORT=$DYN_DISK_PORT ;;
	moto)
		"$MOTO_PY" -m moto.server -p $MOTO_PORT >/dev/null 2>&1 &
		PID=$! PORT=$MOTO_PORT ;;
	*) echo "unknown target $1" >&2; exit 2 ;;
	esac
	wait_port "$PORT"
}

stop() {
	kill "$PID" 2>/dev/null || true
	wait "$PID" 2>/dev/null || true
	PID=
}

for rep in $(seq 1 "$REPEATS"); do
	for w in $WORKLOADS; do
		for t in $TARGETS; do
			start "$t"
			echo "repeat $rep: $w on $t" >&2
			"$DDBBENCH" --endpoint "http://127.0.0.1:$PORT" --label "$t" --workload "$w" \
				--concurrency "$CONC" --duration "$DURATION" --items "$ITEMS" \
				--server-pid "$PID" --note "$NOTE; repeat $rep" --json >>"$OUT" || true
			rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status" 2>/dev/null || echo 0)
			echo "{\"label\":\"$t\",\"workload\":\"$w\",\"rss_kb\":${rss:-0},\"repeat\":$rep}" >>"$OUT"
			stop
		done
	done
done

# Start-up time and idle RSS of the real binary.
"$WORK/startup" --runs "$STARTUP_RUNS" --label kura-in-memory -- \
	"$KURA" --in-memory --listen 127.0.0.1:$KURA_PORT --log-level warn >>"$OUT"
rm -rf "$WORK/data"
"$WORK/startup" --runs "$STARTUP_RUNS" --label kura-on-disk -- \
	"$KURA" --data-dir "$WORK/data" --listen 127.0.0.1:$KURA_PORT --log-level warn >>"$OUT"
echo "results in $OUT" >&2
