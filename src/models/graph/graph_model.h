// The graph model (--exec graph; spec synergy-and-a-srpt.md A.2): mixed parallelism, a job's iteration time from
// its job graph and the GPU each worker holds. The engine integrates it (exec/execution_model.h: the rate
// interface).
#pragma once
#include <memory>

#include "exec/execution_model.h"

namespace rm {

class PerfModel;

// With a measured `perf`, a pure data-parallel job takes its measured time; mixed-parallel jobs keep the graph law.
std::unique_ptr<RateModel> make_graph_model(const ClusterSpec& cluster, bool trace_law = false,
                                            PerfModel* perf = nullptr);

}  // namespace rm
