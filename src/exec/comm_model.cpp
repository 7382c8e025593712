#include "exec/comm_model.h"

#include <algorithm>
#include <cmath>

namespace rm {

double ring_allreduce_s(double grad_mb, int n, double gbps, double latency_us) {
  if (n <= 1 || std::isinf(gbps)) return 0.0;
  const double bits = grad_mb * 8e6;
  return 2.0 * (n - 1) / n * bits / (gbps * 1e9) + 2.0 * (n - 1) * latency_us * 1e-6;
}

Span span_of(const std::vector<GpuRef>& gpus) {
  Span s;
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
  return s;
}

double iteration_time_s(const JobSpec& job, const ClusterSpec& cluster, const Span& span,
                        const std::function<int(int)>& k_of) {
  double speed = 1e300;
  for (int s : span.servers) speed = std::min(speed, cluster.servers[s].gpu_speed);
  const double compute = job.compute_s / speed;
  const int n = job.num_gpus;
  if (span.servers.size() <= 1) {
    const double intra = cluster.servers[span.servers.at(0)].intra_gbps;
    return compute + ring_allreduce_s(job.grad_mb, n, intra, cluster.network.latency_us);
  }
  double bw = 1e300;
  for (int s : span.servers)
    bw = std::min(bw, cluster.servers[s].nic_gbps * contention_share(k_of(s), cluster.network.contention_a));
  return compute + ring_allreduce_s(job.grad_mb, n, bw, cluster.network.latency_us);
}

double ideal_comm_s(const JobSpec& job, const ClusterSpec& cluster) {
  const ServerSpec* best = &cluster.servers.at(0);
  for (const auto& s : cluster.servers)
    if (s.gpus > best->gpus) best = &s;
  if (job.num_gpus <= best->gpus)
    return ring_allreduce_s(job.grad_mb, job.num_gpus, best->intra_gbps, cluster.network.latency_us);
  return ring_allreduce_s(job.grad_mb, job.num_gpus, best->nic_gbps, cluster.network.latency_us);
}

double ideal_iteration_time_s(const JobSpec& job, const ClusterSpec& cluster) {
  double speed = 0;
  for (const auto& s : cluster.servers) speed = std::max(speed, s.gpu_speed);
  return job.compute_s / speed + ideal_comm_s(job, cluster);
}

}  // namespace rm
