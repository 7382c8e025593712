// Run outputs: jobs.csv, summary.json, timeseries.csv (docs/formats.md), and the summary numbers.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "workload/trace.h"

namespace rm {

struct RunInfo {
  std::string policy, scheduler, cluster, trace, exec;
  std::uint64_t seed = 0;
  double wall_s = 0;
};

// What any simulator (job-level engine, task model, ...) hands to the metrics: one record per job.
struct JobRecord {
  const JobSpec* spec = nullptr;
  Time first_start = kNever;
  Time finish = kNever;
  Time run_us = 0;  // time holding its GPUs
  int preemptions = 0;
};

struct RunRecord {
  std::vector<JobRecord> jobs;
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
};

RunRecord record_of(const Engine& e);

struct Summary {
  std::int64_t jobs = 0, unschedulable = 0;
  double avg_jct_s = 0, p50_jct_s = 0, p95_jct_s = 0, p99_jct_s = 0, max_jct_s = 0;
  double makespan_s = 0, avg_queue_s = 0, gpu_util = 0;
  std::int64_t preemptions = 0, events = 0;
  std::vector<std::pair<std::string, double>> extra;
  std::vector<std::pair<std::string, double>> timing;  // decisions, decision_p50_us, decision_p99_us, ...
};

// Linear-interpolation quantile (numpy's default) of unsorted values; q in [0, 1].
double quantile(std::vector<double> v, double q);

Summary summarize(const RunRecord& r, std::size_t unschedulable);
void write_outputs(const std::string& dir, const RunRecord& r, const std::vector<Unschedulable>& unsched,
                   const Summary& s, const RunInfo& info);

}  // namespace rm
