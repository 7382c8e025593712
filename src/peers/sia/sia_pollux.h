// Pollux on Sia's heterogeneous cluster as Sia's simulator runs it (siasosp23/artifacts aaf7a0d,
// sia-simulator/cluster_unaware.py with pollux_unaware.py, the artifact's options: 60-s rounds, p = -1): the cluster
// seen as virtual nodes of 4 GPUs (a node of 8 is two), jobs with one profile and one fitted model over all types
// (heterogeneity-unaware), Pollux's genetic search (policy/pollux_ga.h, seeded by --seed: the authors' numpy stream
// cannot be replayed) over the virtual nodes, then the primary-type rule: a job keeps the GPUs of the type it got most
// of (ties to the faster: dgx-ext, azure, quad, rtx, aws) and the others stay idle for the round.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "peers/sia/sia_job.h"
#include "peers/sia/sia_policy.h"
#include "policy/pollux_ga.h"

namespace rm::sia {

class SiaPolluxUnaware {
 public:
  SiaPolluxUnaware(SiaCluster cluster, std::uint64_t seed);
  // One round: each active job's GPUs after the repair (type -1: none).
  std::vector<Assignment> optimize(const std::vector<const SJob*>& active, long now);
  const std::vector<SiaRoundStats>& stats() const { return stats_; }
  // GPUs the repair left idle, summed over rounds.
  long wasted_gpu_rounds() const { return wasted_; }

 private:
  SiaCluster cl_;
  pollux::PolluxPolicy ga_;
  std::vector<std::pair<int, int>> vnode_;  // vnode -> (type, real node)
  int max_replicas_ = 1;                    // the cluster-wide cap (S:multi_simulator_unaware.py:34-39)
  std::map<std::string, std::vector<int>> vnode_alloc_;  // job -> repaired vnode ids (the next round's base)
  std::vector<SiaRoundStats> stats_;
  long wasted_ = 0;
};

}  // namespace rm::sia
