// Synergy-GREEDY (spec S.6.4). On the job-level engine: the job's best-case CPUs and DRAM on every server of
// its placement if they are free there, else its GPU-proportional share; if even that is not free (greedy
// jobs before it took more than their share), it cannot start now. On the round model (the authors'): the
// best case or nothing this round (even with its GPUs free; later jobs may take them).
#include "policy/allocation/allocations.h"
#include "policy/allocation/round_pass.h"

namespace rm {
namespace {
class Greedy final : public Allocation {
 public:
  std::string name() const override { return "greedy"; }
  bool runs_in_rounds() const override { return true; }
  bool may_refuse() const override { return true; }
  bool allocate(const JobState& j, StartDecision& d, FreeMap& free) override {
    std::vector<ServerShare> best, prop;
    for (const auto& x : share_needs(j, d.gpus, free.spec())) {
      best.push_back({x.server, x.best_cpus, x.best_mem});
      prop.push_back({x.server, x.prop_cpus, x.prop_mem});
    }
    return commit_shares(std::move(best), d, free) || commit_shares(std::move(prop), d, free);
  }
  bool round_allocate(synergy::RoundPass& pass, synergy::Job& j) override {
    const synergy::Vec d = synergy::best_case_demand(j);
    if (!pass.first_fit(j, d)) return false;
    j.speed = synergy::speed_of(j, d, pass, true);
    pass.credit(j, false);
    return true;
  }
};
}  // namespace
std::unique_ptr<Allocation> make_greedy_allocation(PluginParams&) { return std::make_unique<Greedy>(); }
}  // namespace rm
