// What every backend (the job-level engine, the task model, the round model, a live cluster) hands to the
// metrics: one record per job, the time series and the run's counters. Below the engines, so that the
// writers never depend on which world produced a run.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"
#include "workload/job.h"

namespace rm {

struct SeriesRow {
  Time t = 0;
  int queued = 0;
  int running = 0;
  int busy_gpus = 0;
};

// What any simulator (job-level engine, task model, ...) hands to the metrics: one record per job.
struct JobRecord {
  const JobSpec* spec = nullptr;
  Time first_start = kNever;
  Time finish = kNever;
  Time run_us = 0;  // time holding its GPUs
  int preemptions = 0;
  Time overhead_us = 0;  // preemption cost paid (held without progress after resumes; jobs.csv preempt_overhead_s)
  // Its run time alone at its best placement on an idle cluster, under the run's performance model (kNever:
  // the model gives none); the most servers it spanned at once; the GPU type it ran on, an index into
  // RunRecord::gpu_types (-1: not known).
  Time ideal_us = kNever;
  int servers = 0;
  int gpu_type = -1;
  // Elastic jobs (issue 43): the fewest and most GPUs it held while running, the GPU-seconds it held (restarts
  // included), the times its allocation changed after its first start. Unset (0 / -1): a rigid job's, derived in
  // jobs.csv (its GPUs, its GPUs x run time, its preemptions: each resume is a new allocation).
  int gpus_min = 0, gpus_max = 0;
  double gpu_seconds = -1;
  int reallocations = -1;
  // GPU-seconds it held: its own figure (elastic), else its GPUs x its run time.
  double held_gpu_s() const { return gpu_seconds >= 0 ? gpu_seconds : to_seconds(run_us) * spec->num_gpus; }
};

// One stretch of a job holding GPUs, from a start to its preemption or end (gpus.csv, the Gantt chart).
struct GpuStretch {
  JobId job = -1;
  Time start = 0, end = 0;
  std::vector<std::pair<int, int>> gpus;  // (server, gpu); of a large run only those on the sampled servers
  int held = 0;                           // every GPU the job held in it (elastic.csv), sampled or not
};

// A job's times as a peer simulator with a float-seconds clock computed them (--compat gavel), printed at full
// precision in jobs.csv and summarised from these doubles (NaN: the job has none).
struct ExactTimes {
  double submit = 0, first_start = 0, finish = 0, run = 0;
};

struct RunRecord {
  std::vector<JobRecord> jobs;
  // A model's own per-run file, written beside jobs.csv (name, CSV text): --compat pollux's pollux_rounds.csv.
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<ExactTimes> exact_s;  // parallel to jobs, or empty
  std::vector<std::string> gpu_types;  // the cluster's, in server order, each once (JobRecord::gpu_type)
  std::vector<GpuStretch> stretches;  // kept for small runs only (EngineOptions::record_stretches)
  std::vector<SeriesRow> series;
  int total_gpus = 0;
  Time busy_gpu_us = 0;  // integral of busy GPUs over time
  std::int64_t events = 0, preemptions = 0;
  // Model-specific summary keys, written to summary.json after the common ones (e.g. the task
  // model's avg_jct_ms and makespan_ms as Wang et al. define them).
  std::vector<std::pair<std::string, double>> extra;
  // Wall-clock figures (not deterministic), written under "timing" in summary.json.
  std::vector<std::pair<std::string, double>> timing;
  std::vector<float> decision_us;  // per scheduling decision
  std::vector<int> decision_waiting;  // jobs waiting at each decision, where the backend counts them (or empty)
  // A live run: each job's final state in the cluster manager (parallel to jobs; COMPLETED, FAILED, CANCELLED,
  // NODE_FAIL, TIMEOUT, ...). When set, jobs.csv gains a `slurm_state` column and a job that ended in any state
  // but COMPLETED is `failed`, not `finished`.
  std::vector<std::string> manager_states;
};

// The index in `r.gpu_types` of `type`, added there if new.
inline int gpu_type_index(RunRecord& r, const std::string& type) {
  for (std::size_t i = 0; i < r.gpu_types.size(); ++i)
    if (r.gpu_types[i] == type) return static_cast<int>(i);
  r.gpu_types.push_back(type);
  return static_cast<int>(r.gpu_types.size()) - 1;
}

}  // namespace rm
