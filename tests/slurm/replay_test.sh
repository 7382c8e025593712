#!/usr/bin/env bash
# `ringmaster replay --backend slurm` against a real Slurm started here on loopback: a six-job trace submitted
# at scaled times as payload jobs under srsf (a short job preempts a long one, whose payload resumes from its
# checkpoint), outputs in the simulator's formats, then `simulate` on the scaled trace and `compare`.
# Usage: replay_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 40000
fail() { echo "FAIL: $*"; tail -40 "$DIR/replay.log"; exit 1; }
# 16 GPUs. At scale 40: L (16 GPUs, 800 s -> 20 s) starts alone; S1 and S2 (4 GPUs, 120 s -> 3 s) arrive at
# 2 s and preempt it under SRSF; the others fill in.
cat > "$DIR/trace.csv" <<'CSV'
job_id,submit_s,num_gpus,model,duration_s
L,0,16,resnet50,800
S1,80,4,resnet50,120
S2,80,4,resnet50,120
A,120,2,resnet50,200
B,160,1,resnet50,160
C,200,8,resnet50,240
CSV
timeout 300 "$BIN" replay --backend slurm --trace "$DIR/trace.csv" --time-scale 40 --policy srsf --partition rm \
  --state "$DIR/state" --cluster tiny --interval 300ms --overhead 0.5 --out "$DIR/out" 2> "$DIR/replay.log" \
  || fail "replay exited with $?"
jobs="$DIR/out/jobs.csv"
[ "$(finished_rows "$jobs")" = 6 ] || fail "not all six jobs finished: $(cat "$jobs")"
for j in L S1 S2 A B C; do grep -q "^$j," "$jobs" || fail "job $j missing from jobs.csv (names come from the trace)"; done
grep -q '"preemptions": [1-9]' "$DIR/out/summary.json" || fail "no preemption"
grep -q "resuming" "$DIR/out/work/L/slurm.out" || fail "L's payload did not resume from its checkpoint: $(cat "$DIR/out/work/L/slurm.out")"
grep -q "done at" "$DIR/out/work/L/slurm.out" || fail "L's payload did not finish its work"
# The same scaled trace in the simulator, and the comparison.
"$BIN" simulate --cluster "$DIR/out/cluster.yaml" --trace "$DIR/out/trace_scaled.csv" --policy srsf \
  --preempt-overhead 0.5 --out "$DIR/sim" -q || fail "simulate on the scaled trace failed"
"$BIN" compare "$DIR/sim" "$DIR/out" | tee "$DIR/compare.txt"
grep -q "jobs in both: 6 (only in A: 0, only in B: 0)" "$DIR/compare.txt" || fail "compare did not pair the six jobs"
grep -q "^average JCT" "$DIR/compare.txt" || fail "no average in compare"
# The measured start latency (release to payload launch, and the daemon noticing arrivals and exits).
python3 - "$DIR/out/latency.json" <<'PY' || fail "latency.json: $(cat "$DIR/out/latency.json")"
import json, sys
l = json.load(open(sys.argv[1]))
assert l["dispatch_s"]["count"] >= 7, l          # six starts and at least one resume
assert l["arrival_notice_s"]["count"] == 6, l
assert l["finish_notice_s"]["count"] == 6, l
assert 0 < l["dispatch_s"]["mean"] < 10 and 0 <= l["finish_notice_s"]["mean"] < 5, l
assert abs(l["start_delay_s"] - l["dispatch_s"]["mean"] - (l["arrival_notice_s"]["mean"] + l["finish_notice_s"]["mean"]) / 2) < 1e-9, l
PY
grep "per start" "$DIR/replay.log"
echo "replay_test: all passed"
