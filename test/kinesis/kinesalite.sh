#!/usr/bin/env bash
# kinesalite (npm kinesalite@3.3.3, pinned by package-lock.json here): the Kinesis Data Streams server the
# Kinesis streaming destination tests put records to and read them back from.
#
#   test/kinesis/kinesalite.sh install          npm ci here (once; node_modules is not committed)
#   test/kinesis/kinesalite.sh start DIR [PORT] start kinesalite on a free loopback port (or PORT), its
#                                               streams kept in DIR (so a restart on DIR keeps them),
#                                               wait until it answers, print `endpoint PID`
#   test/kinesis/kinesalite.sh stop PID         stop that server (SIGTERM, then SIGKILL after 5 s)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CLI="$HERE/node_modules/kinesalite/cli.js" # installed by npm ci

install() {
	[ -f "$CLI" ] && return
	(cd "$HERE" && npm ci --no-audit --no-fund >&2)
}

freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# answers reports whether kinesalite at URL gives an HTTP answer (it refuses
# an unsigned request: that is an answer).
answers() {
	python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except urllib.error.HTTPError:
    pass
except Exception:
    sys.exit(1)
PY
}

start() {
	local data="$1" port="${2:-}"
	install
	mkdir -p "$data"
	[ -n "$port" ] || port=$(freeport)
	# serve.js: on loopback only; streams ACTIVE 50 ms after CreateStream (500 ms by default), and no
	# shard limit to speak of (10 by default; every test creates streams).
	(cd "$HERE" && exec node serve.js "$port" "$data/db") >>"$data/kinesalite.log" 2>&1 &
	local pid=$!
	for _ in $(seq 1 100); do
		if answers "http://127.0.0.1:$port/"; then
			echo "http://127.0.0.1:$port $pid"
			return
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "kinesalite.sh: kinesalite exited; its log:" >&2
			tail -20 "$data/kinesalite.log" >&2
			exit 1
		fi
		sleep 0.1
	done
	echo "kinesalite.sh: kinesalite did not answer within 10 s" >&2
	stop "$pid"
	exit 1
}

stop() {
	local pid="$1"
	kill "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 50); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
install) install ;;
start) start "${2:?usage: kinesalite.sh start DIR [PORT]}" "${3:-}" ;;
stop) stop "${2:?usage: kinesalite.sh stop PID}" ;;
*) echo "usage: kinesalite.sh install | start DIR [PORT] | stop PID" >&2; exit 2 ;;
esac
