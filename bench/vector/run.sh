#!/usr/bin/env bash
# bench/vector/run.sh: Kura's vector engine (vecbench) and hnswlib-node side by
# side on the same generated dataset, one after the other (never in parallel).
#
# vecbench generates the clustered dataset (shared/vector-anchors.md recipe),
# computes the exact top-100, dumps all three to $DIR, builds Kura's HNSW
# single-threaded and searches one query at a time; then hnswlib.mjs builds
# hnswlib-node on the dumped vectors with the same M / efConstruction and
# searches the same queries. Output goes to $OUT (text from vecbench, then the
# JSON from hnswlib.mjs).
#
# Needs Go, node, and hnswlib-node installed outside the repository:
#   mkdir -p /tmp/hnsw && cd /tmp/hnsw && npm init -y && npm install hnswlib-node@3.0.0
# Run from the repository root:
#   bench/vector/run.sh
#   N=20000 bench/vector/run.sh
set -euo pipefail

N=${N:-50000}
DIM=${DIM:-1024}
QUERIES=${QUERIES:-1000}
SEED=${SEED:-1}
EF=${EF:-16,32,64,128}
EF100=${EF100:-100,200}
HNSW_MODULES=${HNSW_MODULES:-/tmp/hnsw/node_modules}
DIR=${DIR:-/tmp/vecdump-$N-$DIM-$SEED}
OUT=${OUT:-bench/vector/results/vector-$(date -u +%Y%m%dT%H%M%SZ).txt}

mkdir -p "$(dirname "$OUT")"
go build -o /tmp/vecbench ./internal/vector/cmd/vecbench
{
  echo "# $(date -u +%FT%TZ) $(go version) node $(node --version) nproc $(nproc)"
  echo "## vecbench (Kura internal/vector), GOMAXPROCS=1"
  GOMAXPROCS=1 /tmp/vecbench -n "$N" -dim "$DIM" -queries "$QUERIES" -seed "$SEED" \
    -m 16 -efc 200 -ef "$EF" -ef100 "$EF100" -dump "$DIR"
  echo "## hnswlib-node"
  NODE_PATH=$HNSW_MODULES node --expose-gc bench/vector/hnswlib.mjs "$DIR" "$EF" "$EF100"
} 2>&1 | tee "$OUT"
echo "results: $OUT"
