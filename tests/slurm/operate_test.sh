#!/usr/bin/env bash
# Operating `ringmaster serve` on a Slurm that users share (issue 30), against a real Slurm 22.05 started here on
# loopback (tests/slurm/local_slurm.sh: partitions rm, open and nomem over the same 4 nodes x 4 fake GPUs, and
# deploy/slurm/job_submit.lua):
#   A. start-up check: a partition without default memory is refused with the problem and the fix (exit 2).
#   B. enforcement (job_submit.lua): a user's job in rm is held without -H; the user cannot release it; a
#      partition list mixing rm with another is refused.
#   C. one run with a job of another partition on our nodes, an impossible request, a comment without the rm:
#      prefix, a failing job and the partition set DOWN and UP: the foreign job's GPUs are booked busy, the
#      impossible one gets an AdminComment within two steps and is `unschedulable` in jobs.csv (serve still ends
#      with --exit-when-done), the prefix is reported once, the failure is `failed`/FAILED, nothing is released
#      while the partition is down; `ringmaster status` prints the queue (exit 0; exit 2 on a folder that is not a
#      state folder); the Prometheus endpoint answers an HTTP client; the log goes to --log-file at debug level;
#      runs.csv (one clock, an end reason per stretch) shows no node over-booked.
# Usage: operate_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 60000
LOG="$DIR/log/serve-op.log"
fail() { echo "FAIL: $*"; squeue -a -o "%i %P %u %T %r %N" 2>&1 | head -20; tail -40 "$LOG" 2>/dev/null; exit 1; }

echo "== A: no default memory"
if "$BIN" serve --partition nomem --state "$DIR/state-nomem" --once 2> "$DIR/nomem.err"; then fail "serve started on nomem"; fi
grep -q "all of a node's memory" "$DIR/nomem.err" && grep -q "DefMemPerGPU=<MB>" "$DIR/nomem.err" \
  || fail "the refusal does not name the problem and the fix: $(cat "$DIR/nomem.err")"
echo "A ok"

echo "== B: every job in rm goes through ringmaster"
chmod 755 "$DIR" "$DIR/etc" "$DIR/munge"  # slurm.conf and the private munged's socket, for a user other than root
mkdir -p "$DIR/user" && chmod 777 "$DIR/user"
U=$(cd "$DIR/user" && runuser -u nobody -- sbatch --parsable -p rm --gpus=2 -o "$DIR/user/%j.out" \
  --comment "rm:duration=3" --wrap "sleep 3") || fail "a user could not submit"
squeue -h -j "$U" -o %r | grep -q "JobHeld" || fail "a job submitted without -H was not held: $(squeue -h -j "$U" -o %r)"
if (cd "$DIR/user" && runuser -u nobody -- scontrol release "$U" 2>/dev/null); then fail "the user released their job"; fi
squeue -h -j "$U" -o %r | grep -q "JobHeld" || fail "the job was released by its user"
grep -q "ringmaster job_submit: uid [0-9]* may not release job $U" "$DIR/log/slurmctld.log" \
  || fail "the refused release is not in slurmctld's log"
if (cd "$DIR/user" && runuser -u nobody -- sbatch -p rm,open --gpus=1 --wrap "sleep 1" 2>/dev/null); then
  fail "a job naming rm,open was accepted"
fi
echo "B ok"

echo "== C: a shared cluster"
printf '#!/bin/bash\nsleep 1\nexit 3\n' > "$DIR/fail.sh"; chmod +x "$DIR/fail.sh"
F=$(sbatch --parsable -p open --gpus=4 -w n1 -c 1 --mem=1G -o "$DIR/out/%j.out" "$DIR/job.sh" 12)  # not ringmaster's
for _ in $(seq 40); do squeue -h -j "$F" -t R | grep -q . && break; sleep 0.25; done
squeue -h -j "$F" -t R | grep -q . || fail "the open partition's job did not start"
BIG=$(sbatch --parsable -p rm --gpus=32 -c 1 -o "$DIR/out/%j.out" --comment "rm:duration=5" "$DIR/job.sh" 5)
NOPFX=$(sbatch --parsable -p rm --gpus=1 -c 1 -o "$DIR/out/%j.out" --comment "model=resnet50" "$DIR/job.sh" 2)
BAD=$(sbatch --parsable -p rm --gpus=1 -c 1 -o "$DIR/out/%j.out" --comment "rm:duration=1" "$DIR/fail.sh")
R=(); for _ in 1 2 3; do R+=($(submit 4 6)); done   # 12 GPUs: all of n2-n4 while F holds n1
PORT=$((RM_SLURM_PORT + 50))
"$BIN" serve --policy fifo --partition rm --state "$DIR/state" --interval 300ms --exit-when-done --out "$DIR/res" \
  --log-file "$LOG" --log-level debug --metrics "127.0.0.1:$PORT" 2> "$DIR/serve.err" &
SERVE=$!
for _ in $(seq 40); do scontrol show job "$BIG" | grep -q "AdminComment=ringmaster" && break; sleep 0.15; done
scontrol show job "$BIG" | grep -q "AdminComment=ringmaster: cannot run here: asks for 32 GPUs" \
  || fail "no reason on the impossible job: $(scontrol show job "$BIG" | grep -i comment)"
