// Sia's policy (Jayaram Subramanya et al., SOSP'23; siasosp23/artifacts aaf7a0d, sia-simulator/sia.py SiaPolicy, as
// the artifact's run_experiment.sh runs it: p = -0.5, lambda_n = 1.1, --project_throughputs, --share_max_replicas).
// Every round: each job's goodput on every configuration (GPU type x count) from its fitted model on that type, or
// projected from the first type it has one for by the ratio of the types' one-GPU throughputs, in float32 as numpy
// computes it (exec/goodput.h optimize_f32); normalised to the job's least goodput; the re-allocation factor on every
// configuration but its current one; raised to p, rounded to 2 decimals and clipped at 3000 in float32; then the 0/1
// program (policy/sia_mip.h) and the placement of the chosen counts on each type's nodes (alloc_to_placement_fast).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "peers/sia/sia_job.h"
#include "policy/sia_goodput.h"
#include "policy/sia_mip.h"

namespace rm::sia {

// The simulated cluster (S:simulator_config.py): its GPU types in order (Sia's names), nodes and GPUs per node of
// each, and the most physical nodes a configuration of each may span (cluster_max_physical_nnodes).
struct SiaCluster {
  std::vector<std::string> types;
  std::vector<int> nodes, per_node, max_physical;
};

struct SiaParams {
  double p = -0.5, lambda_n = 1.1, lambda_a = 0.01;  // lambda_a: parsed and reported; sia.py never reads it
  bool project_throughputs = true, share_max_replicas = true;
};

// A job's GPUs after a round: its type (-1: none) and one node id per GPU, in the order placed.
struct Assignment {
  int type = -1;
  std::vector<int> nodes;
  bool operator==(const Assignment& o) const { return type == o.type && nodes == o.nodes; }
  bool operator!=(const Assignment& o) const { return !(*this == o); }
};

struct SiaRoundStats {
  long t = 0;
  int jobs = 0, rows = 0, cols = 0;
  double objective = 0, solve_ms = 0, round_ms = 0;
  std::vector<int> ones;
};

class SiaPolicy {
 public:
  SiaPolicy(SiaCluster cluster, SiaParams params);
  // The configurations (type, nodes, GPUs) in the order of the program's columns (populate_valid_configs).
  const std::vector<Config>& configs() const { return configs_; }
  // One round at `now` over the active jobs (submitted, unfinished, in workload order).
  std::vector<Assignment> optimize(const std::vector<const SJob*>& active, long now);
  const std::vector<SiaRoundStats>& stats() const { return stats_; }

 private:
  std::vector<std::vector<int>> place(int type, const std::vector<std::pair<int, int>>& allocs) const;

  SiaCluster cluster_;
  SiaParams params_;
  std::vector<Config> configs_;
  std::map<std::string, int> prev_;  // job name -> its configuration last round (absent: none)
  std::vector<SiaRoundStats> stats_;
};

}  // namespace rm::sia
