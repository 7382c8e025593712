// Synergy-GREEDY (spec S.6.4): the job's best-case CPU and memory or nothing this round (even with its GPUs
// free; later jobs may take them).
#include "synergy/state.h"

namespace rm::synergy {

bool allocate_greedy(PassCtx& ctx, Job& j) {
  const Vec d = best_case_demand(j);
  if (!ctx.cl.first_fit(j, d, ctx.consolidated)) return false;
  j.speed = speed_of(j, d, ctx, true);
  ctx.credit(j, false);
  return true;
}

}  // namespace rm::synergy
