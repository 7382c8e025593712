// The task model's state and its step (spec contention-and-sjf-bco.md A.11; Wang et al. 2020): the jobs, the
// GPUs' task queues (gpu_tasks.*), the NICs' flows (flow_network.*), the queue of jobs waiting for a placement,
// and the phases of one instant in the authors' order: P1 retire tasks and all-reduces, P2 release finished jobs'
// memory, P3 admit arrivals, P4 place the queue, P5 admit all-reduces, P6-P7 re-rate flows, P8 give idle GPUs
// their next task; then, by default, the fast-forward (fast_forward.*). The plugins decide through the view
// (policy_view.h). The clock that picks the instants, and the results, are the model's (task_model.*).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "cluster/cluster.h"
#include "models/task/fast_forward.h"
#include "models/task/flow_network.h"
#include "models/task/gpu_tasks.h"
#include "models/task/policy_view.h"
#include "models/task/task_job.h"
#include "models/task/task_time.h"
#include "policy/task/task_plugin.h"
#include "workload/job.h"

namespace rm {

class TaskStep {
 public:
  using Ns = std::int64_t;
  // Throws InputError if a job cannot run in this model (compat needs whole milliseconds). `fast_forward`:
  // jump over steady states where the admission rule allows it (never under compat).
  TaskStep(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, task::TaskPolicy& policy, bool compat,
           bool fast_forward);
  TaskStep(const TaskStep&) = delete;  // the plugins' view and the fast-forward refer to its members
  TaskStep& operator=(const TaskStep&) = delete;

  void bind(Cluster& book) { book_ = &book; }
  // The engine handed over job `id`; it must be the next in arrival order (ids are that order).
  void deliver(std::size_t id);
  void step(Ns t);  // one instant; changed() says whether anything happened in it

  bool changed() const { return changed_; }
  // The next task's or flow's end; the next delivered job to join the queue; the next job to arrive at all.
  Ns next_end() const {
    Ns t = gpu_.next_end(task_time::kNever);
    for (int id : comm_) t = std::min(t, jobs_[id].flow.end_ns);
    return t;
  }
  Ns next_delivered_arrival() const {
    return next_arrival_ < delivered_ ? jobs_[next_arrival_].arrival : task_time::kNever;
  }
  Ns next_arrival() const { return next_arrival_ < jobs_.size() ? jobs_[next_arrival_].arrival : task_time::kNever; }

  const std::vector<TaskJob>& jobs() const { return jobs_; }
  const GpuTasks& gpus() const { return gpu_; }
  const FlowNetwork& net() const { return net_; }
  const Cluster& book() const { return *book_; }
  struct Counts {
    int queued = 0, running = 0;
    std::int64_t released = 0, events = 0, max_sharing = 0;  // most jobs ever on one GPU
  };
  Counts counts() const {
    return {static_cast<int>(queue_.size()), static_cast<int>(running_.size()), released_, events_, max_sharing_};
  }
  const FastForward* fast_forward() const { return ff_ ? &*ff_ : nullptr; }

 private:
  // step's phases, in order
  void retire(Ns t);
  void release_finished();
  void admit_arrivals(Ns t);
  void place_queue(Ns t);
  void admit_flows(Ns t);
  void rerate_flows(Ns t);
  void dispatch_idle(Ns t);
  // what they do to a job or a GPU
  void retire_gpu(int g);
  void sync(TaskJob& j, Ns t);
  void release(TaskJob& j);
  bool try_place(TaskJob& j, Ns t);
  void start_flow(TaskJob& j, Ns t);
  void dispatch(int g, Ns t);
  void set_ready(TaskJob& j, bool on);
  void insert_by_seq(std::vector<int>& list, const TaskJob& j);
  bool frozen(int id, Ns t) const { return ff_ && ff_->frozen(id, t); }
  // Default mode's exact bookkeeping (compat keeps the authors' float sums).
  void add_exact(double& shown, std::int64_t& exact, double ms, std::int64_t ns) const {
    task_time::add(compat_, shown, exact, ms, ns);
  }

  bool compat_;
  task::TaskPolicy& policy_;
  double lwf_beta_ = 0;
  Cluster* book_ = nullptr;  // the engine's cluster book: GPU memory, shared by the jobs placed on a GPU
  GpuTasks gpu_;     // the GPUs: who is placed on each, the task each runs, the ends
  FlowNetwork net_;  // the all-reduces' flows on the NICs and their law
  std::vector<TaskJob> jobs_;  // in arrival order (= JobSpec order)

  std::vector<int> queue_, running_, ready_, comm_;
  std::vector<int> single_ready_;  // default mode: single-server jobs whose workers all wait
  std::size_t next_arrival_ = 0, delivered_ = 0;  // jobs admitted, and handed over by the engine
  std::int64_t seq_ = 0, released_ = 0, unreleased_finished_ = 0;
  bool queue_sorted_ = true, changed_ = false, new_ready_ = false;
  std::uint64_t mem_version_ = 0, wl_version_ = 0, placed_at_version_ = ~std::uint64_t{0};
  std::uint64_t placed_at_wl_ = ~std::uint64_t{0};
  std::vector<int> chosen_, cands_, scratch_;
  Ns now_ = 0;  // the instant being simulated
  std::int64_t events_ = 0, max_sharing_ = 0;
  std::optional<FastForward> ff_;
  // What the plugins see (last: it refers to the members above).
  PolicyView<TaskJob> view_{{gpu_, net_, book_, jobs_, mem_version_, wl_version_, now_, compat_}};
};

}  // namespace rm
