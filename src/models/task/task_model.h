// The task execution model (--exec task; Wang et al. 2020, spec contention-and-sjf-bco.md Part A), a model that
// decides under the one engine (exec/execution_model.h): the engine owns the clock, the arrivals and the cluster
// book (GPU memory booked there); the model keeps its task and flow events, placing jobs at its own instants.
// Every iteration of a job is a DAG: forward then backward on each worker, then one all-reduce of the
// job's gradient (a barrier). GPUs are shared by memory and run one task at a time; an all-reduce is
// free inside one server, otherwise one flow on the NIC of every server the job spans, progressing at
// 1 / (k beta + (k-1) eta) MB/ms with k the flow count on the job's busiest NIC.
//
// Default: event-driven in continuous time, kept in whole nanoseconds (int64) so that equal instants are
// equal however they were reached (a flow's end is rounded to the nanosecond), the physically correct model.
// compat=true (--compat wang2020): the authors' 1-ms step loop of spec A.11 item 3, quirks included
// (placement skip, late release, integer-ms flow completion, per-step re-rating, persistent LWF
// server order, 1 GbE beta in the LWF workload), which reproduces their simulator's numbers exactly.
#pragma once
#include "core/progress.h"
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>
#include <vector>

#include "cluster/cluster.h"
#include "exec/execution_model.h"
#include "metrics/metrics.h"
#include "models/task/flow_network.h"
#include "models/task/gpu_tasks.h"
#include "models/task/policy_view.h"
#include "policy/task/task_plugin.h"
#include "workload/job.h"

namespace rm {

struct TaskOptions {
  bool compat = false;
  // Default mode: jump over whole periods of a steady state (task_fast_forward.cpp); false simulates
  // every task (--no-fast-forward). Compat mode never jumps.
  bool fast_forward = true;
  ProgressFn progress;  // now and then while it runs; may be empty
};

class TaskModel final : public SteppingModel {
 public:
  // Throws InputError if a job cannot run in this model (compat needs whole milliseconds).
  TaskModel(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, task::TaskPolicy& policy,
             TaskOptions opt = {});
  TaskModel(const TaskModel&) = delete;  // the plugins' view refers to its members
  TaskModel& operator=(const TaskModel&) = delete;

  // SteppingModel. Time is the engine's microseconds outside, nanoseconds inside: an engine instant T covers
  // the model's instants [T us, T+1 us).
  std::string name() const override { return "task"; }
  bool searches_book() const override { return false; }
  void bind(Cluster& book) override { book_ = &book; }
  void arrive(JobState& job, Time now) override;
  Time next_event_time() override;
  void advance_to(Time t) override;
  void end() override;

  RunRecord record() const;
  double total_time_ms() const { return total_time_; }  // authors' makespan (A.11 item 23)
  double avg_jct_ms() const;
  double finish_ms(int job) const { return ms_from(jobs_[job].finish); }  // absolute time of the final sync
  double jct_ms(int job) const { return ms_from(jobs_[job].finish - jobs_[job].arrival); }
  double gpu_active_ms() const;  // sum over GPUs of busy time
  std::int64_t max_gpu_sharing() const { return max_sharing_; }  // most jobs ever on one GPU
  std::int64_t max_link_flows() const { return net_.max_flows(); }  // most flows ever on one NIC
  struct FastForwardStats {
    std::int64_t jumps = 0, periods = 0, iterations = 0;  // jumps made, periods and job iterations skipped
    double skipped_ms = 0;                                // sum over jumps of the simulated time skipped
  };
  const FastForwardStats& fast_forward_stats() const { return ff_stats_; }

