// The Backend seam of the live path (as LevelDB's Env): a cluster the policies schedule, real (Slurm) or
// scripted in process (fake). The generic side (live/live_scheduler.h) owns the policy and the loop; a backend
// observes its cluster into the views a policy reads, applies the policy's decisions, persists and recovers
// its own state, and keeps the jobs it adopted (what `replay`'s latency and the outputs read). A new backend
// is one folder implementing this class plus one line in live/backends.cpp.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "core/error.h"
#include "sched/decisions.h"
#include "sched/job_state.h"
#include "workload/trace.h"
#include "workload/job.h"

namespace rm::live {

// The cluster manager did not answer or refused a command: the loop logs it and retries (exit 4 at top level).
class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The state could not be written (a full or read-only disk): the loop logs it as an error and decides nothing
// until a write succeeds again (no decision without a durable state); the daemon keeps running.
class StateWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Wall-clock now in epoch seconds (what cluster managers' time stamps are in).
double wall_now();
using Clock = std::function<double()>;

// What every backend is given (`serve`, `replay`).
struct ServeOptions {
  std::string policy = "fifo";
  std::string partition;     // where on the cluster (Slurm: the partition of the held jobs)
  std::string state_dir;
  std::string cluster;       // optional ringmaster cluster (preset or YAML): GPU memory and network per server
  std::uint64_t seed = 1;
  double default_duration_s = 3600;  // a job without duration/iterations hints is assumed to run this long
  std::function<void(const std::string&)> log;  // one line per event; null = silent
  std::function<void(const std::string&)> warn; // the same for what an operator must look at; null = log
  std::function<void(const std::string&)> debug;  // per-step detail; null = nothing
  bool recover = false;  // no usable state: rebuild the books from the manager (serve --recover)
  // A released job the manager has not started within this many seconds is held again, its GPUs returned, and
  // offered to the policy again after a back-off (twice the bound, doubling, at most 10 minutes).
  double start_timeout_s = 30;
  // Hold a lease in the manager for the partition (serve: a second daemon for it refuses to start); tests of a
  // backend over recorded commands leave it off.
  bool lease = false;
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
  // Why it ended: the manager's final state (COMPLETED, FAILED, CANCELLED, NODE_FAIL, TIMEOUT, ...) for the last
  // stretch, else preempted (the policy), requeued (by the manager), held (by someone else), node_unusable,
  // vanished, running (still holding its GPUs when the outputs were written).
  std::string end_reason;
};

// One adopted job: what the backend knows of it beside its spec and view.
struct LiveJob {
  std::int64_t manager_id = 0;    // the cluster manager's job id (runs.csv's slurm_id column, kept by that name)
  // queued | starting (released, not yet RUNNING) | running | finished | unschedulable (never fits: refused)
  std::string status = "queued";
  bool ended() const { return status == "finished" || status == "unschedulable"; }  // for good: ran or refused
  // The manager's last word for it, as the manager says it (logs; jobs.csv's slurm_state column, kept by that
  // name). Whether a final state is a success is the backend's to say (Backend::completed).
  std::string manager_state;
  std::vector<std::string> nodes; // where it was placed
  std::vector<GpuRef> gpus;       // the policy's GPUs for it (counts per node are what the manager enforces)
  double submit_s = 0;            // epoch seconds
  double started_s = -1;          // epoch seconds of the current start (release, then the manager's start time)
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
  int cpus = 1;                   // CPUs the manager reports for it (at least one per node)
  double mem_mb = 0;              // memory per node (0: none asked)
  double slowdown = -1;           // last rate given to on_rate
  std::string why;                // unschedulable: why; queued: why it waits (status, `ringmaster status`)
  // Queued but not offered to the policy (a dependency not met, a back-off after a start that did not happen):
  // why, or "" when it is offered. Such a job holds no GPU.
  std::string blocked;
  std::string manager_reason;     // the manager's last reason for a pending job (Slurm: Dependency, Resources, ...)
  int start_timeouts = 0;         // releases that did not start within the bound
  double retry_after_s = -1;      // epoch seconds before which it is not offered again (after a start timeout)
  bool preempt_failed = false;    // a preemption of it failed (said once)
  bool overran = false;           // ran past its hinted duration: re-keyed from its run time (said once)
};

// What the policy sees at one instant: the backend's book of GPUs and its unfinished jobs in submit order.
struct Observation {
  Time now = 0;
  const Cluster* cluster = nullptr;
  std::vector<const JobState*> active;
  int queued = 0, running = 0;
};

// A job to submit (replay): the manager runs `command` in `workdir` with the hints ringmaster reads.
struct Submission {
  std::string name, hints, workdir, output, command;
  int gpus = 1;
};

// What a run's outputs cover when it is not every adopted job (replay: the jobs it submitted).
struct OutputScope {
  // The run's own jobs; the others are foreign: scheduled alongside, left out of jobs.csv, runs.csv and the
  // summary's job figures, and counted in summary.json's `foreign_jobs`.
  std::function<bool(const LiveJob&)> own;
  // Jobs of the run that were never submitted because they cannot run here: jobs.csv rows `unschedulable`.
  std::vector<Unschedulable> not_submitted;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // The cluster manager by name, for the log ("Slurm": "Slurm unreachable", "Slurm answers again").
  virtual std::string manager() const = 0;
  // Checks the options, reaches the manager, reads the cluster and recovers the state a previous run persisted.
  // Throws InputError (bad options, a foreign or corrupt state) or BackendError (no answer).
  virtual void connect(double now_s) = 0;
  // "partition rm, 4 nodes": where it schedules, for the log.
  virtual std::string describe() const = 0;
  virtual const ClusterSpec& cluster() const = 0;
  // The adopted jobs, id = index, with their views (finished ones too: a learning policy is taught them).
  virtual const std::deque<LiveJob>& jobs() const = 0;
  virtual const std::deque<JobState>& views() const = 0;
  // Observe the cluster and refresh the views (adopting new jobs, noticing ends). Throws BackendError.
  virtual Observation observe(double now_s) = 0;
  // Apply what the policy decided on the last observation; decision_us is what deciding took.
  virtual void apply(const Decisions& d, double now_s, float decision_us) = 0;
  // End of a step: its series row and the state, persisted.
  virtual void persist(double now_s) = 0;
  // jobs.csv, summary.json, timeseries.csv and runs.csv of the adopted jobs, as `simulate` writes them; with a
  // scope (replay's), only its jobs (OutputScope).
  virtual void write_outputs(const std::string& dir, const std::string& scheduler_name,
                             const OutputScope* scope = nullptr) const = 0;
  virtual std::string state_dir() const = 0;
  virtual const std::vector<float>& decision_us() const = 0;
  // Submit a job (replay); returns the manager's id. A backend that cannot submit throws InputError.
  virtual std::int64_t submit(const Submission& s) = 0;
  // Whether `state`, a final state of this backend's manager, is a successful end (Slurm: COMPLETED): the core
  // reads no manager's vocabulary.
  virtual bool completed_state(const std::string& state) const = 0;
  bool completed(const LiveJob& j) const { return j.status == "finished" && completed_state(j.manager_state); }
  // Uninstall (`serve --release-all`, after connect): every mark the daemon left on its manager's jobs cleared and
  // its held jobs handed back to the manager; returns the jobs released. A backend without a manager to hand
  // jobs back to refuses (InputError).
  virtual int release_all() { throw InputError("--release-all", 0, name(), "has no cluster manager to hand jobs back to"); }
  // The daemon's figures in Prometheus' text format (serve --metrics); manager_up: the last step reached it.
  virtual std::string metrics_text(bool /*manager_up*/) const { return ""; }
};

}  // namespace rm::live
