// MAP, the communication-minimising GPU mapping of the A-SRPT reconstruction (spec
// synergy-and-a-srpt.md A.3): fewest servers first, then the cheaper of two linear orders of the job
// graph, then Kernighan-Lin style pairwise swaps between servers that lower the cut.
#pragma once
#include <optional>
#include <vector>

#include "cluster/cluster.h"
#include "workload/job_graph.h"

namespace rm {

struct MapResult {
  std::vector<GpuRef> gpus;  // per vertex of the job graph
  double cut_bytes = 0;      // inter-server bytes per iteration
  int servers = 0;
};

// free_gpus[s]: server s's free GPU indices, ascending. nullopt if fewer free GPUs than vertices.
std::optional<MapResult> map_place(const JobGraph& g, const std::vector<std::vector<int>>& free_gpus,
                                   int refine_passes = 2);

}  // namespace rm
