#!/usr/bin/env bash
# `serve` that users cannot get around and faults cannot stop (issue 45), against a real Slurm 22.05 started here on
# loopback (tests/slurm/local_slurm.sh: partitions rm, open and nomem over 4 nodes x 4 fake GPUs, and
# deploy/slurm/job_submit.lua):
#   A. one daemon: a second serve on the same --state exits 2 naming the first (host, pid); a second serve for the
#      same partition on another --state exits 2 naming the first's lease (a held Slurm job).
#   B. the plugin: a job array in rm is refused at submission; a user cannot move a held rm job to partition open, nor
#      submit it --no-requeue; every rm job is requeueable.
#   C. no GPU booked for a job that will not start: a job whose dependency failed is never released and its GPUs
#      stay free in `ringmaster status`; a released --exclusive job that Slurm cannot start (its node is busy) is
#      held again within the bound, its reason logged, its GPUs free again; a GPU-less job is refused visibly.
#   D. kill -HUP: the daemon keeps running and writes to a new log file after the old one was moved.
#   E. a full state disk (a 300 KB tmpfs; skipped where mount is not allowed): logged as ERROR, no decisions, the
#      daemon keeps running (no exit 3) and resumes when space returns.
#   F. metrics: nodes by state, the new counters, cumulative summaries; a node set DOWN is logged and in status.
# Usage: harden_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 61000
LOG="$DIR/log/serve-h.log"
fail() { echo "FAIL: $*"; squeue -a -o "%i %P %u %T %r %N %E" 2>&1 | head -20; tail -40 "$LOG" 2>/dev/null; exit 1; }
chmod 755 "$DIR" "$DIR/etc" "$DIR/munge"  # slurm.conf and the private munged's socket, for a user other than root
mkdir -p "$DIR/user" && chmod 777 "$DIR/user"
as_user() { (cd "$DIR/user" && runuser -u nobody -- "$@"); }
PORT=$((RM_SLURM_PORT + 50))

echo "== B: the plugin"
if sbatch -p rm --array=1-3 --gpus=1 -o /dev/null --wrap "sleep 1" 2> "$DIR/array.err"; then fail "a job array was accepted in rm"; fi
grep -q "job arrays are not accepted" "$DIR/array.err" || fail "the array's refusal says nothing: $(cat "$DIR/array.err")"
U=$(as_user sbatch --parsable -p rm --gpus=1 -o "$DIR/user/%j.out" --comment "rm:duration=2" --wrap "sleep 2") \
  || fail "a user could not submit"
if as_user scontrol update JobId="$U" Partition=open 2> "$DIR/move.err"; then fail "the user moved a held rm job to open"; fi
squeue -h -j "$U" -o %P | grep -qx rm || fail "the job left rm: $(squeue -h -j "$U" -o %P)"
grep -q "ringmaster job_submit: uid [0-9]* may not move job $U out of partition rm" "$DIR/log/slurmctld.log" \
  || fail "the refused move is not in slurmctld's log"
scontrol show job "$U" | grep -q "Requeue=1" || fail "an rm job is not requeueable: $(scontrol show job "$U" | grep -o 'Requeue=[0-9]')"
if as_user sbatch -p rm --gpus=1 --no-requeue -o /dev/null --wrap "sleep 1" 2>/dev/null; then fail "--no-requeue was accepted in rm"; fi
echo "B ok"

echo "== A, C: one daemon; jobs that will not start"
printf '#!/bin/bash\nsleep 1\nexit 3\n' > "$DIR/fail.sh"; chmod +x "$DIR/fail.sh"
BAD=$(sbatch --parsable -p open --gpus=1 -c 1 -o /dev/null "$DIR/fail.sh")       # fails after 1 s
DEP=$(sbatch --parsable -p rm --gpus=3 -c 1 --mem=1G -o /dev/null --dependency=afterok:"$BAD" \
  --comment "rm:duration=5" "$DIR/job.sh" 5)
NOGPU=$(sbatch --parsable -p rm -c 1 --mem=1G -o /dev/null --comment "rm:duration=1" "$DIR/job.sh" 1)
# n1 holds a job of the open partition on 1 GPU; X (--exclusive, 1 GPU) is placed on the fullest node that holds it,
# n1, where Slurm will not start an exclusive job: released, then held again within --start-timeout.
F=$(sbatch --parsable -p open --gpus=1 -w n1 -c 1 --mem=1G -o /dev/null "$DIR/job.sh" 300)
for _ in $(seq 40); do squeue -h -j "$F" -t R | grep -q . && break; sleep 0.25; done
squeue -h -j "$F" -t R | grep -q . || fail "the open partition's job did not start"
"$BIN" serve --policy fifo --partition rm --state "$DIR/state" --interval 300ms --start-timeout 3s \
  --log-file "$LOG" --metrics "127.0.0.1:$PORT" 2> "$DIR/serve.err" &
