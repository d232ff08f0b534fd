#!/usr/bin/env bash
# SeaweedFS (the `weed` command) for the S3 tests: a real S3-compatible server.
#
#   test/s3/weed.sh build        build weed once into a cache folder keyed by its version; print its path
#   test/s3/weed.sh start DIR    build if missing, start `weed server` with S3 on free loopback ports in
#                                DIR, wait until its S3 endpoint answers, print `endpoint PID`
#   test/s3/weed.sh stop PID     stop that server (SIGTERM, then SIGKILL if it still runs after 5 s)
#
# Its S3 API takes two identities (the tests' objstoretest package names them): access key
# `kura` (secret `kura-secret`) may do anything, `reader` (secret `reader-secret`) may only
# read and list; other keys are refused.
#
# `go install .../weed@version` is refused (SeaweedFS's go.mod has replace directives), so weed is built
# as the main module from a writable copy of the module cache's source.
set -euo pipefail
WEED_VERSION=v0.0.0-20261109003541-7506e5f91cd6
CACHE="${KURA_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kura-ci}/weed-$WEED_VERSION"
WEED="$CACHE/weed"

build() {
	if [ -x "$WEED" ]; then
		echo "$WEED"
		return
	fi
	mkdir -p "$CACHE"
	local dir src
	dir=$(cd "$CACHE" && GOFLAGS= go mod download -json "github.com/seaweedfs/seaweedfs@$WEED_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] || { echo "weed.sh: go mod download gave no Dir" >&2; exit 1; }
	src=$(mktemp -d "$CACHE/src.XXXXXX")
	cp -r "$dir/." "$src/"
	chmod -R u+w "$src"
	echo "weed.sh: building weed $WEED_VERSION (several minutes)" >&2
	(cd "$src" && GOFLAGS=-mod=mod CGO_ENABLED=0 go build -o "$WEED.tmp" ./weed)
	mv "$WEED.tmp" "$WEED"
	rm -rf "$src"
	echo "$WEED"
}

freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# answers reports whether URL gives any HTTP answer (S3 refuses an unsigned
# request: that is an answer).
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
	local data="$1" master volume filer s3
	build >/dev/null
	mkdir -p "$data"
	cat >"$data/s3.json" <<'JSON'
{"identities": [
  {"name": "kura", "credentials": [{"accessKey": "kura", "secretKey": "kura-secret"}],
   "actions": ["Admin", "Read", "List", "Tagging", "Write"]},
  {"name": "reader", "credentials": [{"accessKey": "reader", "secretKey": "reader-secret"}],
   "actions": ["Read", "List"]}
]}
JSON
	master=$(freeport); volume=$(freeport); filer=$(freeport); s3=$(freeport)
	# Every port free and on loopback: weed's gRPC ports default to the HTTP
	# port + 10000 (over 65535 for many free ports), its Iceberg and Lance
	# catalogs to fixed ports (off here), and its telemetry to the network.
	# Each bucket is a collection of its own volumes: many small ones. A
	# PutObject into a bucket that does not exist fails, as S3's does.
	"$WEED" server -dir="$data" -ip=127.0.0.1 -ip.bind=127.0.0.1 -master.telemetry=false \
		-master.volumeSizeLimitMB=64 -volume.max=2000 \
		-master.port="$master" -master.port.grpc="$(freeport)" \
		-volume.port="$volume" -volume.port.grpc="$(freeport)" \
		-filer -filer.port="$filer" -filer.port.grpc="$(freeport)" \
		-s3 -s3.port="$s3" -s3.port.grpc="$(freeport)" -s3.port.iceberg=0 -s3.port.lance=0 -s3.autoCreateBucket=false -s3.config="$data/s3.json" \
		>"$data/weed.log" 2>&1 &
	local pid=$!
	for _ in $(seq 1 300); do
		if answers "http://127.0.0.1:$s3/"; then
			echo "http://127.0.0.1:$s3 $pid"
			return
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "weed.sh: weed server exited; its log:" >&2
			tail -50 "$data/weed.log" >&2
			exit 1
		fi
		sleep 0.2
	done
	echo "weed.sh: weed's S3 endpoint did not answer within 60 s" >&2
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
build) build ;;
start) start "${2:?usage: weed.sh start DIR}" ;;
stop) stop "${2:?usage: weed.sh stop PID}" ;;
*) echo "usage: weed.sh build | start DIR | stop PID" >&2; exit 2 ;;
esac
