// CPU/DRAM allocation plugins (Synergy's mechanisms, spec S.6), one file each: proportional.cpp ("fair"),
// greedy.cpp, tune.cpp, opt.cpp (its ILP in opt_ilp.cpp). Each plugin serves the job-level engines (allocate,
// plan, upgrade) and the round model (round_pass over round_pass.h's pass on the one cluster book).
#pragma once
#include <memory>
#include <vector>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

std::unique_ptr<Allocation> make_fair_allocation(PluginParams& p);
std::unique_ptr<Allocation> make_greedy_allocation(PluginParams& p);
std::unique_ptr<Allocation> make_tune_allocation(PluginParams& p);
std::unique_ptr<Allocation> make_opt_allocation(PluginParams& p);
std::unique_ptr<Allocation> make_py_allocation(PluginParams& p);

// Per server of a placement: GPUs there, the GPU-proportional share and the job's best case (its best-case
// totals spread per GPU). Servers ascending.
struct ShareNeed {
  int server = 0, gpus = 0;
  double prop_cpus = 0, prop_mem = 0, best_cpus = 0, best_mem = 0;
};
std::vector<ShareNeed> share_needs(const JobState& j, const std::vector<GpuRef>& gpus, const ClusterSpec& c);
// The allocation step of a scheduling pass whose start decisions `d.start` (of `jobs`, same order) have their
// GPUs taken in `free`: each start gets its CPUs/DRAM in order (one that gets none is dropped and its GPUs
// given back), then every kept start is topped up, and the peers resized become d.resize.
void allocate_starts(Allocation& a, Decisions& d, std::vector<const JobState*>& jobs, FreeMap& free);
// Only the top-ups and resizes (the starts already have their shares).
void finish_allocation(Allocation& a, Decisions& d, const std::vector<const JobState*>& jobs, FreeMap& free);

// TUNE's first step: on each server of the placement min(best case, proportional share), shrinking running
// peers there toward their proportional share where even that is not free. False only if that still fails.
bool tune_floor(const JobState& j, StartDecision& d, FreeMap& free);
// Adds to each of d's shares what is still free, up to `target` (same servers, same order as d.shares).
void top_up(StartDecision& d, const std::vector<ServerShare>& target, FreeMap& free);

// Takes `shares` in `free` and stores them in `d` if every one fits; else false and nothing taken.
bool commit_shares(std::vector<ServerShare> shares, StartDecision& d, FreeMap& free);

}  // namespace rm
