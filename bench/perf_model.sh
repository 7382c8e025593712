#!/usr/bin/env bash
# The cost of a measured performance model (issue 26 goal 8): the full Philly job list (82,247 jobs) on philly2400
# under fifo, srsf and tiresias with --perf-model analytic and measured:gavel, in one run, interleaved ABBA so that
# both see the same machine; prints each run's process wall time (reading Gavel's table included), then per
# policy the medians and their ratio (goal: measured / analytic <= 1.5).
# Usage: bench/perf_model.sh [build-dir] [rounds] (rounds of ABBA, default 3: 6 runs per model and policy)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
ROUNDS=${2:-3}
TRACE=../shared/traces/philly-jobs/philly.csv
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # policy model -> appends "policy model wall"
  /usr/bin/time -f "%e" -o "$out/t" "$BUILD/ringmaster" simulate --cluster philly2400 --trace "$TRACE" \
    --format philly --perf-model "$2" --policy "$1" -q --out "$out/o"
  echo "$1 $2 $(cat "$out/t") $(python3 -c "import json;print(json.load(open('$out/o/summary.json')).get('perf_fallback_jobs', 0))")" \
    | tee -a "$out/runs"
}
echo "policy perf_model wall_s perf_fallback_jobs"
for p in fifo srsf tiresias; do
  for r in $(seq "$ROUNDS"); do
    run "$p" analytic; run "$p" measured:gavel; run "$p" measured:gavel; run "$p" analytic
  done
done
python3 - "$out/runs" <<'PY'
import statistics as s, sys
runs = {}
for line in open(sys.argv[1]):
    p, m, w, _ = line.split()
    runs.setdefault(p, {}).setdefault(m, []).append(float(w))
print(f"{'policy':9} {'analytic s':>11} {'measured:gavel s':>17} {'ratio':>6}")
for p, by in runs.items():
    a, g = s.median(by['analytic']), s.median(by['measured:gavel'])
    print(f"{p:9} {a:11.3f} {g:17.3f} {g / a:6.2f}")
PY
