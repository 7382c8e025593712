// The planners' driver (Yu et al. 2022: sjf-bco, ls, ff, rand): plan the whole offline job set, then let the
// engine execute the plan under the same law; the engine's finish times must equal the planned ones.
#pragma once
#include <memory>

namespace rm {

struct RunPlan;
struct SimResult;

// Runs the plan over r's loaded cluster and jobs and gives r back with the planner's schedule, its scheduler, the
// engine and the record (with the planners' summary keys). Throws InputError for a job set the planners cannot
// take (a job submitted after 0, no schedule within the horizon).
// What `validate` checks as `simulate` does before planning: every job at time 0 (InputError naming the row).
void check_planner_workload(const RunPlan& p, const SimResult& r);
// The plan alone (r.schedule), as `simulate` makes it: `validate` plans too, so that a plan that does not fit the
// horizon is refused by both. Returns the planning time, seconds.
double plan_workload(const RunPlan& p, SimResult& r);
std::unique_ptr<SimResult> run_planner(const RunPlan& plan, std::unique_ptr<SimResult> r);

}  // namespace rm
