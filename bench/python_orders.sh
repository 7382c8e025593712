#!/usr/bin/env bash
# Policies written in Python against the same policies in C++ (issue 28; docs/python.md): the whole Philly list
# (82,247 jobs) on 70 x 8 GPUs, each job its trace duration (so the queue is long and the keys matter), for the
# orders fifo, srsf and Tiresias' 2D-LAS, the first-fit placement (filter/score, called per server per placement)
# and a whole FIFO first-fit scheduler (called once per pass); each pair run alternately ROUNDS times in one invocation. Prints the median simulate
# wall_s (summary.json: the run, without reading the trace) and process wall time of each, their ratios, and checks
# that jobs.csv is byte-identical.
# Usage: bench/python_orders.sh [build-dir] [rounds] (default build, 3)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
ROUNDS=${2:-3}
EX=$(pwd)/examples/policies
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf 'name: philly-70x8\nservers:\n  - {count: 70, gpus: 8, gpu_mem_gb: 32, nic_gbps: 100}\n' > "$out/c.yaml"
run() {  # label policy -> "run_s process_s"
  local t0 t1
  t0=$(date +%s.%N)
  "$BUILD/ringmaster" simulate --cluster "$out/c.yaml" --trace ../shared/traces/philly-jobs/philly.csv \
    --format philly --perf-model trace --policy "$2" --out "$out/$1" -q 2> /dev/null
  t1=$(date +%s.%N)
  python3 -c "import json; print(json.load(open('$out/$1/summary.json'))['wall_s'], $t1 - $t0)"
}
printf "%-10s %12s %12s %7s %14s %14s %7s %s\n" policy cpp_run_s py_run_s ratio cpp_process_s py_process_s ratio jobs.csv
for spec in "fifo|fifo|py:file=$EX/fifo.py;class=Fifo" "srsf|srsf|py:file=$EX/srsf.py;class=Srsf" \
            "tiresias|tiresias|py:file=$EX/tiresias.py;class=TwoDLas+consolidated" \
            "first-fit|fifo+first-fit|fifo+py:file=$EX/first_fit.py;class=FirstFit" \
            "scheduler|fifo+first-fit|py:file=$EX/fifo_scheduler.py;class=FifoFirstFit"; do
  IFS='|' read -r file cpp py <<< "$spec"
  : > "$out/times"
  for _ in $(seq "$ROUNDS"); do
    echo "c $(run c "$cpp")" >> "$out/times"
    echo "p $(run p "$py")" >> "$out/times"
  done
  same=$(cmp -s "$out/c/jobs.csv" "$out/p/jobs.csv" && echo identical || echo DIFFERENT)
  python3 - "$file" "$same" "$out/times" <<'PY'
import statistics as st, sys
name, same, path = sys.argv[1], sys.argv[2], sys.argv[3]
t = {"c": [], "p": []}
for line in open(path):
    k, a, b = line.split()
    t[k].append((float(a), float(b)))
cr, cp = st.median(x for x, _ in t["c"]), st.median(y for _, y in t["c"])
pr, pp = st.median(x for x, _ in t["p"]), st.median(y for _, y in t["p"])
print(f"{name:10} {cr:12.3f} {pr:12.3f} {pr / cr:6.2f}x {cp:14.3f} {pp:14.3f} {pp / cp:6.2f}x {same}")
PY
done
