// The rate model (--exec rate): a running job progresses at 1 / tau iterations per second, tau its iteration time
// on its placement under the law or a measured model (exec/comm_model.h, exec/perf_model.h), re-rated when a
// neighbour starts or stops. The engine integrates it (exec/execution_model.h: the rate interface).
#pragma once
#include <memory>

#include "exec/execution_model.h"
#include "exec/yu2022_model.h"

namespace rm {

class PerfModel;

// `yu2022` (optional) switches the per-iteration time from the physical ring all-reduce law to Yu et
// al.'s eq. (6)-(8) in the abstract mode of exec/yu2022_model.h (tau0 = compute_s / slot_s).
// `trace_law` (--perf-model trace): every job runs at its ideal iteration time whatever its placement and
// contention (Tiresias' and Gavel's homogeneous simulators), over its CPU speed factor.
// `perf` (optional; outlives the model): the performance model for the iteration time (exec/perf_model.h); none:
// the analytic law.
std::unique_ptr<RateModel> make_rate_model(const ClusterSpec& cluster, const yu::ModelParams* yu2022 = nullptr,
                                           bool trace_law = false, PerfModel* perf = nullptr);

}  // namespace rm
