#!/usr/bin/env bash
# How long one `serve` step takes on a large local Slurm (issue 30): 16 nodes x 8 fake GPUs (tests/slurm/
# local_slurm.sh, on loopback), N held 1-GPU jobs pending (durations 20-120 s, seeded), fifo, interval 1 s, for
# SECONDS of wall time; prints the step time p50/p99/max (observe, decide, apply, persist: summary.json timing)
# and the decision time, for each N. Needs root and slurm-wlm/munge, like the Slurm tests.
#   bash bench/slurm_scale.sh BINARY [SECONDS=60] [N...=250 1000 2000]
set -euo pipefail
BIN=$(readlink -f "${1:?ringmaster binary}"); SECS=${2:-60}; shift 2 || true
COUNTS=("$@"); [ ${#COUNTS[@]} -gt 0 ] || COUNTS=(250 1000 2000)
HERE=$(cd "$(dirname "$0")/../tests/slurm" && pwd)
printf '| pending jobs | steps | step p50 ms | step p99 ms | step max ms | first step ms | decision p99 us | jobs started |\n|---|---|---|---|---|---|---|---|\n'
for n in "${COUNTS[@]}"; do
  DIR=$(mktemp -d /tmp/rm-slurm-scale.XXXXXX)
  export RM_SLURM_PORT=$((20000 + (RANDOM % 300) * 10))
  trap 'bash "$HERE/local_slurm.sh" stop "$DIR" >/dev/null 2>&1 || true' EXIT
  eval "$(bash "$HERE/local_slurm.sh" start "$DIR" 16 8 32 256000)"
  printf '#!/bin/bash\nsleep "$1"\n' > "$DIR/job.sh"; chmod +x "$DIR/job.sh"
  RANDOM=1
  for i in $(seq "$n"); do
    d=$((20 + RANDOM % 101))
    sbatch --parsable -H -p rm --gpus=1 -c 1 -o /dev/null --comment "rm:duration=$d" "$DIR/job.sh" "$d" >/dev/null
  done
  timeout -s TERM "$SECS" "$BIN" serve --policy fifo --partition rm --state "$DIR/state" --interval 1s \
    --log-file "$DIR/serve.log" || true
  /usr/bin/python3 - "$DIR/state/summary.json" "$DIR/state/state.json" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); st = json.load(open(sys.argv[2]))
t = s["timing"]; steps = st["step_ms"]
import os
ended = os.path.join(os.path.dirname(sys.argv[2]), "ended.jsonl")  # ended jobs: the journal (issue 45)
jobs = st["jobs"] + ([json.loads(l) for l in open(ended) if l.strip()] if os.path.exists(ended) else [])
started = sum(1 for j in jobs if j["runs"] or j["status"] in ("running", "starting"))
print(f"| {sys.argv[3]} | {len(steps)} | {t['step_p50_ms']:.0f} | {t['step_p99_ms']:.0f} | {t['step_max_ms']:.0f} | "
      f"{steps[0]:.0f} | {t.get('decision_p99_us', 0):.0f} | {started} |")
PY
  bash "$HERE/local_slurm.sh" stop "$DIR" >/dev/null 2>&1 || true
  trap - EXIT
done
