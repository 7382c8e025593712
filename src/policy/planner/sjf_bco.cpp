// SJF-BCO, Smallest Job First with Balanced Contention and Overhead (Yu et al. 2022, Alg. 1; spec
// B.4, B.9 S8): bisection on the per-GPU load cap theta; for each theta, every size threshold kappa
// in 1..max G (or one given kappa), one list-scheduling pass in SJF order where jobs of at most kappa
// GPUs use FA-FFP and larger ones LBSGF. A theta whose best pass improves the best makespan so far
// moves the search to tighter caps, otherwise to looser ones (the paper's rule, not a monotone
// feasibility search). Returns the best schedule seen. LS and FF reuse the same search (`bisect`).
#include <algorithm>
#include <cmath>

#include "policy/planner/planner.h"

namespace rm::plan {

Plan bisect(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt,
            const std::function<Plan(double theta)>& best_at) {
  Plan best;
  best.makespan = opt.horizon;
  std::int64_t passes = 0;
  long left = 1, right = static_cast<long>(std::floor(opt.horizon));
  while (left <= right) {
    const long theta = (left + right) / 2;
    Plan p = best_at(static_cast<double>(theta));
    passes += p.passes;
    if (p.ok && p.makespan < best.makespan) {
      best = std::move(p);
      best.theta = static_cast<int>(theta);
      right = theta - 1;
    } else {
      left = theta + 1;
    }
  }
  best.passes = passes;
  return best;
}

Plan plan_sjf_bco(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt) {
  int max_g = 1;
  for (const auto& j : in.jobs) max_g = std::max(max_g, j.G);
  std::vector<char> has_size(max_g + 1, 0);
  for (const auto& j : in.jobs) has_size[j.G] = 1;
  const Pick small = [&](const PJob& j, double th, ListSim& s, std::vector<int>& o) { return fa_ffp(j, th, s, o, opt.u); };
  const Pick large = [&](const PJob& j, double th, ListSim& s, std::vector<int>& o) {
    return lbsgf(j, th, s, o, opt.u, opt.lbsgf_global);
  };
  return bisect(in, mp, opt, [&](double theta) {
    Plan best;
    best.makespan = opt.horizon;
    std::int64_t passes = 0;
    const int k_lo = opt.kappa > 0 ? opt.kappa : 1, k_hi = opt.kappa > 0 ? opt.kappa : max_g;
    for (int kappa = k_lo; kappa <= k_hi; ++kappa) {
      // kappa and kappa + 1 split the jobs the same way unless some job has kappa + 1 GPUs, so only the
      // smallest kappa of each such class is evaluated (the loop keeps the first best, so nothing changes).
      if (kappa > k_lo && !has_size[kappa]) continue;
      Plan p = run_pass(in, mp, opt, theta, [&](const PJob& j) -> const Pick& { return j.G <= kappa ? small : large; });
      passes += p.passes;
      if (p.ok && p.makespan < best.makespan) {
        best = std::move(p);
        best.kappa = kappa;
      }
    }
    best.passes = passes;
    return best;
  });
}

}  // namespace rm::plan
