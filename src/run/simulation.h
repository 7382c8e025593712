// One simulation end to end: cluster + trace + policy -> engine run -> summary (and files). The routes' inputs
// come from run/loaders.h; what a run produced is run/sim_result.h.
#pragma once
#include <memory>

#include "run/run_plan.h"
#include "run/sim_config.h"
#include "run/sim_result.h"

namespace rm {

// Loads everything, runs, and summarises. Throws InputError on bad input, InvariantError on a bug.
std::unique_ptr<SimResult> simulate(const RunPlan& plan);
// make_run_plan, then simulate.
std::unique_ptr<SimResult> simulate(const SimConfig& cfg);

}  // namespace rm
