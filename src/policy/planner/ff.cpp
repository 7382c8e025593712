// FF, First-Fit (Yu et al. 2022 baseline; spec B.4): the first G_j idle GPUs within the cap, server by
// server in index order. Packs jobs onto the fewest servers. Run with SJF order and the bisection on
// the cap, without the kappa loop (spec B.9 S9).
#include "policy/placement/first_fit_walk.h"
#include "policy/planner/planner.h"

namespace rm::plan {

bool first_fit_capped(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u) {
  // The one first-fit walk (policy/placement/first_fit_walk.h): servers in order, their GPUs in id order.
  const int need = j.G - static_cast<int>(out.size());
  const int got = first_fit_walk(
      ServerRange{sim.num_servers()}, need, [&](int s) { return static_cast<int>(sim.server_gpu_ids(s).size()); },
      [&](int s, int k) {
        const int g = sim.server_gpu_ids(s)[k];
        if (!sim.idle(g) || sim.load[g] + j.rho_hat / u > theta) return FitStep::kSkip;
        out.push_back(g);
        return FitStep::kTake;
      });
  if (got == need) return true;
  out.clear();
  return false;
}

}  // namespace rm::plan
