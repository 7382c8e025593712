// The task model's GPUs (spec A.6, A.11 items 8 and 15): each GPU is shared by the workers placed on it (in
// placement order) and runs one task at a time; the policies see each GPU's workload (task::TGpu). This unit keeps
// the GPUs as the policies see them, who is placed on each, the task each runs and until when (a min-heap of ends),
// and the GPUs to offer a task next (dirty); the task model (task_step.h) decides which task a GPU runs. The
// calls made per task are inline (out of line they cost the task model a few per cent; docs/performance.md).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "cluster/cluster.h"
#include "models/task/task_time.h"
#include "sched/task_view.h"

namespace rm {

class GpuTasks {
 public:
  using Ns = std::int64_t;  // the task model's time: whole nanoseconds
  struct Gpu {
    bool busy = false, dirty = false;
    Ns end = 0;                             // the running task's end
    int job = -1, worker = -1;              // the running task's
    std::vector<std::pair<int, int>> jobs;  // (job, worker) placed here, in placement order
    double active = 0;                      // busy time (ms)
    std::int64_t wl_ns = 0, active_ns = 0;  // default mode: workload (shown in TGpu) and busy time, exact
    Ns busy_since = 0;                      // start of its current run of back-to-back tasks
  };

  // `compat`: the authors' float sums (--compat wang2020); else exact nanoseconds.
  GpuTasks(const ClusterSpec& cluster, bool compat);

  int count() const { return static_cast<int>(views_.size()); }
  int servers() const { return static_cast<int>(on_server_.size()); }
  int max_server_gpus() const { return max_server_gpus_; }
  const std::vector<task::TGpu>& views() const { return views_; }  // what the policies see
  const std::vector<int>& on_server(int s) const { return on_server_[static_cast<std::size_t>(s)]; }
  const Gpu& at(int g) const { return gpus_[static_cast<std::size_t>(g)]; }
  Gpu& at(int g) { return gpus_[static_cast<std::size_t>(g)]; }

  // g's workload (what LWF reads) and busy time, by ms (compat) or ns (default).
  void add_workload(int g, double ms, std::int64_t ns) {
    task_time::add(compat_, views_[static_cast<std::size_t>(g)].workload, at(g).wl_ns, ms, ns);
  }
  void add_active(int g, double ms, std::int64_t ns) { task_time::add(compat_, at(g).active, at(g).active_ns, ms, ns); }
  // Worker `worker` of `job` placed on (released from) g; place returns how many share g now.
  std::size_t place(int g, int job, int worker);
  void release(int g, int job, int worker);
  // g runs the task of (job, worker) from t for dur (ms) / dur_ns.
  void run(int g, int job, int worker, Ns t, double dur, Ns dur_ns) {
    Gpu& r = at(g);
    r.busy = true;
    r.job = job;
    r.worker = worker;
    if (r.end != t) r.busy_since = t;  // it idled since its last task ended
    r.end = t + dur_ns;
    add_active(g, dur, dur_ns);
    ends_.emplace_back(r.end, g);
    std::push_heap(ends_.begin(), ends_.end(), Later{});
  }
  // The next GPU whose task ends by t (it stops being busy and is offered a task again), or -1.
  int pop_ended(Ns t) {
    if (ends_.empty() || ends_.front().first > t) return -1;
    const int g = ends_.front().second;
    std::pop_heap(ends_.begin(), ends_.end(), Later{});
    ends_.pop_back();
    at(g).busy = false;
    mark_dirty(g);
    return g;
  }
  Ns next_end(Ns none) const { return ends_.empty() ? none : ends_.front().first; }
  // g is offered a task at the next dispatch; take_dirty hands them over in id order.
  void mark_dirty(int g) {
    Gpu& r = at(g);
    if (!r.dirty) {
      r.dirty = true;
      dirty_.push_back(g);
    }
  }
  bool any_dirty() const { return !dirty_.empty(); }
  void take_dirty(std::vector<int>& out);
  // After a fast-forward moved busy GPUs' ends: the heap re-timed in linear time.
  void retime_ends();
  int busy_count() const;
  double active_ms() const;

 private:
  struct Later {  // a min-heap of (end, GPU) with the std heap functions, so a jump can re-time it in place
    bool operator()(const std::pair<Ns, int>& a, const std::pair<Ns, int>& b) const {
      return a.first > b.first || (a.first == b.first && a.second > b.second);
    }
  };
  bool compat_ = false;
  int max_server_gpus_ = 0;
  std::vector<task::TGpu> views_;
  std::vector<Gpu> gpus_;
  std::vector<std::vector<int>> on_server_;
  std::vector<std::pair<Ns, int>> ends_;
  std::vector<int> dirty_;
};

}  // namespace rm
