#!/usr/bin/env bash
# Sia's speed (issue 44): per-round solve time (median, p99) of Sia's program and the whole run's CPU time under
# --compat sia on the artifact's 960-job `newtrace` workloads (48 h of arrivals, the 64-GPU sia-64), against the
# authors' simulator on identical work where its runs are given: AUTHORS=DIR holding <policy>-newtrace-workload-N.out.gz
# and .time as scripts/sia-goldens/run.sh leaves them (their sia.py prints "Solver took: T ms" per round; .time has
# user, system and wall seconds of the whole Python process).
# Usage: [AUTHORS=DIR] bench/sia.sh [build-dir] [workloads...]   (default build, 1)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
WORKLOADS=${*:-1}
SHARED=../shared
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pct() {  # p50 and p99 of the numbers on stdin
  sort -g | awk '{v[NR] = $1} END {if (NR == 0) {print "- -"; exit} i = int(NR * 0.99); if (i < 1) i = 1; print v[int((NR + 1) / 2)], v[i]}'
}
printf '%-22s %8s %12s %12s %10s %10s\n' run rounds solve_p50_ms solve_p99_ms cpu_s ratio
for w in $WORKLOADS; do
  trace=$SHARED/traces/sia/workloads/newtrace/workload-$w.csv
  /usr/bin/time -f "%U %S" -o "$out/t" "$BUILD/ringmaster" simulate -q --compat sia --cluster sia-64 --trace "$trace" \
    --format pollux --policy sia --data-dir "$SHARED/traces" --out "$out/o" > /dev/null
  ours_cpu=$(awk '{printf "%.2f", $1 + $2}' "$out/t")
  read -r p50 p99 < <(tail -n +2 "$out/o/sia_rounds.csv" | cut -d, -f6 | pct)
  rounds=$(($(wc -l < "$out/o/sia_rounds.csv") - 1))
  printf '%-22s %8s %12s %12s %10s %10s\n' "ours newtrace-$w" "$rounds" "$p50" "$p99" "$ours_cpu" ""
  if [ -n "${AUTHORS:-}" ] && [ -f "$AUTHORS/sia-newtrace-workload-$w.out.gz" ]; then
    a_cpu=$(awk '{printf "%.2f", $1 + $2}' "$AUTHORS/sia-newtrace-workload-$w.time")
    zcat "$AUTHORS/sia-newtrace-workload-$w.out.gz" | sed -n 's/^Solver took: \([0-9.]*\)ms.*/\1/p' > "$out/a"
    read -r a50 a99 < <(pct < "$out/a")
    printf '%-22s %8s %12s %12s %10s %10s\n' "authors newtrace-$w" "$(wc -l < "$out/a")" "$a50" "$a99" "$a_cpu" \
      "$(awk -v a="$a_cpu" -v o="$ours_cpu" 'BEGIN {printf "%.0fx", a / o}')"
  fi
done
