// The scheduler's extension points (DESIGN.md section 5). Plugins see read-only views and return
// decisions; they never mutate engine state.
#pragma once
#include <cstdint>
#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sched/decisions.h"

namespace rm {

// Which GPUs (and CPUs, DRAM) are free, for trying placements within one decision: the cluster's own tables
// read through, with this decision's changes in an overlay. The overlay's arrays are reused from decision to
// decision (a generation stamp marks what this decision wrote), so making a FreeMap costs O(1), not a copy of
// every GPU: a pass touches what it places, whatever the cluster's size (docs/design.md, "Scale").
class FreeMap {
 public:
  explicit FreeMap(const Cluster& c);
  ~FreeMap();
  FreeMap(const FreeMap&) = delete;
  FreeMap& operator=(const FreeMap&) = delete;
  const ClusterSpec& spec() const { return *spec_; }
  const GpuTypes& types() const;
  int num_servers() const { return servers_; }
  int free_on(int s) const { return o_->count_gen[s] == gen_ ? o_->count[s] : (*count_)[s]; }
  int total_free() const { return total_; }
  bool is_free(GpuRef g) const {
    const int k = (*offset_)[g.server] + g.gpu;
    return o_->free_gen[k] == gen_ ? o_->free[k] != 0 : (*owners_)[k] == kNoJob;
  }
  // The first server >= from with a free GPU (num_servers() if none): O(1) per 64 servers passed over, from
  // the cluster's index of full servers (plus the servers this decision gave GPUs back on).
  int next_free_server(int from) const;
  // The fullest server holding n free GPUs whose GPUs have the memory job j needs, ties to the lower
  // index (-1 if none): from the cluster's servers by free count, O(most GPUs of a server) bitset scans.
  int fullest_holding(int n, const JobSpec& j) const;
  // Servers with a free GPU and the memory j needs, by free GPUs descending (ties lower index), until
  // f(server) returns false.
  template <class F>
  void by_free_descending(const JobSpec& j, F&& f) const;
  // The first `n` free GPUs of server s, in index order.
  std::vector<GpuRef> take_from(int s, int n) const;
  void take(const std::vector<GpuRef>& gpus);
  void give(const std::vector<GpuRef>& gpus);
  // CPU cores and DRAM GB free on server s (after the shares taken in this decision).
  double free_cpus(int s) const { return o_->res_gen[s] == gen_ ? o_->cpus[s] : (*cpus_)[s]; }
  double free_mem_gb(int s) const { return o_->res_gen[s] == gen_ ? o_->mem[s] : (*mem_)[s]; }
  void take_shares(const std::vector<ServerShare>& sh);
  void give_shares(const std::vector<ServerShare>& sh);
  // Running jobs whose CPUs and DRAM an allocation may shrink, never below their GPU-proportional share
  // (TUNE's peers). shrink_peers frees up to `cpus` and `mem` on server s that way, lowest-priority peers
  // first (the order they were added in reverse); resized() lists the peers changed, as decisions.
  void add_peers(const std::vector<const JobState*>& running);
  void shrink_peers(int s, double cpus, double mem);
  std::vector<ResizeDecision> resized() const;
  // Can job j's workers use server s (GPU memory)?
  bool fits_memory(const JobSpec& j, int s) const { return spec_->servers[s].gpu_mem_gb * 1024.0 >= j.gpu_mem_mb; }

  // The overlay's storage, kept in a per-thread pool between FreeMaps.
  struct Overlay {
    std::vector<std::uint64_t> free_gen, count_gen, res_gen;
    std::vector<char> free;
    std::vector<int> count;
    std::vector<double> cpus, mem;
    std::uint64_t gen = 0;
  };

 private:
  void set_count(int s, int v);
  void set_res(int s, double cpus, double mem);

