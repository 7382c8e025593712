// FF, First-Fit (Yu et al. 2022 baseline; spec B.4): the first G_j idle GPUs within the cap, server by
// server in index order. Packs jobs onto the fewest servers. Run with SJF order and the bisection on
// the cap, without the kappa loop (spec B.9 S9).
#include "policy/planner/planner.h"

namespace rm::plan {

bool first_fit_capped(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u) {
  for (int g = 0; g < sim.num_gpus() && static_cast<int>(out.size()) < j.G; ++g)
    if (sim.idle(g) && sim.load[g] + j.rho_hat / u <= theta) out.push_back(g);
  if (static_cast<int>(out.size()) == j.G) return true;
  out.clear();
  return false;
}

}  // namespace rm::plan
