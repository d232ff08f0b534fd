#!/usr/bin/env bash
# bench/nodes.sh: the cost of one more Kura node. ddbbench against 1, 2
# and 3 `kura --cluster` nodes on one private PostgreSQL, against one node
# without --cluster on the same PostgreSQL, and against ddbbench's floor,
# each behind the same round-robin load balancer (bench/lb), interleaved.
#
# Not part of CI. Starts a private PostgreSQL cluster (test/pg/cluster.sh),
# builds bench/lb, then for each repeat and workload runs every
# configuration in turn, each freshly started on a fresh namespace:
#   floor    ddbbench floor (HTTP + JSON + the SDK, no database)
#   single   one kura, no --cluster
#   c1 c2 c3 one, two, three kura --cluster nodes
# ddbbench runs at concurrency $CONC for $DURATION through the load
# balancer with --server-pid naming every Kura node and the postmaster
# (whose children are the backends), so its server CPU is Kura's and
# PostgreSQL's together over the measured window. A sampler reads
# /proc every 0.2 s meanwhile, and the split per node and for PostgreSQL
# is taken over the same window (placed from ddbbench's own timings:
# create, preload, warmup), to within a sample or two. The load
# balancer's CPU is counted in neither. Appends one JSON line per run to
# $OUT: ddbbench's, plus "config", "nodes", "kura_cpu_us_per_op" (per
# node), "pg_cpu_us_per_op" and "split_window_s".
#
#   OUT=bench/results/nodes.jsonl bench/nodes.sh /tmp/kura put get query docflow
#   REPEATS=3 CONFIGS="single c1 c3" bench/nodes.sh /tmp/kura put
set -euo pipefail

KURA=${1:?usage: bench/nodes.sh KURA WORKLOAD...}
shift
DDBBENCH=${DDBBENCH:-/tmp/bench/ddbbench-bin}
DURATION=${DURATION:-10s}
REPEATS=${REPEATS:-2}
CONC=${CONC:-16}
CONFIGS=${CONFIGS:-"floor single c1 c2 c3"}
OUT=${OUT:-/dev/stdout}
ROOT=$(cd "$(dirname "$0")/.." && pwd)

WORK=$(mktemp -d /tmp/kura-bench-nodes.XXXXXX)
PGDIR=$(mktemp -d /tmp/kura-bench-pg.XXXXXX) # its own: cluster.sh gives it to the postgres user
PIDS=()
stop_all() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	PIDS=()
}
finish() {
	stop_all
	"$ROOT/test/pg/cluster.sh" stop "$PGDIR" >/dev/null 2>&1 || true
	rm -rf "$WORK" "$PGDIR"
}
trap finish EXIT
URL=$("$ROOT/test/pg/cluster.sh" start "$PGDIR")
POSTMASTER=$(head -1 "$PGDIR/data/postmaster.pid")
(cd "$ROOT" && go build -o "$WORK/lb" ./bench/lb)

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# sampler PIDFILE OUTFILE: every 0.2 s, one line "time cpu(pid1) cpu(pid2)
# ... cpu(postmaster tree)" (seconds), for the PIDs in PIDFILE.
sampler() {
	exec python3 - "$1" "$2" "$POSTMASTER" <<'EOF'
import os, sys, time
pidfile, out, pm = sys.argv[1], sys.argv[2], int(sys.argv[3])
pids = [int(p) for p in open(pidfile).read().split()]
def cpu(pid):
    try:
        s = open(f"/proc/{pid}/stat").read()
    except OSError:
        return 0.0
    f = s[s.rindex(")") + 2:].split()
    return (int(f[11]) + int(f[12])) / 100.0
def tree(root):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                s = open(f"/proc/{d}/stat").read()
                kids.setdefault(int(s[s.rindex(")") + 2:].split()[1]), []).append(int(d))
            except OSError:
                pass
    todo, seen = [root], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += kids.get(p, [])
    return sum(cpu(p) for p in seen)
with open(out, "w", buffering=1) as w:
    while True:
        w.write(" ".join(str(x) for x in [time.time()] + [cpu(p) for p in pids] + [tree(pm)]) + "\n")
        time.sleep(0.2)
EOF
}

