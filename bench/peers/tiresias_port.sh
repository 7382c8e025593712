#!/usr/bin/env bash
# The Tiresias simulator (SymbioticLab/Tiresias @959f9b0, simulator/) ported to Python 3 by the goldens' recipe
# (shared/goldens/peers/tiresias/README.md "Port edits", E1-E3 and E5), into DEST, outside the repository: no line of
# it is kept here. SRC is a clone of SymbioticLab/Tiresias (or its bare git directory). lp.py imports IBM's cplex,
# which the simulator never calls: an import-only stub package stands in for it (DEST/stubs, on PYTHONPATH).
# Usage: bench/peers/tiresias_port.sh SRC DEST
set -euo pipefail
SRC=$1
DEST=$2
COMMIT=959f9b08f44fa1b4f2b3aed79b01e4d439264a94
mkdir -p "$DEST"
if [ -d "$SRC/.git" ]; then GIT=(git -C "$SRC"); else GIT=(git --git-dir="$SRC"); fi
"${GIT[@]}" archive "$COMMIT" simulator | tar -x -C "$DEST"
cd "$DEST/simulator"
# E1: sys.maxint -> sys.maxsize (same value, 2^63 - 1).
sed -i 's/sys\.maxint/sys.maxsize/g' run_sim.py jobs.py
# E2: run_sim.py has no `from __future__ import division`: its int/int divisions floored under Python 2.
sed -i "936s|)/rjob\['num_gpu'\])|)//rjob['num_gpu'])|; 1226s|)/rjob\['num_gpu'\])|)//rjob['num_gpu'])|; 1755s|)/rjob\['num_gpu'\])|)//rjob['num_gpu'])|" run_sim.py
sed -i "1974s|e_sum / (job_data\['num'\] - idx)|e_sum // (job_data['num'] - idx)|" run_sim.py
sed -i "220s|int(n_idx / CLUSTER.num_node_p_switch)|int(n_idx // CLUSTER.num_node_p_switch)|" lp.py
# E3: Python 2's round(): a float, exact ties away from zero (Python 3 rounds them to even), into every module
# after its __future__ imports.
cat > py2compat.py <<'PY'
from decimal import Decimal, ROUND_HALF_UP


def round(x, n=0):
    return float(Decimal(x).quantize(Decimal(1).scaleb(-n), rounding=ROUND_HALF_UP))
PY
for f in run_sim.py jobs.py cluster.py log.py models.py node.py switch.py util.py flags.py lp.py; do
  last=$(grep -n '^from __future__' "$f" | tail -1 | cut -d: -f1 || true)
  sed -i "${last:-0}a from py2compat import round" "$f"
done
# E5: `--schedule=gittins` reads JOBS.job_dist_data, which main() never sets (a TypeError at the first event).
sed -i 's/^\(\s*\)job_dist_data = parse_job_dist()$/&\n\1JOBS.job_dist_data = job_dist_data/' run_sim.py
# Every edit landed where the recipe says (the line numbers are at 959f9b0).
[ "$(grep -c 'sys.maxint' run_sim.py jobs.py | awk -F: '{s += $2} END {print s}')" = 0 ]
[ "$(grep -c "//rjob\['num_gpu'\])" run_sim.py)" = 3 ]
grep -q "e_sum // (job_data\['num'\] - idx)" run_sim.py
grep -q 'JOBS.job_dist_data = job_dist_data' run_sim.py
# The import-only cplex stub.
mkdir -p "$DEST/stubs/cplex/six"
printf 'class CplexError(Exception):\n    pass\n' > "$DEST/stubs/cplex/exceptions.py"
printf 'def __getattr__(name):\n    raise ImportError("cplex is a stub here: " + name)\n' > "$DEST/stubs/cplex/__init__.py"
: > "$DEST/stubs/cplex/six/__init__.py"
printf 'range = range\n' > "$DEST/stubs/cplex/six/moves.py"
echo "$DEST/simulator (PYTHONPATH=$DEST/stubs)"
