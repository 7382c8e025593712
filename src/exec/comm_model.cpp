#include "exec/comm_model.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "core/error.h"
#include "workload/job_graph_map.h"

namespace rm {


double ring_allreduce_s(double grad_mb, int n, double gbps, double latency_us) {
  if (n <= 1 || std::isinf(gbps)) return 0.0;
  const double bits = grad_mb * 8e6;
  return 2.0 * (n - 1) / n * bits / (gbps * 1e9) + 2.0 * (n - 1) * latency_us * 1e-6;
}

Span span_of(const std::vector<GpuRef>& gpus) {
  Span s;
  span_into(gpus, s);
  return s;
}

void span_into(const std::vector<GpuRef>& gpus, Span& s) {
  s.servers.clear();
  s.gpus_on.clear();
  for (const auto& g : gpus) {
    auto it = std::lower_bound(s.servers.begin(), s.servers.end(), g.server);
    const auto i = it - s.servers.begin();
    if (it == s.servers.end() || *it != g.server) {
      s.servers.insert(it, g.server);
      s.gpus_on.insert(s.gpus_on.begin() + i, 1);
    } else {
      ++s.gpus_on[i];
    }
  }
}

double rack_oversubscription(const ClusterSpec& cluster, int rack) {
  return rack >= 0 && rack < static_cast<int>(cluster.racks.size()) ? cluster.racks[rack].oversubscription : 1.0;
}

bool crosses_oversubscribed_racks(const ClusterSpec& cluster, const Span& span) {
  if (span.servers.size() <= 1) return false;
  const int r0 = cluster.servers[span.servers.front()].rack;
  bool two = false, over = false;
  for (int s : span.servers) {
    const int r = cluster.servers[s].rack;
    two = two || r != r0;
    over = over || rack_oversubscription(cluster, r) > 1;
  }
  return two && over;
}

double iteration_time_s(const JobSpec& job, const ClusterSpec& cluster, const Span& span,
                        const std::function<int(int)>& k_of, const std::function<int(int)>& rack_k) {
  double speed = 1e300;
  for (int s : span.servers) speed = std::min(speed, cluster.servers[s].gpu_speed);
  const double compute = job.compute_s / speed;
  const int n = job.num_gpus;
  if (span.servers.size() <= 1) {
    const double intra = cluster.servers[span.servers.at(0)].intra_gbps;
    return compute + ring_allreduce_s(job.grad_mb, n, intra, cluster.network.latency_us);
  }
  double bw = 1e300;
  const double a = cluster.network.contention_a;
  for (int s : span.servers) bw = std::min(bw, cluster.servers[s].nic_gbps * contention_share(k_of(s), a));
  if (crosses_oversubscribed_racks(cluster, span))
    for (int s : span.servers) {
      const int r = cluster.servers[s].rack;
      bw = std::min(bw, cluster.servers[s].nic_gbps / rack_oversubscription(cluster, r) *
                            contention_share(rack_k ? rack_k(r) : 1, a));
    }
  return compute + ring_allreduce_s(job.grad_mb, n, bw, cluster.network.latency_us);
}

namespace {

double bytes_per_s(double gbps) { return gbps * 1e9 / 8; }

}  // namespace

double graph_iteration_time_s(const JobSpec& job, const JobGraph& g, const ClusterSpec& cluster,
                              const std::vector<GpuRef>& gpus) {
  double speed = 1e300, b_in = 1e300, b_out = 1e300;
  std::vector<int> server_of(gpus.size());
  for (std::size_t v = 0; v < gpus.size(); ++v) {
    const ServerSpec& s = cluster.servers[gpus[v].server];
    server_of[v] = gpus[v].server;
    speed = std::min(speed, s.gpu_speed);
    b_in = std::min(b_in, bytes_per_s(s.intra_gbps));
    b_out = std::min(b_out, bytes_per_s(s.nic_gbps));
  }
  return alpha_s(g, server_of, b_in, b_out) - g.compute_s + job.compute_s / speed;
}

double graph_cut_bytes(const JobGraph& g, const std::vector<GpuRef>& gpus) {
  double s = 0;
  for (const auto& e : g.edges)
    if (gpus[e.u].server != gpus[e.v].server) s += e.bytes;
  return s;
}

AlphaBounds graph_alpha_bounds(const JobSpec& job, const JobGraph& g, const ClusterSpec& cluster) {
  const ServerSpec* best = &cluster.servers.at(0);
  double speed = 0, nic = 1e300;
  for (const auto& s : cluster.servers) {
    if (s.gpus > best->gpus) best = &s;
    speed = std::max(speed, s.gpu_speed);
    nic = std::min(nic, s.nic_gbps);
  }
  AlphaBounds b;
  const double compute = job.compute_s / speed - g.compute_s;
  b.max_s = alpha_max_s(g, bytes_per_s(nic)) + compute;
  const int n = g.size(), per = std::max(1, best->gpus);
  std::vector<std::vector<int>> free((n + per - 1) / per, std::vector<int>(per));
  for (auto& f : free)
    for (int i = 0; i < per; ++i) f[i] = i;
  const auto m = map_place(g, free);
  std::vector<int> server_of;
  for (const auto& x : m->gpus) server_of.push_back(x.server);
  b.min_s = alpha_s(g, server_of, bytes_per_s(best->intra_gbps), bytes_per_s(best->nic_gbps)) + compute;
  return b;
}

IdealLaw::IdealLaw(const ClusterSpec& cluster, const std::string& type) : cluster_(&cluster), best_(nullptr) {
  const std::string& want = type.empty() ? cluster.servers.at(0).gpu_type : type;
  for (const auto& s : cluster.servers) {
    if (s.gpu_type != want) continue;
    if (!best_ || s.gpus > best_->gpus) best_ = &s;
    max_speed_ = std::max(max_speed_, s.gpu_speed);
  }
  if (!best_) throw InputError("--trace-gpu-type", 0, want, "the cluster has no GPUs of this type");
}

double IdealLaw::comm_s(const JobSpec& job) const {
  if (is_mixed_parallel(job)) {
    const JobGraph g = job_graph_of(job);
    return graph_alpha_bounds(job, g, *cluster_).min_s - job.compute_s / max_speed_;
  }
  const double gbps = job.num_gpus <= best_->gpus ? best_->intra_gbps : best_->nic_gbps;
  return ring_allreduce_s(job.grad_mb, job.num_gpus, gbps, cluster_->network.latency_us);
}

double ideal_comm_s(const JobSpec& job, const ClusterSpec& cluster) { return IdealLaw(cluster).comm_s(job); }

double ideal_iteration_time_s(const JobSpec& job, const ClusterSpec& cluster) {
  return IdealLaw(cluster).iteration_s(job);
}

IdealTimes ideal_times(const std::string& type) {
  return {[type](const ClusterSpec& c) {
    const auto law = std::make_shared<IdealLaw>(c, type);
    return BoundIdealTimes{[law](const JobSpec& j) { return law->comm_s(j); },
                           [law](const JobSpec& j) { return law->iteration_s(j); }};
  }};
}
}  // namespace rm
