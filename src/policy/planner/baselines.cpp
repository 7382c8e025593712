// The baselines of Yu et al. 2022 (spec B.4, B.9 S9), and planners by name.
//   ls:   FA-FFP for every job (least-loaded idle GPUs under the cap), SJF order, bisection on the cap.
//   ff:   first-fit under the cap, SJF order, bisection on the cap.
//   rand: uniformly random idle GPUs, SJF order, no cap (theta = T), seeded by --seed.
#include "core/error.h"
#include "core/rng.h"
#include "policy/planner/planner.h"

namespace rm::plan {

namespace {

Plan with_pick(const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt, const Pick& pick) {
  return bisect(in, mp, opt, [&](double theta) {
    return run_pass(in, mp, opt, theta, [&](const PJob&) -> const Pick& { return pick; });
  });
}

}  // namespace

Plan make_plan(const std::string& name, const Instance& in, const yu::ModelParams& mp, const PlanOptions& opt) {
  if (name == "sjf-bco") return plan_sjf_bco(in, mp, opt);
  if (name == "ls")
    return with_pick(in, mp, opt, [&](const PJob& j, double th, ListSim& s, std::vector<int>& o) {
      return fa_ffp(j, th, s, o, opt.u);
    });
  if (name == "ff")
    return with_pick(in, mp, opt, [&](const PJob& j, double th, ListSim& s, std::vector<int>& o) {
      return first_fit_capped(j, th, s, o, opt.u);
    });
  if (name == "rand") {
    Rng rng(mix_seed(opt.seed, 0x4a4d));
    const Pick pick = [&](const PJob& j, double, ListSim& s, std::vector<int>& o) {
      std::vector<int> idle;
      for (int g = 0; g < s.num_gpus(); ++g)
        if (s.idle(g)) idle.push_back(g);
      if (static_cast<int>(idle.size()) < j.G) return false;
      rng.shuffle(idle.begin(), idle.end());
      o.assign(idle.begin(), idle.begin() + j.G);
      return true;
    };
    Plan p = run_pass(in, mp, opt, 1e300, [&](const PJob&) -> const Pick& { return pick; });
    p.theta = 0;
    return p;
  }
  throw InputError("--policy", 0, name, "unknown planner '" + name + "' (sjf-bco, ls, ff, rand)");
}

}  // namespace rm::plan