  // Whether server s's count was changed by this decision (then the cluster's index does not say it).
  bool touched(int s) const { return o_->count_gen[s] == gen_; }
  const Cluster* cluster_;
  std::vector<int> touched_;  // servers whose count this decision changed, each once
  std::vector<int> raised_;   // those of them the cluster has full
  const ClusterSpec* spec_;
  const std::vector<int>* offset_;  // the cluster's: GPU g of server s is at (*offset_)[s] + g
  const std::vector<JobId>* owners_;
  const std::vector<int>* count_;
  const std::vector<double>* cpus_;
  const std::vector<double>* mem_;
  int servers_ = 0;
  int total_ = 0;
  Overlay* o_;
  std::uint64_t gen_ = 0;
  struct Peer {
    const JobState* job;
    std::vector<ServerShare> shares;
    bool changed = false;
  };
  std::vector<Peer> peers_;
};

template <class F>
void FreeMap::by_free_descending(const JobSpec& j, F&& f) const {
  for (int c = cluster_->max_server_gpus(); c >= 1; --c) {
    // In index order: the cluster's servers with c free that this decision left alone, merged with the ones it
    // changed that have c free now.
    std::vector<int> mine;
    for (int s : touched_)
      if (free_on(s) == c) mine.push_back(s);
    std::sort(mine.begin(), mine.end());
    const ServerBits& bits = cluster_->servers_with_free(c);
    auto theirs = [&](int from) {
      int s = bits.next(from);
      while (s < servers_ && touched(s)) s = bits.next(s + 1);
      return s;
    };
    int a = theirs(0);
    for (std::size_t m = 0; a < servers_ || m < mine.size();) {
      int s;
      if (m < mine.size() && (a >= servers_ || mine[m] < a)) {
        s = mine[m++];
      } else {
        s = a;
        a = theirs(a + 1);
      }
      if (fits_memory(j, s) && !f(s)) return;
    }
  }
}

// Queue order: smaller key = served first. Ties: earlier submit, then lower id.
class QueueOrder {
 public:
  virtual ~QueueOrder() = default;
  virtual std::string name() const = 0;
  virtual double key(const JobState& j, Time now) const = 0;
  // When a running job's key may next change in a way that needs a new decision (kNever if not).
  virtual Time next_change(const JobState&, Time) const { return kNever; }
  // Whether next_change() can ever return anything but kNever (lets a pass skip asking every running job).
  virtual bool has_next_change() const { return false; }
  // Whether a waiting job's key never changes while it waits (it depends on the job alone, not on `now`):
  // a non-preemptive scheduler may then keep its waiting jobs in an index across passes.
  virtual bool key_fixed_while_waiting() const { return false; }
  // How a running job's key moves: Falls = never rises while it runs (srtf, srsf); Steps = constant between
  // the times next_change() gives (2d-las; and the orders whose key never changes: fifo, sjf, shortest);
  // Moves = anything (las, ftf, ...). With a fixed waiting key and Falls or Steps, a preemptive scheduler may
  // keep its running jobs in an index too.
  enum class RunningKey { Moves, Falls, Steps };
  virtual RunningKey running_key() const { return RunningKey::Moves; }
  // Whether this order is preemptive, and whether it backfills, by default (a C++ order backfills when it preempts).
  virtual bool default_preemptive() const { return false; }
  virtual bool default_backfill() const { return default_preemptive(); }
  // Called once by the backend before the first key, with the cluster's totals.
  virtual void bind(const ClusterTotals&) {}
  // The round model (Synergy, spec S.10 items 16-17) asks two properties instead of names: a fair-share order
  // (las) loops each pass over the prefix of jobs that fit, by deficit under TUNE; an arrival order (fifo)
  // does not take the starvation priority.
  virtual bool fair_share() const { return false; }
  virtual bool arrival_order() const { return false; }
  // The jobs that finished since the previous pass (an order that learns from them: gittins:cdf=online).
  virtual void observe(std::span<const JobState* const> /*finished*/) {}
  // Written in Python (policy/external.h): a job it leaves waiting for ever is the user's error, not ours.
  virtual bool in_python() const { return false; }
};

// Placement: choose GPUs for a job from the free map, or nothing if it cannot be placed now. A job asking for
// more GPUs than are free is never placed, and trying it must change nothing (schedulers pass over it unasked).
class Placement {
 public:
  virtual ~Placement() = default;
  virtual std::string name() const = 0;
  virtual std::optional<std::vector<GpuRef>> place(const JobState& j, const FreeMap& free) = 0;
  // Told the time at the start of each scheduling pass, before its first place() (a Python placement's job view).
  virtual void begin_pass(Time /*now*/) {}
  virtual bool in_python() const { return false; }
  // When a job this placement just left waiting may be placed with nothing else changed (consolidated:relax=S:
  // when its wait passes S); kNever if only a change of the free GPUs can. The scheduler asks to be woken then.
  virtual Time next_try(const JobState& /*j*/, Time /*now*/) const { return kNever; }
  // A placement that keeps a job's shape: the number of servers it waits for (1: one server), so that an EASY
  // reservation can hold the servers the head needs (composed_scheduler.cpp); 0 if it places on any free GPUs.
  virtual int shape_servers(const JobState& /*j*/, const FreeMap& /*free*/) { return 0; }
};

namespace synergy {
struct Job;
class RoundPass;
}  // namespace synergy

// CPU and DRAM allocation (Synergy's mechanisms). On the job-level engines, for a job placed on `d.gpus`: fills
// d.shares from what `free` has and takes it, or returns false (the job cannot start now). On the round model:
// round_pass below.
class Allocation {
 public:
  virtual ~Allocation() = default;
  virtual std::string name() const = 0;
  virtual bool allocate(const JobState& j, StartDecision& d, FreeMap& free) = 0;
  // Told the time at the start of each scheduling pass, before its first allocate().
  virtual void begin_pass(Time /*now*/) {}
  virtual bool in_python() const { return false; }
  // After every start of the pass has its allocation: add what is still free to d's shares (TUNE's top-up
  // to the best case). Runs in priority order.
  virtual void upgrade(const JobState& /*j*/, StartDecision& /*d*/, FreeMap& /*free*/) {}
  // Before the upgrades, with every start of the pass holding its first allocation (Synergy-OPT's ILP over
  // the pass's jobs chooses their sizes here; it may hand back what a start holds above its size).
  virtual void plan(const std::vector<const JobState*>& /*jobs*/, std::vector<StartDecision>& /*starts*/,
                    FreeMap& /*free*/) {}
  // True if a job's speed is the throughput-matrix cell of what it holds whatever --speed-model says
  // (Synergy-OPT chooses among cells by their throughput).
  virtual bool matrix_speed() const { return false; }
  // True if allocate() can fail when the GPUs are free (then whole schedulers, which assume their starts
  // happen, cannot use it).
  virtual bool may_refuse() const { return false; }

