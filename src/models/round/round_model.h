// The round-based execution model (--exec round, a model that decides under the one engine: engine/engine.h; spec synergy-and-a-srpt.md S.4, S.6, S.10): R-second
// leases, every job re-allocated from scratch at each round boundary by a shared queue order (policy/order) and an
// allocation mechanism (proportional, GREEDY, TUNE, OPT) over multi-resource servers.
//   compat = true  (--compat synergy): the authors' simulator exactly: progress credited for the whole
//                  round at allocation, jobs finish at the round end, their quirks (S.9) kept.
//   compat = false (default): exact finish: a job ends when its last iteration does, frees its resources
//                  at once, and the waiting jobs are placed on them for the rest of the round.
#pragma once
#include "core/chunked.h"
#include "core/progress.h"
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/execution_model.h"
#include "policy/allocation/round_pass.h"
#include "policy/plugin.h"
#include "sched/job_feed.h"
#include "workload/cpu_profiles.h"

namespace rm::synergy {

struct JobInit {
  std::int64_t id = 0;
  std::string model;
  double arrival = 0;  // seconds
  double N = 0;        // iterations
  int g = 1;
  std::string file{};  // for error messages
  long line = 0;
  std::string name{};  // the trace's job id (default: id)
};

// Where jobs come from: a fixed list (replay: all arrivals known at the start) or a generator that makes
// job k+1 when job k arrives (the authors' dynamic mode).
class JobSource {
 public:
  virtual ~JobSource() = default;
  virtual bool dynamic() const = 0;
  virtual std::optional<JobInit> next() = 0;
  // A replay's: how many jobs it holds in all, and whether they come by arrival time. A generator: -1, and yes.
  virtual std::int64_t count() const { return -1; }
  virtual bool by_arrival() const { return true; }
};

struct RoundOptions {
  std::string order = "fifo";  // any queue order of the registry (policy/order), "name[:key=value;...]"
  std::shared_ptr<QueueOrder> order_plugin;  // if set, used instead of `order`
  // The CPU/DRAM allocation mechanism: the registry's plugin (policy/allocation), its round_pass; null: fair.
  std::shared_ptr<Allocation> allocation;
  bool consolidated = false;   // placement: first-fit by GPU id (default) or consolidated
  bool full_sort = false;      // every pass keys and sorts every runnable job (round_model.cpp, keyed passes)
  bool matrix_speed = false;   // speed from the throughput matrix instead of the binary sigma
  bool compat = false;
  bool is_static = false;      // --static: first round at t = 1 s (replay)
  double round_s = 300;
  std::int64_t window_lo = std::numeric_limits<std::int64_t>::min();  // measured ids [lo, hi] (default: all)
  std::int64_t window_hi = std::numeric_limits<std::int64_t>::max();
  double starvation_s = 1000.0 * 3600;
  bool synergy_gpu_counts = true;  // demands must be 1, 2, 4, 8 or 16 (Synergy's traces); else any that fits
  ProgressFn progress;  // now and then while it runs; may be empty
  // A measured performance model's slowdown of a job's placement over its best one (run/round_runner.cpp:
  // --perf-model measured:*), multiplying its time per iteration; empty: none (Synergy's model has no network).
  std::function<double(const Job&)> placement_factor;
};

struct RoundSeries {
  double t = 0;
  int queued = 0, running = 0, busy_gpus = 0;
};

struct RoundResult {
  Chunked<Job> jobs;                 // every job generated, in id order
  std::vector<double> measured_jct;  // seconds, ascending, the window's jobs
  double mean_h = 0, p99_h = 0, p999_h = 0;  // as the authors compute them (NaN for an empty window)
  std::int64_t rounds = 0, events = 0;
  double busy_gpu_s = 0, end_time = 0;
  bool window_complete = false;
  std::vector<RoundSeries> series;
  std::vector<float> decision_us;
};

// Servers: count, GPUs each, per-server (GPU, CPU, GB, MB/s, Gbps).
// The checks a job of a replay passes when it arrives (run_rounds makes them; `validate` makes them up front):
// its GPU demand (1, 2, 4, 8 or 16 for Synergy's traces) fits the cluster, its model has a profile.
void check_job(const JobInit& ji, int servers, int gpus_per_server, const ProfileSet& profiles,
               bool synergy_gpu_counts);

// A JobSource's jobs as the engine's feed: each job's spec (dense id, submit time rounded to the microsecond,
// GPUs, iterations) for the engine and the orders; the model reads the exact JobInit back by id.
// The engine admits each job as soon as it reads it (the model's admit reads its JobInit then), so the feed keeps
// only the latest JobInit; a spec stays while its job's view does (the engine's job states point to them): a spec
// let go gives its place to a later job.
class RoundFeed final : public JobFeed {
 public:
  explicit RoundFeed(JobSource& src) : src_(src) {}
  const JobSpec* next() override;
  bool known_up_front() const override { return !src_.dynamic(); }
  bool by_submit() const override { return src_.by_arrival(); }
  std::int64_t count() const { return src_.count(); }
  void let_go(const JobSpec& spec) override;  // its place for the next job
  // The JobInit of the job the feed handed out last (InvariantError for another).
  const JobInit& init(JobId id) const;

 private:
  JobSource& src_;
  JobInit last_;
  Chunked<JobSpec> specs_;
  std::vector<JobSpec*> free_;  // places let go
  JobId next_id_ = 0;
};

// The round model. Run it under the engine (run/round_runner.h: run_rounds) with a RoundFeed and the book
// of round_cluster(servers, gpus per server, per_server); result() after the run.
class RoundModel : public SteppingModel {
 public:
  virtual RoundResult result() = 0;
};
std::unique_ptr<RoundModel> make_round_model(const Vec& per_server, const ProfileSet& profiles, RoundFeed& feed,
                                             const RoundOptions& opt);

}  // namespace rm::synergy
