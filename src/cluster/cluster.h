// The cluster: servers with capacities, and who holds which GPU. Refuses to double-book.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cluster/gpu_types.h"

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

// A set of server indexes as bits: next(from) is the smallest member >= from (or the set's size if none), and
// next_absent(from) the smallest non-member. A summary level (a bit per word: it has a member; it is all members)
// skips 4,096 servers per word read, so a search over an empty or a full set of 12,500 servers reads 4 words, not
// 196 (the round model's consolidated placement asks each GPU count's set in turn for every job, at every round).
class ServerBits {
 public:
  void resize(int n) {
    n_ = n;
    words_.assign((static_cast<std::size_t>(n) + 63) / 64, 0);
    any_.assign((words_.size() + 63) / 64, 0);
    all_.assign(any_.size(), 0);
  }
  void set(int s, bool on) {
    const std::size_t w = static_cast<std::size_t>(s) >> 6;
    if (on) words_[w] |= std::uint64_t{1} << (s & 63);
    else words_[w] &= ~(std::uint64_t{1} << (s & 63));
    mark(any_, w, words_[w] != 0);
    mark(all_, w, words_[w] == ~std::uint64_t{0});
  }
  bool has(int s) const { return (words_[s >> 6] >> (s & 63)) & 1; }
  // The smallest non-member >= from (or the size).
  int next_absent(int from) const {
    if (from >= n_) return n_;
    std::size_t w = static_cast<std::size_t>(from) >> 6;
    std::uint64_t bits = ~words_[w] & (~std::uint64_t{0} << (from & 63));
    if (bits == 0) {
      w = next_word(all_, w + 1, true);
      if (w >= words_.size()) return n_;
      bits = ~words_[w];
    }
    return std::min(n_, static_cast<int>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))));
  }
  int next(int from) const {
    if (from >= n_) return n_;
    std::size_t w = static_cast<std::size_t>(from) >> 6;
    std::uint64_t bits = words_[w] & (~std::uint64_t{0} << (from & 63));
    if (bits == 0) {
      w = next_word(any_, w + 1, false);
      if (w >= words_.size()) return n_;
      bits = words_[w];
    }
    return static_cast<int>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
  }

 private:
  static void mark(std::vector<std::uint64_t>& sum, std::size_t w, bool on) {
    if (on) sum[w >> 6] |= std::uint64_t{1} << (w & 63);
    else sum[w >> 6] &= ~(std::uint64_t{1} << (w & 63));
  }
  // The first word >= w whose summary bit is set (clear, with `clear`); beyond the words if none.
  static std::size_t next_word(const std::vector<std::uint64_t>& sum, std::size_t w, bool clear) {
    std::size_t k = w >> 6;
    if (k >= sum.size()) return ~std::size_t{0};
    std::uint64_t bits = (clear ? ~sum[k] : sum[k]) & (~std::uint64_t{0} << (w & 63));
    while (bits == 0) {
      if (++k >= sum.size()) return ~std::size_t{0};
      bits = clear ? ~sum[k] : sum[k];
    }
    return k * 64 + static_cast<std::size_t>(__builtin_ctzll(bits));
  }

  int n_ = 0;
  std::vector<std::uint64_t> words_;
  std::vector<std::uint64_t> any_, all_;  // per word of words_: it is not empty; it is full
};

// The one cluster book, for every execution model and backend: who holds each GPU (at most one job: the rate,
// graph and round models, the live backends), CPUs, DRAM and storage held per server, and GPU memory per GPU
// for models that share a GPU among jobs by memory (the task model). Refuses to double-book.
class Cluster {
 public:
  // `index_by_free`: keep the servers-by-free-GPUs index (servers_with_free) that the job-level placements
  // search; a book whose users never ask (the round model) skips its upkeep on every take and give.
  explicit Cluster(ClusterSpec spec, bool index_by_free = true);

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
  // The servers with exactly c free GPUs, c = 0 .. the most GPUs of a server (placements find the first
  // server with a free GPU, or the fullest that holds n, without a walk over every server).
  const ServerBits& servers_with_free(int c) const {
    if (!indexed_) refuse_index();
    return by_free_[c];
  }
  int max_server_gpus() const { return static_cast<int>(by_free_.size()) - 1; }
  // The cluster's GPU types (a job's GPUs are all of one type: placements never mix them).
  const GpuTypes& types() const { return types_; }

