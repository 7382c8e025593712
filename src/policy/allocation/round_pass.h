// What the allocation plugins see in one scheduling pass of the round model (--exec round; spec
// synergy-and-a-srpt.md S.4, S.6, S.10): the round model's jobs, and a pass over the one cluster book
// (cluster/cluster.h: who holds each GPU, free CPUs, DRAM and storage per server) with the pass's own scratch:
// FIRST_FIT's transient holds and each server's list of the jobs committed there this round (TUNE's peers).
// The mechanisms themselves are the allocation plugins (policy/allocation/{proportional,greedy,tune,opt}.cpp),
// one file each, beside their job-level versions.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "policy/allocation/opt_ilp.h"
#include "sched/job_state.h"
#include "workload/cpu_profiles.h"

namespace rm {
class Allocation;
}  // namespace rm

namespace rm::synergy {

// GPU, CPU cores, DRAM GB, storage MB/s, network Gbps (spec S.1).
using Vec = std::array<double, 5>;
enum Dim { kGpu = 0, kCpu = 1, kMem = 2, kSto = 3, kNet = 4 };

// A job of the round model: its Synergy attributes, progress and current lease.
struct Job {
  std::int64_t id = 0;                 // the trace's (any integer)
  const Profile* prof = nullptr;       // its model's profile (prof->model: the model's name)
  double arrival = 0;
  int g = 1;
  double t = 1;                        // s / iteration at the proportional share
  double N = 0;                        // total iterations (an integer in the authors' model)
  double sigma0 = 1, sigma = 1;        // best-case speedup (S.2.3), current value
  double c = 0, m = 0, s = 0;          // best-case totals (capped to one server, S.2.3)
  double done = 0, last_progress = 0;  // iterations
  double attained = 0;                 // seconds of leases credited
  bool prio = false;
  double last_exec = -1;               // last lease end (-1: never ran)
  // Current allocation (empty when waiting).
  std::vector<int> gpus;                              // global GPU ids (server * GPUs per server + index), ascending
  std::vector<std::pair<int, Vec>> res;               // server -> allocated vector
  double speed = 1;                                   // throughput factor of this lease
  double lease_start = 0, lease_end = 0;
  double finish_at = -1;                              // exact mode: finish time within this lease
  std::uint64_t epoch = 0;                            // invalidates a cancelled finish event
  bool finished = false;
  double finish_time = 0;
  std::int64_t leases = 0;
  int max_servers = 0;                                // the most servers a lease of it spanned
  double run_s = 0;                                   // seconds holding GPUs
  double first_start = -1;
  double credited_s = 0;                              // seconds credited by this lease
  std::string name;                                   // the trace's job id
  // The job as the shared queue orders see it (policy/order): kept beside the jobs (cache-friendly
  // allocation loops), refreshed before every sort.
  JobState* view = nullptr;
  JobId key = 0;  // its id in the cluster book: dense, >= 0 (the run's job index); last, off the hot lines
  int servers_spanned() const { return static_cast<int>(res.size()); }
  Vec alloc_total() const {
    Vec v{};
    for (const auto& [srv, r] : res)
      for (int k = 0; k < 5; ++k) v[k] += r[k];
    return v;
  }
};

// The best-case demand and speedup of a job with g GPUs on servers of size P (S.2.3).
void init_job(Job& j, const Profile& p, int g, const Vec& P);

// `servers` identical servers of capacity P (GPUs, CPUs, GB, MB/s, Gbps; CPUs a whole number) as a cluster
// book's spec. Throws InvariantError otherwise.
ClusterSpec round_cluster(int servers, int gpus_per_server, const Vec& per_server);

// One round model's pass over the cluster book. The servers are identical (spec S.1); P is one server's
// capacity vector, whose network entry bounds FIRST_FIT's holds only (the network is never consumed).
class RoundPass {
 public:
  RoundPass(Cluster& book, const Vec& per_server);
  Cluster& book() { return book_; }
  int gpus_per_server() const { return gps_; }
  int num_servers() const { return book_.num_servers(); }
  const Vec& fair() const { return f_; }  // proportional share per GPU, P / G
  const Vec& per_server() const { return P_; }
  const Vec& totals() const { return tot_; }
  int free_gpus() const { return book_.free_gpus(); }
  int free_gpus(int s) const { return book_.free_gpus(s); }
  Vec avail(int s) const {  // what server s has free (the network: all of it)
    return {static_cast<double>(book_.free_gpus(s)), book_.free_cpus(s), book_.free_mem_gb(s), book_.free_storage(s),
            P_[kNet]};
  }
  std::vector<Job*>& round_jobs(int s) { return round_jobs_[s]; }

