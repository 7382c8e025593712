#!/usr/bin/env bash
# Scale benchmark (issue 16): wall time and peak RSS of `ringmaster simulate` against cluster size, queue length,
# and jobs x GPUs per execution model, on traces made from the Philly job list (../shared/traces/philly-jobs):
# the list repeated, arrivals rescaled to an offered load on the cluster at hand. One row per run; a run that
# exceeds the time limit prints "> N s". Sections (all by default):
#   size   the first 10,000 Philly jobs under fifo on 2,400 / 24,000 / 100,000 GPUs
#   queue  200,000 jobs at 110 % load on philly2400 (fifo, fifo-backfill, srsf, srtf, 2d-las), and the p99 of
#          a scheduling pass with >= 100k jobs waiting (200k jobs queued behind 2,400 long ones)
#   grid   10k / 100k / 1M jobs at 80 % load x 2,400 / 24,000 / 100,000 GPUs for the rate model (fifo, srsf,
#          tiresias), the graph model (fifo) and the round model (fifo); the task model (srsf1) on the list cut
#          to 100 / 1,000 / 3,000 jobs on 128 and 1,024 GPUs; then each model's fitted exponents:
#          log time = a log jobs + b log GPUs + c over the runs that finished (least squares)
#   task   the task model on the Philly list cut to 300 / 1,000 / 3,000 jobs on synergy128 under srsf1 and
#          ada-srsf (steady-state fast-forward, issue 16 goal 3), with the jumps it made
# Usage: bench/scale.sh [build-dir] [timeout-s] [sections...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TIMEOUT=${2:-120}
shift $(($# > 2 ? 2 : $#)) || true
SECTIONS=${*:-size queue grid task}
BIN=$(realpath "$BUILD/ringmaster")
PHILLY=$(realpath ../shared/traces/philly-jobs/philly.csv)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for g in 2400 24000 100000; do  # 8-GPU servers with CPUs, DRAM and storage (the round model needs them)
  printf 'name: c%s\nservers:\n  - {count: %d, gpus: 8, cpus: 48, dram_gb: 500, storage_mbps: 1000, nic_gbps: 100, servers_per_rack: 40}\n' \
    "$g" $((g / 8)) >"$work/c$g.yaml"
done
for g in 128 1024; do
  printf 'name: t%s\nservers:\n  - {count: %d, gpus: 4, gpu_mem_gb: 32, nic_gbps: 10}\n' "$g" $((g / 4)) >"$work/t$g.yaml"
done
has() { [[ " $SECTIONS " == *" $1 "* ]]; }
runs="$work/runs.tsv"
: >"$runs"
run() {  # label model jobs gpus cluster trace policy [extra...]
  local label=$1 model=$2 jobs=$3 gpus=$4 cluster=$5 trace=$6 policy=$7; shift 7
  if timeout "$TIMEOUT" /usr/bin/time -f "%e %M" "$BIN" simulate --cluster "$cluster" --trace "$trace" --policy "$policy" \
       --exec "$model" -q --out "$work/out" "$@" 2>"$work/time.txt"; then
    read -r wall kb < <(tail -1 "$work/time.txt")
    printf "%-40s %-8s %-13s %9.2f s %8.0f MB\n" "$label" "$model" "$policy" "$wall" "$(echo "$kb/1024" | bc -l)"
    printf "%s\t%s\t%s\t%s\t%s\n" "$model" "$policy" "$jobs" "$gpus" "$wall" >>"$runs"
  else
    printf "%-40s %-8s %-13s %11s\n" "$label" "$model" "$policy" "> ${TIMEOUT} s"
  fi
}
make_trace() {  # n load gpus path: the list repeated, inter-arrival times scaled to `load` on `gpus`
  python3 - "$PHILLY" "$@" <<'PY'
import csv, datetime, sys
philly, n, load, gpus, path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = []
for r in csv.DictReader(open(philly)):
    t = datetime.datetime.strptime(r["timestamp"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()
    rows.append((t, int(r["num_gpus"]), float(r["duration"])))
rows.sort()
t0, span = rows[0][0], rows[-1][0] - rows[0][0]
scale = sum(g * d for _, g, d in rows) / (span * gpus) / load
models = ["resnet50", "vgg16", "inception3", "lstm"]
with open(path, "w") as f:
    f.write("job_id,submit_s,num_gpus,model,duration_s\n")
    i = 0
    while i < n:
        for t, g, d in rows:
            if i >= n: break
            f.write(f"j{i},{((t - t0) + (i // len(rows)) * span) * scale:.3f},{g},{models[i % 4]},{d}\n")
            i += 1
PY
}
printf "%-40s %-8s %-13s %11s %11s\n" run model policy wall peak_rss
if has size; then
  for g in 2400 24000 100000; do
    run "10k Philly jobs, $g GPUs" rate 10000 "$g" "$work/c$g.yaml" "$PHILLY" fifo --format philly --max-jobs 10000
  done
fi
if has queue; then
  make_trace 200000 1.10 2400 "$work/q200k.csv"
  for p in fifo fifo-backfill srsf srtf 2d-las; do run "200k jobs at 110 % load, 2400 GPUs" rate 200000 2400 philly2400 "$work/q200k.csv" "$p"; done
  python3 - "$work/wait.csv" <<'PY'
import random, sys
random.seed(5)
models = ["resnet50", "vgg16", "inception3", "lstm"]
with open(sys.argv[1], "w") as f:
    f.write("job_id,submit_s,num_gpus,model,duration_s\n")
    for i in range(2400):  # fill philly2400; each ends at its own time
        f.write(f"L{i},0,1,resnet50,{100000 + i * 50}\n")
    for i in range(200000):
        f.write(f"w{i},{1 + i * 0.01:.2f},{random.choice([1, 1, 1, 2, 2, 4, 8])},{models[i % 4]},{random.randint(60, 3000)}\n")
PY
  printf "%-40s %-13s %16s %18s\n" "pass latency, 200k jobs queued" policy "p99 (all) us" "p99 (>=100k) us"
  for p in fifo fifo-backfill sjf srtf srsf 2d-las; do
    timeout "$TIMEOUT" "$BIN" simulate --cluster philly2400 --trace "$work/wait.csv" --policy "$p" -q --out "$work/out"
    python3 - "$work/out/summary.json" "$p" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
print(f"{'':40s} {sys.argv[2]:13s} {t['decision_p99_us']:16.1f} {t.get('decision_p99_us_100k_waiting', float('nan')):18.1f}")
PY
  done
fi
if has grid; then
  : >"$runs"  # the fits take the grid's runs only
  for g in 2400 24000 100000; do
    make_trace 1000000 0.8 "$g" "$work/g$g-1000000.csv"
    for n in 10000 100000; do head -$((n + 1)) "$work/g$g-1000000.csv" >"$work/g$g-$n.csv"; done
    for n in 10000 100000 1000000; do
      for p in fifo srsf tiresias; do run "${n} jobs, $g GPUs" rate "$n" "$g" "$work/c$g.yaml" "$work/g$g-$n.csv" "$p"; done
      run "${n} jobs, $g GPUs" graph "$n" "$g" "$work/c$g.yaml" "$work/g$g-$n.csv" fifo
      run "${n} jobs, $g GPUs" round "$n" "$g" "$work/c$g.yaml" "$work/g$g-$n.csv" fifo
    done
  done
  for g in 128 1024; do
    for n in 100 1000 3000; do
      run "Philly list cut to $n jobs, $g GPUs" task "$n" "$g" "$work/t$g.yaml" "$PHILLY" srsf1 --format philly --max-jobs "$n"
    done
  done
  python3 - "$runs" <<'PY'
import math, sys
from collections import defaultdict
cells = defaultdict(list)
for line in open(sys.argv[1]):
    model, policy, jobs, gpus, wall = line.split("\t")
    cells[(model, policy)].append((math.log(float(jobs)), math.log(float(gpus)), math.log(max(float(wall), 0.01))))
print(f"{'fitted exponents':40s} {'model':8s} {'policy':13s} {'jobs a':>8s} {'GPUs b':>8s} {'runs':>5s}")
for (model, policy), pts in sorted(cells.items()):
    if len(pts) < 3 or len({p[0] for p in pts}) < 2 or len({p[1] for p in pts}) < 2:
        continue
    # least squares for t = a x + b y + c: the normal equations, solved by Cramer's rule
    n = len(pts)
    sx = sum(p[0] for p in pts); sy = sum(p[1] for p in pts); st = sum(p[2] for p in pts)
    sxx = sum(p[0] ** 2 for p in pts); syy = sum(p[1] ** 2 for p in pts); sxy = sum(p[0] * p[1] for p in pts)
    sxt = sum(p[0] * p[2] for p in pts); syt = sum(p[1] * p[2] for p in pts)
    m = [[sxx, sxy, sx], [sxy, syy, sy], [sx, sy, n]]
    v = [sxt, syt, st]
    det = lambda a: (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                     + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    if abs(d) < 1e-12:
        continue
    col = lambda k: [[v[i] if j == k else m[i][j] for j in range(3)] for i in range(3)]
    print(f"{'':40s} {model:8s} {policy:13s} {det(col(0)) / d:8.2f} {det(col(1)) / d:8.2f} {n:5d}")
PY
fi
if has task; then
  for n in 300 1000 3000; do
    for p in srsf1 ada-srsf; do
      rm -rf "$work/out"
      run "Philly list cut to $n jobs, synergy128" task "$n" 128 synergy128 "$PHILLY" "$p" --format philly --max-jobs "$n"
      [ -f "$work/out/summary.json" ] && python3 - "$work/out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["timing"]
print(f"{'':40s} avg JCT {s['avg_jct_s'] / 3600:.2f} h, {t['fast_forward_jumps']:,.0f} jumps, "
      f"{t['fast_forward_iterations']:,.0f} iterations jumped, {s['events']:,} events")
PY
      rm -rf "$work/out"
    done
  done
fi
