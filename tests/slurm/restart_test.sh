#!/usr/bin/env bash
# Reliability of `ringmaster serve --backend slurm` against a real Slurm started here on loopback:
#   C. kill -9 of the daemon in the middle of a run, then a restart on the same state directory: every job
#      finishes exactly once (one stretch each, Slurm's restart count 0), none is lost or left held.
#   D. slurmctld stopped (SIGTERM) and started again 3 s later in the middle of a run: the daemon logs it,
#      retries, and the run completes. (A kill -9 of slurmctld can lose its last seconds of state: Slurm then
#      relaunches a running job and drains the node for the duplicate; that is for an operator to resume.)
# Usage: restart_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 35000
SERVE=""
fail() { echo "FAIL: $*"; sinfo -N 2>&1 | head; squeue -a 2>&1 | head; for f in "$DIR"/log/serve-*.log; do echo "--- $f"; tail -30 "$f"; done; exit 1; }
serve() {  # state-dir log
  "$BIN" serve --backend slurm --policy fifo --partition rm --state "$1" --interval 300ms --exit-when-done \
    --out "$1/out" 2>> "$2" &
  SERVE=$!
}
check_once() {  # out-dir first-id n
  local out=$1 first=$2 n=$3
  [ "$(finished_rows "$out/jobs.csv")" = "$n" ] || fail "not all $n jobs finished: $(cat "$out/jobs.csv")"
  for id in $(seq "$first" $((first + n - 1))); do
    scontrol show job -o "$id" | grep -q 'JobState=COMPLETED' || fail "job $id did not complete: $(scontrol show job -o "$id")"
    scontrol show job -o "$id" | grep -q ' Restarts=0 ' || fail "job $id was started twice"
    [ "$(awk -F, -v id="$id" '$1 == id { print $3 }' "$out/runs.csv" | sort -u | wc -l)" = 1 ] \
      || fail "job $id has more than one stretch: $(cat "$out/runs.csv")"
  done
}

echo "== C: kill -9 of serve, restart on the same state"
first=""
for spec in "4 4" "4 5" "4 3" "4 6" "4 4" "4 3" "8 3"; do id=$(submit $spec); first=${first:-$id}; done
serve "$DIR/state-c" "$DIR/log/serve-c.log"
sleep 2.5
kill -9 "$SERVE"; wait "$SERVE" 2>/dev/null || true; SERVE=""
grep -q "start on" "$DIR/log/serve-c.log" || fail "nothing started before the kill"
serve "$DIR/state-c" "$DIR/log/serve-c.log"
timeout 120 tail --pid="$SERVE" -f /dev/null || fail "restarted serve did not finish"
wait "$SERVE" || fail "restarted serve exited with an error"; SERVE=""
grep -q "jobs from the state file" "$DIR/log/serve-c.log" || fail "the restart did not read the state file"
check_once "$DIR/state-c/out" "$first" 7
echo "C ok"

echo "== D: slurmctld restarted mid-run"
first=""
for spec in "8 4" "8 4" "8 3" "16 3"; do id=$(submit $spec); first=${first:-$id}; done
serve "$DIR/state-d" "$DIR/log/serve-d.log"
sleep 2
bash "$HERE/local_slurm.sh" stop-ctld "$DIR"  # as `systemctl restart slurmctld` does: SIGTERM, state saved
sleep 3  # the daemon finds slurmctld gone and keeps retrying
bash "$HERE/local_slurm.sh" start-ctld "$DIR" >/dev/null 2>&1 || fail "slurmctld did not come back"
timeout 120 tail --pid="$SERVE" -f /dev/null || fail "serve did not finish after the slurmctld restart"
wait "$SERVE" || fail "serve exited with an error"; SERVE=""
check_once "$DIR/state-d/out" "$first" 4
grep -qE "Slurm unreachable|slow step" "$DIR/log/serve-d.log" || fail "the daemon never waited for slurmctld"
echo "D ok"
echo "restart_test: all passed"
