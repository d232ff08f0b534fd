#!/usr/bin/env python3
"""Print the side-by-side markdown table of a bench/run.sh results file.

    python3 bench/table.py bench/results/peers-*.jsonl

Server CPU per operation first (the stable figure on a shared machine), then
the same divided by the client's CPU per operation (ddbbench does the same
work in every run, so this ratio cancels the host's speed, which can change
by half within minutes here), ops/s and latency, the post-run check, and
the server's RSS after the run. Medians over repeats. Start-up lines
(bench/startup) are listed after.
"""
import json
import statistics
import sys
from collections import defaultdict

ORDER = ["put", "get", "query", "batchwrite", "mixed", "update", "docflow"]


def main(path):
    runs, rss, startup = defaultdict(list), defaultdict(list), []
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if "rss_kb" in d:
                rss[(d["workload"], d["label"])].append(d["rss_kb"])
            elif "start_ms_median" in d:
                startup.append(d)
            elif "workload" in d:
                runs[(d["workload"], d.get("target") or d.get("label"))].append(d)
    targets = []
    for (_, t) in runs:
        if t not in targets:
            targets.append(t)
    med = lambda xs: statistics.median(xs) if xs else float("nan")
    print("| workload | target | server CPU µs/op | ÷ client CPU | ops/s | p50 ms | p99 ms | errors | check | RSS after run MB |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for w in sorted({w for w, _ in runs}, key=lambda w: ORDER.index(w) if w in ORDER else 99):
        for t in targets:
            rs = runs.get((w, t))
            if not rs:
                continue
            chk = {str((r.get("check") or {}).get("ok", "-")) for r in rs}
            errs = sum(r.get("errors", 0) + r.get("mismatches", 0) for r in rs)
            ratio = med([(r.get("server_cpu_us_per_op") or 0) / r["client_cpu_us_per_op"]
                         for r in rs if r.get("client_cpu_us_per_op")])
            print(f"| {w} | {t} | {med([r.get('server_cpu_us_per_op') or 0 for r in rs]):.0f} | {ratio:.2f} "
                  f"| {med([r['ops_per_s'] for r in rs]):.0f} | {med([r['p50_ms'] for r in rs]):.2f} "
                  f"| {med([r['p99_ms'] for r in rs]):.2f} | {errs} | {'/'.join(sorted(chk))} "
                  f"| {med(rss.get((w, t), [0])) / 1024:.0f} |")
    if startup:
        print()
        print("| binary | start to first answer, median (min-max) ms | idle RSS MB |")
        print("|---|---|---:|")
        for s in startup:
            print(f"| {s['label']} | {s['start_ms_median']:.0f} ({s['start_ms_min']:.0f}-{s['start_ms_max']:.0f}) "
                  f"| {s['idle_rss_kb_median'] / 1024:.0f} |")


if __name__ == "__main__":
    main(sys.argv[1])
