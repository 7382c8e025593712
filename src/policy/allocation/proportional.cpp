// "fair": GPU-proportional CPUs and DRAM, a server's cores and DRAM divided by its GPUs (Synergy's baseline,
// spec S.6.3), on the job-level engines and the round model. Also the shared helpers of the allocation plugins.
#include <algorithm>
#include <map>

#include "policy/allocation/allocations.h"
#include "policy/allocation/round_pass.h"

namespace rm {

std::vector<ShareNeed> share_needs(const JobState& j, const std::vector<GpuRef>& gpus, const ClusterSpec& c) {
  std::map<int, int> on;
  for (const auto& g : gpus) ++on[g.server];
  const double n = j.spec->num_gpus;
  std::vector<ShareNeed> out;
  for (const auto& [s, k] : on) {
    const ServerSpec& sv = c.servers[s];
    const double per_cpu = sv.gpus > 0 ? static_cast<double>(sv.cpus) / sv.gpus : 0;
    const double per_mem = sv.gpus > 0 ? sv.dram_gb / sv.gpus : 0;
    ShareNeed x{s, k, k * per_cpu, k * per_mem, k * per_cpu, k * per_mem};
    if (j.cpu_profile) {
      x.best_cpus = j.cpu_demand / n * k;
      x.best_mem = j.mem_demand / n * k;
    }
    out.push_back(x);
  }
  return out;
}

bool commit_shares(std::vector<ServerShare> shares, StartDecision& d, FreeMap& free) {
  constexpr double eps = 1e-9;
  for (const auto& s : shares)
    if (s.cpus > free.free_cpus(s.server) + eps || s.mem_gb > free.free_mem_gb(s.server) + eps) return false;
  free.take_shares(shares);
  d.shares = std::move(shares);
  return true;
}

void allocate_starts(Allocation& a, Decisions& d, std::vector<const JobState*>& jobs, FreeMap& free) {
  std::vector<StartDecision> kept;
  std::vector<const JobState*> kept_jobs;
  for (std::size_t k = 0; k < d.start.size(); ++k) {
    if (a.allocate(*jobs[k], d.start[k], free)) {
      kept.push_back(std::move(d.start[k]));
      kept_jobs.push_back(jobs[k]);
    } else {
      free.give(d.start[k].gpus);
    }
  }
  d.start = std::move(kept);
  jobs = std::move(kept_jobs);
  finish_allocation(a, d, jobs, free);
}

void finish_allocation(Allocation& a, Decisions& d, const std::vector<const JobState*>& jobs, FreeMap& free) {
  a.plan(jobs, d.start, free);
  for (std::size_t k = 0; k < d.start.size(); ++k) a.upgrade(*jobs[k], d.start[k], free);
  d.resize = free.resized();
}

namespace {
class Fair final : public Allocation {
 public:
  std::string name() const override { return "fair"; }
  bool runs_in_rounds() const override { return true; }
  // The round model (spec S.6.3): P/G per GPU, network included in FIRST_FIT's test, speed 1.
  bool round_allocate(synergy::RoundPass& pass, synergy::Job& j) override {
    if (!pass.first_fit(j, synergy::proportional_demand(j, pass, true))) return false;
    j.speed = 1;
    pass.credit(j, true);
    return true;
  }
  RoundTraits round_traits() const override {
    RoundTraits t;
    t.sigma_speedup = false;
    return t;
  }
  bool allocate(const JobState& j, StartDecision& d, FreeMap& free) override {
    std::vector<ServerShare> sh;
    for (const auto& x : share_needs(j, d.gpus, free.spec())) sh.push_back({x.server, x.prop_cpus, x.prop_mem});
    return commit_shares(std::move(sh), d, free);
  }
};
}  // namespace

std::unique_ptr<Allocation> make_fair_allocation(PluginParams&) { return std::make_unique<Fair>(); }

}  // namespace rm
