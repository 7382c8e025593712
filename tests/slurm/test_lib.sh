# Sourced by the Slurm integration tests: `slurm_test_start PORT_BASE` skips (exit 77) without root or the
# Slurm packages, makes $DIR, starts the private cluster of local_slurm.sh there on ports from PORT_BASE (a
# random offset, so that tests can run side by side), stops it on exit, and exports SLURM_CONF.
# Also defines $BIN (the ringmaster under test, from $1 of the test) and $HERE.
BIN=$(readlink -f "${1:?ringmaster binary}")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
slurm_test_start() {
  [ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
  command -v slurmctld >/dev/null && command -v munged >/dev/null || { echo "skip: slurm-wlm/munge not installed"; exit 77; }
  DIR=$(mktemp -d /tmp/rm-slurm-test.XXXXXX)
  export RM_SLURM_PORT=$(( $1 + (RANDOM % 400) * 10 ))
  trap slurm_test_stop EXIT
  eval "$(bash "$HERE/local_slurm.sh" start "$DIR")"
  printf '#!/bin/bash\nsleep "$1"\n' > "$DIR/job.sh"
  chmod +x "$DIR/job.sh"
}
slurm_test_stop() {
  [ -n "${SERVE:-}" ] && kill "$SERVE" 2>/dev/null || true
  bash "$HERE/local_slurm.sh" stop "$DIR" >/dev/null 2>&1 || true
}
# Submit a held sleep job for ringmaster: submit GPUS SECONDS -> job id.
submit() {
  sbatch --parsable -H -p rm --gpus="$1" -c 1 --mem=1G -o "$DIR/out/%j.out" \
    --comment "rm:model=resnet50;duration=$2" "$DIR/job.sh" "$2"
}
# The rows of a jobs.csv whose `status` column (found by name: columns are only ever appended) is `finished`.
finished_rows() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i; next } c && $c == "finished"' "$1" | wc -l
}
