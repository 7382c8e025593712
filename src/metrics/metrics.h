// Run outputs: jobs.csv, summary.json, timeseries.csv (docs/formats.md), and the summary numbers.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "sched/run_record.h"
#include "workload/trace.h"

namespace rm {

struct RunInfo {
  std::string policy, scheduler, cluster, trace, exec;
  std::uint64_t seed = 0;
  double wall_s = 0;
  // The simulation loop alone (events, decisions, the models), without reading inputs, summarising or writing:
  // summary.json `engine_s` and `events_per_s` (events over it). Below 0: not measured (a live run).
  double engine_s = -1;
  // Below: set after the first fields, so each has a default initialiser ({}: aggregate initialisation of the first
  // fields leaves them to it without -Wmissing-field-initializers).
  std::string perf_model{};  // what turned placements into run times (summary.json `perf_model`; empty: live)
  std::string preempt_cost_model{};  // what a preemption cost the job that resumed (summary.json; empty: live)
  bool columns_mapped = false;                 // the trace was read through --columns / --header
  std::vector<std::string> ignored_columns{};  // then: the file's columns no canonical column took
  std::vector<std::pair<std::string, std::string>> model_mapping{};  // --unknown-model: each unknown name -> its model
  std::string policy_label{};  // the policy's display name (--policy LABEL=SPEC; summary.json `policy_label`)
};

struct Summary {
  std::int64_t jobs = 0, unschedulable = 0;
  double avg_jct_s = 0, p50_jct_s = 0, p95_jct_s = 0, p99_jct_s = 0, max_jct_s = 0;
  double makespan_s = 0, avg_queue_s = 0, gpu_util = 0;
  std::int64_t preemptions = 0, events = 0;
  std::vector<std::pair<std::string, double>> extra;
  std::vector<std::pair<std::string, double>> timing;  // decisions, decision_p50_us, decision_p99_us, ...
  std::vector<double> ftf_rho{};  // each job's finish-time fairness (NaN: none), for the writers: computed once
};

// Linear-interpolation quantile (numpy's default) of unsorted values; q in [0, 1].
double quantile(std::vector<double> v, double q);
// The same of values sorted ascending.
double quantile_sorted(const std::vector<double>& v, double q);

Summary summarize(const RunRecord& r, std::size_t unschedulable);
// Finish-time fairness per job (Themis, NSDI'20): rho = JCT / the JCT the job would have at a 1/N share of the
// cluster, N = jobs in the system at its arrival (itself included), that JCT = ideal_s x max(1, N x GPUs / cluster
// GPUs). NaN where the job has no ideal_s or did not finish. Parallel to r.jobs.
std::vector<double> ftf_rho(const RunRecord& r);
// users.csv (by_vc false: one row per user, the trace's user column) or vcs.csv (by_vc: per virtual cluster, its vc
// column); false (nothing written) when no job names one.
bool write_group_csv(std::ostream& f, const RunRecord& r, bool by_vc, const std::vector<double>* rho = nullptr);
// One warning line when the jobs held more than 1.5x the GPU-time they need at their best placement
// (gpu_time_inflation), naming the larger cause (jobs spread over more servers than they need, or slowdown of
// jobs on as few servers as they can have: contention) and the placement that changes it. `placement`: the run's
// placement by name ("consolidated:relax=600", "spread-ok", "first-fit", ...; "" where the scheduler places by its
// own rules).
std::string stretch_warning(const RunRecord& r, int max_server_gpus, const std::string& placement = "first-fit");
// A run's output folder: jobs.csv, timeseries.csv, summary.json (and gpus.csv for small runs); each file's writer
// below, for callers that keep them in memory (the Python module).
void write_outputs(const std::string& dir, const RunRecord& r, const std::vector<Unschedulable>& unsched,
                   const Summary& s, const RunInfo& info);
// rho: the jobs' ftf_rho as summarize() kept it (Summary::ftf_rho), or null to compute it here.
void write_jobs_csv(std::ostream& f, const RunRecord& r, const std::vector<Unschedulable>& unsched,
                    const std::vector<double>* rho = nullptr);
void write_gpus_csv(std::ostream& f, const RunRecord& r);
// elastic.csv: job_id,start_s,end_s,gpus for every stretch of every elastic job (all its GPUs, sampled servers or
// not); false (nothing written) when the run has no elastic job's stretch.
bool write_elastic_csv(std::ostream& f, const RunRecord& r);
void write_timeseries_csv(std::ostream& f, const RunRecord& r);
std::string summary_json(const Summary& s, const RunInfo& info);

}  // namespace rm
