#!/usr/bin/env bash
# Recovery of `ringmaster serve` when its state is lost, against a real Slurm started here on loopback:
#   A. state.json deleted while serve is down: the restart reads the last good copy (state.prev.json) and says so.
#   B. both deleted: `serve --recover` rebuilds its books from Slurm: the running jobs on the GPU indices Slurm gave
#      them (a 6-GPU job over two 4-GPU nodes as Slurm spread it, never an even split), their service from Slurm's
#      start times; every job then runs exactly once and no node is ever over-booked (runs.csv).
#   C. a corrupt state with no last good copy: refused with a pointer to --recover (exit 2).
# Usage: recover_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 25000
LOG="$DIR/log/serve-rec.log"
SERVE=""
fail() { echo "FAIL: $*"; squeue -a -o "%i %T %r %N" 2>&1 | head; tail -30 "$LOG"; exit 1; }
serve() {
  "$BIN" serve --policy fifo --partition rm --state "$DIR/state" --interval 300ms --exit-when-done --out "$DIR/res" "$@" \
    2>> "$LOG" &
  SERVE=$!
}
kill9() { kill -9 "$SERVE"; wait "$SERVE" 2>/dev/null || true; SERVE=""; }
running() { squeue -h -j "$1" -t R | grep -q .; }

A=$(submit 6 16); B=$(submit 6 16); C=$(submit 8 3); D=$(submit 4 3)
serve
for _ in $(seq 60); do running "$A" && running "$B" && break; sleep 0.25; done
running "$A" && running "$B" || fail "A and B did not start"
sleep 1

echo "== A: state.json lost, the last good copy used"
kill9
[ -s "$DIR/state/state.prev.json" ] || fail "no last good copy next to state.json"
rm "$DIR/state/state.json"
serve
for _ in $(seq 20); do grep -q "using the last good copy" "$LOG" && break; sleep 0.25; done
grep -q "state.json is missing; using the last good copy" "$LOG" || fail "the last good copy was not used"
sleep 1
echo "A ok"

echo "== B: both lost, --recover"
kill9
a_slurm=$(scontrol -d show job "$A" | grep -o 'Nodes=[^ ]* CPU_IDs=[^ ]* Mem=[^ ]* GRES=gpu:[0-9]*' |
  sed -E 's/Nodes=([^ ]*) .*GRES=gpu:([0-9]*)/\1:\2/' | sort | tr '\n' ' ')
rm -f "$DIR/state/state.json" "$DIR/state/state.prev.json"
serve --recover
timeout 120 tail --pid="$SERVE" -f /dev/null || fail "serve --recover did not finish"
wait "$SERVE" || fail "serve --recover exited with an error"; SERVE=""
grep -q -- "--recover: no usable state; rebuilt from Slurm: 2 running job(s) booked on the GPUs Slurm gave them" "$LOG" \
  || fail "the running jobs were not recovered"
! grep -q "no longer have GPUs free\|another job holds in our books" "$LOG" || fail "a job was released onto GPUs in use"
for id in "$A" "$B" "$C" "$D"; do
  scontrol show job -o "$id" | grep -q 'JobState=COMPLETED' || fail "job $id did not complete"
  scontrol show job -o "$id" | grep -q ' Restarts=0 ' || fail "job $id was started twice"
done
runs="$DIR/res/runs.csv"
a_books=$(awk -F, -v id="$A" 'NR > 1 && $1 == id { print $5 ":" $6 }' "$runs" | sort | tr '\n' ' ')
[ "$a_books" = "$a_slurm" ] || fail "A booked as [$a_books], Slurm gave it [$a_slurm]"
start=$(scontrol show job "$A" | grep -o 'StartTime=[^ ]*' | cut -d= -f2)
origin=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['origin_s'])" "$DIR/state/state.json")
awk -F, -v id="$A" -v s="$(date -d "$start" +%s)" -v o="$origin" 'NR > 1 && $1 == id { d = $3 + o - s; if (d < -0.5 || d > 0.5) bad = 1 }
  END { exit bad }' "$runs" || fail "A's recovered stretch does not start at Slurm's start time $start: $(cat "$runs")"
tail -n +2 "$runs" | awk -F, '{ print $3, 1, $5, $6; print $4, 0, $5, -$6 }' | sort -k1,1g -k2,2n |
  awk '{ busy[$3] += $4; if (busy[$3] > 4) { print "over-booked", $0; bad = 1 } } END { exit bad }' \
  || fail "a node held more GPUs than it has: $(cat "$runs")"
echo "B ok (A on $a_slurm)"

echo "== C: a corrupt state and no last good copy"
rm -f "$DIR/state/state.prev.json"; echo "{ not json" > "$DIR/state/state.json"
set +e; "$BIN" serve --partition rm --state "$DIR/state" --once 2> "$DIR/corrupt.err"; rc=$?; set -e
[ "$rc" = 2 ] && grep -q -- "--recover" "$DIR/corrupt.err" || fail "corrupt state: exit $rc, $(cat "$DIR/corrupt.err")"
echo "C ok"
echo "recover_test: all passed"
