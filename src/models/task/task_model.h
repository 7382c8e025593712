// The task execution model (--exec task; Wang et al. 2020, spec contention-and-sjf-bco.md Part A), a model that
// decides under the one engine (exec/execution_model.h): the engine owns the clock, the arrivals and the cluster
// book (GPU memory booked there); the model keeps its task and flow events, placing jobs at its own instants.
// Every iteration of a job is a DAG: forward then backward on each worker, then one all-reduce of the
// job's gradient (a barrier). GPUs are shared by memory and run one task at a time; an all-reduce is
// free inside one server, otherwise one flow on the NIC of every server the job spans, progressing at
// 1 / (k beta + (k-1) eta) MB/ms with k the flow count on the job's busiest NIC.
//
// Default: event-driven in continuous time, kept in whole nanoseconds (int64) so that equal instants are
// equal however they were reached (a flow's end is rounded to the nanosecond), the physically correct model.
// compat=true (--compat wang2020): the authors' 1-ms step loop of spec A.11 item 3, quirks included
// (placement skip, late release, integer-ms flow completion, per-step re-rating, persistent LWF
// server order, 1 GbE beta in the LWF workload), which reproduces their simulator's numbers exactly.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "core/progress.h"
#include "exec/execution_model.h"
#include "metrics/metrics.h"
#include "models/task/fast_forward.h"
#include "models/task/task_step.h"
#include "policy/task/task_plugin.h"
#include "workload/job.h"

namespace rm {

struct TaskOptions {
  bool compat = false;
  // Default mode: jump over whole periods of a steady state (fast_forward.cpp); false simulates
  // every task (--no-fast-forward). Compat mode never jumps.
  bool fast_forward = true;
  ProgressFn progress;  // now and then while it runs; may be empty
};

// The model under the engine: the clock that picks the model's instants (every task's or flow's end and every
// arrival by default; every millisecond under compat), the checks that the run ended whole, and the results. The
// state and what happens at an instant are the step's (task_step.h).
class TaskModel final : public SteppingModel {
 public:
  using FastForwardStats = FastForward::Stats;
  // Throws InputError if a job cannot run in this model (compat needs whole milliseconds).
  TaskModel(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, task::TaskPolicy& policy,
            TaskOptions opt = {});

  // SteppingModel. Time is the engine's microseconds outside, nanoseconds inside: an engine instant T covers
  // the model's instants [T us, T+1 us).
  std::string name() const override { return "task"; }
  bool searches_book() const override { return false; }
  void bind(Cluster& book) override { step_.bind(book); }
  void arrive(JobState& job, Time now) override;
  Time next_event_time() override;
  void advance_to(Time t) override;
  void end() override;

  RunRecord record() const;
  double total_time_ms() const { return total_time_; }  // authors' makespan (A.11 item 23)
  double avg_jct_ms() const;
  double finish_ms(int job) const { return task_time::ms_from(job_at(job).finish); }  // absolute time of the final sync
  double jct_ms(int job) const { return task_time::ms_from(job_at(job).finish - job_at(job).arrival); }
  double gpu_active_ms() const { return step_.gpus().active_ms(); }  // sum over GPUs of busy time
  std::int64_t max_gpu_sharing() const { return step_.counts().max_sharing; }  // most jobs ever on one GPU
  std::int64_t max_link_flows() const { return step_.net().max_flows(); }      // most flows ever on one NIC
  const FastForwardStats& fast_forward_stats() const;

 private:
  using Ns = std::int64_t;
  static constexpr Ns kNever = task_time::kNever;
  const TaskJob& job_at(int id) const { return step_.jobs()[static_cast<std::size_t>(id)]; }
  Ns next_step();         // the model's next instant: a task's or flow's end, a delivered job not yet admitted
  Ns next_timed() const;  // the same with the jobs still to arrive (what can still move the run at all)
  void record_series(Ns now);
  void check_final() const;

  TaskOptions opt_;
  const ClusterSpec* cluster_;
  TaskStep step_;
  Ns compat_next_ = 0, last_step_ = 0;  // compat's next 1-ms step; the last instant simulated
  int same_instant_ = 0;
  Ns next_ = 0;  // next_step(), while next_valid_
  bool next_valid_ = false;
  std::int64_t last_report_ = 0;
  double total_time_ = 0;
  std::vector<SeriesRow> series_;
};

}  // namespace rm
