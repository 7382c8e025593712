// FA-FFP, Fragment-Aware First-Fit Packing (Yu et al. 2022, Alg. 2; spec B.4): a small job takes the
// G_j idle GPUs of least estimated load among those whose load stays within the cap. Packing small jobs
// onto already-loaded GPUs keeps whole servers free for large jobs. Ties: GPU id (server, then slot).
#include <algorithm>

#include "policy/planner/planner.h"

namespace rm::plan {

bool fa_ffp(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u) {
  if (sim.idle_count() < j.G) return false;  // what the scan below would find
  std::vector<int> cand;
  for (int g = 0; g < sim.num_gpus(); ++g)
    if (sim.idle(g) && sim.load[g] + j.rho_hat / u <= theta) cand.push_back(g);
  if (static_cast<int>(cand.size()) < j.G) return false;
  std::partial_sort(cand.begin(), cand.begin() + j.G, cand.end(), [&](int a, int b) {
    return sim.load[a] != sim.load[b] ? sim.load[a] < sim.load[b] : a < b;
  });
  out.assign(cand.begin(), cand.begin() + j.G);
  return true;
}

}  // namespace rm::plan
