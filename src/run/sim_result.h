// What one run produced: the inputs as loaded, the objects that ran (kept for the writers and the tests), the
// record and its summary. Every route of simulate() returns one (run/simulation.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "exec/model_choice.h"
#include "exec/perf_model.h"
#include "metrics/metrics.h"
#include "models/task/task_model.h"
#include "policy/planner/planner.h"
#include "policy/task/task_plugin.h"
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
  double engine_s = -1;                      // the simulation loop alone, seconds (summary.json engine_s; -1: none)
};

}  // namespace rm
