// Sia's job model on the job-level engine (--job-model sia; docs/sia.md "On the engine"): each job of a Pollux/Sia
// workload trains as a job of Sia's simulator (exec/sia_trainer.h) in the engine's continuous time, on the GPU type of
// the servers it holds: progress in its application's units at its goodput on that type (Sia's measured tables for the
// type, Pollux's Delaunay rule where a placement was not measured) times the application's calibration factor, one
// profile and one fitted throughput model per type, its batch re-chosen by the type's model at every start, epoch end
// and `tune_s` of running. The engine's remaining iterations are the remaining progress in proportion. Policies read
// the per-type models through JobModelView::sia_trainer (the engine's sia). Restart costs are the engine's (its
// preemption-cost model), not Sia's per-application times.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "exec/execution_model.h"
#include "workload/job.h"

namespace rm {

struct SiaJobModelOptions {
  std::string traces_dir;               // <data-dir>/sia/traces
  std::vector<std::string> type_names;  // Sia's name of each GPU type of the cluster (data/gpu_types.csv `sia`)
  std::vector<int> type_of_server;      // the cluster's GPU type index of each server
  double tune_s = 60;                   // how often a running job observes its steps and re-chooses its batch
};

std::unique_ptr<RateModel> make_sia_job_model(const SiaJobModelOptions& o);

// A Sia job's GPUs may grow with its batch: each elastic job's range becomes 1 up to its application's largest batch
// over its least local batch on any type, at most 64 (ncf keeps one). Before the engine takes the jobs.
void widen_for_sia_jobs(std::vector<JobSpec>& jobs, const SiaJobModelOptions& o);

}  // namespace rm
