// --compat sia: the simulator of Sia (SOSP'23; siasosp23/artifacts @aaf7a0d, sia-simulator/; docs/sia.md lists its
// semantics with S:file:line): rounds of --round seconds (60) on a cluster of several GPU types (the artifact's
// default: sia-64 = 6 x 4 T4, 2 x 8 A100, 3 x 8 RTX 2080 Ti), in which every job advances by the true goodput of its
// placement on its type (peers/sia/sia_job.h), then the policy re-allocates (peers/sia/sia_policy.h). Time is whole
// seconds. It runs under the engine as a deciding model (exec/execution_model.h), as the other peers do.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "run/run_plan.h"
#include "run/sim_result.h"

namespace rm {

// The policy text under --compat sia: sia[:p=P;lambda_n=L;lambda_a=A] (the artifact's run_experiment.sh values by
// default: p = -0.5, lambda_n = 1.1, lambda_a = 0.01).
PolicySpec parse_sia_policy(const std::string& text);
std::vector<std::pair<std::string, std::string>> sia_policies();

// Runs the plan (--compat sia): a cluster of GPU types that Sia has tables for (data/gpu_types.csv's sia column), the
// artifact's workload CSV (name, time, application, num_replicas, batch_size), the applications' tables under
// --data-dir/sia/traces; records with exact whole-second times (RunRecord::exact_s).
SimResult run_sia(const RunPlan& plan);

}  // namespace rm
