#!/usr/bin/env bash
# Scale benchmark (issue 16): wall time and peak RSS against cluster size and queue length, on traces made from
# the Philly job list (repeated, arrivals rescaled to an offered load). Prints one row per run.
#   cluster size: the first 10,000 Philly jobs under fifo on 2,400 / 24,000 / 100,000 GPUs
#   queue length: 200,000 jobs at 110 % offered load on philly2400 under fifo and srsf (TIMEOUT s each)
# Usage: bench/scale.sh [build-dir] [timeout-s]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
TIMEOUT=${2:-120}
BIN=$(realpath "$BUILD/ringmaster")
PHILLY=$(realpath ../shared/traces/philly-jobs/philly.csv)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'name: c24k\nservers:\n  - {count: 3000, gpus: 8, nic_gbps: 100, servers_per_rack: 40}\n' >"$work/c24k.yaml"
printf 'name: c100k\nservers:\n  - {count: 12500, gpus: 8, nic_gbps: 100, servers_per_rack: 40}\n' >"$work/c100k.yaml"
python3 - "$PHILLY" "$work" <<'PY'
import csv, datetime, sys
philly, work = sys.argv[1], sys.argv[2]
rows = []
for r in csv.DictReader(open(philly)):
    t = datetime.datetime.strptime(r["timestamp"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()
    rows.append((t, int(r["num_gpus"]), float(r["duration"])))
rows.sort()
t0, span = rows[0][0], rows[-1][0] - rows[0][0]
work_s = sum(g * d for _, g, d in rows)
def make(n, load, gpus, path):  # the list repeated, inter-arrival times scaled to `load` on `gpus`
    scale = work_s / (span * gpus) / load
    models = ["resnet50", "vgg16", "inception3", "lstm"]
    with open(path, "w") as f:
        f.write("job_id,submit_s,num_gpus,model,duration_s\n")
        i = 0
        while i < n:
            for t, g, d in rows:
                if i >= n: break
                f.write(f"j{i},{((t - t0) + (i // len(rows)) * span) * scale:.3f},{g},{models[i % 4]},{d}\n")
                i += 1
make(200000, 1.10, 2400, f"{work}/q200k.csv")
PY
run() {  # label cluster trace policy [extra...]
  local label=$1 cluster=$2 trace=$3 policy=$4; shift 4
  if timeout "$TIMEOUT" /usr/bin/time -f "%e %M" "$BIN" simulate --cluster "$cluster" --trace "$trace" --policy "$policy" \
       -q --out "$work/out" "$@" 2>"$work/time.txt"; then
    read -r wall kb < <(tail -1 "$work/time.txt")
    printf "%-34s %-8s %9.2f s %8.0f MB\n" "$label" "$policy" "$wall" "$(echo "$kb/1024" | bc -l)"
  else
    printf "%-34s %-8s %11s\n" "$label" "$policy" "> ${TIMEOUT} s"
  fi
}
printf "%-34s %-8s %11s %11s\n" run policy wall peak_rss
for c in philly2400 "$work/c24k.yaml" "$work/c100k.yaml"; do
  run "10k Philly jobs, $(basename "$c" .yaml)" "$c" "$PHILLY" fifo --format philly --max-jobs 10000
done
for p in fifo srsf; do run "200k jobs at 110 % load, philly2400" philly2400 "$work/q200k.csv" "$p"; done
