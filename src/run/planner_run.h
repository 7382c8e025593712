// The planners' driver (Yu et al. 2022: sjf-bco, ls, ff, rand): plan the whole offline job set, then let the
// engine execute the plan under the same law; the engine's finish times must equal the planned ones.
#pragma once

namespace rm {

struct RunPlan;
struct SimResult;

// Fills r.schedule (the planner's schedule), r.scheduler, r.engine and r.record (with the planners' summary keys). Throws InputError for a
// job set the planners cannot take (a job submitted after 0, no schedule within the horizon).
void run_planner(const RunPlan& plan, SimResult& r);

}  // namespace rm
