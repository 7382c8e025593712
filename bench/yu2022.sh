#!/usr/bin/env bash
# Planner benchmark (Yu et al. 2022): full SJF-BCO (bisection x kappa loop x list-scheduling passes with
# event evaluation) on generated instances of growing size, REPS times each (default 3); prints the
# median planning time (summary.json plan_s) and the passes evaluated. Default sizes: 160 jobs on 20
# servers (the paper's), 1,600 jobs on 20 and on 200 servers; BIG=1 adds 16,000 jobs on 200 servers.
# Usage: [BIG=1] bench/yu2022.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-3}
out=$(mktemp -d)
sizes=("160 20 1200" "1600 20 12000" "1600 200 12000")
[ "${BIG:-0}" = 1 ] && sizes+=("16000 200 12000")
printf "%7s %8s %6s %8s %12s %12s\n" jobs servers gpus passes median_s makespan
for cfg in "${sizes[@]}"; do
  set -- $cfg
  t=()
  for r in $(seq "$REPS"); do
    "$BUILD/ringmaster" simulate --cluster yu2022 --workload yu2022 --seed 1 --jobs "$1" --servers "$2" \
      --policy "sjf-bco:horizon=$3" --out "$out/r" -q
    t+=("$(python3 -c "import json;print(json.load(open('$out/r/summary.json'))['plan_s'])")")
  done
  python3 - "$1" "$2" "$out/r/summary.json" "${t[*]}" <<'PY'
import json, statistics as s, sys
jobs, servers, path, ts = sys.argv[1], sys.argv[2], sys.argv[3], [float(x) for x in sys.argv[4].split()]
d = json.load(open(path))
print(f"{jobs:>7} {servers:>8} {int(d['gpus']):>6} {int(d['passes']):>8} {s.median(ts):12.3f} {d['makespan_slots']:12.1f}")
PY
done
rm -rf "$out"
