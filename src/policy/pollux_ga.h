// The Pollux policy (Qiao et al., OSDI'21; adaptdl osdi21-artifact c793c70, simulator/pollux.py) as its authors'
// simulator runs it each round: the allocations of GPUs to jobs (a jobs x nodes matrix of replica counts) that
// maximise the power mean (p = -1) of each job's speedup normalised to its fair share, with Pollux's restart
// penalty, and the cluster utility as the second objective, searched by NSGA-II (population 100, 100 generations)
// with Pollux's crossover (single point over jobs), mutation (reset to the current allocation, zero some counts, add
// some where GPUs are free) and repair (at most one distributed job per node, at most max_replicas GPUs and 16 nodes
// per job, node capacities in job order); the best first objective of the Pareto front is chosen, and the final
// population seeds the next round's. Bit-exact agreement with the authors' GA is not possible (numpy's random
// streams, pymoo's tie breaks); ours draws from a seeded std::mt19937_64 and is deterministic. One search for both
// users: --compat pollux (peers/pollux/pollux_sim.cpp, its jobs' fitted speedups) and the engine's `pollux`
// (policy/pollux.cpp, the performance model's rates; nodes of several sizes).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "exec/goodput.h"

namespace rm::pollux {

struct PolicyJob {
  std::string name;                           // stays the same across rounds (the next round's seed rows)
  std::optional<SpeedupFunction> speedup;     // none: not fitted yet (speedup = GPUs / fair share)
  // Or (the engine's pollux, policy/pollux.cpp): its progress rate at (nodes, replicas), the speedup being that over
  // the rate at the fair share, as SpeedupFunction::rebase does.
  // The fair share is taken within [min_replicas, max_replicas] (a rigid job's own count), on the fewest nodes that
  // hold it.
  std::function<double(int, int)> goodput;
  double goodput_base = 1;
  int min_replicas = 1;
  double attained_service = 0, submitted = 0;
  int max_replicas = 1, restarts = 0;
  double age = 0;                             // seconds since submission
  std::vector<int> base;                      // GPUs it holds now per node
};

class PolluxPolicy {
 public:
  explicit PolluxPolicy(std::uint64_t seed) : rng_(seed) {}
  // One round: `jobs` in the simulator's order; returns the GPUs per node of each job (same order).
  std::vector<std::vector<int>> optimize(std::vector<PolicyJob> jobs, int nodes, int gpus_per_node);
  // Nodes of several sizes: caps[n] GPUs on node n.
  // `seed` (optional, jobs x nodes in the caller's order): one more individual in the first population (the engine's
  // pollux: the current allocation with the waiting jobs started where they fit, so that a rigid job's exact count
  // is in the search from the start). Pollux's own search has none.
  std::vector<std::vector<int>> optimize(std::vector<PolicyJob> jobs, const std::vector<int>& caps,
                                         const std::vector<std::vector<int>>* seed = nullptr);
  double last_round_seconds() const { return last_s_; }

 private:
  std::mt19937_64 rng_;
  std::vector<std::string> prev_jobs_;
  std::vector<std::vector<int>> prev_states_;  // flattened jobs x nodes, one per final individual
  int prev_nodes_ = 0;
  double last_s_ = 0;
};

}  // namespace rm::pollux
