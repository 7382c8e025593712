#!/usr/bin/env bash
# A-SRPT benchmark (issue 5): the full Philly job list (82,247 jobs) on philly2400 with the random forest
# retrained online (predictor=rf: first training after 500 completions, then whenever the finished jobs
# grew by 25 %). Each policy REPS times (default 3); per run: wall time, time training and predicting,
# scheduler decision latency p50 / p99 / max (summary.json "timing"); then medians.
# Usage: bench/a_srpt.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-3}
TRACE=../shared/traces/philly-jobs/philly.csv
out=$(mktemp -d)
printf "%-10s %3s %8s %8s %9s %9s %9s %10s %9s\n" policy run wall_s train_s predict_s p50_us p99_us max_us decisions
for p in a-srpt a-srpt-p; do
  rows=()
  for r in $(seq "$REPS"); do
    "$BUILD/ringmaster" simulate --cluster philly2400 --trace "$TRACE" --format philly --policy "$p" \
      --out "$out/$p" -q
    row=$(python3 -c "
import json; j = json.load(open('$out/$p/summary.json')); t = j['timing']
print(j['wall_s'], t['train_s'], t['predict_s'], t['decision_p50_us'], t['decision_p99_us'], t['decision_max_us'], int(t['decisions']))")
    read -r w tr pr p50 p99 mx n <<< "$row"
    printf "%-10s %3d %8.2f %8.2f %9.2f %9.1f %9.1f %10.0f %9d\n" "$p" "$r" "$w" "$tr" "$pr" "$p50" "$p99" "$mx" "$n"
    rows+=("$row")
  done
  printf '%s\n' "${rows[@]}" | python3 -c "
import statistics as s, sys
r = [[float(x) for x in l.split()] for l in sys.stdin if l.strip()]
m = [s.median(c) for c in zip(*r)]
print(f'median $p: wall {m[0]:.2f} s (training {m[1]:.2f} s, predicting {m[2]:.2f} s), decision p50 {m[3]:.1f} us, '
      f'p99 {m[4]:.1f} us, max {m[5]:,.0f} us over {m[6]:,.0f} decisions')"
done
