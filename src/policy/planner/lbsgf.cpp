// LBSGF, Least Busy Server-GPU First (Yu et al. 2022, Alg. 3; spec B.4, B.9 S6-S7): a large job looks
// at the shortest prefix of servers, by mean estimated GPU load, whose capacity reaches lambda_j * G_j,
// and takes idle GPUs within the cap there, least loaded first. Reading (i) (default): candidates in
// append order, server rank then load; reading (ii) (`global`): least load over all candidates.
#include <algorithm>
#include <numeric>

#include "policy/planner/planner.h"

namespace rm::plan {

bool lbsgf(const PJob& j, double theta, ListSim& sim, std::vector<int>& out, double u, bool global) {
  if (sim.idle_count() < j.G) return false;  // what the scan below would find
  const int ns = sim.num_servers();
  std::vector<double> avg(ns, 0);
  for (int s = 0; s < ns; ++s) {
    for (int g : sim.server_gpu_ids(s)) avg[s] += sim.load[g];
    avg[s] /= static_cast<double>(sim.server_gpu_ids(s).size());
  }
  std::vector<int> order(ns);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return avg[a] < avg[b]; });
  std::vector<int> cand, here;
  double capacity = 0;
  for (int s : order) {
    if (capacity >= j.lambda * j.G) break;  // the prefix is long enough (by capacity, not free GPUs)
    capacity += static_cast<double>(sim.server_gpu_ids(s).size());
    here.clear();
    for (int g : sim.server_gpu_ids(s))
      if (sim.idle(g) && sim.load[g] + j.rho_hat / u <= theta) here.push_back(g);
    std::stable_sort(here.begin(), here.end(), [&](int a, int b) { return sim.load[a] < sim.load[b]; });
    cand.insert(cand.end(), here.begin(), here.end());
  }
  if (static_cast<int>(cand.size()) < j.G) return false;
  if (global)
    std::stable_sort(cand.begin(), cand.end(), [&](int a, int b) { return sim.load[a] < sim.load[b]; });
  out.assign(cand.begin(), cand.begin() + j.G);
  return true;
}

}  // namespace rm::plan
