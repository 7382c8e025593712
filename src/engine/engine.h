// The discrete-event engine, the one event loop of every execution model (docs/design.md "One event loop"):
// owns time (integer microseconds, core/time.h), the jobs' arrivals (a JobFeed: a trace or a generator), the
// cluster book and the job states; asks the scheduler for decisions and the execution model for progress.
// Tie order at one instant (DESIGN.md section 3): arrivals, then completions, then wake-ups, then one
// scheduling pass. With a rate model the engine schedules and integrates progress; a stepping model (round, task,
// the --compat peers) places its jobs itself at its own instants: the engine hands it the arrivals, runs no pass
// and tells it to advance, instant by instant (exec/execution_model.h). No other code moves simulated time.
#pragma once
#include "core/chunked.h"
#include "core/progress.h"
#include "core/tick_clock.h"
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

#include "cluster/cluster.h"
#include "exec/execution_model.h"
#include "policy/plugin.h"
#include "sched/job_feed.h"
#include "sched/run_record.h"
#include "workload/job.h"

namespace rm {

class PerfModel;

struct EngineOptions {
  Time preempt_overhead = 0;  // no progress for this long after a preempted job restarts
  // Per job instead (exec/preempt_cost.h; the CLI's default), when set: seconds without progress after a resume.
  std::function<double(const JobSpec&)> preempt_cost;
  // No progress for this long after every start (first or resumed), GPUs held: a real cluster's dispatch
  // latency (the daemon noticing the event, Slurm launching the job; docs/slurm.md measures it).
  Time start_delay = 0;
  bool record_stretches = false;  // keep every stretch a job holds GPUs (gpus.csv; small runs)
  // With record_stretches: only the GPUs of servers below this index (-1: all). Large runs keep a sample of the
  // cluster this way (plot's Gantt chart shows those servers whole, every job that ran on them).
  int stretch_servers = -1;
  // Called now and then with the fraction of jobs finished (for a progress bar); may be empty.
  ProgressFn progress;  // now and then while it runs; may be empty
  // Resource-sensitive allocation: each job's CPU profile (by synergy::profile_for), or none (GPU-only).
  const synergy::ProfileSet* cpu_profiles = nullptr;
  std::uint64_t seed = 1;
  bool matrix_speed = false;  // --speed-model matrix
  // The performance model for a job's ideal time on each GPU type (exec/perf_model.h; outlives the engine);
  // none: the analytic law. A job's ideal time is on `trace_type` (its trace's GPU type, a GpuTypes index) until
  // it starts, then on the type it runs on.
  PerfModel* perf = nullptr;
  int trace_type = 0;
};

class Engine {
 public:
  Engine(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, Scheduler& scheduler,
         std::unique_ptr<ExecutionModel> exec, EngineOptions opt = {});
  // Jobs from `feed` (which outlives the engine). `scheduler` may be null only for a stepping model.
  Engine(const ClusterSpec& cluster, JobFeed& feed, Scheduler* scheduler, std::unique_ptr<ExecutionModel> exec,
         EngineOptions opt = {});
  ~Engine();
  // Runs to the end. Throws InvariantError if an invariant breaks (double-booking, time going
  // backwards, a job finishing twice or never, GPU-seconds not conserved).
  void run();

  // Every job's state; InvariantError once a stepping model has let views go (JobViews): its own result holds them.
  const Chunked<JobState>& jobs() const;
  const std::vector<SeriesRow>& series() const { return series_; }
  const std::vector<GpuStretch>& stretches() const { return stretches_; }
  const Cluster& cluster() const { return cluster_; }
  std::int64_t events() const { return events_; }
  std::int64_t preemptions() const { return preemptions_; }
  Time busy_gpu_us() const { return busy_gpu_us_; }  // integral of busy GPUs over time
  const ExecutionModel& exec() const { return *exec_; }
  // The model back, after run() (a stepping model keeps the run's figures: the task model's).
  std::unique_ptr<ExecutionModel> take_exec() { return std::move(exec_); }
  const Scheduler& scheduler() const { return *scheduler_; }
  // Wall-clock microseconds of every scheduling decision (the benchmark's decision latency).
  const std::vector<float>& decision_us() const { return decision_us_; }
  const std::vector<int>& decision_waiting() const { return decision_waiting_; }  // jobs waiting at each
  friend RunRecord record_of(Engine& e);

