// How running jobs turn time into iterations. The engine tells the model when jobs start and stop,
// asks when its next internal event is, and lets it advance to that time.
//
// A model that decides (the round model: leases re-allocated at every boundary; docs/design.md "One event
// loop") also places and starts its jobs itself, at its own instants: the engine owns the clock, the jobs'
// arrivals and the cluster book, hands the model each job as it learns of it and as it arrives, and runs no
// scheduling pass of its own; the model keeps its jobs' progress, records and checks, and may end the run.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "sched/job_state.h"
#include "exec/yu2022_model.h"

namespace rm {

class ExecutionModel {
 public:
  virtual ~ExecutionModel() = default;
  virtual std::string name() const = 0;
  // `job` has just been given job.gpus at `now`; job.stall_until is already set.
  virtual void start(JobState& job, Time now) = 0;
  // `job` stops holding its GPUs at `now` (preempted or finished); bring its progress up to now.
  virtual void stop(JobState& job, Time now) = 0;
  // `job`'s speed factor (alloc_speed) changed at `now` while it runs: bring progress up to now, re-rate.
  virtual void respeed(JobState& job, Time now) {
    stop(job, now);
    start(job, now);
  }
  // The time of the model's next internal event (a completion), kNever if none.
  virtual Time next_event() = 0;
  // Process internal events at `t` (== next_event()); append jobs that completed at t.
  virtual void advance(Time t, std::vector<JobState*>& completed) = 0;
  // Model-specific summary figures (e.g. inter-server bytes), appended to summary.json.
  virtual void report(std::vector<std::pair<std::string, double>>& /*extra*/) const {}

  // --- A model that decides (see the top of this file) ---
  virtual bool decides() const { return false; }
  // Whether the engine's book keeps its servers-by-free-GPUs index (what job-level placements search).
  virtual bool searches_book() const { return true; }
  // The engine's cluster book, once, before any job.
  virtual void bind(Cluster& /*book*/) {}
  // The engine has taken `job` from its feed (before it arrives; every job of a trace before the first instant).
  virtual void admit(JobState& /*job*/) {}
  // Every job of a known feed has been admitted; the first instant comes next.
  virtual void begin() {}
  // `job` arrives at `now` (its submit time).
  virtual void arrive(JobState& /*job*/, Time /*now*/) {}
  // Runs every instant of the model's own before `horizon` (the next arrival; kNever: no job left to arrive):
  // nothing outside the model happens before it, so the engine need not stop at each of them.
  virtual void run_until(Time /*horizon*/) {}
  // The model has ended the run (a deciding model's measured window is complete): the engine stops.
  virtual bool ended() const { return false; }
  // The engine's loop is over (nothing left to happen, or ended()): the model's checks at the end.
  virtual void end() {}
};

// `yu2022` (optional) switches the per-iteration time from the physical ring all-reduce law to Yu et
// al.'s eq. (6)-(8) in the abstract mode of exec/yu2022_model.h (tau0 = compute_s / slot_s).
// `trace_law` (--perf-model trace): every job runs at its ideal iteration time whatever its placement and
// contention (Tiresias' and Gavel's homogeneous simulators), over its CPU speed factor.
// `perf` (optional; outlives the model): the performance model for the iteration time (exec/perf_model.h); none:
// the analytic law.
class PerfModel;
std::unique_ptr<ExecutionModel> make_rate_model(const ClusterSpec& cluster, const yu::ModelParams* yu2022 = nullptr,
                                                bool trace_law = false, PerfModel* perf = nullptr);

// The job-graph law of spec synergy-and-a-srpt.md A.2 (mixed parallelism; exec/graph_model.cpp). With a measured
// `perf`, a pure data-parallel job takes its measured time; mixed-parallel jobs keep the graph law.
std::unique_ptr<ExecutionModel> make_graph_model(const ClusterSpec& cluster, bool trace_law = false,
                                                 PerfModel* perf = nullptr);

}  // namespace rm
