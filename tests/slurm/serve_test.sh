#!/usr/bin/env bash
# Integration test of `ringmaster serve --backend slurm` against a real Slurm 22.05 started here on loopback
# (tests/slurm/local_slurm.sh: 4 nodes x 4 fake GPUs), stopped at the end by the PIDs it recorded.
#   A. fifo: six held jobs run to completion in submission order; no node ever holds more GPUs than it has.
#   B. srsf: a short job preempts a long one (requeue-hold), both finish, the preemption is reported, its stretch
#      ends `preempted` in runs.csv and no node is over-booked across it.
#   C. the same with SRSF written in Python (examples/policies/srsf.py, docs/python.md): the same preemption.
# Usage: serve_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 30000
fail() { echo "FAIL: $*"; for f in "$DIR"/log/serve-*.log; do echo "--- $f"; tail -30 "$f"; done; exit 1; }

echo "== A: fifo, six jobs"
for spec in "1 4" "2 6" "3 3" "4 5" "2 4" "1 3"; do submit $spec; done >/dev/null
timeout 180 "$BIN" serve --backend slurm --policy fifo --partition rm --state "$DIR/state-a" --interval 500ms \
  --exit-when-done --out "$DIR/out-a" 2> "$DIR/log/serve-a.log" || fail "serve exited with $?"
jobs="$DIR/out-a/jobs.csv"
[ "$(finished_rows "$jobs")" = 6 ] || fail "not all six jobs finished: $(cat "$jobs")"
grep -q '"decision_p99_us"' "$DIR/out-a/summary.json" || fail "no decision latency in summary.json"
# FIFO: jobs start in submission order (job ids ascending = trace order)
tail -n +2 "$jobs" | sort -t, -k1,1n | awk -F, 'NR > 1 && $6 + 1e-9 < prev { bad = 1 } { prev = $6 } END { exit bad }' \
  || fail "fifo started a later job first: $(cat "$jobs")"
# No node ever over-booked: sweep runs.csv (one row per job stretch and node) in time order, ends first.
no_overbooking() {
  tail -n +2 "$1" | awk -F, '{ print $3, 1, $5, $6; print $4, 0, $5, -$6 }' | sort -k1,1g -k2,2n |
    awk '{ busy[$3] += $4; if (busy[$3] > 4) { print "over-booked", $0; bad = 1 } } END { exit bad }' \
    || fail "a node held more GPUs than it has: $(cat "$1")"
}
runs="$DIR/out-a/runs.csv"
[ "$(tail -n +2 "$runs" | wc -l)" -ge 6 ] || fail "runs.csv lists fewer stretches than jobs: $(cat "$runs")"
no_overbooking "$runs"
echo "A ok"

# A short job preempts a long one under POLICY (out and logs under NAME): both finish, the short one first, the long
# one ran twice, the preemption is logged and counted.
preempts() {
  local name=$1 policy=$2 L S SERVE
  L=$(submit 16 20)
  timeout 200 "$BIN" serve --backend slurm --policy "$policy" --partition rm --state "$DIR/state-$name" \
    --interval 500ms --exit-when-done --out "$DIR/out-$name" 2> "$DIR/log/serve-$name.log" &
  SERVE=$!
  for _ in $(seq 60); do squeue -h -j "$L" -o %T | grep -q RUNNING && break; sleep 0.5; done
  squeue -h -j "$L" -o %T | grep -q RUNNING || fail "$name: the long job never started"
  sleep 2
  S=$(submit 4 2)
  wait "$SERVE" || fail "$name: serve exited with an error"
  grep -q "job $L: preempted" "$DIR/log/serve-$name.log" || fail "$name: the long job was not preempted"
  [ "$(finished_rows "$DIR/out-$name/jobs.csv")" = 2 ] || fail "$name: not both jobs finished"
  grep -q '"preemptions": [1-9]' "$DIR/out-$name/summary.json" || fail "$name: no preemption in summary.json"
  [ "$(grep -c "^$L," "$DIR/out-$name/runs.csv")" -ge 2 ] ||
    fail "$name: the long job did not run twice: $(cat "$DIR/out-$name/runs.csv")"
  # The preempted stretch ends for that reason, and on Slurm's whole-second clock it never overlaps the start of
  # the job that took its GPUs (before: a false 6/4 GPUs for 0.42 s, the end from the daemon's clock).
  grep -q "^$L,preempted," "$DIR/out-$name/runs.csv" || fail "$name: no preempted stretch: $(cat "$DIR/out-$name/runs.csv")"
  no_overbooking "$DIR/out-$name/runs.csv"
  awk -F, -v L="$L" -v S="$S" 'NR > 1 { fin[$1] = $7 } END { exit !(fin[S] < fin[L]) }' "$DIR/out-$name/jobs.csv" \
    || fail "$name: the short job did not finish first: $(cat "$DIR/out-$name/jobs.csv")"
}

echo "== B: srsf preempts a long job for a short one"
preempts b srsf
echo "B ok"

echo "== C: the same with SRSF written in Python"
preempts c "py:file=$(cd "$(dirname "$0")/../../examples/policies" && pwd)/srsf.py;class=Srsf"
echo "C ok"
echo "serve_test: all passed"
