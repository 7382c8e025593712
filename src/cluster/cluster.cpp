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

Cluster::Cluster(ClusterSpec spec) : spec_(std::move(spec)) {
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

void Cluster::set_free(int server, int n) {
  by_free_[free_per_server_[server]].set(server, false);
  free_per_server_[server] = n;
  by_free_[n].set(server, true);
}

int Cluster::index(GpuRef g) const {
  if (g.server < 0 || g.server >= num_servers() || g.gpu < 0 || g.gpu >= spec_.servers[g.server].gpus)
    throw InvariantError("GPU " + std::to_string(g.server) + "/" + std::to_string(g.gpu) +
                         " does not exist");
  return offset_[g.server] + g.gpu;
}

void Cluster::take_shares(JobId job, const std::vector<ServerShare>& shares) {
  constexpr double eps = 1e-9;
  for (const auto& sh : shares) {
    if (sh.server < 0 || sh.server >= num_servers() || !(sh.cpus >= 0) || !(sh.mem_gb >= 0))
      throw InvariantError("job " + std::to_string(job) + ": bad CPU/memory share");
    if (sh.cpus > free_cpus_[sh.server] + eps || sh.mem_gb > free_mem_[sh.server] + eps)
      throw InvariantError("job " + std::to_string(job) + " takes more CPUs or DRAM than server " +
                           std::to_string(sh.server) + " has free");
    used_cpus_[sh.server] += sh.cpus;
    used_mem_[sh.server] += sh.mem_gb;
    free_cpus_[sh.server] = spec_.servers[sh.server].cpus - used_cpus_[sh.server];
    free_mem_[sh.server] = spec_.servers[sh.server].dram_gb - used_mem_[sh.server];
  }
}

void Cluster::give_shares(JobId job, const std::vector<ServerShare>& shares) {
  constexpr double eps = 1e-6;
  for (const auto& sh : shares) {
    if (sh.server < 0 || sh.server >= num_servers() || used_cpus_[sh.server] - sh.cpus < -eps ||
        used_mem_[sh.server] - sh.mem_gb < -eps)
      throw InvariantError("job " + std::to_string(job) + " gives back more CPUs or DRAM than server " +
                           std::to_string(sh.server) + " has");
    used_cpus_[sh.server] -= sh.cpus;
    used_mem_[sh.server] -= sh.mem_gb;
    free_cpus_[sh.server] = spec_.servers[sh.server].cpus - used_cpus_[sh.server];
    free_mem_[sh.server] = spec_.servers[sh.server].dram_gb - used_mem_[sh.server];
  }
}

void Cluster::take_storage(JobId job, int server, double mbps) {
  constexpr double eps = 1e-9;
  if (server < 0 || server >= num_servers() || !(mbps >= 0))
    throw InvariantError("job " + std::to_string(job) + ": bad storage share");
  if (mbps > free_storage_[server] + eps)
    throw InvariantError("job " + std::to_string(job) + " takes more storage bandwidth than server " +
                         std::to_string(server) + " has free");
  used_storage_[server] += mbps;
  free_storage_[server] = spec_.servers[server].storage_mbps - used_storage_[server];
}

void Cluster::give_storage(JobId job, int server, double mbps) {
  constexpr double eps = 1e-6;
  if (used_storage_[server] - mbps < -eps)
    throw InvariantError("job " + std::to_string(job) + " gives back more storage bandwidth than server " +
                         std::to_string(server) + " has");
  used_storage_[server] -= mbps;
  free_storage_[server] = spec_.servers[server].storage_mbps - used_storage_[server];
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

void Cluster::allocate(JobId job, const std::vector<GpuRef>& gpus) {
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const int k = index(gpus[i]);
    if (owner_[k] != kNoJob) {
      for (std::size_t j = 0; j < i; ++j) {  // roll back so the cluster stays consistent
        owner_[index(gpus[j])] = kNoJob;
        set_free(gpus[j].server, free_per_server_[gpus[j].server] + 1);
        ++free_total_;
      }
      throw InvariantError("GPU " + std::to_string(gpus[i].server) + "/" +
                           std::to_string(gpus[i].gpu) + " double-booked: held by job " +
                           std::to_string(owner_[k]) + ", asked for by job " + std::to_string(job));
    }
    owner_[k] = job;
    set_free(gpus[i].server, free_per_server_[gpus[i].server] - 1);
    --free_total_;
  }
}

void Cluster::release(JobId job, const std::vector<GpuRef>& gpus) {
  for (const auto& g : gpus) {
    const int k = index(g);
    if (owner_[k] != job)
      throw InvariantError("job " + std::to_string(job) + " releases GPU " +
                           std::to_string(g.server) + "/" + std::to_string(g.gpu) +
                           " it does not hold");
    owner_[k] = kNoJob;
    set_free(g.server, free_per_server_[g.server] + 1);
    ++free_total_;
  }
}

}  // namespace rm
