// The Slurm backend of the policy seam (docs/slurm.md): the second producer of the job views a policy sees,
// after the simulator. Every step it observes the partition's nodes and jobs, adopts the held jobs users
// submitted for ringmaster, builds a Cluster (GPUs of jobs it does not own and of unusable nodes count as
// busy) and the JobStates of its jobs, asks the policy, and applies the decisions: a start pins the held job
// to the chosen nodes and releases it; a preemption requeues it held. Its own table (adopted jobs, their
// attained service, what is in flight) is written atomically to <state>/state.json after every change, so
// the daemon can be killed at any moment and restarted.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "live/slurm_ctl.h"
#include "policy/plugin.h"
#include "sched/run_record.h"

namespace rm::live {

struct ServeOptions {
  std::string policy = "fifo";
  std::string partition;
  std::string state_dir;
  std::string cluster;       // optional ringmaster cluster (preset or YAML): GPU memory and network per server
  std::uint64_t seed = 1;
  double default_duration_s = 3600;  // a job without duration/iterations hints is assumed to run this long
  std::function<void(const std::string&)> log;  // one line per event; null = silent
  // The rate model's slowdown of a job on its placement (iteration time with the split jobs now on its
  // servers, over the ideal one): called just before a job is released, and again whenever it changes while
  // the job runs (split neighbours starting or ending). `replay` passes it to the payload.
  std::function<void(const JobSpec&, double slowdown)> on_rate;
};

// One stretch of a job holding GPUs: from its start to its end or preemption, GPUs per node.
struct LiveRun {
  double start_s = 0, end_s = 0;
  double decided_s = -1, noticed_s = -1;  // the daemon's clock: when it released the job, when it saw the stretch end
  std::vector<std::pair<std::string, int>> gpus;  // node, GPUs there
};

// One adopted job: the spec the policy reads, its view, and what the daemon knows from Slurm.
struct LiveJob {
  std::int64_t slurm_id = 0;
  std::string status = "queued";  // queued | starting (released, not yet RUNNING) | running | finished
  std::string slurm_state;        // last state seen
  std::vector<std::string> nodes; // where it was placed
  std::vector<GpuRef> gpus;       // the policy's GPUs for it (counts per node are what Slurm enforces)
  double submit_s = 0;            // epoch seconds, from Slurm
  double started_s = -1;          // epoch seconds of the current start (release, then Slurm's start time)
  double decided_s = -1;          // epoch seconds (daemon's clock) of the current start's release
  double adopted_s = -1;          // epoch seconds (daemon's clock) of the step that adopted it
  double first_start_s = -1, end_s = -1;
  double run_s = 0;               // attained running seconds before the current start
  int preemptions = 0;
  std::vector<std::string> hint_errors;
  std::vector<LiveRun> runs;      // every stretch it ran (runs.csv)
  bool per_node = false;          // asked --gres=gpu:k (per node), not --gpus=N
  bool split_refused = false;     // logged once: the policy split a per-node request unevenly
  bool fit_refused = false;       // logged once: a start refused for want of CPUs or memory on a node
  int cpus = 1;                   // NumCPUs Slurm reports for it (at least one per node)
  double mem_mb = 0;              // --mem per node (0: none asked)
  double slowdown = -1;           // last rate given to on_rate
};

class SlurmBackend {
 public:
  SlurmBackend(SlurmCtl& ctl, ServeOptions opt);
  ~SlurmBackend();
  // Checks that slurmctld answers and the partition exists (SlurmError / InputError otherwise), reads the
  // partition's nodes into the cluster, and loads <state>/state.json if there is one.
  void connect(double now_s);
  // One observe -> decide -> apply step at wall time now_s (epoch seconds). Returns the number of adopted
  // jobs that have not finished.
  int step(double now_s);
  // jobs.csv / summary.json / timeseries.csv of the adopted jobs, as `simulate` writes them.
  void write_outputs(const std::string& dir) const;
  const ClusterSpec& cluster() const { return spec_; }
  const std::vector<std::string>& node_names() const { return node_names_; }
  const std::deque<LiveJob>& jobs() const { return live_; }
  const std::vector<float>& decision_us() const { return decision_us_; }

 private:
  void adopt(const SlurmJob& j);
  JobSpec resolve_spec(const JobSpec& s) const;
  void observe(const std::vector<SlurmJob>& jobs, double now_s);
  void save() const;
  void load();
  void log(const std::string& s) const;
  // Job i stops holding its GPUs at end_s (finished, preempted, requeued or held by Slurm): a running job's
  // stretch is recorded and its service counted; `next` is "queued" or "finished".
  void stop(std::size_t i, double end_s, const char* next);
  void record_run(std::size_t i, double end_s);  // the stretch since started_s, GPUs per node (runs.csv)
  void read_allocation(std::size_t i);  // the GPUs Slurm gave job i once it runs (it spreads --gpus=N itself)
  static int cpus_per_node(int cpus, std::size_t nodes);  // Slurm: at least one on each node
  bool rebook_on_nodes(Cluster& c, std::size_t i);  // a released job's GPUs anywhere free on its nodes
  std::vector<int> split_counts() const;  // split jobs running or starting, per server
  // The rate model's iteration time of job id on gpus, with split_on split jobs per server, over the ideal one.
  double slowdown_of(JobId id, const std::vector<GpuRef>& gpus, const std::vector<int>& split_on) const;
  Time at(double epoch_s) const;
  // One step, in parts (slurm_backend.cpp): book what Slurm holds, refresh the views, apply the decisions.
  struct StepBook;
  void claim(StepBook& b, const LiveJob& l) const;  // a released job's CPUs and memory on its nodes
  void book_nodes(StepBook& b, const std::vector<SlurmNode>& nodes);
  void book_jobs(StepBook& b, const std::vector<SlurmJob>& jobs, double now_s);
  void book_holding(StepBook& b, std::size_t i, double now_s);
  std::vector<JobId> refresh_views(double now_s, int& queued, int& running);
  void apply_preempt(StepBook& b, JobId id, double now_s);
  bool start_fits(StepBook& b, const StartDecision& sd, const std::vector<std::string>& names,
                  const std::vector<int>& count, int& per_node);
  void apply_start(StepBook& b, const StartDecision& sd, double now_s);
  void update_rates();

  SlurmCtl& ctl_;
  ServeOptions opt_;
  ClusterSpec spec_;
  std::vector<std::string> node_names_;
  std::map<std::string, int> node_index_;
  std::unique_ptr<Scheduler> scheduler_;
  double origin_s_ = -1;            // epoch seconds of time 0 (the first connect; kept across restarts)
  std::deque<JobSpec> specs_;       // id = index
  std::deque<JobState> states_;
  std::deque<LiveJob> live_;
  std::map<std::int64_t, JobId> by_slurm_;
  std::set<std::int64_t> ignored_;  // held jobs it will not schedule (no GPUs, never fits), logged once
  std::vector<float> decision_us_;
  std::vector<SeriesRow> series_;
  std::int64_t steps_ = 0, preemptions_ = 0;
  double now_s_ = 0;                // the current step's wall time
};

}  // namespace rm::live
