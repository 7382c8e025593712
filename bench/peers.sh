#!/usr/bin/env bash
# Speed on identical work (issue 27 goal 5): for every golden run of the peer simulators (shared/goldens/peers:
# Tiresias' 36, Gavel's 8), our CPU time for the same run under --compat tiresias|gavel against the peer's CPU time
# recorded with the golden (`cpu_s` of its summary.csv: the whole Python process, interpreter start and imports
# included, measured on this kind of machine). Ours: the whole process too (reading the inputs, writing the
# outputs), user + system CPU seconds of REPEAT runs in a row divided by REPEAT (the clock counts 10 ms), the median
# over ROUNDS such batches. Prints one row per run, then per peer the sums and their ratio.
# Usage: bench/peers.sh [build-dir] [rounds] [repeat] (default build, 3, 10)
#        bench/peers.sh --large TIRESIAS GAVEL [build-dir] [runs] [case-regex]: the peers themselves run here on their
#        largest work beside ours, in one run (bench/peers/large.sh; TIRESIAS and GAVEL are clones of the peers).
set -euo pipefail
if [ "${1:-}" = "--large" ]; then
  shift
  exec bash "$(dirname "$0")/peers/large.sh" "$@"
fi
cd "$(dirname "$0")/.."
BUILD=${1:-build}
ROUNDS=${2:-3}
REPEAT=${3:-10}
SHARED=../shared
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cpu() {  # args... -> median over ROUNDS of (user+sys seconds of REPEAT runs) / REPEAT
  printf '%q ' "$BUILD/ringmaster" simulate -q --out "$out/o" "$@" > "$out/cmd"
  for _ in $(seq "$ROUNDS"); do
    /usr/bin/time -f "%U %S" -o "$out/t" bash -c "for i in \$(seq $REPEAT); do $(cat "$out/cmd") > /dev/null; done"
    awk -v n="$REPEAT" '{print ($1 + $2) / n}' "$out/t"
  done | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
echo "peer run peer_cpu_s ours_cpu_s ratio" > "$out/rows"
tail -n +2 "$SHARED/goldens/peers/tiresias/summary.csv" | while IFS=, read -r _ cl sched scheme _ _ _ _ _ _ _ st peer _; do
  [ "$st" = ok ] || [ "${st%%:*}" = stopped ] || continue  # the peer's early stops ran too (Q9/Q11)
  spec=$SHARED/traces/tiresias/cluster_spec.csv
  [ "$cl" = n4g4 ] && spec=$SHARED/goldens/peers/tiresias/specs/n4g4.csv
  ours=$(cpu --compat tiresias --cluster "$spec" --trace "$SHARED/traces/tiresias/60_job.csv" --format tiresias \
    --policy "$sched+$scheme" --data-dir "$SHARED/traces")
  echo "tiresias $cl/$sched+$scheme $peer $ours" >> "$out/rows"
done
tail -n +2 "$SHARED/goldens/peers/gavel/summary.csv" | while IFS=, read -r trace pol cl _ _ _ _ _ _ _ st peer _; do
  [ "$st" = ok ] || continue
  ours=$(cpu --compat gavel --cluster "gavel:${cl#v100:}:0:0" \
    --trace "$SHARED/traces/philly-gavel-vc/physical_cluster/$trace.trace" --format gavel --policy "$pol" --seed 0 \
    --data-dir "$SHARED/traces")
  echo "gavel $trace/$pol/$cl $peer $ours" >> "$out/rows"
done
python3 - "$out/rows" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])][1:]
print(f"{'peer':9} {'run':44} {'peer cpu s':>10} {'ours cpu s':>10} {'ratio':>7}")
tot = {}
for peer, run, p, o in rows:
    p, o = float(p), float(o)
    t = tot.setdefault(peer, [0.0, 0.0, 0])
    t[0] += p; t[1] += o; t[2] += 1
    print(f"{peer:9} {run:44} {p:10.2f} {o:10.4f} {p / max(o, 1e-4):6.1f}x")
for peer, (p, o, n) in tot.items():
    print(f"{peer}: {n} runs, peer {p:.2f} s, ours {o:.3f} s: {p / max(o, 1e-4):.1f}x less CPU")
PY