n=0
for _ in $(seq 1 "$REPEATS"); do
	for workload in "$@"; do
		for config in $CONFIGS; do
			n=$((n + 1))
			ns="nodes$n"
			backends=()
			kura=()
			case $config in
			floor)
				p=$(port)
				"$DDBBENCH" floor --listen 127.0.0.1:$p >/dev/null 2>&1 &
				PIDS+=($!)
				backends+=("http://127.0.0.1:$p")
				nodes=0
				;;
			single | c1 | c2 | c3)
				flags=()
				nodes=1
				if [ "$config" != single ]; then
					flags=(--cluster)
					nodes=${config#c}
				fi
				for _ in $(seq 1 "$nodes"); do
					p=$(port)
					"$KURA" --postgres "$URL" --postgres-namespace "$ns" "${flags[@]}" \
						--listen 127.0.0.1:$p --log-level warn >"$WORK/kura-$p.log" 2>&1 &
					PIDS+=($!)
					kura+=($!)
					backends+=("http://127.0.0.1:$p")
				done
				;;
			*)
				echo "nodes.sh: unknown configuration $config" >&2
				exit 2
				;;
			esac
			"$WORK/lb" "${backends[@]}" >"$WORK/lb.out" 2>"$WORK/lb.err" &
			PIDS+=($!)
			sleep 2
			lb=$(head -1 "$WORK/lb.out")
			serverpids=$(
				IFS=,
				echo "${kura[*]:-}"
			)
			if [ $nodes -gt 0 ]; then
				serverpids=$serverpids,$POSTMASTER
			else
				serverpids=${PIDS[0]}
			fi
			echo "${kura[*]:-}" >"$WORK/pids"
			sampler "$WORK/pids" "$WORK/samples" &
			SAMPLER=$!
			echo "nodes.sh: $(date -u +%T) $workload $config" >&2
			t0=$(date +%s.%N)
			"$DDBBENCH" --endpoint "$lb" --workload "$workload" --concurrency "$CONC" \
				--duration "$DURATION" --server-pid "$serverpids" --label "$config" --json >"$WORK/run.json" 2>"$WORK/run.err" || true
			kill $SAMPLER 2>/dev/null || true
			wait $SAMPLER 2>/dev/null || true
			python3 - "$config" "$nodes" "$t0" "$WORK/run.json" "$WORK/samples" >>"$OUT" <<'EOF'
import json, sys
config, nodes, t0, runf, samplef = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
try:
    r = json.loads(open(runf).read().strip().splitlines()[-1])
except Exception as e:
    print(json.dumps({"config": config, "nodes": nodes, "error": f"no result: {e}"}))
    sys.exit(0)
r["config"], r["nodes"] = config, nodes
rows = []
for l in open(samplef):
    try:
        rows.append([float(x) for x in l.split()])
    except ValueError:
        pass
start = t0 + r.get("create_to_active_s", 0) + r.get("preload_s", 0) + r.get("warmup_s", 0)
end = start + r["duration_s"]
def at(t):
    best = min(rows, key=lambda row: abs(row[0] - t))
    return best
if nodes and rows and r.get("ops"):
    a, b = at(start), at(end)
    d = [y - x for x, y in zip(a[1:], b[1:])]
    r["kura_cpu_us_per_op"] = [round(v / r["ops"] * 1e6, 1) for v in d[:-1]]
    r["pg_cpu_us_per_op"] = round(d[-1] / r["ops"] * 1e6, 1)
    r["split_window_s"] = round(b[0] - a[0], 2)
print(json.dumps(r))
EOF
			stop_all
		done
	done
done
