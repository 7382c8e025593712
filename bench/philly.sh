#!/usr/bin/env bash
# End-to-end benchmark: the full Philly job list (82,247 jobs) on philly2400 under FIFO and preemptive
# SRSF, each run REPS times (default 5); prints per-run wall time, events/s and peak RSS, then medians.
# Usage: bench/philly.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
TRACE=../shared/traces/philly-jobs/philly.csv
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
out=$(mktemp -d)
printf "%-6s %4s %9s %12s %10s\n" policy run wall_s events/s rss_mb
for p in fifo srsf; do
  walls=(); rss=(); eps=()
  for r in $(seq "$REPS"); do
    /usr/bin/time -v "$BUILD/ringmaster" simulate --cluster philly2400 --trace "$TRACE" --format philly \
      --policy "$p" --out "$out/$p" -q 2>"$out/time.txt"
    wall=$(python3 -c "import json;print(json.load(open('$out/$p/summary.json'))['wall_s'])")
    ev=$(python3 -c "import json;print(json.load(open('$out/$p/summary.json'))['events'])")
    kb=$(awk -F': ' '/Maximum resident/{print $2}' "$out/time.txt")
    e=$(python3 -c "print(round($ev/$wall))")
    printf "%-6s %4d %9.3f %12d %10.1f\n" "$p" "$r" "$wall" "$e" "$(echo "$kb/1024" | bc -l)"
    walls+=("$wall"); rss+=("$kb"); eps+=("$e")
  done
  python3 - "$p" "${walls[*]}" "${rss[*]}" "${eps[*]}" <<'PY'
import statistics as s, sys
p, w, r, e = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
print(f"median {p}: wall {s.median(w):.3f} s, {s.median(e):,.0f} events/s, peak RSS {s.median(r)/1024:.1f} MB")
PY
done
rm -rf "$out"
