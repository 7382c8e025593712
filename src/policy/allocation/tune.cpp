// Synergy-TUNE (spec S.6.5) on the job-level engine, in two steps per decision pass. First every job that
// starts gets, on each server of its placement, min(best case, GPU-proportional share); where even that is
// not free, running peers there that hold more than their proportional share are shrunk toward it (resize
// decisions, newest peers first). Then, in priority order, each starting job is topped up to its best case
// from what is still free. So nobody is left below min(best case, proportional), no GPU idles for want of
// CPUs (the floors always fit), and spare CPUs and DRAM go to the jobs that profit: TUNE's guarantees, with
// peers shrunk at the decision that needs it instead of at a round boundary.
#include <algorithm>

#include "policy/allocation/allocations.h"

namespace rm {

bool tune_floor(const JobState& j, StartDecision& d, FreeMap& free) {
  std::vector<ServerShare> sh;
  for (const auto& x : share_needs(j, d.gpus, free.spec())) {
    const double need_c = std::min(x.best_cpus, x.prop_cpus), need_m = std::min(x.best_mem, x.prop_mem);
    const double short_c = need_c - free.free_cpus(x.server), short_m = need_m - free.free_mem_gb(x.server);
    if (short_c > 0 || short_m > 0) free.shrink_peers(x.server, std::max(0.0, short_c), std::max(0.0, short_m));
    sh.push_back({x.server, need_c, need_m});
  }
  return commit_shares(std::move(sh), d, free);
}

void top_up(StartDecision& d, const std::vector<ServerShare>& target, FreeMap& free) {
  for (std::size_t i = 0; i < target.size() && i < d.shares.size(); ++i) {
    ServerShare& sh = d.shares[i];
    const double add_c = std::clamp(target[i].cpus - sh.cpus, 0.0, std::max(0.0, free.free_cpus(sh.server)));
    const double add_m = std::clamp(target[i].mem_gb - sh.mem_gb, 0.0, std::max(0.0, free.free_mem_gb(sh.server)));
    free.take_shares({{sh.server, add_c, add_m}});
    sh.cpus += add_c;
    sh.mem_gb += add_m;
  }
}

namespace {
class Tune final : public Allocation {
 public:
  std::string name() const override { return "tune"; }
  bool allocate(const JobState& j, StartDecision& d, FreeMap& free) override { return tune_floor(j, d, free); }
  void upgrade(const JobState& j, StartDecision& d, FreeMap& free) override {
    std::vector<ServerShare> best;
    for (const auto& x : share_needs(j, d.gpus, free.spec())) best.push_back({x.server, x.best_cpus, x.best_mem});
    top_up(d, best, free);
  }
};
}  // namespace
std::unique_ptr<Allocation> make_tune_allocation(PluginParams&) { return std::make_unique<Tune>(); }
}  // namespace rm