  // Throws InvariantError if any GPU is already owned (no double-booking) or out of range.
  void allocate(JobId job, const std::vector<GpuRef>& gpus) {
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      const int k = index(gpus[i]);
      if (owner_[k] != kNoJob) refuse_allocate(job, gpus, i);
      owner_[k] = job;
      set_free(gpus[i].server, free_per_server_[gpus[i].server] - 1);
      --free_total_;
    }
  }
  // One GPU at a time (a caller that walks its own list): the same checks, no rollback of earlier takes.
  void take_gpu(JobId job, GpuRef g) {
    const int k = index(g);
    if (owner_[k] != kNoJob) refuse_allocate(job, {g}, 0);
    owner_[k] = job;
    set_free(g.server, free_per_server_[g.server] - 1);
    --free_total_;
  }
  void give_gpu(JobId job, GpuRef g) {
    const int k = index(g);
    if (owner_[k] != job) refuse_release(job, g);
    owner_[k] = kNoJob;
    set_free(g.server, free_per_server_[g.server] + 1);
    ++free_total_;
  }
  // Throws InvariantError if a GPU is not owned by this job.
  void release(JobId job, const std::vector<GpuRef>& gpus) {
    for (const auto& g : gpus) give_gpu(job, g);
  }
  // CPU cores and DRAM GB: free per server; taking more than is free, or giving back more than the server
  // has, throws InvariantError.
  double free_cpus(int server) const { return free_cpus_[server]; }
  double free_mem_gb(int server) const { return free_mem_[server]; }
  void take_shares(JobId job, const std::vector<ServerShare>& shares) {
    for (const auto& sh : shares) take_share(job, sh.server, sh.cpus, sh.mem_gb, 0);
  }
  void give_shares(JobId job, const std::vector<ServerShare>& shares) {
    for (const auto& sh : shares) give_share(job, sh.server, sh.cpus, sh.mem_gb, 0);
  }
  // Storage bandwidth MB/s free per server (the round model books it beside CPUs and DRAM, spec S.1).
  double free_storage(int server) const { return free_storage_[server]; }
  // One server's CPUs, DRAM and storage at once.
  void take_share(JobId job, int s, double cpus, double mem, double storage) {
    constexpr double eps = 1e-9;
    if (s < 0 || s >= num_servers() || !(cpus >= 0) || !(mem >= 0) || !(storage >= 0) ||
        cpus > free_cpus_[s] + eps || mem > free_mem_[s] + eps || storage > free_storage_[s] + eps)
      refuse_take(job, s);
    used_cpus_[s] += cpus;
    used_mem_[s] += mem;
    used_storage_[s] += storage;
    set_free_shares(s);
  }
  void give_share(JobId job, int s, double cpus, double mem, double storage) {
    constexpr double eps = 1e-6;
    if (s < 0 || s >= num_servers() || used_cpus_[s] - cpus < -eps || used_mem_[s] - mem < -eps ||
        used_storage_[s] - storage < -eps)
      refuse_give(job, s);
    used_cpus_[s] -= cpus;
    used_mem_[s] -= mem;
    used_storage_[s] -= storage;
    set_free_shares(s);
  }
  // GPU memory MB free per GPU, for models that share a GPU among jobs by memory (the task model: a job takes
  // its memory on each GPU it is placed on; exclusive ownership above is not used there). GPU g of server s
  // is entry gpu_offsets()[s] + g. Taking more than is free, or giving back more than the GPU has, throws.
  const std::vector<double>& free_gpu_mem_mb() const { return free_gpu_mem_; }
  void take_gpu_mem(JobId job, int flat_gpu, double mb);
  void give_gpu_mem(JobId job, int flat_gpu, double mb);
  // Server s holds no job's GPU: its free CPUs, DRAM and storage become its capacity exactly (drops the
  // rounding drift that shares which are not dyadic fractions leave). Throws InvariantError if a GPU is held.
  void settle_idle(int server);
  // Every GPU, CPU, DRAM, storage and GPU memory share given back at once: the state of a new book, as if each holder
  // had given its own back (the round model's boundary, where every lease ends). O(GPUs + servers), no checks.
  void free_everything();

 private:
  int index(GpuRef g) const {
    if (g.server < 0 || g.server >= num_servers() || g.gpu < 0 || offset_[g.server] + g.gpu >= offset_[g.server + 1])
      refuse_gpu(g);
    return offset_[g.server] + g.gpu;
  }
  void set_free(int server, int n) {
    if (indexed_) {
      by_free_[free_per_server_[server]].set(server, false);
      by_free_[n].set(server, true);
    }
    free_per_server_[server] = n;
  }
  void set_free_shares(int s) {  // free = capacity - held, from the sums
    free_cpus_[s] = cap_[s][0] - used_cpus_[s];
    free_mem_[s] = cap_[s][1] - used_mem_[s];
    free_storage_[s] = cap_[s][2] - used_storage_[s];
  }
  // The error paths (out of line: the paths above stay small enough to inline).
  [[noreturn, gnu::cold]] void refuse_gpu(GpuRef g) const;
  [[noreturn, gnu::cold]] void refuse_index() const;
  [[noreturn, gnu::cold]] void refuse_allocate(JobId job, const std::vector<GpuRef>& gpus, std::size_t i);
  [[noreturn, gnu::cold]] void refuse_release(JobId job, GpuRef g) const;
  [[noreturn, gnu::cold]] void refuse_take(JobId job, int server) const;
  [[noreturn, gnu::cold]] void refuse_give(JobId job, int server) const;
  ClusterSpec spec_;
  GpuTypes types_;
  std::vector<ServerBits> by_free_;
  bool indexed_ = true;
  std::vector<int> offset_;
  std::vector<JobId> owner_;
  std::vector<int> free_per_server_;
  // CPUs, DRAM and storage held per server (the sums of the shares taken) and free = capacity - held, kept
  // beside them: free is computed from the sum, never by adding and subtracting shares from it.
  std::vector<double> used_cpus_, used_mem_, used_storage_, free_cpus_, free_mem_, free_storage_;
  std::vector<double> free_gpu_mem_;  // MB, per GPU (flat)
  std::vector<std::array<double, 3>> cap_;  // CPUs, DRAM GB, storage MB/s per server (the spec's, compact)
  int total_gpus_ = 0;
  int free_total_ = 0;
};

}  // namespace rm
