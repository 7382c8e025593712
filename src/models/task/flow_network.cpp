#include "models/task/flow_network.h"

#include <cmath>
#include <limits>

namespace rm {

using task_time::ms_from;
using task_time::ns_of;

FlowNetwork::FlowNetwork(const ClusterSpec& cluster, bool compat)
    : compat_(compat), flows_(cluster.servers.size()), split_(cluster.servers.size(), 0) {
  double min_nic = std::numeric_limits<double>::infinity();
  for (const auto& s : cluster.servers) min_nic = std::min(min_nic, s.nic_gbps);
  beta_ = cluster.network.beta_ms_per_mb > 0 ? cluster.network.beta_ms_per_mb
                                             : (min_nic > 0 && std::isfinite(min_nic) ? 8.0 / min_nic : 0.8);
  eta_ = cluster.network.eta_ms_per_mb > 0 ? cluster.network.eta_ms_per_mb : cluster.network.contention_a * beta_;
}

bool FlowNetwork::idle() const {
  return std::all_of(flows_.begin(), flows_.end(), [](const std::vector<int>& on) { return on.empty(); });
}

void FlowNetwork::place(const std::vector<int>& servers) {
  if (servers.size() > 1)
    for (int s : servers) ++split_[static_cast<std::size_t>(s)];
}

void FlowNetwork::release(const std::vector<int>& servers) {
  if (servers.size() > 1)
    for (int s : servers) --split_[static_cast<std::size_t>(s)];
}

void FlowNetwork::start(task::TFlow& x, int job, double size_mb, const std::vector<int>& servers, Ns t) {
  x.job = job;
  x.size = size_mb;
  x.transferred = 0;
  x.last_ns = t;
  x.speed = 1.28;  // the authors' placeholder; P7 re-rates before anything uses it
  x.end = ms_from(t) + x.size / 1.28;
  x.end_ns = t + ns_of(x.size / 1.28);
  for (int s : servers) {
    auto& on = flows_[static_cast<std::size_t>(s)];
    on.push_back(job);
    max_flows_ = std::max<std::int64_t>(max_flows_, static_cast<std::int64_t>(on.size()));
  }
  changed_ = true;
}

double FlowNetwork::rest(task::TFlow& x, Ns now, bool mutating) const {
  const double since = ms_from(now - x.last_ns);
  if (mutating) {  // the authors' get_rest_size: stores the progress but leaves `last` alone
    x.transferred += since * x.speed;
    return x.size - x.transferred;
  }
  return x.size - (x.transferred + since * x.speed);
}

}  // namespace rm
