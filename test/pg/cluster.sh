#!/usr/bin/env bash
# A private PostgreSQL cluster for Kura's tests and CI: one script, used by
# .ci/run and by the tests that stop and start PostgreSQL (the fault test).
#
#   cluster.sh start DIR    initdb into DIR (if new), start on a free loopback
#                           port, print the connection URL on stdout
#   cluster.sh stop DIR     fast shutdown
#   cluster.sh kill DIR     pg_ctl stop -m immediate (a crash: no checkpoint)
#   cluster.sh restart DIR  start again on the same port after stop or kill
#
# PostgreSQL refuses to run as root: as root the cluster runs as the
# postgres user (DIR is made theirs). The binaries are Debian's
# postgresql-15 (not on PATH); PG_BIN overrides their folder.
set -euo pipefail
cmd=${1:?usage: cluster.sh start|stop|kill|restart DIR}
dir=${2:?usage: cluster.sh start|stop|kill|restart DIR}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
if [ ! -x "$PG_BIN/pg_ctl" ]; then
	echo "cluster.sh: no PostgreSQL binaries (install Debian's postgresql-15, or set PG_BIN)" >&2
	exit 2
fi
as_owner() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}
data=$dir/data
ctl() { as_owner "$PG_BIN/pg_ctl" -D "$data" -l "$dir/postgres.log" -w -t 60 "$@"; }
# Many test servers share the cluster, each with a pool of its own.
serve() {
	ctl start -o "-p $(cat "$dir/port") -k $dir -c listen_addresses=127.0.0.1 -c max_connections=1000 -c shared_buffers=128MB" >/dev/null
}

case $cmd in
start)
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && chown postgres: "$dir"
	if [ ! -d "$data" ]; then
		as_owner "$PG_BIN/initdb" -D "$data" -U kura --auth=trust -E UTF8 --locale=C >"$dir/initdb.log"
	fi
	if [ ! -f "$dir/port" ]; then
		python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' >"$dir/port"
	fi
	serve
	echo "postgres://kura@127.0.0.1:$(cat "$dir/port")/postgres?sslmode=disable"
	;;
restart) serve ;;
stop) ctl stop -m fast >/dev/null ;;
kill) ctl stop -m immediate >/dev/null ;;
*)
	echo "cluster.sh: unknown command $cmd" >&2
	exit 2
	;;
esac
