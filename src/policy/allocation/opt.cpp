// Synergy-OPT (spec S.6.6) on the job-level engine. In each decision pass the starting jobs first take
// TUNE's floors (min(best case, proportional share) on each server, running peers shrunk toward theirs if
// needed); then LP1 (opt_ilp.h) over the pass's starting jobs chooses every job's per-GPU size from its
// profile's Pareto front, with the cluster's free CPUs and DRAM plus the floors as capacity; then, in
// priority order, a job whose size fits on its servers gets exactly its size (handing back what its floor
// held above it), and one whose size does not fit is topped up toward it from what is free. A job runs at
// the throughput-matrix cell of what it holds. Unlike the round model, where the ILP re-sizes every job of a
// round, running jobs keep their sizes: the ILP sees the jobs a pass starts.
// On the round model (with the capacity fix of S.9 Q6 for every policy), LP1 sizes every job of the round's
// GPU-count-greedy prefix; LP2 (placing the chosen sizes on servers) is replaced by TUNE's placement with the
// ILP's sizes as the jobs' demands: always feasible, and never below the proportional share (a job that does
// not fit at its size runs at its proportional share, shrinking peers to theirs if needed).
#include <algorithm>
#include <cmath>

#include "policy/allocation/allocations.h"
#include "policy/allocation/opt_ilp.h"
#include "policy/allocation/round_pass.h"

namespace rm::synergy {
namespace {

struct Type {
  const Profile* prof = nullptr;
  int g = 0;
  std::vector<Job*> jobs;
  std::vector<OptOption> opts;  // Pareto front, best throughput first
};

const std::vector<OptOption>& options_of(const Profile& p, int g, const RoundPass& pass, OptOptionsMemo& memo) {
  const Vec& f = pass.fair();
  return memo.get(p, g, f[kCpu], f[kMem], pass.gpus_per_server(), pass.per_server()[kCpu], pass.per_server()[kMem]);
}

// The jobs of the pass grouped by (profile, GPUs), in order; those needing more GPUs than are free are left out.
std::vector<Type> types_of(const RoundPass& pass, const std::vector<Job*>& jobs, OptOptionsMemo& memo) {
  std::vector<Type> types;
  for (Job* j : jobs) {
    if (j->g > pass.free_gpus()) continue;
    auto it = std::find_if(types.begin(), types.end(), [&](const Type& t) { return t.prof == j->prof && t.g == j->g; });
    if (it == types.end()) {
      types.push_back({j->prof, j->g, {}, options_of(*j->prof, j->g, pass, memo)});
      it = types.end() - 1;
    }
    it->jobs.push_back(j);
  }
  return types;
}

// LP1 over the free CPUs and DRAM: each job's size becomes its demand (c, m) for this pass (the better options
// go to the jobs first in scheduling order; a job without an option gets the proportional share). Returns
// every changed job's own (c, m), to be put back after the pass.
std::vector<std::pair<Job*, std::pair<double, double>>> size_jobs(RoundPass& pass, const std::vector<Type>& types) {
  double cpu = 0, mem = 0;
  for (int s = 0; s < pass.num_servers(); ++s) {
    const Vec a = pass.avail(s);
    cpu += a[kCpu];
    mem += a[kMem];
  }
  std::vector<OptType> ilp;
  for (const auto& t : types) ilp.push_back({t.prof->model, t.g, static_cast<int>(t.jobs.size()), t.opts});
  const auto counts = solve_opt(ilp, cpu, mem);
  std::vector<std::pair<Job*, std::pair<double, double>>> saved;
  for (std::size_t t = 0; t < types.size(); ++t) {
    std::size_t next = 0;
    for (std::size_t o = 0; o < types[t].opts.size(); ++o)
      for (int k = 0; k < counts[t][o] && next < types[t].jobs.size(); ++k) {
        Job* j = types[t].jobs[next++];
        saved.push_back({j, {j->c, j->m}});
        j->c = types[t].opts[o].c * j->g;
        j->m = types[t].opts[o].m * j->g;
      }
    for (; next < types[t].jobs.size(); ++next) {  // no option (the ILP's fallback): the proportional share
      Job* j = types[t].jobs[next];
      saved.push_back({j, {j->c, j->m}});
      j->c = pass.fair()[kCpu] * j->g;
      j->m = pass.fair()[kMem] * j->g;
    }
  }
  return saved;
}

}  // namespace

// One ILP over the pass's jobs, then TUNE places them at their sizes (speed: the matrix cell of what they get).
std::vector<Job*> opt_round(RoundPass& pass, const std::vector<Job*>& jobs, OptOptionsMemo& memo) {
  const std::vector<Type> types = types_of(pass, jobs, memo);
  if (types.empty()) return {};
  const auto saved = size_jobs(pass, types);
  const bool matrix = pass.matrix_speed;
  pass.matrix_speed = true;  // OPT's speed is the matrix cell of the allocation
  std::vector<Job*> placed;
  for (Job* j : jobs)
    if (j->gpus.empty() && j->g <= pass.free_gpus() && tune_round(pass, *j)) placed.push_back(j);
  pass.matrix_speed = matrix;
  for (auto& [j, cm] : saved) {
    j->c = cm.first;
    j->m = cm.second;
  }
  return placed;
}

}  // namespace rm::synergy

namespace rm {
namespace {

class Opt final : public Allocation {
 public:
  std::string name() const override { return "opt"; }
  bool runs_in_rounds() const override { return true; }
  bool matrix_speed() const override { return true; }
  void round_pass(synergy::RoundPass& pass, const std::vector<synergy::Job*>& loop) override {
    for (synergy::Job* j : synergy::opt_round(pass, loop, memo_)) pass.start(*j);
  }
  RoundTraits round_traits() const override {
    RoundTraits t;
    t.whole_pass = true;
    return t;
  }
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
        groups.push_back({{j.cpu_profile->model, g, 0, memo_.get(*j.cpu_profile, g, fc, fm, sv.gpus, sv.cpus, sv.dram_gb)},
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
  OptOptionsMemo memo_;
};

}  // namespace
std::unique_ptr<Allocation> make_opt_allocation(PluginParams&) { return std::make_unique<Opt>(); }
}  // namespace rm
