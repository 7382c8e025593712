#!/usr/bin/env bash
# The layout rules of docs/design.md ("Layers" and "The seam"), checked on the source tree. Prints every breach
# and fails if there is one.
#  1. A directory under src/ includes only the layers below it:
#     core < cluster < workload < sched < exec < policy < engine < models < run < peers < live < cli < python
#     (metrics sits on sched only: it writes what any backend records; plugins/ holds libraries of their own that
#     implement a seam of policy/ and include nothing else; static/ is third-party code compiled into the binary and
#     includes nothing of ours: docs/design.md "Start-up").
#  2. Every execution model has one home: a class that implements the rate or the stepping interface
#     (exec/execution_model.h) is defined under src/models/NAME/ or src/peers/NAME/, nowhere else in src/.
#  3. Only the engine loop moves simulated time: no file under src/ but src/engine/engine.cpp asks a model for its
#     next event or tells it to advance (next_completion, complete_at, next_event_time, advance_to on another
#     object), and no model runs its own instants to a horizon (no run_until). A policy's virtual clock is not
#     the run's time and is exempt by name: A-SRPT's virtual single machine (policy/a_srpt.cpp) and the planners'
#     list schedules (policy/planner/) decide with it and never move the run's clock.
#  4. An Engine is built only by a driver (src/run/) or a reproduced simulator's entry (src/peers/).
#  5. The folders the rules name exist, and none of the retired ones (src/synergy, a model in src/exec) is back.
#  6. The live core speaks no manager's language: outside src/live/<backend>/ only live/backends.cpp (the
#     --backend table) includes a backend's folder, and no core file names a manager's job state (the backend
#     maps its own: Backend::completed_state). status.cpp reads a state file from before issue 42 by Slurm's word.
#  7. The task model stays apart (issue 42, goal 3): no file of src/models/task/ over 500 lines, and the retired
#     task_fast_forward.cpp (the jump as methods of the model) is not back.
set -euo pipefail
cd "$(dirname "$0")/../src"
bad=0
fail() { echo "layout: $*"; bad=1; }

declare -A allowed=(
  [core]="core"
  [cluster]="core cluster"
  [workload]="core cluster workload"
  [sched]="core cluster workload sched"
  [exec]="core cluster workload sched exec"
  [policy]="core cluster workload sched exec policy"
  [engine]="core cluster workload sched exec policy engine"
  [metrics]="core cluster workload sched metrics"
  [models]="core cluster workload sched exec policy engine metrics models"
  [run]="core cluster workload sched exec policy engine metrics models run"
  [peers]="core cluster workload sched exec policy engine metrics models run peers"
  [live]="core cluster workload sched exec policy engine metrics models run live"
  [cli]="core cluster workload sched exec policy engine metrics models run live cli"
  [python]="core cluster workload sched exec policy engine metrics models run live cli python"
  [plugins]="policy"
  [static]="static"
)
for dir in */; do
  dir=${dir%/}
  [ -n "${allowed[$dir]:-}" ] || { fail "src/$dir is not in the layer table"; continue; }
  while IFS= read -r hit; do
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<< "$hit")
    case " ${allowed[$dir]} " in
      *" $target "*) ;;
      *) fail "$hit (src/$dir may not include src/$target)" ;;
    esac
  done < <(grep -rnE '^#include "[a-z_]+/' "$dir" || true)
done
# The peers' registry is reached from below through run/peer_registry.h only (its table is defined in peers/).
while IFS= read -r hit; do fail "$hit (reach a peer through run/peer_registry.h)"; done \
  < <(grep -rnE '^#include "peers/' --include='*.cpp' --include='*.h' . | grep -v '^\./peers/' || true)

# 2. Implementations of the two interfaces.
while IFS= read -r hit; do
  case "$hit" in
    ./models/*/*|./peers/*/*) ;;
    *) fail "$hit (an execution model lives in src/models/NAME/ or src/peers/NAME/)" ;;
  esac
done < <(grep -rnE 'public (RateModel|SteppingModel)\b' --include='*.cpp' --include='*.h' . || true)

# 3. The seam's calls outside the engine loop; horizons.
while IFS= read -r hit; do fail "$hit (only src/engine/engine.cpp drives a model through the seam)"; done \
  < <(grep -rnE '(->|\.)(next_completion|complete_at|next_event_time|advance_to)\(' --include='*.cpp' --include='*.h' . |
      grep -vE '^\./(engine/engine\.cpp|policy/a_srpt\.cpp|policy/planner/[a-z_]+\.cpp):' || true)
while IFS= read -r hit; do fail "$hit (a model never runs its own instants to a horizon: the engine steps it)"; done \
  < <(grep -rnE '\brun_until\b' --include='*.cpp' --include='*.h' . || true)

# 4. Who builds an Engine.
while IFS= read -r hit; do fail "$hit (an Engine is built by a driver in src/run/ or a peer in src/peers/)"; done \
  < <(grep -rnE '(\bEngine [a-z_]+\(|make_unique<Engine>)' --include='*.cpp' --include='*.h' . |
      grep -vE '^\./(run|peers|engine)/' || true)

# 5. Folders.
for d in engine models/rate models/graph models/round models/task peers/tiresias peers/gavel peers/pollux run; do
  [ -d "$d" ] || fail "src/$d is missing (docs/design.md names it)"
done
[ ! -e synergy ] || fail "src/synergy is back (the round model lives in src/models/round/)"
for f in exec/rate_model.cpp exec/graph_model.cpp exec/exec_model.h; do [ ! -e "$f" ] || fail "src/$f is back"; done

# 6. The live core.
while IFS= read -r hit; do fail "$hit (the live core reaches a backend only through live/backends.cpp)"; done \
  < <(grep -nE '^#include "live/(slurm|fake)/' live/*.cpp live/*.h | grep -v '^live/backends\.cpp:' || true)
while IFS= read -r hit; do fail "$hit (a manager's state names belong to its backend's folder)"; done \
  < <(grep -nE '"(COMPLETED|PENDING|RUNNING|FAILED|CANCELLED)"' live/*.cpp live/*.h | grep -v '^live/status\.cpp:' || true)
for d in live/slurm live/fake; do [ -d "$d" ] || fail "src/$d is missing (docs/design.md names it)"; done

# 7. The task model's units.
for f in models/task/*; do
  n=$(wc -l < "$f")
  [ "$n" -le 500 ] || fail "src/$f has $n lines (a task model unit stays under 500: docs/design.md)"
done
[ ! -e models/task/task_fast_forward.cpp ] || fail "src/models/task/task_fast_forward.cpp is back (the jump is its own unit)"

[ "$bad" = 0 ] && echo "layout: every include follows the layer table; every model has one home; only the engine loop moves time; the live core is neutral; the task model's units are small"
exit "$bad"
