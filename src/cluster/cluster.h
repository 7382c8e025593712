// The cluster: servers with capacities, and who holds which GPU. Refuses to double-book.
#pragma once
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace rm {

using JobId = std::int64_t;
inline constexpr JobId kNoJob = -1;

struct GpuRef {
  int server = 0;
  int gpu = 0;  // index within the server
  bool operator==(const GpuRef&) const = default;
};

struct ServerSpec {
  int gpus = 0;
  double gpu_mem_gb = 0;
  int cpus = 0;
  double dram_gb = 0;
  double storage_mbps = 0;
  double nic_gbps = 0;
  // Bandwidth for all-reduce inside one server; infinity = free (no intra-server communication cost).
  double intra_gbps = std::numeric_limits<double>::infinity();
  std::string gpu_type = "default";
  double gpu_speed = 1.0;  // relative compute speed of this server's GPUs
  int rack = 0;
};

struct NetworkSpec {
  // Contention law (DESIGN section 4): k flows on a link each get B / (k + a(k-1)).
  double contention_a = 0.0;
  double latency_us = 0.0;  // per ring step latency
  // Task model (P1's per-MB cost law, spec A.4): all-reduce time per MB alone on a NIC (beta) and the
  // extra per competing flow (eta). 0 = derive: beta = 8 / nic_gbps ms per MB, eta = a * beta.
  double beta_ms_per_mb = 0.0;
  double eta_ms_per_mb = 0.0;
};

struct RackSpec {
  std::string name;
  double oversubscription = 1.0;
};

struct ClusterSpec {
  std::string name;
  NetworkSpec network;
  std::vector<RackSpec> racks;
  std::vector<ServerSpec> servers;
  int total_gpus() const;
};

// CPU cores and DRAM GB a job holds on one server (resource-sensitive allocation; docs/policies.md).
struct ServerShare {
  int server = 0;
  double cpus = 0, mem_gb = 0;
};

// Allocation bookkeeping. Every GPU is owned by at most one job (rate model; GPU sharing by
// memory belongs to the task model, which keeps its own tables).
class Cluster {
 public:
  explicit Cluster(ClusterSpec spec);

  const ClusterSpec& spec() const { return spec_; }
  int num_servers() const { return static_cast<int>(spec_.servers.size()); }
  const ServerSpec& server(int s) const { return spec_.servers[s]; }
  int total_gpus() const { return total_gpus_; }
  int free_gpus() const { return free_total_; }
  int free_gpus(int server) const { return free_per_server_[server]; }
  JobId owner(GpuRef g) const { return owner_[offset_[g.server] + g.gpu]; }
  bool is_free(GpuRef g) const { return owner(g) == kNoJob; }
  // Flat views for scratch copies (FreeMap): GPU g of server s is owners()[gpu_offsets()[s] + g];
  // gpu_offsets() has num_servers() + 1 entries.
  const std::vector<int>& gpu_offsets() const { return offset_; }
  const std::vector<JobId>& owners() const { return owner_; }
  const std::vector<int>& free_gpus_per_server() const { return free_per_server_; }
  const std::vector<double>& free_cpus_per_server() const { return free_cpus_; }
  const std::vector<double>& free_mem_per_server() const { return free_mem_; }

  // Throws InvariantError if any GPU is already owned (no double-booking) or out of range.
  void allocate(JobId job, const std::vector<GpuRef>& gpus);
  // Throws InvariantError if a GPU is not owned by this job.
  void release(JobId job, const std::vector<GpuRef>& gpus);
  // CPU cores and DRAM GB: free per server; taking more than is free, or giving back more than the server
  // has, throws InvariantError.
  double free_cpus(int server) const { return free_cpus_[server]; }
  double free_mem_gb(int server) const { return free_mem_[server]; }
  void take_shares(JobId job, const std::vector<ServerShare>& shares);
  void give_shares(JobId job, const std::vector<ServerShare>& shares);

 private:
  int index(GpuRef g) const;
  ClusterSpec spec_;
  std::vector<int> offset_;
  std::vector<JobId> owner_;
  std::vector<int> free_per_server_;
  std::vector<double> free_cpus_, free_mem_;
  int total_gpus_ = 0;
  int free_total_ = 0;
};

}  // namespace rm
