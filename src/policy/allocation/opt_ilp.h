// Synergy-OPT's LP1 (spec S.6.6) as an integer program, shared by the round model's pass and
// the job-level `opt` allocation: jobs of one type (model profile, GPU count, server shape) are
// interchangeable, so the variables are counts per (type, option) over the type's Pareto-optimal
// (CPU, DRAM) matrix cells whose throughput is at least the proportional cell's; the ILP maximises the summed
// throughput under the free CPUs and DRAM (COIN-OR Cbc over Clp).
#pragma once
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "workload/cpu_profiles.h"

namespace rm {

struct OptOption {
  double c = 0, m = 0, tput = 0;  // CPUs and GB per GPU, throughput there
};

struct OptType {
  std::string name;  // for the solution cache: the model (the options below are part of the key too)
  int g = 0;         // GPUs per job
  int n = 0;         // jobs of this type
  std::vector<OptOption> opts;  // Pareto front, best throughput first
};

// The Pareto front of profile p for a g-GPU job on servers of `per_server` capacity (GPUs, CPUs, GB), with
// per-GPU proportional share (fair_c, fair_m): cells at least as fast as the proportional one that fit on one
// server at the job's span; the proportional cell alone if none does. Best throughput first.
std::vector<OptOption> opt_options(const synergy::Profile& p, int g, double fair_c, double fair_m,
                                   int gpus_per_server, double server_cpus, double server_mem);

// opt_options remembered per (profile, GPUs, shape): the front depends on nothing else, and OPT asks for it at
// every pass (computing it was 70 % of an OPT run). One per allocation plugin (a run), which its profiles outlive.
class OptOptionsMemo {
 public:
  const std::vector<OptOption>& get(const synergy::Profile& p, int g, double fair_c, double fair_m,
                                    int gpus_per_server, double server_cpus, double server_mem) {
    const Key k{&p, g, fair_c, fair_m, gpus_per_server, server_cpus, server_mem};
    auto it = memo_.find(k);
    if (it == memo_.end())
      it = memo_.emplace(k, opt_options(p, g, fair_c, fair_m, gpus_per_server, server_cpus, server_mem)).first;
    return it->second;
  }

 private:
  using Key = std::tuple<const synergy::Profile*, int, double, double, int, double, double>;
  std::map<Key, std::vector<OptOption>> memo_;
};

// Counts per (type, option), maximising summed throughput with sum(c * g * count) <= cpu_cap and likewise
// for memory; every job of a type gets exactly one option. No solver runs when every job's best option fits.
std::vector<std::vector<int>> solve_opt(const std::vector<OptType>& types, double cpu_cap, double mem_cap);

}  // namespace rm
