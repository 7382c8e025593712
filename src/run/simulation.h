// One simulation end to end: cluster + trace + policy -> engine run -> summary (and files).
#pragma once
#include "core/progress.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "run/run_plan.h"
#include "run/sim_config.h"
#include "models/task/task_model.h"
#include "exec/perf_model.h"
#include "metrics/metrics.h"
#include "policy/planner/planner.h"
#include "policy/task/task_plugin.h"
#include "workload/generators.h"
#include "workload/trace.h"

namespace rm {


struct SimResult {
  ClusterSpec cluster;
  Workload workload;
  std::vector<Unschedulable> unschedulable;
  ExecModel exec = ExecModel::Rate;          // the execution model that ran
  std::unique_ptr<Scheduler> scheduler;      // rate model
  std::unique_ptr<Engine> engine;
  std::unique_ptr<task::TaskPolicy> task_policy;  // task model
  std::unique_ptr<TaskModel> task;
  std::unique_ptr<synergy::ProfileSet> cpu_profiles;  // resource-sensitive allocation on the job-level engine
  std::unique_ptr<PerfModel> perf;           // --perf-model (the job-level engine's laws and every ideal time)
  int trace_type = 0;                        // --trace-gpu-type, as an index into the cluster's GPU types
  plan::Plan schedule;                       // planners: the schedule the engine executed (not the RunPlan)
  RunRecord record;
  Summary summary;
  RunInfo info;
  ModelMapping models;                       // what --model-alias / --unknown-model did
};

// Loads everything, runs, and summarises. Throws InputError on bad input, InvariantError on a bug.
std::unique_ptr<SimResult> simulate(const RunPlan& plan);
// make_run_plan, then simulate.
std::unique_ptr<SimResult> simulate(const SimConfig& cfg);

// The cluster of a config: a preset, a YAML file, or "yu2022" (generated from --seed and --servers).
ClusterSpec load_config_cluster(const SimConfig& cfg);

// The workload of a config (reading, catalogue, resolution) without running it.
// `ideal`: the ideal times a trace's durations are turned into iterations with (default: the analytic law on the
// cluster's first GPU type).
Workload load_workload(const SimConfig& cfg, const ClusterSpec& cluster, std::vector<Unschedulable>* unsched,
                       std::vector<std::string>* errors = nullptr, ModelMapping* mapping = nullptr,
                       const IdealTimes* ideal = nullptr);
// GPU-seconds the jobs demand at their ideal under `law`, and Workload::offered_load: that over the cluster's
// GPU-seconds across the jobs' arrival span (NaN when they arrive at one instant).
double demand_gpu_s(const std::vector<JobSpec>& jobs, const BoundIdealTimes& law);
double offered_load(double demand_gpu_s, const std::vector<JobSpec>& jobs, const ClusterSpec& cluster);
// Every submit time x `scale` (--arrival-scale, --load on a trace); a deadline keeps its slack after its submit.
// InputError naming `option` past the submit-time limit.
void scale_arrivals(Workload& w, double scale, const std::string& option);
// --trace-gpu-type as an index into the cluster's GPU types (0 when not given); InputError naming the option.
int trace_type_of(const SimConfig& cfg, const ClusterSpec& cluster);

const ModelCatalogue& load_catalogue(const std::string& path);

}  // namespace rm
