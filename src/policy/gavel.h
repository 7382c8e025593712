// Gavel's heterogeneity-aware policies (Narayanan et al., OSDI'20) as whole schedulers on the job-level engines:
// an allocation program over the active jobs and the cluster's GPU types (policy/gavel_lp.h, by Clp), turned into
// placements by Gavel's round-based mechanism. Names: gavel-<objective>[-perf], objective las (max-min fairness),
// ftf (finish-time fairness), makespan (minimum total duration), throughput (maximum total throughput); -perf reads
// each job's throughput on each type from the performance model (--perf-model measured:*), the agnostic form does
// not (docs/policies.md, "Gavel's policies"). Parameters: round= seconds (360), reset= the least seconds between
// two solves (0: at every round whose job set changed; 1920 is Gavel's simulator's).
#pragma once
#include <memory>
#include <string>

#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

bool is_gavel_scheduler(const std::string& name);
std::unique_ptr<Scheduler> make_gavel_scheduler(const std::string& name, PluginParams& p);

}  // namespace rm