 private:
  using Ns = std::int64_t;  // simulated time
  static constexpr Ns kNever = std::numeric_limits<Ns>::max() / 4;
  static double ms_from(Ns ns) { return task_time::ms_from(ns); }
  enum Phase : std::uint8_t { FF, BP, WAIT };
  struct Job {
    task::TJob v;
    const JobSpec* spec = nullptr;
    std::vector<Phase> phase;
    int waiting = 0;
    std::int64_t iter = 1;
    bool in_comm = false, finished = false, released = false, ready = false;
    double comm_once = 0;
    // Default mode: task times, remaining service and time in whole nanoseconds, so that a jump's bulk
    // credit equals the sum of step-by-step ones exactly (v.rem_service and v.rem_time mirror them).
    std::int64_t fw_ns = 0, bw_ns = 0, comm_ns = 0, service_ns = 0, time_ns = 0;
    Ns arrival = 0, placed_at = -1, finish = -1;
    std::int64_t seq = -1;  // placement order
    // Fast-forward (default mode): the group it is in (-1: none), whether it is detached (placed but
    // linking no group: it has not run for a while), when a task of it last ran.
    int comp = -1;
    bool ran = false, detached = false, woke = false;  // woke: detached, ran since, not yet re-linked
    Ns last_run = -1;
    task::TFlow flow;
  };

  void step(Ns t);
  // step's phases (task_engine.cpp), in order
  void retire(Ns t);
  void release_finished();
  void admit_arrivals(Ns t);
  void place_queue(Ns t);
  void admit_flows(Ns t);
  void retire_gpu(int g);
  void sync(Job& j, Ns t);
  void release(Job& j);
  bool try_place(Job& j, Ns t);
  void start_flow(Job& j, Ns t);
  void dispatch(int g, Ns t);
  void set_ready(Job& j, bool on);
  void insert_by_seq(std::vector<int>& list, const Job& j);
  Ns next_step();         // the model's next instant: a task's or flow's end, a delivered job not yet admitted
  Ns next_timed() const;  // the same with the jobs still to arrive (what can still move the run at all)
  Ns next_end() const;    // the next task's or flow's end
  void record_series(Ns now);
  void check_final() const;
  // Default mode's exact bookkeeping (compat keeps the authors' float sums).
  void add_exact(double& shown, std::int64_t& exact, double ms, std::int64_t ns) const;

  // Steady-state fast-forward (task_fast_forward.cpp; its header comment explains the scheme).
  struct Snap {
    Ns t = 0;
    std::uint64_t hash = 0;          // of everything below but t and iter
    std::vector<std::int64_t> iter;  // per group job
    std::vector<std::int32_t> disc;  // phases, flags, GPU occupants, NIC flow orders
    std::vector<Ns> rel;             // pending task and flow ends, flows' last re-rates, relative to t
    std::vector<double> flow;        // flows' speeds and MB transferred
  };
  // Syncs of a group's other jobs without one of its anchor after which the anchor moves to the next
  // job to sync (a starved anchor would never let the group record).
  static constexpr int kAnchorPatience = 1024;
  struct Comp {  // a group
    std::vector<int> jobs, gpus, servers;  // jobs in placement order; GPUs and NICs (multi-server) sorted
    int anchor = -1;
    int stride = 1, skipped = 0;  // records every stride-th sync of the anchor
    int other_syncs = 0;          // syncs of its other jobs since the anchor's last
    bool synced = false, dead = false;
    Ns frozen_until = -1;         // jumped ahead to this time: global passes skip it until then
    Ns guard = -1;                // its cycle is known to hold until then (-1: unknown)
    Ns key_until = -1;            // the recorded cycle's key orders hold until then (-1: not computed)
    bool self_guard = false;      // the guard rests on no other group's (it outlives changes elsewhere)
    Ns earliest_change = 0;       // while guard > now: no job of it finishes before this
    // Records at the anchor's syncs, oldest first; record number base + i is hist[i]; by_hash lists the
    // numbers of the records with a given hash, oldest first.
    std::deque<Snap> hist;
    std::int64_t base = 0;
    std::unordered_map<std::uint64_t, std::vector<std::int64_t>> by_hash;
    int unmatched = 0;            // records since the last match or reset
  };
  bool frozen(const Job& j, Ns t) const { return j.comp >= 0 && comps_[j.comp].frozen_until > t; }
  std::vector<int> link(const std::vector<int>& ids);
  int add_group(const std::vector<int>& ids);
  void retire_group(Comp& c);
  void regroup(const std::vector<int>& ids);
  void structural_update(Ns t);
  void compact_groups();
  std::vector<int> touching(const Job& p) const;
  void merge_around(int job, Ns t);
  void split(Comp& c, Ns since);
  static void add_record(Comp& c, Snap&& s);
  static void drop_oldest_record(Comp& c);
  static void clear_records(Comp& c);
  std::ptrdiff_t find_record(const Comp& c, const Snap& now) const;
  void after_step(Ns t);
  void snapshot(const Comp& c, Ns t, Snap& s) const;
  bool try_jump(Comp& c, const Snap& now);
  // try_jump's parts (task_fast_forward.cpp)
  Ns outside_guard(const Comp& c, const std::vector<std::int64_t>& m, Ns ref_t, Ns t, Ns guard);
  void set_earliest_change(Comp& c, const std::vector<std::int64_t>& m, Ns t, Ns period, Ns guard);
  void apply_jump(Comp& c, const Snap& ref, Ns t, Ns period, std::int64_t k, const std::vector<std::int64_t>& m,
                  std::int64_t events, std::int64_t per_period);
  std::int64_t key_periods(const Comp& c, const std::vector<std::int64_t>& m) const;
  Ns sync_bound(const Job& p, Ns t) const;
  std::size_t index_in(const Comp& c, int id) const;
  double key_slack(const Job& p, const Comp& c) const;
  bool harmless(const Job& p, const Comp& c, const std::vector<std::int64_t>& m, Ns since) const;
  Ns horizon(const Comp& c, Ns t) const;

