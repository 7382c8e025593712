#!/usr/bin/env bash
# a-srpt-p live against a real Slurm started here on loopback: its iteration predictor learns from the jobs
# that finished on the cluster, and keeps what it learnt across a `kill -9` of the daemon.
#   1. A (recurrence key "short", 2 s) and then B (key "long", 6 s) run alone, without duration hints: the
#      daemon teaches the predictor what each really ran (its service at the ideal iteration time).
#   2. The daemon is killed (-9) and restarted on its state: the new policy object is taught A and B again.
#   3. An external job X (partition open over the same nodes: Slurm schedules it) takes all 16 GPUs; C (key "long") and then D (key "short") are
#      submitted held while it runs. When X ends, a-srpt-p starts D first (predicted from A: 2 s) ahead of
#      the earlier C (predicted from B: 6 s). Without the learning both would be predicted alike (the same
#      default duration) and C, submitted first, would go first.
# Usage: asrpt_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 50000
fail() { echo "FAIL: $*"; for f in "$DIR"/log/serve-*.log; do echo "--- $f"; tail -30 "$f"; done; exit 1; }
POLICY="a-srpt-p:predictor=median"
held() {  # held KEY SECONDS -> id: 16 GPUs, no duration hint
  sbatch --parsable -H -p rm --gpus=16 -c 1 --mem=1G -o "$DIR/out/%j.out" --comment "rm:model=resnet50;key=$1" \
    "$DIR/job.sh" "$2"
}
state() { squeue -h -j "$1" --states=all -o %T 2>/dev/null || true; }
wait_state() {  # wait_state ID STATE SECONDS
  for _ in $(seq $(( $3 * 5 ))); do [ "$(state "$1")" = "$2" ] && return 0; sleep 0.2; done
  fail "job $1 not $2 after $3 s (is $(state "$1"))"
}
serve() {
  "$BIN" serve --backend slurm --policy "$POLICY" --partition rm --state "$DIR/state" --interval 300ms \
    --out "$DIR/out-run" 2>> "$DIR/log/serve-$1.log" &
  SERVE=$!
}

serve 1
A=$(held short 2)
wait_state "$A" COMPLETED 60
B=$(held long 6)
wait_state "$B" COMPLETED 60
sleep 1  # a step after B's end: its state (B finished, with its service) is on disk
kill -9 "$SERVE"; wait "$SERVE" 2>/dev/null || true
grep -q '"status":"finished"' "$DIR/state/ended.jsonl" || fail "no finished job in the state's journal"

serve 2
X=$(sbatch --parsable -p open --gpus=16 -c 1 --mem=1G -o "$DIR/out/%j.out" "$DIR/job.sh" 4)
wait_state "$X" RUNNING 30
C=$(held long 6)
D=$(held short 2)
wait_state "$C" COMPLETED 90
wait_state "$D" COMPLETED 30
# Slurm's COMPLETED comes before serve's next poll sees it: a job still running in serve's books at SIGTERM is
# `unfinished` in jobs.csv. Wait for serve to log both ends.
for _ in $(seq 50); do
  grep -q "job $C: COMPLETED" "$DIR/log/serve-2.log" && grep -q "job $D: COMPLETED" "$DIR/log/serve-2.log" && break
  sleep 0.2
done
kill -TERM "$SERVE"; wait "$SERVE" || fail "serve exited with an error after SIGTERM"
SERVE=

jobs="$DIR/out-run/jobs.csv"
[ "$(finished_rows "$jobs")" = 4 ] || fail "not all four held jobs finished: $(cat "$jobs")"
grep -q "^$X," "$jobs" && fail "the external job was adopted: $(cat "$jobs")"
start() { awk -F, -v id="$1" 'NR > 1 && $1 == id { print $6 }' "$jobs"; }
awk -v d="$(start "$D")" -v c="$(start "$C")" 'BEGIN { exit !(d + 0 < c + 0) }' \
  || fail "D (predicted short) did not start before C (predicted long): $(cat "$jobs")"
grep -q "policy a-srpt-p(predictor=median" "$DIR/log/serve-2.log" || fail "the restarted daemon did not run a-srpt-p"
echo "asrpt_test: all passed"