 private:
  Engine(const ClusterSpec& cluster, std::unique_ptr<JobFeed> own, JobFeed* feed, Scheduler* scheduler,
         std::unique_ptr<ExecutionModel> exec, EngineOptions opt);
  void take_jobs();
  JobState& admit(const JobSpec& spec);
  bool arrive_due();
  Time next_submit() const {  // of the next job to arrive (kNever: none)
    return next_arrival_ < arrivals_.size() ? arrivals_[next_arrival_]->spec->submit : kNever;
  }
  void schedule();
  void apply(const Decisions& d);
  void complete(JobState& j);
  void reallocate(const std::vector<StartDecision>& moves);
  void check_width(const JobState& j, std::size_t n) const;
  void take(const JobState& j, const std::vector<GpuRef>& gpus, bool named);
  static void held_range(JobState& j);
  void let_go(JobState& j);
  void hold(JobState& j, const StartDecision& s, Time overhead, bool named);
  Time restart_cost(const JobState& j) const;
  void release_shares(JobState& j);
  void record();
  void check_final() const;

  std::unique_ptr<JobFeed> own_feed_;  // the trace's feed when the engine was given a vector
  JobFeed& feed_;
  Cluster cluster_;
  Chunked<JobState> states_;  // every job taken from the feed, in its order (ids are indexes)
  // The views a stepping model has let go (JobViews): which jobs', and their places, for the jobs taken next.
  struct Views final : JobViews {
    Engine* e;
    explicit Views(Engine* engine) : e(engine) {}
    void let_go(JobState& view) override;
  };
  Views views_{this};
  std::vector<bool> let_go_;
  std::vector<JobState*> free_views_;
  std::size_t taken_ = 0;  // jobs taken from the feed (states_ holds fewer once views are reused)
  std::vector<JobState*> arrivals_;  // the same jobs by submit time (stable); arrivals_[next_arrival_] is next
  std::size_t next_arrival_ = 0;
  bool feed_done_ = false;
  Scheduler* scheduler_;
  std::unique_ptr<ExecutionModel> exec_;
  EngineOptions opt_;
  RateModel* rate_ = nullptr;         // exec_, when it is a rate model (the engine schedules and integrates)
  SteppingModel* stepper_ = nullptr;  // exec_, when it is a stepping model (it decides and advances itself)
  // Per-job defaults of the job-level engine (admit).
  double cpus_per_gpu_ = 0, dram_per_gpu_ = 0;
  std::unique_ptr<PerfModel> own_perf_;
  PerfModel* perf_ = nullptr;
  std::function<double(const JobSpec&, int)> type_iteration_s_;  // perf_'s ideal iteration, for SchedContext
  std::function<double(const JobSpec&, const std::vector<int>&, const std::vector<int>&)> span_iteration_s_;
  Time now_ = 0;
  // Queued and running jobs in arrival order, as the scheduler sees them (ActiveJobs skips finished ones).
  // Finished jobs leave it in a batch once they are more than half of it: a finish costs O(1) amortised.
  std::vector<const JobState*> active_;
  std::size_t finished_in_active_ = 0;
  std::vector<const JobState*> finished_since_pass_, arrived_since_pass_;  // SchedContext::finished, arrived
  std::priority_queue<Time, std::vector<Time>, std::greater<>> wakeups_;
  std::vector<SeriesRow> series_;
  std::vector<GpuStretch> stretches_;
  void record_stretch(const JobState& j);
  std::int64_t events_ = 0;
  std::int64_t preemptions_ = 0;
  std::int64_t reallocations_ = 0;  // elastic jobs' allocation changes while running
  std::int64_t finished_ = 0;
  int queued_ = 0, running_ = 0;
  Time busy_gpu_us_ = 0;
  std::vector<float> decision_us_;  // in clock_'s ticks until run() ends, then microseconds
  std::vector<int> decision_waiting_;
  TickClock clock_;
};

// The run as the metrics see it.
// The run's record. Moves the per-event lists (series, stretches, decision times) out of the engine: a run of
// a million jobs holds them once, not twice.
RunRecord record_of(Engine& e);

}  // namespace rm