SERVE=$!
for _ in $(seq 40); do grep -q "lease: Slurm job" "$LOG" 2>/dev/null && break; sleep 0.25; done
grep -q "lease: Slurm job" "$LOG" || fail "no lease taken: $(cat "$DIR/serve.err")"
set +e
"$BIN" serve --partition rm --state "$DIR/state" --once > "$DIR/second.out" 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "a second serve on the same state exited $rc, not 2: $(cat "$DIR/second.out")"
grep -q "another ringmaster serve is running on this state folder (host $(hostname), pid $SERVE" "$DIR/second.out" \
  || fail "the second serve does not name the first: $(cat "$DIR/second.out")"
set +e
"$BIN" serve --partition rm --state "$DIR/state2" --once > "$DIR/third.out" 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "a second serve for the partition on another state exited $rc, not 2: $(cat "$DIR/third.out")"
grep -q "another ringmaster serve schedules partition rm: host $(hostname), pid $SERVE" "$DIR/third.out" \
  || fail "the lease refusal does not name the first: $(cat "$DIR/third.out")"
kill -0 "$SERVE" || fail "the first serve died"
echo "A ok"
# C: the GPU-less job is refused; DEP's dependency fails and it is never released; X is held again.
for _ in $(seq 60); do scontrol show job "$NOGPU" | grep -q "AdminComment=ringmaster" && break; sleep 0.25; done
scontrol show job "$NOGPU" | grep -q "AdminComment=ringmaster: cannot run here: asks for no GPUs" \
  || fail "the GPU-less job: $(scontrol show job "$NOGPU" | grep -i comment)"
# DEP waits while BAD runs; once BAD has ended it is released, Slurm says DependencyNeverSatisfied, and it is held
# again within the bound, then kept held for good.
for _ in $(seq 60); do grep -q "job $DEP: its dependency can never be satisfied" "$LOG" && break; sleep 0.25; done
grep -q "job $DEP: released .* ago but Slurm did not start it (its reason: DependencyNeverSatisfied); held again" "$LOG" \
  || fail "DEP was not held again within the bound"
grep -q "job $DEP: its dependency can never be satisfied (afterok:$BAD(failed))" "$LOG" || fail "the failed dependency was not said"
squeue -h -j "$DEP" -o %r | grep -q JobHeld || fail "DEP is not held: $(squeue -h -j "$DEP" -o '%T %r')"
X=$(sbatch --parsable -p rm --gpus=1 --exclusive -c 1 --mem=1G -o /dev/null --comment "rm:duration=2" "$DIR/job.sh" 2)
for _ in $(seq 80); do grep -q "job $X: released .* ago but Slurm did not start it" "$LOG" && break; sleep 0.25; done
grep -q "job $X: released .* ago but Slurm did not start it (its reason: " "$LOG" || fail "X was not held again"
squeue -h -j "$X" -o %r | grep -q JobHeld || fail "X is not held: $(squeue -h -j "$X" -o '%T %r')"
for _ in $(seq 60); do  # X cycles between a 3-s release and its back-off (6 s, 12 s, ...): its GPU comes back
  "$BIN" status --state "$DIR/state" > "$DIR/status.txt"
  grep -q "GPUs: 1 busy, 15 free" "$DIR/status.txt" && break; sleep 0.25
