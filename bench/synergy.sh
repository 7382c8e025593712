#!/usr/bin/env bash
# Synergy benchmark (issue 6).
# 1. The 9 jobs/h FIFO + Synergy-TUNE point of the authors' artifact (about 6,400 jobs generated, 128 GPUs,
#    ~705 simulated hours, --compat synergy), REPS times: wall time (summary.json wall_s, which covers the
#    whole run: workload, simulation, statistics) and the process's CPU time; medians and the ratio to the
#    authors' simulator (about 5 CPU-minutes here, 8 m 39 s wall in spec S.8.2).
# 2. A whole load sweep: 16 loads (0.5 .. 8 jobs/h) x 4 mechanisms x 3 policies = 192 runs of our default
#    mode, JOBS processes at a time (default: all cores); total wall time and the slowest run.
# Usage: bench/synergy.sh [build-dir] [reps] [jobs]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
REPS=${2:-5}
JOBS=${3:-$(nproc)}
BIN="$BUILD/ringmaster"
out=$(mktemp -d)
POINT=(--cluster synergy128 --workload synergy-philly --load 9 --split 20,70,10 --seed 42 --measure-ids 4000:4999
       --exec round --compat synergy --policy fifo+tune -q)
printf "%-4s %9s %9s %s\n" run wall_s cpu_s avg_jct_h
rows=()
for r in $(seq "$REPS"); do
  cpu=$( { /usr/bin/time -f "%U %S" "$BIN" simulate "${POINT[@]}" --out "$out/point" ; } 2>&1 | awk '{print $1 + $2}')
  row=$(python3 -c "import json; j = json.load(open('$out/point/summary.json')); print(j['wall_s'], $cpu, repr(j['avg_jct_h']))")
  read -r w c a <<< "$row"
  printf "%-4d %9.3f %9.3f %s\n" "$r" "$w" "$c" "$a"
  rows+=("$w $c")
done
printf '%s\n' "${rows[@]}" | python3 -c "
import statistics as s, sys
r = [[float(x) for x in l.split()] for l in sys.stdin if l.strip()]
w, c = s.median(x[0] for x in r), s.median(x[1] for x in r)
print(f'median: wall {w:.3f} s, CPU {c:.3f} s; the authors\' simulator ~300 CPU-s -> {300 / c:,.0f}x (CPU), '
      f'{519 / w:,.0f}x (their 8 m 39 s wall)')"

echo "== load sweep: 16 loads x {fair,greedy,tune,opt} x {fifo,srtf,las}, $JOBS at a time"
list="$out/runs.txt"
: > "$list"
for l in 0.5 1 1.5 2 2.5 3 3.5 4 4.5 5 5.5 6 6.5 7 7.5 8; do
  for m in fair greedy tune opt; do
    for o in fifo srtf las; do echo "$l $o+$m" >> "$list"; done
  done
done
start=$(date +%s.%N)
xargs -P "$JOBS" -L 1 sh -c '/usr/bin/time -f "%e $0 $1" "'"$BIN"'" simulate --cluster synergy128 --workload synergy-philly \
  --load "$0" --seed 42 --exec round --policy "$1" -q --out "'"$out"'/sweep/$0_$1" 2>> "'"$out"'/times.txt"' < "$list"
end=$(date +%s.%N)
python3 -c "
rows = [l.split() for l in open('$out/times.txt') if l.strip()]
rows.sort(key=lambda r: -float(r[0]))
tot = sum(float(r[0]) for r in rows)
print(f'{len(rows)} runs: {$end - $start:.1f} s wall on $JOBS processes ({tot:.1f} s summed); slowest: ' +
      ', '.join(f'{r[2]} at {r[1]} jobs/h {float(r[0]):.2f} s' for r in rows[:3]))"
rm -rf "$out"
