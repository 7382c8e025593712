// Synergy-OPT (spec S.6.6) on the job-level engine. In each decision pass the starting jobs first take
// TUNE's floors (min(best case, proportional share) on each server, running peers shrunk toward theirs if
// needed); then LP1 (opt_ilp.h) over the pass's starting jobs chooses every job's per-GPU size from its
// profile's Pareto front, with the cluster's free CPUs and DRAM plus the floors as capacity; then, in
// priority order, a job whose size fits on its servers gets exactly its size (handing back what its floor
// held above it), and one whose size does not fit is topped up toward it from what is free. A job runs at
// the throughput-matrix cell of what it holds. Unlike the round model, where the ILP re-sizes every job of a
// round, running jobs keep their sizes: the ILP sees the jobs a pass starts.
#include <algorithm>
#include <cmath>

#include "policy/allocation/allocations.h"
#include "policy/allocation/opt_ilp.h"

namespace rm {
namespace {

class Opt final : public Allocation {
 public:
  std::string name() const override { return "opt"; }
  bool matrix_speed() const override { return true; }
  bool allocate(const JobState& j, StartDecision& d, FreeMap& free) override { return tune_floor(j, d, free); }

  void plan(const std::vector<const JobState*>& jobs, std::vector<StartDecision>& starts, FreeMap& free) override {
    size_.clear();
    struct Group {
      OptType t;
      const synergy::Profile* prof;
      const ServerSpec* shape;
      std::vector<JobId> ids;  // priority order
    };
    std::vector<Group> groups;
    const ClusterSpec& cs = free.spec();
    for (std::size_t k = 0; k < jobs.size() && k < starts.size(); ++k) {
      const JobState& j = *jobs[k];
      if (!j.cpu_profile || starts[k].gpus.empty()) continue;
      const ServerSpec& sv = cs.servers[starts[k].gpus.front().server];
      const int g = j.spec->num_gpus;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
        return x.prof == j.cpu_profile && x.t.g == g && x.shape->gpus == sv.gpus && x.shape->cpus == sv.cpus &&
               x.shape->dram_gb == sv.dram_gb;
      });
      if (it == groups.end()) {
        const double fc = sv.gpus > 0 ? static_cast<double>(sv.cpus) / sv.gpus : 0;
        const double fm = sv.gpus > 0 ? sv.dram_gb / sv.gpus : 0;
        groups.push_back({{j.cpu_profile->model, g, 0, opt_options(*j.cpu_profile, g, fc, fm, sv.gpus, sv.cpus, sv.dram_gb)},
                          j.cpu_profile, &sv, {}});
        it = groups.end() - 1;
      }
      ++it->t.n;
      it->ids.push_back(j.id());
    }
    if (groups.empty()) return;
    double cpu = 0, mem = 0;
    for (int s = 0; s < free.num_servers(); ++s) {
      cpu += std::max(0.0, free.free_cpus(s));
      mem += std::max(0.0, free.free_mem_gb(s));
    }
    for (const auto& d : starts)
      for (const auto& sh : d.shares) {
        cpu += sh.cpus;
        mem += sh.mem_gb;
      }
    std::vector<OptType> types;
    for (const auto& x : groups) types.push_back(x.t);
    const auto counts = solve_opt(types, cpu, mem);
    for (std::size_t t = 0; t < groups.size(); ++t) {  // the better options go to the jobs first in priority order
      std::size_t next = 0;
      for (std::size_t o = 0; o < groups[t].t.opts.size(); ++o)
        for (int n = 0; n < counts[t][o] && next < groups[t].ids.size(); ++n)
          size_.push_back({groups[t].ids[next++], groups[t].t.opts[o]});
    }
    std::sort(size_.begin(), size_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }

  void upgrade(const JobState& j, StartDecision& d, FreeMap& free) override {
    const auto needs = share_needs(j, d.gpus, free.spec());
    const auto it = std::lower_bound(size_.begin(), size_.end(), j.id(),
                                     [](const auto& a, JobId id) { return a.first < id; });
    std::vector<ServerShare> target;
    for (const auto& x : needs)
      if (it != size_.end() && it->first == j.id())
        target.push_back({x.server, it->second.c * x.gpus, it->second.m * x.gpus});
      else
        target.push_back({x.server, x.best_cpus, x.best_mem});  // no profile: best case = proportional
    constexpr double eps = 1e-9;
    bool fits = target.size() == d.shares.size();
    for (std::size_t i = 0; fits && i < target.size(); ++i) {
      const ServerShare& sh = d.shares[i];
      fits = target[i].cpus - sh.cpus <= free.free_cpus(sh.server) + eps &&
             target[i].mem_gb - sh.mem_gb <= free.free_mem_gb(sh.server) + eps;
    }
    if (!fits) return top_up(d, target, free);
    free.give_shares(d.shares);
    free.take_shares(target);
    d.shares = std::move(target);
  }

 private:
  std::vector<std::pair<JobId, OptOption>> size_;  // the ILP's per-GPU size of each start of this pass, by id
};

}  // namespace
std::unique_ptr<Allocation> make_opt_allocation(PluginParams&) { return std::make_unique<Opt>(); }
}  // namespace rm