done
grep -q "GPUs: 1 busy, 15 free" "$DIR/status.txt" || fail "GPUs booked for jobs that do not run: $(cat "$DIR/status.txt")"
grep "$DEP" "$DIR/status.txt" | grep -q "dependency can never be satisfied" || fail "status: $(cat "$DIR/status.txt")"
grep "$X" "$DIR/status.txt" | grep -q "did not start it" || fail "status does not say why X waits: $(cat "$DIR/status.txt")"
grep -A3 "unschedulable" "$DIR/status.txt" | grep -q "$NOGPU" || fail "status does not show the GPU-less job"
# A user's own hold is kept: job_submit.lua marks the comment, serve leaves the job held and says why; the owner's
# release takes the mark off and hands it back to ringmaster's queue (still held: 16 GPUs, F holds one).
UH=$(as_user sbatch --parsable -p rm --gpus=16 -o /dev/null --comment "rm:duration=2" --wrap "sleep 2")
as_user scontrol hold "$UH" || fail "the user could not hold their own job"
scontrol show job "$UH" | grep -q "Comment=rm:duration=2;rm-user-hold" || fail "the hold is not marked: $(scontrol show job "$UH" | grep -o 'Comment=[^ ]*')"
for _ in $(seq 40); do grep -q "job $UH: held by its user" "$LOG" && break; sleep 0.25; done
"$BIN" status --state "$DIR/state" | grep "$UH" | grep -q "held by its user" || fail "status: $("$BIN" status --state "$DIR/state")"
as_user scontrol release "$UH" || fail "the user could not release their own hold"
scontrol show job "$UH" | grep -q "rm-user-hold" && fail "the mark stayed after the user's release"
squeue -h -j "$UH" -o %r | grep -q JobHeld || fail "the user's release bypassed ringmaster: $(squeue -h -j "$UH" -o '%T %r')"
if as_user scontrol release "$UH" 2>/dev/null; then fail "a second release by the user was accepted"; fi
sleep 1
"$BIN" status --state "$DIR/state" | grep "$UH" | grep -q "held by its user" && fail "status still says held by its user"
scancel "$UH"
echo "C ok"

echo "== D: SIGHUP"
mv "$LOG" "$LOG.1"
kill -HUP "$SERVE"
for _ in $(seq 40); do [ -s "$LOG" ] && break; sleep 0.25; done
kill -0 "$SERVE" || fail "SIGHUP killed the daemon"
grep -q "SIGHUP: log file .* opened again" "$LOG" || fail "no new log file after SIGHUP: $(ls "$DIR/log")"
echo "D ok"

echo "== F: metrics, a node down"
scontrol update NodeName=n4 State=DOWN Reason=harden-test
for _ in $(seq 40); do grep -q "node n4 is DOWN" "$LOG" && break; sleep 0.25; done
grep -q "WARN  serve: node n4 is DOWN.*: its GPUs go to no job until it is back" "$LOG" || fail "the node going down was not logged"
"$BIN" status --state "$DIR/state" | grep -q "nodes: 3 up, 1 down, 0 draining or drained (n4 DOWN" \
  || fail "status does not show the down node: $("$BIN" status --state "$DIR/state")"
/usr/bin/python3 - "$PORT" > "$DIR/metrics.txt" <<'PY' || fail "the metrics endpoint did not answer"
import sys, urllib.request
print(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode())
PY
for want in '^ringmaster_nodes{state="down"} 1$' '^ringmaster_nodes{state="up"} 3$' '^ringmaster_refusals_total 1$' \
  '^ringmaster_start_timeouts_total [1-9]' '^ringmaster_state_writable 1$' '^ringmaster_last_step_timestamp_seconds [0-9]*\.[0-9][0-9][0-9]$'; do
  grep -q "$want" "$DIR/metrics.txt" || fail "metrics: no $want in $(cat "$DIR/metrics.txt")"
done
scontrol update NodeName=n4 State=RESUME
for _ in $(seq 40); do grep -q "node n4 is back" "$LOG" && break; sleep 0.25; done
grep -q "node n4 is back" "$LOG" || fail "the node coming back was not logged"
echo "F ok"
kill "$SERVE"; wait "$SERVE" || fail "serve exited with an error on SIGTERM"; SERVE=""
squeue -h -n ringmaster-lease -t PD | grep -q . && fail "the lease job was left behind after a clean stop"

echo "== H: uninstall (serve --release-all)"
# X was released pinned to n1, then held again: it keeps the pin. --release-all clears it and releases X, DEP
# (its dependency failed: Slurm keeps it pending) and the refused GPU-less job (its AdminComment cleared).
scontrol show job "$X" | grep -q "ReqNodeList=n1" || fail "X has no pin to clear: $(scontrol show job "$X" | grep -o 'ReqNodeList=[^ ]*')"
"$BIN" serve --partition rm --state "$DIR/state" --release-all --log-file "$LOG" || fail "--release-all failed"
grep -q -- "--release-all: 3 pending jobs of partition rm cleared of ringmaster's pin and marks, 3 released to Slurm" "$LOG" \
  || fail "--release-all: $(grep -- --release-all "$LOG")"
