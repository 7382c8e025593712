#!/usr/bin/env bash
# `ringmaster serve --backend slurm` when jobs and nodes misbehave, against a real Slurm started here:
# a job cancelled by its user while running, a job whose program fails, a job with bad hints, and a node set
# DOWN under a running job. The daemon logs each, reports the ended ones with Slurm's state, keeps
# scheduling the others, and exits when every job has ended.
# Usage: faults_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 45000
fail() { echo "FAIL: $*"; sinfo -N 2>&1 | head; squeue -a 2>&1 | head; tail -40 "$DIR/serve.log"; exit 1; }
printf '#!/bin/bash\nsleep 1\nexit 3\n' > "$DIR/fail.sh"; chmod +x "$DIR/fail.sh"
X=$(submit 4 30)                                             # cancelled by its user
Y=$(sbatch --parsable -H -p rm --gpus=2 -c 1 --mem=1G -o "$DIR/out/%j.out" --comment "rm:duration=1" "$DIR/fail.sh")
W=$(sbatch --parsable -H -p rm --gpus=2 -c 1 --mem=1G -o "$DIR/out/%j.out" \
  --comment "rm:duration=abc;colour=blue;model=nosuchmodel" "$DIR/job.sh" 2)   # bad hints: runs anyway
V=$(submit 4 40)                                             # its node goes DOWN
"$BIN" serve --backend slurm --policy fifo --partition rm --state "$DIR/state" --interval 300ms --exit-when-done \
  --out "$DIR/res" 2> "$DIR/serve.log" &
SERVE=$!
for _ in $(seq 60); do [ "$(squeue -h -j "$X,$V" -t R | wc -l)" = 2 ] && break; sleep 0.5; done
[ "$(squeue -h -j "$X,$V" -t R | wc -l)" = 2 ] || fail "X and V did not start"
scancel "$X"
node=$(squeue -h -j "$V" -o %N)
scontrol update NodeName="$node" State=DOWN Reason=ringmaster-test
sleep 3
scontrol update NodeName="$node" State=RESUME 2>/dev/null || true  # may be back already (ReturnToService=2)
timeout 120 tail --pid="$SERVE" -f /dev/null || fail "serve did not finish"
wait "$SERVE" || fail "serve exited with an error"; SERVE=""
grep -q "job $X: CANCELLED" "$DIR/serve.log" || fail "the cancelled job was not reported"
grep -q "job $Y: FAILED" "$DIR/serve.log" || fail "the failed job was not reported"
grep -q "job $W: hint ignored: duration" "$DIR/serve.log" || fail "the bad duration hint was not named"
grep -q "job $W: hint ignored: colour" "$DIR/serve.log" || fail "the unknown hint was not named"
grep -q "job $W: hint ignored: .*model" "$DIR/serve.log" || fail "the unknown model was not named"
grep -q "job $W: COMPLETED" "$DIR/serve.log" || fail "the job with bad hints did not run"
# V's node failure: the daemon saw it (requeued, held again, or its node unusable while V was still starting in its
# books: Slurm starts a released job at its next pass, up to a second later), or Slurm requeued V by itself before the
# daemon's next step saw it running, and ran it again (Restarts >= 1).
grep -qE "job $V: (NODE_FAIL|requeued by Slurm|held again|its node became unusable)" "$DIR/serve.log" ||
  scontrol show job "$V" | grep -q "Restarts=[1-9]" || fail "V's node failure left no trace"
grep -qE "job $V: (COMPLETED|NODE_FAIL)" "$DIR/serve.log" || fail "V did not end"
[ "$(tail -n +2 "$DIR/res/jobs.csv" | wc -l)" = 4 ] || fail "jobs.csv does not list the four jobs"
grep -qE '"jobs_not_completed": [2-9]' "$DIR/res/summary.json" || fail "the cancelled and failed jobs are not counted"
echo "faults_test: all passed"