  // The round model (--exec round; policy/allocation/round_pass.h): the mechanism over one pass of a round,
  // the jobs `loop` in priority order, each job it allocates handed to pass.start. Default: in order, each job
  // whose missing GPUs are free and that round_allocate places.
  virtual void round_pass(synergy::RoundPass& pass, const std::vector<synergy::Job*>& loop);
  // Places and sizes one job of the pass on the pass's book, or leaves it waiting (false).
  virtual bool round_allocate(synergy::RoundPass& /*pass*/, synergy::Job& /*j*/) { return false; }
  // Whether it has a round version (round_allocate or round_pass); the registry refuses --exec round otherwise.
  virtual bool runs_in_rounds() const { return false; }
  // How the round loop treats the mechanism (the authors' loop, spec S.10 item 16).
  struct RoundTraits {
    bool whole_pass = false;     // one decision over the round's GPU-count-greedy prefix (OPT's ILP)
    bool sigma_speedup = true;   // the orders see the job's best-case speedup (false: 1, GPU-proportional)
    bool deficit_first = false;  // under a fair-share order the pass goes most missing GPUs first (TUNE)
  };
  virtual RoundTraits round_traits() const { return {}; }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string name() const = 0;
  virtual Decisions schedule(const SchedContext& ctx) = 0;
  // Whether its decisions carry CPU/DRAM shares (then the backend gives every job a CPU profile).
  virtual bool allocates() const { return false; }
  // Whether its allocation's speed is the throughput-matrix cell (Synergy-OPT), whatever --speed-model says.
  virtual bool matrix_speed() const { return false; }
  // A job that finished without this scheduler seeing it run (a restarted daemon's history, in finish order):
  // a learning policy (a-srpt's predictor) is taught it. Default: ignored.
  virtual void learn(const JobState& /*finished*/) {}
  // Whether any of its parts is written in Python (then a job left waiting for ever is reported as the user's error).
  virtual bool in_python() const { return false; }
  // Figures for summary.json: `stable` ones are deterministic (e.g. prediction accuracy); `timing` ones
  // are wall-clock measurements (training and prediction time), written under "timing".
  virtual void report(std::vector<std::pair<std::string, double>>& /*stable*/,
                      std::vector<std::pair<std::string, double>>& /*timing*/) const {}
};

}  // namespace rm