  TaskOptions opt_;
  task::TaskPolicy& policy_;
  const ClusterSpec* cluster_;
  double lwf_beta_ = 0;
  Cluster* book_ = nullptr;  // the engine's cluster book: GPU memory, shared by the jobs placed on a GPU
  GpuTasks gpu_;     // the GPUs: who is placed on each, the task each runs, the ends
  FlowNetwork net_;  // the all-reduces' flows on the NICs and their law
  std::vector<Job> jobs_;  // in arrival order (= JobSpec order)

  std::vector<int> queue_, running_, ready_, comm_;
  std::vector<int> single_ready_;  // default mode: single-server jobs whose workers all wait
  std::size_t next_arrival_ = 0, delivered_ = 0;  // jobs admitted, and handed over by the engine
  Ns compat_next_ = 0, last_step_ = 0;             // compat's next 1-ms step; the last instant simulated
  int same_instant_ = 0;
  Ns next_ = 0;  // next_step(), while next_valid_
  bool next_valid_ = false;
  std::int64_t last_report_ = 0;
  std::int64_t seq_ = 0, released_ = 0, unreleased_finished_ = 0;
  bool queue_sorted_ = true, changed_ = false, new_ready_ = false;
  std::uint64_t mem_version_ = 0, wl_version_ = 0, placed_at_version_ = ~std::uint64_t{0};
  std::uint64_t placed_at_wl_ = ~std::uint64_t{0};
  std::vector<int> chosen_, cands_, scratch_;
  double total_time_ = 0;
  Ns now_ = 0;  // the instant being simulated
  std::int64_t events_ = 0, max_sharing_ = 0;
  std::vector<SeriesRow> series_;
  bool ff_ = false;
  std::vector<Comp> comps_;
  std::vector<int> synced_comps_, woken_, gpu_comp_, link_gpu_, link_nic_;
  std::size_t dead_ = 0;  // dead groups in comps_
  std::vector<int> placed_, lost_;  // this step: jobs placed, groups that lost a job
  FastForwardStats ff_stats_;
  // What the plugins see (last: it refers to the members above).
  PolicyView<Job> view_{{gpu_, net_, book_, jobs_, mem_version_, wl_version_, now_, opt_.compat}};
};

}  // namespace rm
