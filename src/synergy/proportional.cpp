// GPU-proportional allocation ("fair", spec S.6.3): every job gets P/G per GPU and runs at speed 1.
#include "synergy/state.h"

namespace rm::synergy {

Vec proportional_demand(const Job& j, const ResCluster& cl, bool with_network) {
  const Vec& f = cl.fair();
  const double g = j.g;
  return {g, f[kCpu] * g, f[kMem] * g, f[kSto] * g, with_network ? f[kNet] * g : 0.0};
}

Vec best_case_demand(const Job& j) { return {static_cast<double>(j.g), j.c, j.m, j.s, 0.0}; }

double speed_of(const Job& j, const Vec& total, const PassCtx& ctx, bool best_case) {
  if (!ctx.matrix_speed) return best_case ? j.sigma : 1.0;
  const Vec& f = ctx.cl.fair();
  const double fair = j.prof->tput_at(f[kCpu], f[kMem]);
  const double mine = j.prof->tput_at(total[kCpu] / j.g, total[kMem] / j.g);
  // Below the matrix's first row or column (no measurement) the speed is the proportional share's, as in the
  // job-level engine (exec/cpu_speed.cpp): a zero would hold GPUs without progress for ever.
  return fair > 0 && mine > 0 ? mine / fair : 1.0;
}

bool allocate_proportional(PassCtx& ctx, Job& j) {
  if (!ctx.cl.first_fit(j, proportional_demand(j, ctx.cl, true), ctx.consolidated)) return false;
  j.speed = 1;
  ctx.credit(j, true);
  return true;
}

}  // namespace rm::synergy
