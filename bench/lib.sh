# bench/lib.sh: sourced by the benchmark scripts (run.sh, perfstat.sh,
# pairs.sh). Gives them a work directory, $WORK, removed on exit, and stops
# on exit the server whose process ID they keep in $PID.
WORK=$(mktemp -d)
PID=
cleanup() {
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT
