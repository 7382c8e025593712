#!/usr/bin/env bash
# Runs the Sia artifact's simulator (siasosp23/artifacts @aaf7a0d, sia-simulator/) on Debian 12 under the cvxpy shim
# beside this script, for goldens (docs/sia.md). Outside the repository: the simulator is fetched, never committed.
#   scripts/sia-goldens/run.sh SIM_DIR OUT_DIR POLICY WORKLOAD.csv...
# SIM_DIR: a checkout of sia-simulator/ whose workloads/ and traces/ point to shared/traces/sia/.
# PYDEPS: a folder with autograd 1.3 and pymoo 0.4.2 (pure Python, fetched) and the numpy-alias sitecustomize.py
# of shared/goldens/peers/pollux/README.md section 1.
# POLICY: sia | gavel (multi_simulator.py, the artifact's run_experiment.sh options) | pollux (multi_simulator_unaware.py;
# its genetic search draws from numpy's global stream: PX_SEED=<n> seeds it once at start-up, see sitecustomize.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sim=$(cd "$1" && pwd); out=$(mkdir -p "$2" && cd "$2" && pwd); policy=$3; shift 3
: "${PYDEPS:?PYDEPS must name the folder with autograd, pymoo and sitecustomize.py}"
export PYTHONPATH="$here:$PYDEPS"
export NPY_DISABLE_CPU_FEATURES="AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"
for w in "$@"; do
  name=$(basename "$(dirname "$w")")-$(basename "$w" .csv)
  case $policy in
    sia) args=(multi_simulator.py "$w" --policy=sia --policy_p_val=-0.5 --mip_lambda_a=0.01 --mip_lambda_n=1.1
               --interval=60 --project_throughput --share_max_replicas) ;;
    gavel) args=(multi_simulator.py "$w" --policy=gavel --interval=360) ;;
    pollux) args=(multi_simulator_unaware.py "$w" --policy=pollux --interval=60 --policy_p_val=-1) ;;
    *) echo "unknown policy $policy" >&2; exit 2 ;;
  esac
  rm -f "$out/$policy-$name.solves.jsonl"
  ( cd "$sim" && SIA_SHIM_LOG="$out/$policy-$name.solves.jsonl" /usr/bin/time -f "%U %S %e" -o "$out/$policy-$name.time" \
      /usr/bin/python3 "${args[@]}" --output="$out/$policy-$name.log" 2>&1 | gzip -1 > "$out/$policy-$name.out.gz" )
  gzip -f "$out/$policy-$name.log"; [ -f "$out/$policy-$name.solves.jsonl" ] && gzip -f "$out/$policy-$name.solves.jsonl"
  echo "$policy $name: $(cat "$out/$policy-$name.time")"
done