scontrol show job "$X" | grep -q "ReqNodeList=(null)" || fail "X's pin is left: $(scontrol show job "$X" | grep -o 'ReqNodeList=[^ ]*')"
scontrol show job "$NOGPU" | grep -q "AdminComment=ringmaster" && fail "the refused job's AdminComment is left"
for _ in $(seq 40); do [ "$(squeue -h -j "$X" -o %T)" != PENDING ] && break; sleep 0.25; done
[ "$(squeue -h -j "$X" -o %T)" != PENDING ] || fail "X did not run after --release-all: $(squeue -h -j "$X" -o '%T %r')"
squeue -h -n ringmaster-lease -t PD | grep -q . && fail "--release-all left a lease"
echo "H ok"

echo "== G: books true on full nodes"
scancel "$F" "$DEP" 2>/dev/null || true
for _ in $(seq 40); do [ -z "$(squeue -h -t R,CG)" ] && break; sleep 0.25; done
# FULLC takes all 8 CPUs of its node, FULLM all of its node's memory (--mem=0): each node's other GPUs can run
# nothing, yet each job's own GPU stays booked to it (before issue 45 the free GPUs were marked external first and
# the jobs' GPUs vanished from the books, with a WARN every step).
FULLC=$(sbatch --parsable -p rm --gpus=1 -c 8 --mem=1G -o /dev/null --comment "rm:duration=6" "$DIR/job.sh" 6)
FULLM=$(sbatch --parsable -p rm --gpus=1 -c 1 --mem=0 -o /dev/null --comment "rm:duration=6" "$DIR/job.sh" 6)
"$BIN" serve --policy fifo --partition rm --state "$DIR/state3" --interval 300ms --log-file "$LOG" 2>> "$DIR/serve.err" &
SERVE=$!
for _ in $(seq 40); do [ "$(squeue -h -j "$FULLC,$FULLM" -t R | wc -l)" = 2 ] && break; sleep 0.25; done
[ "$(squeue -h -j "$FULLC,$FULLM" -t R | wc -l)" = 2 ] || fail "the full-node jobs did not both start"
sleep 1.5
"$BIN" status --state "$DIR/state3" > "$DIR/status3.txt"
grep -q "GPUs: 8 busy, 8 free" "$DIR/status3.txt" || fail "the books on full nodes: $(cat "$DIR/status3.txt")"
for id in "$FULLC" "$FULLM"; do
  grep -qE "^ +$id +[^ ]+ +1  n[1-4] " "$DIR/status3.txt" || fail "job $id is not booked on its GPU: $(cat "$DIR/status3.txt")"
done
grep -q "another job holds in our books" "$LOG" && fail "a full node's job lost its GPUs in the books"
kill "$SERVE"; wait "$SERVE" || true; SERVE=""
echo "G ok"

echo "== E: a full state disk"
if mkdir -p "$DIR/small" && mount -t tmpfs -o size=300k tmpfs "$DIR/small" 2>/dev/null; then
  trap 'umount "$DIR/small" 2>/dev/null || true; slurm_test_stop' EXIT
  L=$(submit 1 2)
  "$BIN" serve --policy fifo --partition rm --state "$DIR/small/state" --interval 300ms --log-file "$LOG" 2>> "$DIR/serve.err" &
  SERVE=$!
  for _ in $(seq 40); do [ -s "$DIR/small/state/state.json" ] && break; sleep 0.25; done
  dd if=/dev/zero of="$DIR/small/fill" bs=4k 2>/dev/null || true  # the disk is full now
  for _ in $(seq 40); do grep -q "ERROR serve: cannot write the state file" "$LOG" && break; sleep 0.25; done
  grep -q "ERROR serve: cannot write the state file .*No space left on device; no decisions until it can be written" "$LOG" \
    || fail "the full disk was not logged as an error"
  M=$(submit 1 2)
  sleep 2
  kill -0 "$SERVE" || fail "the daemon exited on a full disk: $(tail -5 "$DIR/serve.err")"
  squeue -h -j "$M" -o %r | grep -q JobHeld || fail "a job was released while the state could not be written"
  rm -f "$DIR/small/fill"
  for _ in $(seq 40); do grep -q "the state is written again: scheduling resumes" "$LOG" && break; sleep 0.25; done
  grep -q "the state is written again: scheduling resumes" "$LOG" || fail "scheduling did not resume"
  for _ in $(seq 40); do squeue -h -j "$M" -o %r | grep -q JobHeld || break; sleep 0.25; done
  squeue -h -j "$M" -o %r | grep -q JobHeld && fail "the job was not released after space returned"
  kill "$SERVE"; wait "$SERVE" || true; SERVE=""
  umount "$DIR/small"
  echo "E ok"
else
  echo "E skipped: mount (tmpfs) is not allowed here"
fi
echo "harden_test: all passed"
