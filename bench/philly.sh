#!/usr/bin/env bash
# End-to-end benchmark: the full Philly job list (82,247 jobs) on philly2400 under FIFO and preemptive
# SRSF, each run REPS times (default 5); prints per-run wall time, the engine loop's time (summary.json engine_s) and
# its events/s (events / engine_s, summary.json events_per_s), peak RSS, then medians and the simulated results.
# Usage: bench/philly.sh [build-dir] [reps]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
TRACE=../shared/traces/philly-jobs/philly.csv
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
out=$(mktemp -d)
printf "%-6s %4s %9s %9s %12s %10s\n" policy run wall_s engine_s events/s rss_mb
for p in fifo srsf; do
  walls=(); rss=(); eps=(); eng=()
  for r in $(seq "$REPS"); do
    /usr/bin/time -v "$BUILD/ringmaster" simulate --cluster philly2400 --trace "$TRACE" --format philly \
      --policy "$p" --out "$out/$p" -q 2>"$out/time.txt"
    read -r wall es e <<<"$(/usr/bin/python3 -c "import json;s=json.load(open('$out/$p/summary.json'));print(s['wall_s'],s['engine_s'],round(s['events_per_s']))")"
    kb=$(awk -F': ' '/Maximum resident/{print $2}' "$out/time.txt")
    printf "%-6s %4d %9.3f %9.3f %12d %10.1f\n" "$p" "$r" "$wall" "$es" "$e" "$(echo "$kb/1024" | bc -l)"
    walls+=("$wall"); rss+=("$kb"); eps+=("$e"); eng+=("$es")
  done
  /usr/bin/python3 - "$p" "${walls[*]}" "${rss[*]}" "${eps[*]}" "${eng[*]}" "$out/$p/summary.json" <<'PY'
import json, statistics as s, sys
p, w, r, e, g = sys.argv[1], *[[float(x) for x in a.split()] for a in sys.argv[2:6]]
j = json.load(open(sys.argv[6]))
print(f"median {p}: wall {s.median(w):.3f} s, engine {s.median(g):.3f} s, {s.median(e):,.0f} events/s (engine), "
      f"peak RSS {s.median(r)/1024:.1f} MB; {j['jobs']} jobs, {j['events']} events, avg JCT {j['avg_jct_s']:,.0f} s, "
      f"p50 {j['p50_jct_s']:,.0f} s, GPU utilisation {j['gpu_util']:.2f}")
PY
done
rm -rf "$out"
