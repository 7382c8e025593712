#!/usr/bin/env bash
# Simulator vs a real Slurm (issues 13, 30): the Tiresias 60-job trace (or --trace) replayed on a private Slurm 22.05 (4 nodes x 4
# fake GPUs on 127.0.0.1, tests/slurm/local_slurm.sh) under fifo, srsf and tiresias, each then simulated on the
# same scaled trace and cluster (a) as is and (b) with --start-delay set to the dispatch latency measured in
# that replay (latency.json). Prints the table of README.md and writes results.csv next to this file.
# Needs root and the slurm-wlm/munge packages; about 5 minutes per policy at the default scale.
# Usage: run.sh [--bin PATH] [--trace FILE|builtin:demo] [--scale K] [--interval 250ms] [--out DIR] [POLICY...]
# (default trace: the Tiresias 60 jobs at K = 12; the bundled demo, whose jobs are about 5x longer, at K = 120)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/build/ringmaster"
K=12
interval=250ms
out=$(mktemp -d /tmp/rm-fidelity.XXXXXX)
policies=()
trace=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$(readlink -f "$2"); shift 2 ;;
    --scale) K=$2; shift 2 ;;
    --trace) trace=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --out) out=$2; mkdir -p "$out"; shift 2 ;;
    -h|--help) sed -n 2,7p "$0"; exit 0 ;;
    *) policies+=("$1"); shift ;;
  esac
done
[ ${#policies[@]} -gt 0 ] || policies=(fifo srsf tiresias)
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (it starts slurmctld, slurmd and munged)" >&2; exit 77; }
[ -n "$trace" ] || trace="$root/../shared/traces/tiresias/60_job.csv"
case "$trace" in builtin:*) ;; *) [ -f "$trace" ] || { echo "run.sh: no trace at $trace (../shared beside the repository)" >&2; exit 2; } ;; esac
tname=$(basename "$trace" .csv); tname=${tname#builtin:}
export RM_SLURM_PORT=${RM_SLURM_PORT:-47000}
eval "$(bash "$root/tests/slurm/local_slurm.sh" start "$out/slurm")"
trap 'bash "$root/tests/slurm/local_slurm.sh" stop "$out/slurm" >/dev/null 2>&1 || true' EXIT
csv="$out/results.csv"
echo "trace,policy,time_scale,replay_wall_s,start_delay_s,dispatch_p50_s,avg_jct_real_s,avg_jct_sim_s,diff_sim_pct,order_sim,avg_jct_simd_s,diff_simd_pct,order_simd,preempt_real,preempt_sim,preempt_simd" > "$csv"
avg() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['$2'])" "$1/summary.json"; }
for p in "${policies[@]}"; do
  d="$out/$p"
  rm -rf "$d"
  mkdir -p "$d"
  t0=$(date +%s.%N)
  "$bin" replay --backend slurm --trace "$trace" --time-scale "$K" --policy "$p" --partition rm --state "$d/state" \
    --cluster "$here/cluster-100g.yaml" --interval "$interval" --out "$d/real" 2> "$d/replay.log"
  wall=$(python3 -c "import sys; print(round($(date +%s.%N) - $t0, 1))")
  delay=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['start_delay_s'], 3))" "$d/real/latency.json")
  p50=$(python3 -c "import json,sys; print(round(json.load(open(sys.argv[1]))['dispatch_s']['p50'], 3))" "$d/real/latency.json")
  "$bin" simulate --cluster "$d/real/cluster.yaml" --trace "$d/real/trace_scaled.csv" --policy "$p" --preempt-overhead 0 --out "$d/sim" -q
  "$bin" simulate --cluster "$d/real/cluster.yaml" --trace "$d/real/trace_scaled.csv" --policy "$p" \
    --preempt-overhead 0 --start-delay "$delay" --out "$d/simd" -q
  "$bin" compare "$d/sim" "$d/real" > "$d/compare-sim.txt"
  "$bin" compare "$d/simd" "$d/real" > "$d/compare-simd.txt"
  pct() { grep -o 'B vs A [-+0-9.]* %' "$1" | grep -o '[-+0-9.]*' | head -1; }
  n=$(($(wc -l < "$d/real/jobs.csv") - 1))
  order() { local l; l=$(grep '^start order' "$1"); case "$l" in *identical*) echo "$n/$n" ;; *) echo "$l" | awk -v n="$n" '{ print n - $3 "/" n }' ;; esac; }
  echo "$tname,$p,$K,$wall,$delay,$p50,$(avg "$d/real" avg_jct_s),$(avg "$d/sim" avg_jct_s),$(pct "$d/compare-sim.txt"),$(order "$d/compare-sim.txt"),$(avg "$d/simd" avg_jct_s),$(pct "$d/compare-simd.txt"),$(order "$d/compare-simd.txt"),$(avg "$d/real" preemptions),$(avg "$d/sim" preemptions),$(avg "$d/simd" preemptions)" >> "$csv"
  tail -1 "$csv"
done
# results.csv keeps one block of rows per trace: this run's rows replace that trace's.
if [ -f "$here/results.csv" ] && head -1 "$here/results.csv" | grep -q '^trace,'; then
  { head -1 "$csv"; tail -n +2 "$here/results.csv" | awk -F, -v t="$tname" '$1 != t'; tail -n +2 "$csv"; } > "$out/merged.csv"
  cp "$out/merged.csv" "$here/results.csv"
else
  cp "$csv" "$here/results.csv"
fi
python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| trace | policy | K | replay wall | measured start delay (dispatch p50) | avg JCT Slurm | simulate | diff | same start position | simulate --start-delay | diff | same start position | preemptions Slurm / sim / sim+delay |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
f = lambda x: f"{float(x):.2f} s"
for r in rows:
    print(f"| {r['trace']} | {r['policy']} | {r['time_scale']} | {float(r['replay_wall_s']):.0f} s | {float(r['start_delay_s']):.2f} s ({float(r['dispatch_p50_s']):.2f} s) | "
          f"{f(r['avg_jct_real_s'])} | {f(r['avg_jct_sim_s'])} | {r['diff_sim_pct']} % | {r['order_sim']} | {f(r['avg_jct_simd_s'])} | "
          f"{r['diff_simd_pct']} % | {r['order_simd']} | {r['preempt_real']} / {r['preempt_sim']} / {r['preempt_simd']} |")
PY
echo "outputs in $out"
