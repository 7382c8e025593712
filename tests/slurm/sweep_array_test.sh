#!/usr/bin/env bash
# `ringmaster sweep --slurm-array` end to end on a real Slurm started here on loopback: the array script runs
# as a Slurm job array (two runs per task, at most 3 tasks at a time), `sweep --merge` gathers the results,
# and they equal a local sweep of the same grid (wall times aside).
# Usage: sweep_array_test.sh RINGMASTER_BINARY. Exit 77 (skipped) without root or without the Slurm packages.
set -euo pipefail
source "$(dirname "$0")/test_lib.sh"
slurm_test_start 55000
fail() { echo "FAIL: $*"; ls "$DIR/arr/logs" 2>/dev/null && tail -5 "$DIR"/arr/logs/* 2>/dev/null; exit 1; }
grid=(--policy fifo --policy srsf --policy tiresias --seeds 1-3)
"$BIN" sweep "${grid[@]}" --slurm-array "$DIR/arr" --partition open --chunk 2 --array-limit 3 || fail "sweep --slurm-array"
job=$(sbatch --parsable "$DIR/arr/sweep.sbatch") || fail "sbatch of the array script"
for _ in $(seq 240); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.5; done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || fail "the array did not finish in 2 minutes"
"$BIN" sweep --merge "$DIR/arr" || fail "merge reports failed or missing runs"
"$BIN" sweep "${grid[@]}" -j 2 -q --out "$DIR/local" || fail "the local sweep"
strip() { awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) keep[i] = ($i != "wall_s" && $i != "engine_s" && $i != "events_per_s" && $i !~ /^timing\./) }
  { s = ""; for (i = 1; i <= NF; ++i) if (keep[i]) s = s $i ","; print s }' "$1"; }
[ "$(strip "$DIR/arr/results.csv")" = "$(strip "$DIR/local/results.csv")" ] \
  || fail "array and local results differ: $(diff <(strip "$DIR/arr/results.csv") <(strip "$DIR/local/results.csv"))"
[ "$(ls "$DIR"/arr/logs | wc -l)" = 5 ] || fail "expected 5 array task logs (9 runs, 2 per task): $(ls "$DIR/arr/logs")"
echo "sweep_array_test: all passed (9 runs in 5 array tasks)"