scontrol show job "$BIG" | grep -q "Comment=rm:duration=5" || fail "the user's comment was overwritten"
"$BIN" status --state "$DIR/state" > "$DIR/status.txt" || fail "status exited with $?"
grep -q "queue (submission order)" "$DIR/status.txt" && grep -q "unschedulable" "$DIR/status.txt" \
  || fail "status does not show the queue: $(cat "$DIR/status.txt")"
set +e; "$BIN" status --state "$DIR/out" >/dev/null 2>&1; rc=$?; set -e
[ "$rc" = 2 ] || fail "status on a non-state folder exited $rc, not 2"
/usr/bin/python3 - "$PORT" > "$DIR/metrics.txt" <<'PY' || fail "the metrics endpoint did not answer"
import sys, urllib.request
print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode())
PY
grep -q '^ringmaster_jobs{status="unschedulable"} 1$' "$DIR/metrics.txt" && grep -q '^ringmaster_manager_up 1$' "$DIR/metrics.txt" \
  && grep -q '^ringmaster_step_seconds{quantile="0.99"}' "$DIR/metrics.txt" || fail "metrics: $(cat "$DIR/metrics.txt")"
# The partition goes DOWN while the ordinary jobs run: a job submitted then is not released until it is UP again.
for _ in $(seq 60); do [ "$(squeue -h -j "$(IFS=,; echo "${R[*]}")" -t R | wc -l)" = 3 ] && break; sleep 0.25; done
scontrol update PartitionName=rm State=DOWN
L=$(submit 1 2)
sleep 2
squeue -h -j "$L" -o %r | grep -q JobHeld || fail "a job was released while the partition was down"
grep -q "partition rm is DOWN: nothing is released" "$LOG" || fail "the partition going down was not logged"
"$BIN" status --state "$DIR/state" | grep -q "PAUSED" || fail "status does not say the partition is down"
scontrol update PartitionName=rm State=UP
timeout 120 tail --pid="$SERVE" -f /dev/null || fail "serve did not finish"
wait "$SERVE" || fail "serve exited with an error: $(cat "$DIR/serve.err")"; SERVE=""
grep -q "partition rm is back as it was" "$LOG" || fail "the partition coming back was not logged"
grep -q "job $F (partition open, user root, not ringmaster's) holds 4 GPU(s) on our nodes: booked busy" "$LOG" \
  || fail "the open partition's job was not booked"
! grep -q "no longer have GPUs free" "$LOG" || fail "a job was released onto GPUs Slurm gave another"
[ "$(grep -c "job $NOPFX: its comment 'model=resnet50' has no rm: prefix" "$LOG")" = 1 ] || fail "the missing prefix not said once"
grep -q " DEBUG serve: step " "$LOG" || fail "no debug lines in the log file"
grep -q " WARN  serve: job $BIG: unschedulable" "$LOG" || fail "the impossible job not logged as a warning"
jobs="$DIR/res/jobs.csv"
col() { awk -F, -v id="$1" -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } $1 == id { print $c }' "$jobs"; }
[ "$(col "$BIG" status)" = unschedulable ] || fail "the impossible job is not unschedulable: $(cat "$jobs")"
[ "$(col "$BAD" status)" = failed ] && [ "$(col "$BAD" slurm_state)" = FAILED ] || fail "the failing job: $(cat "$jobs")"
[ "$(col "${R[0]}" status)" = finished ] && [ "$(col "${R[0]}" slurm_state)" = COMPLETED ] || fail "R0: $(cat "$jobs")"
[ "$(col "$U" status)" = finished ] || fail "the user's job did not run: $(cat "$jobs")"
grep -q '"unschedulable": 1' "$DIR/res/summary.json" || fail "summary.json does not count the impossible job"
grep -q '"step_p99_ms"' "$DIR/res/summary.json" || fail "summary.json has no step times"
runs="$DIR/res/runs.csv"
head -1 "$runs" | grep -q "^slurm_id,end_reason," || fail "runs.csv has no end_reason: $(head -1 "$runs")"
awk -F, -v f="$BAD" 'NR > 1 && $1 == f && $2 == "FAILED" { ok = 1 } END { exit !ok }' "$runs" || fail "runs.csv: $(cat "$runs")"
tail -n +2 "$runs" | awk -F, '{ print $3, 1, $5, $6; print $4, 0, $5, -$6 }' | sort -k1,1g -k2,2n |
  awk '{ busy[$3] += $4; if (busy[$3] > 4) { print "over-booked", $0; bad = 1 } } END { exit bad }' \
  || fail "a node held more GPUs than it has: $(cat "$runs")"
# n1 held F's 4 GPUs until F ended: no job of ours ran on n1 before that.
fend=$(( $(date -d "$(scontrol show job "$F" | grep -o 'EndTime=[^ ]*' | cut -d= -f2)" +%s) ))
origin=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['origin_s'])" "$DIR/state/state.json")
awk -F, -v e="$fend" -v o="$origin" 'NR > 1 && $5 == "n1" && $3 + o < e - 0.5 { bad = 1; print } END { exit bad }' "$runs" \
  || fail "a job of ours ran on n1 while the open partition's job held its GPUs: $(cat "$runs")"
echo "C ok"
echo "operate_test: all passed"
