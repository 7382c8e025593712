// Synergy-TUNE (spec S.6.5) on the job-level engine, without resizing running jobs: on each server of its
// placement a job gets its best-case CPUs and DRAM, cut to what is free once every still-free GPU there keeps
// its GPU-proportional share, and never less than min(best case, proportional). So a free GPU can always be
// given its proportional share (no GPU idles for want of CPUs), and no job gets less than proportional unless
// it needs less: the guarantees of TUNE, reached by reserving instead of shrinking peers.
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
      const ServerSpec& sv = free.spec().servers[x.server];
      const int idle = free.free_on(x.server);  // GPUs still free after this placement
      const double reserve_c = sv.gpus > 0 ? idle * (static_cast<double>(sv.cpus) / sv.gpus) : 0;
      const double reserve_m = sv.gpus > 0 ? idle * (sv.dram_gb / sv.gpus) : 0;
      const double c = std::max(std::min(x.best_cpus, free.free_cpus(x.server) - reserve_c),
                                std::min(x.best_cpus, x.prop_cpus));
      const double m = std::max(std::min(x.best_mem, free.free_mem_gb(x.server) - reserve_m),
                                std::min(x.best_mem, x.prop_mem));
      sh.push_back({x.server, c, m});
    }
    return commit_shares(std::move(sh), d, free);
  }
};
}  // namespace
std::unique_ptr<Allocation> make_tune_allocation(PluginParams&) { return std::make_unique<Tune>(); }
}  // namespace rm
