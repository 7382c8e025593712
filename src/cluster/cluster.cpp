#include "cluster/cluster.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace rm {

int ClusterSpec::total_gpus() const {
  int n = 0;
  for (const auto& s : servers) n += s.gpus;
  return n;
}

Cluster::Cluster(ClusterSpec spec, bool index_by_free)
    : spec_(std::move(spec)), types_(gpu_types_of(spec_)), indexed_(index_by_free) {
  offset_.reserve(spec_.servers.size() + 1);
  for (const auto& s : spec_.servers) {
    offset_.push_back(total_gpus_);
    free_per_server_.push_back(s.gpus);
    free_cpus_.push_back(s.cpus);
    free_mem_.push_back(s.dram_gb);
    free_storage_.push_back(s.storage_mbps);
    total_gpus_ += s.gpus;
  }
  offset_.push_back(total_gpus_);
  for (const auto& s : spec_.servers) cap_.push_back({static_cast<double>(s.cpus), s.dram_gb, s.storage_mbps});
  used_cpus_.assign(spec_.servers.size(), 0.0);
  used_mem_.assign(spec_.servers.size(), 0.0);
  used_storage_.assign(spec_.servers.size(), 0.0);
  owner_.assign(total_gpus_, kNoJob);
  for (const auto& s : spec_.servers) free_gpu_mem_.insert(free_gpu_mem_.end(), s.gpus, s.gpu_mem_gb * 1024.0);
  free_total_ = total_gpus_;
  int most = 0;
  for (const auto& s : spec_.servers) most = std::max(most, s.gpus);
  by_free_.resize(static_cast<std::size_t>(most) + 1);
  for (auto& b : by_free_) b.resize(num_servers());
  for (int s = 0; s < num_servers(); ++s) by_free_[free_per_server_[s]].set(s, true);
}

void Cluster::free_everything() {
  std::fill(owner_.begin(), owner_.end(), kNoJob);
  for (int s = 0; s < num_servers(); ++s) {
    const ServerSpec& sv = spec_.servers[static_cast<std::size_t>(s)];
    if (free_per_server_[s] != sv.gpus) set_free(s, sv.gpus);
    settle_idle(s);
    for (int g = offset_[s]; g < offset_[s + 1]; ++g) free_gpu_mem_[static_cast<std::size_t>(g)] = sv.gpu_mem_gb * 1024.0;
  }
  free_total_ = total_gpus_;
}

void Cluster::refuse_gpu(GpuRef g) const {
  throw InvariantError("GPU " + std::to_string(g.server) + "/" + std::to_string(g.gpu) + " does not exist");
}

void Cluster::refuse_index() const {
  throw InvariantError("this cluster book keeps no index of servers by free GPUs");
}

void Cluster::refuse_take(JobId job, int server) const {
  throw InvariantError("job " + std::to_string(job) + " takes more CPUs, DRAM or storage than server " +
                       std::to_string(server) + " has free (or a share that is not a number >= 0)");
}

void Cluster::refuse_give(JobId job, int server) const {
  throw InvariantError("job " + std::to_string(job) + " gives back more CPUs, DRAM or storage than server " +
                       std::to_string(server) + " has");
}

void Cluster::take_gpu_mem(JobId job, int flat_gpu, double mb) {
  if (flat_gpu < 0 || flat_gpu >= total_gpus_ || !(mb >= 0) || free_gpu_mem_[flat_gpu] < mb)
    throw InvariantError("job " + std::to_string(job) + " takes more memory than GPU " + std::to_string(flat_gpu) +
                         " has free");
  free_gpu_mem_[flat_gpu] -= mb;
}

void Cluster::give_gpu_mem(JobId job, int flat_gpu, double mb) {
  const int s = static_cast<int>(std::upper_bound(offset_.begin(), offset_.end(), flat_gpu) - offset_.begin()) - 1;
  if (flat_gpu < 0 || flat_gpu >= total_gpus_ || free_gpu_mem_[flat_gpu] + mb > spec_.servers[s].gpu_mem_gb * 1024.0 + 1e-6)
    throw InvariantError("job " + std::to_string(job) + " gives back more memory than GPU " + std::to_string(flat_gpu) +
                         " has");
  free_gpu_mem_[flat_gpu] += mb;
}

void Cluster::settle_idle(int server) {
  const ServerSpec& sv = spec_.servers[server];
  if (free_per_server_[server] != sv.gpus)
    throw InvariantError("server " + std::to_string(server) + " settled while a GPU there is held");
  used_cpus_[server] = used_mem_[server] = used_storage_[server] = 0;
  free_cpus_[server] = sv.cpus;
  free_mem_[server] = sv.dram_gb;
  free_storage_[server] = sv.storage_mbps;
}

void Cluster::refuse_allocate(JobId job, const std::vector<GpuRef>& gpus, std::size_t i) {
  const GpuRef bad = gpus[i];
  const JobId holder = owner_[index(bad)];
  for (std::size_t j = 0; j < i; ++j) {  // roll back so the cluster stays consistent
    owner_[index(gpus[j])] = kNoJob;
    set_free(gpus[j].server, free_per_server_[gpus[j].server] + 1);
    ++free_total_;
  }
  throw InvariantError("GPU " + std::to_string(bad.server) + "/" + std::to_string(bad.gpu) +
                       " double-booked: held by job " + std::to_string(holder) + ", asked for by job " +
                       std::to_string(job));
}

void Cluster::refuse_release(JobId job, GpuRef g) const {
  throw InvariantError("job " + std::to_string(job) + " releases GPU " + std::to_string(g.server) + "/" +
                       std::to_string(g.gpu) + " it does not hold");
}

}  // namespace rm
