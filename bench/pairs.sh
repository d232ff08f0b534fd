#!/usr/bin/env bash
# bench/pairs.sh: interleaved A/B runs of Kura binaries (or ddbbench's
# floor) on one workload, for judging a change on a noisy machine.
#
# Not part of CI. For each repeat it runs every server in turn, each
# freshly started on an empty data directory, with ddbbench at concurrency
# 16 and --server-pid, and prints one line per run: ops/s, the server's CPU
# per operation, and that divided by the client's CPU per operation
# (ddbbench does the same work in every run, so the ratio cancels much of
# the host's changing speed). A server is a binary path, optionally with
# flags ("./kura --sync=false"), or the word floor.
#
#   bench/pairs.sh put 5 /tmp/kura-old /tmp/kura-new
#   DURATION=15s bench/pairs.sh docflow 3 floor ./kura "./kura --sync=false"
#
# Each server gets up to START_TIMEOUT seconds (default 30) to accept a
# connection on $PORT; a server that does not is reported and skipped.
set -euo pipefail

WORKLOAD=${1:?usage: bench/pairs.sh WORKLOAD REPEATS SERVER...}
REPEATS=${2:?usage: bench/pairs.sh WORKLOAD REPEATS SERVER...}
shift 2
DDBBENCH=${DDBBENCH:-/tmp/bench/ddbbench-bin}
DURATION=${DURATION:-10s}
PORT=${PORT:-8300}
START_TIMEOUT=${START_TIMEOUT:-30}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $WORK, $PID, cleanup on exit

# port_open: whether something accepts connections on 127.0.0.1:$PORT.
port_open() {
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
}

# wait_started: wait until server $PID accepts connections on $PORT; fails
# if it exits first or START_TIMEOUT seconds pass.
wait_started() {
	local deadline=$((SECONDS + START_TIMEOUT))
	until port_open; do
		kill -0 "$PID" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

if port_open; then
	echo "pairs.sh: something already listens on 127.0.0.1:$PORT; pick another PORT" >&2
	exit 1
fi

for _ in $(seq 1 "$REPEATS"); do
	for server in "$@"; do
		rm -rf "$WORK/data"
		if [ "$server" = floor ]; then
			"$DDBBENCH" floor --listen 127.0.0.1:$PORT >/dev/null 2>&1 &
		else
			# shellcheck disable=SC2086 # a server may carry flags
			$server --data-dir "$WORK/data" --listen 127.0.0.1:$PORT --log-level warn >/dev/null 2>&1 &
		fi
		PID=$!
		if ! wait_started; then
			echo "[$WORKLOAD $server] did not start: exited, or no listener on port $PORT within ${START_TIMEOUT}s"
			kill "$PID" 2>/dev/null || true
			wait "$PID" 2>/dev/null || true
			PID=
			continue
		fi
		"$DDBBENCH" --endpoint http://127.0.0.1:$PORT --workload "$WORKLOAD" \
			--duration "$DURATION" --server-pid $PID >"$WORK/out" 2>&1 || true
		kill "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
		PID=
		python3 - "$server" "$WORKLOAD" "$WORK/out" <<'EOF'
import re, sys
server, workload, out = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
ops = re.search(r"ops/s=([0-9.]+)", out)
srv = re.search(r"server=[0-9.]+s \(([0-9.]+) us/op", out)
cli = re.search(r"client=[0-9.]+s \(([0-9.]+) us/op", out)
if not (ops and srv and cli):
    print(f"[{workload} {server}] no result:\n{out}")
    sys.exit(0)
s, c = float(srv.group(1)), float(cli.group(1))
print(f"[{workload} {server}] ops/s={ops.group(1)} server={s:.1f} us/op ratio={s / c:.3f}")
for line in out.splitlines():
    if "errors=" in line and not re.search(r"errors=0 throttles=0 mismatches=0", line):
        print("  " + line.strip())
EOF
	done
done
