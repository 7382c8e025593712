// Synergy-TUNE (spec S.6.5) on the job-level engine: on each server of its placement a job gets its best-case
// CPUs and DRAM, cut to what is free; when even min(best case, GPU-proportional share) is not free, running
// peers on that server that hold more than their proportional share are shrunk toward it (resize decisions,
// the newest peers first) to make room. So nobody is left below min(best case, proportional) and no GPU idles
// for want of CPUs, TUNE's two guarantees, with peers shrunk at the decision that needs it instead of at a
// round boundary.
#include <algorithm>

#include "policy/allocation/allocations.h"

namespace rm {
namespace {
class Tune final : public Allocation {
 public:
  std::string name() const override { return "tune"; }
  bool allocate(const JobState& j, StartDecision& d, FreeMap& free) override {
    std::vector<ServerShare> sh;
    for (const auto& x : share_needs(j, d.gpus, free.spec())) {
      const double need_c = std::min(x.best_cpus, x.prop_cpus), need_m = std::min(x.best_mem, x.prop_mem);
      const double short_c = need_c - free.free_cpus(x.server), short_m = need_m - free.free_mem_gb(x.server);
      if (short_c > 0 || short_m > 0) free.shrink_peers(x.server, std::max(0.0, short_c), std::max(0.0, short_m));
      const double c = std::max(std::min(x.best_cpus, free.free_cpus(x.server)), need_c);
      const double m = std::max(std::min(x.best_mem, free.free_mem_gb(x.server)), need_m);
      sh.push_back({x.server, c, m});
    }
    return commit_shares(std::move(sh), d, free);
  }
};
}  // namespace
std::unique_ptr<Allocation> make_tune_allocation(PluginParams&) { return std::make_unique<Tune>(); }
}  // namespace rm
