#!/usr/bin/env bash
# The compat modes on the peers' largest work (issue 47 goal 4): --compat tiresias on Muri's Philly traces (1,494 and
# 5,755 jobs, 8 x 8 GPUs) and --compat gavel on Philly VC ed69ec (951 jobs), our whole process's CPU (perf
# task-clock: reading, the loop, writing jobs.csv/summary.json/timeseries.csv), median of N runs, binaries alternated
# when a second one is given. The peers' CPU on the same work is the one recorded when it was measured (the source is
# printed with it; the peers run outside the repository: shared/goldens/peers/*/README.md), so the ratio column is
# peer / ours. Needs perf (linux-perf).
# Usage: bench/compat_large.sh [build-dir] [runs] [other-binary]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
RUNS=${2:-5}
BINS=("$(realpath "$BUILD/ringmaster")")
[ -n "${3:-}" ] && BINS+=("$(realpath "$3")")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/python3 - "$RUNS" "$out" "${BINS[@]}" <<'PY'
import statistics, subprocess, sys
runs, out, bins = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
S = "../shared/traces"
muri = S + "/muri-philly"
def tiresias(trace, policy):
    return ["simulate", "--compat", "tiresias", "--cluster", muri + "/cluster_spec_n8g8.csv", "--trace",
            f"{muri}/{trace}.csv", "--format", "tiresias", "--policy", policy, "--data-dir", S, "-q"]
def gavel(policy, *extra):
    return ["simulate", "--compat", "gavel", "--cluster", "gavel:6:6:6", "--trace",
            S + "/philly-gavel-vc/seed=0/ed69ec.trace", "--format", "gavel", "--policy", policy, "--seed", "0",
            "--data-dir", S, "-q", *extra]
ISSUE = "issue 47's table"
# (name, arguments, the peer's CPU seconds, where that number comes from)
cases = [
    ("Tiresias, Muri trace1 (1,494 jobs), dlas-gpu", tiresias("trace1", "dlas-gpu+count"), 1.7, ISSUE + " (1.7-3.0 s)"),
    ("Tiresias, Muri trace2 (5,755 jobs), dlas-gpu", tiresias("trace2", "dlas-gpu+count"), 26.0, ISSUE),
    ("Tiresias, Muri trace2 (5,755 jobs), gittins", tiresias("trace2", "gittins+count"), 30.0, ISSUE),
    ("Tiresias, Muri trace2 (5,755 jobs), dlas-gpu-gittins", tiresias("trace2", "dlas-gpu-gittins+count"), None,
     "not measured"),
    ("Gavel, ed69ec first 300 jobs, gavel:6:6:6, isolated", gavel("isolated", "--max-jobs", "300"), 31.7,
     "docs/performance.md, Gavel c4fa400 run here"),
    ("Gavel, ed69ec (951 jobs), gavel:6:6:6, fifo", gavel("fifo"), None, "not measured on this cluster"),
    ("Gavel, ed69ec (951 jobs), gavel:6:6:6, gandiva", gavel("gandiva"), None, "did not finish in 600 s (300 jobs)"),
]
ms = {(c[0], b): [] for c in cases for b in bins}
for i in range(runs):
    for name, args, _, _ in cases:
        for k, b in enumerate(bins):
            p = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", b] + args + ["--out", f"{out}/{k}"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"{name}: {b} failed: {p.stderr[-500:]}")
            ms[(name, b)].append(float(p.stderr.strip().splitlines()[-1].split(",")[0]))
print(f"CPU (perf task-clock, whole process), median of {runs} runs, binaries alternated")
head = "| work | " + " | ".join(bins) + (" | second / first |" if len(bins) == 2 else " |") + " peer CPU | peer / first |"
print(head)
print("|---" * (head.count("|") - 1) + "|")
for name, _, peer, src in cases:
    m = [statistics.median(ms[(name, b)]) for b in bins]
    row = f"| {name} | " + " | ".join(f"{x:.1f} ms" for x in m)
    if len(m) == 2:
        row += f" | {m[1] / m[0]:.2f}x"
    row += f" | {peer:.1f} s ({src})" if peer else f" | - ({src})"
    row += f" | {peer * 1000 / m[0]:.0f}x |" if peer else " | - |"
    print(row)
PY
