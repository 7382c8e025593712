#!/usr/bin/env bash
# The layer rule of docs/design.md ("Layers"): a directory under src/ may include only the layers below it.
#   core < cluster < workload < sched < exec < policy < synergy < engine < metrics < live < cli < python
# (metrics sits on sched only: it writes what any backend records.) Prints every include that breaks the
# rule and fails if there is one.
set -euo pipefail
cd "$(dirname "$0")/../src"
declare -A allowed=(
  [core]="core"
  [cluster]="core cluster"
  [workload]="core cluster workload"
  [sched]="core cluster workload sched"
  [exec]="core cluster workload sched exec"
  [policy]="core cluster workload sched exec policy"
  [synergy]="core cluster workload sched exec policy synergy"
  [engine]="core cluster workload sched exec policy synergy engine metrics"
  [metrics]="core cluster workload sched metrics"
  [live]="core cluster workload sched exec policy synergy engine metrics live"
  [cli]="core cluster workload sched exec policy synergy engine metrics live cli"
  [python]="core cluster workload sched exec policy synergy engine metrics live cli python"
)
bad=0
for dir in */; do
  dir=${dir%/}
  [ -n "${allowed[$dir]:-}" ] || { echo "layering: src/$dir is not in the layer table"; bad=1; continue; }
  while IFS= read -r hit; do
    file=${hit%%:*}
    target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<< "$hit")
    case " ${allowed[$dir]} " in
      *" $target "*) ;;
      *) echo "layering: $hit (src/$dir may not include src/$target)"; bad=1 ;;
    esac
  done < <(grep -rnE '^#include "[a-z_]+/' "$dir" || true)
done
[ "$bad" = 0 ] && echo "layering: every include follows the layer table"
exit "$bad"
