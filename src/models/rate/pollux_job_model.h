// Pollux's job model on the job-level engine (--job-model pollux | pollux-tuned; docs/elastic.md "Pollux's job
// model"): each job of a Pollux/Sia workload trains as a job of Pollux's simulator (exec/pollux_trainer.h), in
// continuous time. Its progress is counted in its application's units (the validation curves' progress, an epoch's
// worth scaled by the statistical gain of its batch), it completes at its application's last epoch, and it runs at
// its goodput: the gain over the measured step time of its placement and batch (the application's tables, Pollux's
// Delaunay rule where a placement was not measured). Under `pollux` its batch and accumulation steps are re-chosen
// by the goodput model fitted to its own observed steps, at every start, every epoch's end and every `tune_s` of
// running (Pollux's simulator: every 60-s round); under `pollux-tuned` it keeps the trace's batch (the TunedJobs
// Pollux's simulator gives the baselines). The engine's remaining iterations are this progress scaled to the job's
// iterations, so every policy and metric reads it as before. Policies read the jobs' fitted models through
// job_view() (exec/job_model_view.h).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "exec/execution_model.h"
#include "workload/job.h"

namespace rm {

struct PolluxJobModelOptions {
  std::string traces_dir;  // <data-dir>/pollux/traces
  bool adaptive = true;    // pollux: batches by goodput; pollux-tuned: the trace's batch
  double tune_s = 60;      // how often a running job observes its steps and re-chooses its batch
};

std::unique_ptr<RateModel> make_pollux_job_model(const PolluxJobModelOptions& o);

// Under `pollux` a job's batch may grow past its trace's, so its GPUs may too: each adaptive job's range becomes 1 up
// to its application's largest batch over its least local batch, at most 64 (Pollux's max_replicas without the
// profiling rule, which the job model applies as it runs); ncf keeps its one GPU. Before the engine takes the jobs.
void widen_for_pollux_jobs(std::vector<JobSpec>& jobs, const std::string& traces_dir);

}  // namespace rm
