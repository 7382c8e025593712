// FF, First-Fit (Yu et al. 2022 baseline; spec B.4): the first G_j idle GPUs within the cap, server by
// server in index order. Packs jobs onto the fewest servers. Run with SJF order and the bisection on
// the cap, without the kappa loop (spec B.9 S9).
#include "cluster/first_fit_walk.h"
#include "policy/planner/planner.h"

namespace rm::plan {

bool first_fit_capped(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u) {
  // The one first-fit walk (cluster/first_fit_walk.h) over the GPUs in id order (server-major).
  const int need = j.G - static_cast<int>(out.size());
  const int got = first_fit_walk(ServerRange{1}, need, [&](int) { return sim.num_gpus(); }, [&](int, int g) {
    if (!sim.idle(g) || sim.load[g] + j.rho_hat / u > theta) return FitStep::kSkip;
    out.push_back(g);
    return FitStep::kTake;
  });
  if (got == need) return true;
  out.clear();
  return false;
}

}  // namespace rm::plan
