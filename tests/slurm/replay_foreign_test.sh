#!/usr/bin/env bash
# Issue 48: `ringmaster replay --backend slurm` on a partition other users share ends with its own jobs. Another
# user's job, held in the partition before the replay starts and asking 64 GPUs of its 16, is scheduled alongside
# (refused as unschedulable, as `serve` refuses it) but never holds the replay open; jobs.csv has exactly the
# trace's 60 rows and summary.json counts the other job as `foreign_jobs`.
# Usage: replay_foreign_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 43000
fail() { echo "FAIL: $*"; squeue -a -o "%i %P %u %T %r %N" 2>&1 | head -20; tail -40 "$DIR/replay.log"; exit 1; }
chmod 755 "$DIR" "$DIR/etc" "$DIR/munge"  # slurm.conf and the private munged's socket, for a user other than root
mkdir -p "$DIR/user" && chmod 777 "$DIR/user"
F=$(cd "$DIR/user" && runuser -u nobody -- sbatch --parsable -H -p rm --gpus=64 -o "$DIR/user/%j.out" \
  --comment "rm:duration=5" --wrap "sleep 5") || fail "the other user could not submit"
squeue -h -j "$F" -o %r | grep -q "JobHeld" || fail "the other user's job is not held: $(squeue -h -j "$F" -o %r)"
# The contract, as written (P = rm, S = the state folder).
timeout 540 "$BIN" replay --backend slurm --trace builtin:demo --time-scale 300 --policy fifo --partition rm \
  --state "$DIR/state" --cluster tiny --out "$DIR/out" 2> "$DIR/replay.log" || fail "replay exited with $?"
jobs="$DIR/out/jobs.csv"
rows=$(($(wc -l < "$jobs") - 1))
[ "$rows" = 60 ] || fail "jobs.csv has $rows data rows, not the trace's 60: $(head -3 "$jobs")"
[ "$(finished_rows "$jobs")" = 60 ] || fail "not every replayed job finished: $(grep -v ',finished,' "$jobs" | head)"
grep -q '"foreign_jobs": 1' "$DIR/out/summary.json" || fail "summary.json does not count the other job: $(cat "$DIR/out/summary.json")"
grep -q "1 job(s) of others in the partition were scheduled alongside" "$DIR/replay.log" || fail "the log does not say so"
# The other user's job is still there, held, never run; no row of it in runs.csv.
squeue -h -j "$F" -o %T | grep -q PENDING || fail "the other job is not left pending"
! awk -F, -v f="$F" 'NR > 1 && $1 == f' "$DIR/out/runs.csv" | grep -q . || fail "the other job has rows in runs.csv"
echo "replay_foreign_test: all passed"
