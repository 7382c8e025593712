#!/usr/bin/env bash
# End-to-end benchmark of the task model (Wang et al. 2020): one generated 160-job set on the 64-GPU
# wang2020 cluster under Ada-SRSF (ssf-lwf2-srsf-1-true), at scale 10 (the authors' setting) and scale 100
# (10x more iterations), in the default event-driven mode and in --compat wang2020 (1-ms steps).
# Each run REPS times (default 5); prints medians of the in-process wall time (summary.json wall_s,
# which covers reading, simulating and summarising) and the ratio to the authors' Python (10-60 s per
# configuration at scale 10, spec A.8.3).
# Usage: bench/wang2020.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
out=$(mktemp -d)
printf "%-8s %-7s %10s %10s %12s %14s\n" scale mode median_s min_s makespan_ms vs_python_10s
for scale in 10 100; do
  for mode in default compat; do
    extra=""; [ "$mode" = compat ] && extra="--compat wang2020"
    walls=()
    for r in $(seq "$REPS"); do
      "$BUILD/ringmaster" simulate --cluster wang2020 --workload wang2020 --seed 1 --scale "$scale" \
        --policy ssf-lwf2-srsf-1-true $extra --out "$out/r" -q
      walls+=("$(python3 -c "import json;print(json.load(open('$out/r/summary.json'))['wall_s'])")")
    done
    mk=$(python3 -c "import json;print(int(json.load(open('$out/r/summary.json'))['makespan_ms']))")
    python3 - "$scale" "$mode" "$mk" "${walls[*]}" <<'PY'
import statistics as s, sys
scale, mode, mk, w = sys.argv[1], sys.argv[2], sys.argv[3], [float(x) for x in sys.argv[4].split()]
m = s.median(w)
print(f"{scale:<8} {mode:<7} {m:10.4f} {min(w):10.4f} {mk:>12} {10 / m:13,.0f}x")
PY
  done
done
rm -rf "$out"