  // FIRST_FIT (S.6.2, S.10 item 13): per-GPU demand u = d / d[0]; GPUs of the free list in ascending id
  // (consolidated: the feasible server with the fewest free GPUs first). Commits on success: GPUs taken,
  // CPUs, DRAM and storage booked (network never consumed), the job appended to each server's round list.
  bool first_fit(Job& j, const Vec& d);
  // Takes exactly `gpus` with per-server vectors (TUNE's peer re-allocation).
  void assign(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res);
  void release(Job& j);
  // Every GPU and share of the book free at once (a boundary where every lease ends: the state each release
  // would leave); the holders' own lists are their caller's to clear. Throws InvariantError unless `held`, the GPUs
  // the caller's jobs hold, is every GPU held.
  void release_all(std::int64_t held);
  // InvariantError unless the book is as a new one: every GPU free, each server's CPUs, DRAM and storage its capacity.
  void check_new_book() const;
  void new_round();  // clears the per-round job lists

  // The pass's settings and the loop's callbacks.
  bool consolidated = false;
  bool matrix_speed = false;  // speed = T[c][m] of the allocation instead of the binary sigma
  bool allow_peers = true;    // TUNE may shrink peers (round boundaries only)
  bool compat = false;
  // Credit this lease's progress (S.10 item 14); `proportional_path`: te = t whatever the speed.
  std::function<void(Job&, bool proportional_path)> credit;
  std::function<void(Job&)> rollback;  // undo this lease's credit (TUNE's peers)
  std::function<void(Job&)> start;     // the job got its allocation this pass: its lease starts

 private:
  bool fits(int s, const Vec& u) const;
  void commit(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res, bool append);
  Cluster& book_;
  int gps_;
  Vec P_{}, f_{}, tot_{};
  std::vector<Vec> hold_;                       // FIRST_FIT's transient holds, per server
  std::vector<std::vector<Job*>> round_jobs_;   // jobs FIRST_FIT committed on each server this round
  std::vector<int> round_servers_;              // the servers whose round_jobs_ list is not empty
  std::vector<int> chosen_;                     // FIRST_FIT scratch
  std::vector<std::pair<int, Vec>> res_;
};

// Throughput factor of a job holding `total` (GPUs, CPUs, GB, ...): sigma when it got its best-case demand,
// 1 otherwise (binary, the authors'); or the matrix cell of its per-GPU allocation (matrix_speed).
double speed_of(const Job& j, const Vec& total, const RoundPass& pass, bool best_case);
Vec best_case_demand(const Job& j);  // (g, c, m, s, 0)
Vec proportional_demand(const Job& j, const RoundPass& pass, bool with_network);
// One job of an allocation's default pass (Allocation::round_pass): started (pass.start) when its missing GPUs are
// free and the mechanism's round_allocate places it. The round model's passes between boundaries call it job by job.
bool try_allocate(rm::Allocation& mechanism, RoundPass& pass, Job& j);
// Synergy-TUNE's placement of one job (policy/allocation/tune.cpp), which OPT runs with its sizes.
bool tune_round(RoundPass& pass, Job& j);
// Synergy-OPT over one pass (policy/allocation/opt.cpp): the jobs it allocated, in the pass's order. `memo`
// keeps each job type's options between passes.
std::vector<Job*> opt_round(RoundPass& pass, const std::vector<Job*>& jobs, OptOptionsMemo& memo);

}  // namespace rm::synergy
