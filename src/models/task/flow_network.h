// The task model's network (spec A.6; Wang et al. 2020): an all-reduce of a job that spans servers is one flow on
// the NIC of every server it uses, progressing at 1 / (k beta + (k-1) eta) MB/ms with k the flow count on the
// job's busiest NIC (A.11 item 19). This unit keeps the flows per NIC, the split jobs per server and the law; the
// task model (task_step.h) decides when a flow starts, and reads when it ends.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cluster/cluster.h"
#include "models/task/task_time.h"
#include "sched/task_view.h"

namespace rm {

class FlowNetwork {
 public:
  using Ns = std::int64_t;  // the task model's time: whole nanoseconds
  // The law's beta and eta: the network's, else 1 MB over the slowest NIC and eta = contention_a x beta.
  // `compat`: the authors' float flow ends (--compat wang2020); else ends rounded to the nanosecond.
  FlowNetwork(const ClusterSpec& cluster, bool compat);

  double beta() const { return beta_; }
  double eta() const { return eta_; }
  const std::vector<int>& flows_on(int server) const { return flows_[static_cast<std::size_t>(server)]; }
  int split_jobs(int server) const { return split_[static_cast<std::size_t>(server)]; }
  std::int64_t max_flows() const { return max_flows_; }  // most flows ever on one NIC
  bool idle() const;                                     // no flow on any NIC

  // A job placed on (released from) `servers`: with more than one, it is split on each of them.
  void place(const std::vector<int>& servers);
  void release(const std::vector<int>& servers);
  // Job `job`'s all-reduce of `size_mb` starts at t on `servers` (its flow x; the authors' placeholder speed,
  // re-rated before anything uses it).
  void start(task::TFlow& x, int job, double size_mb, const std::vector<int>& servers, Ns t);
  // x's transfer brought up to t and re-rated by the flows now on its busiest NIC (A.11 item 19, as exact double
  // expressions: compat's times are whole ms, so t - last is exact in both modes; default mode rounds the end to
  // the nanosecond). Inline: compat re-rates every flow at every 1-ms step.
  void rerate(task::TFlow& x, const std::vector<int>& servers, Ns t) const {
    int k = 0;
    for (int s : servers) k = std::max(k, static_cast<int>(flows_[static_cast<std::size_t>(s)].size()));
    x.transferred = x.transferred + task_time::ms_from(t - x.last_ns) * x.speed;
    const double rest = x.size - x.transferred;
    const double kd = static_cast<double>(k);
    x.speed = 1.0 / ((kd - 1.0) * eta_ + beta_ * kd);
    if (compat_) {
      x.end = task_time::ms_from(t) + rest / x.speed;
      x.end_ns = task_time::ns_of(x.end);
    } else {
      x.end_ns = t + std::max<Ns>(0, task_time::ns_of(rest / x.speed));
      x.end = task_time::ms_from(x.end_ns);
    }
    x.last_ns = t;
  }
  // What x has left to send at `now` (mutating: the authors' get_rest_size, which stores the progress but leaves
  // the last re-rate's time alone).
  double rest(task::TFlow& x, Ns now, bool mutating) const;
  // Every flow, NIC by NIC in server order, each NIC's in start order (the order its ends are taken in).
  template <class F>
  void for_each_flow(F&& f) const {
    for (const auto& on : flows_)
      for (int id : on) f(id);
  }
  // Drops the flows of the jobs `done` says have finished their all-reduce.
  template <class F>
  void drop_if(F&& done) {
    for (auto& on : flows_) on.erase(std::remove_if(on.begin(), on.end(), done), on.end());
    changed_ = true;
  }
  // Whether a flow started or ended since the last clear_changed() (the flows then need re-rating).
  bool changed() const { return changed_; }
  void clear_changed() { changed_ = false; }

 private:
  bool compat_ = false;
  double beta_ = 0, eta_ = 0;
  std::vector<std::vector<int>> flows_;  // per server: the jobs whose flow is on its NIC, in start order
  std::vector<int> split_;               // per server: placed multi-server jobs
  std::int64_t max_flows_ = 0;
  bool changed_ = false;
};

}  // namespace rm
