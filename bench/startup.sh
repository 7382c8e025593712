#!/usr/bin/env bash
# Start-up benchmark (issue 47 goal 1): what a small run pays before and around its work. For each binary given
# (the build's, and optionally an older one to compare), alternated, medians of N runs of perf's task-clock:
# `--version`, the bundled demo under fifo, and Tiresias' 60-job trace in --compat tiresias; then the dynamic
# loader's own time and relocations (LD_DEBUG=statistics) and the libraries the demo run loads (LD_DEBUG=files:
# no libpython, libxgboost or libCbc, the issue's contract). Needs perf (linux-perf).
# Usage: bench/startup.sh [build-dir] [runs] [other-binary]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${2:-21}
BINS=("$(realpath "$BUILD/ringmaster")")
[ -n "${3:-}" ] && BINS+=("$(realpath "$3")")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 - "$RUNS" "$out" "${BINS[@]}" <<'PY'
import statistics, subprocess, sys
runs, out, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
S = "../shared"
cases = {
    "--version": ["--version"],
    "demo, fifo": ["simulate", "--cluster", "tiny", "--trace", "builtin:demo", "--policy", "fifo", "-q", "--out"],
    "Tiresias 60 jobs, --compat tiresias dlas-gpu": [
        "simulate", "--compat", "tiresias", "--cluster", S + "/goldens/peers/tiresias/specs/n4g4.csv", "--trace",
        S + "/traces/tiresias/60_job.csv", "--format", "tiresias", "--policy", "dlas-gpu+count", "-q", "--out"],
}
ms = {(c, b): [] for c in cases for b in bins}
for i in range(runs):
    for c, args in cases.items():
        for k, b in enumerate(bins):
            a = args + [f"{out}/{k}"] if args[-1] == "--out" else args
            p = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", b] + a, capture_output=True, text=True)
            ms[(c, b)].append(float(p.stderr.strip().splitlines()[-1].split(",")[0]))
print(f"CPU (perf task-clock), median of {runs} runs, binaries alternated")
print("| run | " + " | ".join(bins) + (" | second / first |" if len(bins) == 2 else " |"))
print("|---" * (len(bins) + 1 + (len(bins) == 2)) + "|")
for c in cases:
    m = [statistics.median(ms[(c, b)]) for b in bins]
    print(f"| {c} | " + " | ".join(f"{x:.2f} ms" for x in m) + (f" | {m[1] / m[0]:.2f}x |" if len(m) == 2 else " |"))
PY
for b in "${BINS[@]}"; do
  echo "== $b"
  LD_DEBUG=statistics "$b" --version 2>&1 >/dev/null | grep -E "total startup time|number of relocations:" | sed 's/^ *[0-9]*: *//'
  loaded=$(LD_DEBUG=files "$b" simulate --cluster tiny --trace builtin:demo --policy fifo -q --out "$out/files" 2>&1 |
           grep -c 'file=.*\(python\|xgboost\|Cbc\)' || true)
  echo "libraries named python, xgboost or Cbc loaded by the demo run: $loaded"
done
