// Internal state of the round simulator (round_sim.cpp) shared by its plugins: multi-resource servers with
// allocation holds, jobs with their Synergy attributes, and the free-GPU list of one scheduling pass.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sched/job_state.h"
#include "workload/cpu_profiles.h"

namespace rm::synergy {

// GPU, CPU cores, DRAM GB, storage MB/s, network Gbps (spec S.1).
using Vec = std::array<double, 5>;
enum Dim { kGpu = 0, kCpu = 1, kMem = 2, kSto = 3, kNet = 4 };

struct Server {
  Vec cap{}, used{}, hold{};
  std::vector<bool> gpu_free;
  int free_gpus = 0;                   // GPUs not held by any job (= free ones of F in a pass)
  std::vector<struct Job*> round_jobs; // jobs FIRST_FIT committed here this round (TUNE's peers)
};

struct Job {
  std::int64_t id = 0;
  std::string model;
  const Profile* prof = nullptr;
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
  std::vector<int> gpus;                              // global GPU ids, ascending
  std::vector<std::pair<int, Vec>> res;               // server -> allocated vector
  double speed = 1;                                   // throughput factor of this lease
  double lease_start = 0, lease_end = 0;
  double finish_at = -1;                              // exact mode: finish time within this lease
  std::uint64_t epoch = 0;                            // invalidates a cancelled finish event
  bool finished = false;
  double finish_time = 0;
  std::int64_t leases = 0;
  double run_s = 0;                                   // seconds holding GPUs
  double first_start = -1;
  double credited_s = 0;                              // seconds credited by this lease
  std::string name;                                   // the trace's job id
  // The job as the shared queue orders see it (policy/order): kept beside the jobs (cache-friendly
  // allocation loops), refreshed before every sort.
  JobState* view = nullptr;
  int servers_spanned() const { return static_cast<int>(res.size()); }
  Vec alloc_total() const {
    Vec v{};
    for (const auto& [srv, r] : res)
      for (int k = 0; k < 5; ++k) v[k] += r[k];
    return v;
  }
};

}  // namespace rm::synergy

namespace rm::synergy {

// The servers of one cluster (homogeneous, spec S.1): counters, holds, which GPUs are free.
class ResCluster {
 public:
  ResCluster(int servers, int gpus_per_server, const Vec& per_server);
  int gpus_per_server() const { return gps_; }
  int num_servers() const { return static_cast<int>(servers_.size()); }
  Server& server(int s) { return servers_[s]; }
  const Vec& fair() const { return f_; }          // proportional share per GPU, P / G
  const Vec& per_server() const { return P_; }
  const Vec& totals() const { return tot_; }
  int free_gpus() const { return free_; }

  // FIRST_FIT (S.6.2, S.10 item 13): per-GPU demand u = d / d[0]; GPUs of the free list in ascending id
  // (consolidated: the feasible server with the fewest free GPUs first). Commits on success: GPUs taken,
  // counters += allocation (network never consumed), job appended to each server's round list.
  bool first_fit(Job& j, const Vec& d, bool consolidated);
  // Takes exactly `gpus` with per-server vectors (TUNE's peer re-allocation, OPT's resizing).
  void assign(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res);
  void resize(Job& j, int server, const Vec& v);  // change one server's share of a running job
  void release(Job& j);
  void new_round();  // clears the per-round job lists
  Vec avail(int s) const;  // capacity - used
  // Throws InvariantError when a counter leaves [0, capacity] (allocations are exact multiples of 1/64).
  void check(int s) const;

 private:
  bool fits(const Server& sv, const Vec& u) const;
  void commit(Job& j, const std::vector<int>& gpus, const std::vector<std::pair<int, Vec>>& res, bool append);
  std::vector<Server> servers_;
  int gps_;
  Vec P_{}, f_{}, tot_{};
  int free_ = 0;
  std::vector<int> chosen_;                 // FIRST_FIT scratch
  std::vector<std::pair<int, Vec>> res_;
};

}  // namespace rm::synergy

namespace rm::synergy {

// What an allocation mechanism sees in one scheduling pass.
struct PassCtx {
  ResCluster& cl;
  bool consolidated = false;
  bool matrix_speed = false;  // speed = T[c][m] of the allocation instead of the binary sigma
  bool allow_peers = true;    // TUNE may shrink peers (round boundaries only)
  bool compat = false;
  // Credit this lease's progress (S.10 item 14); `proportional_path`: te = t whatever the speed.
  std::function<void(Job&, bool proportional_path)> credit;
  std::function<void(Job&)> rollback;  // undo this lease's credit (TUNE's peers)
};

// Throughput factor of a job holding `total` (GPUs, CPUs, GB, ...): sigma when it got its best-case demand,
// 1 otherwise (binary, the authors'); or the matrix cell of its per-GPU allocation (matrix_speed).
double speed_of(const Job& j, const Vec& total, const PassCtx& ctx, bool best_case);
Vec best_case_demand(const Job& j);  // (g, c, m, s, 0)
Vec proportional_demand(const Job& j, const ResCluster& cl, bool with_network);

// The mechanisms (one file each): allocate `j` on the free GPUs or leave it waiting.
bool allocate_proportional(PassCtx& ctx, Job& j);  // "fair"   (S.6.3)
bool allocate_greedy(PassCtx& ctx, Job& j);        // GREEDY   (S.6.4)
bool allocate_tune(PassCtx& ctx, Job& j);          // TUNE     (S.6.5, S.10 items 18-20)
// OPT (S.6.6): one ILP over the pass's jobs, then placement; returns the jobs it allocated.
std::vector<Job*> allocate_opt(PassCtx& ctx, const std::vector<Job*>& jobs);

}  // namespace rm::synergy
