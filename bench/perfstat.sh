#!/usr/bin/env bash
# bench/perfstat.sh: context switches, page faults and system calls per
# operation of a server under a ddbbench load.
#
# Not part of CI. Starts the server fresh, runs ddbbench against it with
# --server-pid, and counts events of the server process with `perf stat`
# for a window in the middle of the run. On this VM a thread switch, a
# page fault or a device notification costs the server far more than the
# user-space work around it, so these counts explain differences that CPU
# profiles only show as time in the kernel. Needs perf (linux-perf) and
# permission to trace the server (root here).
#
#   bench/perfstat.sh put                       # Kura from this checkout
#   bench/perfstat.sh put ./kura --sync=false   # any binary, extra flags
#   bench/perfstat.sh put floor                 # ddbbench's floor server
set -euo pipefail

WORKLOAD=${1:?usage: bench/perfstat.sh WORKLOAD [BINARY|floor] [FLAGS...]}
BIN=${2:-}
shift $(($# < 2 ? $# : 2))
DDBBENCH=${DDBBENCH:-/tmp/bench/ddbbench-bin}
PORT=${PORT:-8300}
DURATION=${DURATION:-10s}
WINDOW=${WINDOW:-4} # seconds counted, starting 5 s into the run

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # $WORK, $PID, cleanup on exit

if [ -z "$BIN" ]; then
	go build -o "$WORK/kura" ./cmd/kura
	BIN=$WORK/kura
fi
if [ "$BIN" = floor ]; then
	"$DDBBENCH" floor --listen 127.0.0.1:$PORT >/dev/null 2>&1 &
else
	"$BIN" --data-dir "$WORK/data" --listen 127.0.0.1:$PORT --log-level warn "$@" >/dev/null 2>&1 &
fi
PID=$!
sleep 0.5

"$DDBBENCH" --endpoint http://127.0.0.1:$PORT --workload "$WORKLOAD" \
	--duration "$DURATION" --server-pid $PID >"$WORK/bench.out" 2>&1 &
LOAD=$!
EVENTS=context-switches,page-faults
for s in read write futex nanosleep epoll_pwait fdatasync; do
	EVENTS="$EVENTS,syscalls:sys_enter_$s"
done
sleep 5
perf stat -e "$EVENTS" -p $PID -o "$WORK/stat" -- sleep "$WINDOW" >/dev/null 2>&1
wait $LOAD

grep -E "ops/s|cpu:" "$WORK/bench.out"
OPS=$(grep -oE "ops/s=[0-9.]+" "$WORK/bench.out" | cut -d= -f2)
# The window's operations are estimated from the run's mean rate.
awk -v ops="$OPS" -v win="$WINDOW" '
	/context-switches|page-faults|sys_enter/ {
		gsub(",", "", $1)
		printf "  %-36s %6.2f per op\n", $2, $1 / (ops * win)
	}' "$WORK/stat"
