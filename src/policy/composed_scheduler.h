// The standard job scheduler: a queue order and a placement, preemptive or not, with or without
// backfilling (docs/policies.md), and optionally a CPU/DRAM allocation (fair, greedy, tune).
#pragma once
#include <memory>
#include <set>

#include "policy/backfill.h"
#include "policy/job_index.h"
#include "policy/plugin.h"

namespace rm {

struct ComposedOptions {
  bool preemptive = false;
  bool backfill = false;  // continue past a job that cannot be placed / does not fit
  bool full_sort = false;  // key and sort every active job at every pass (the indexes' reference; slow)
  Reservation reserve = Reservation::None;  // with backfill: EASY or conservative reservations (policy/backfill.h)
};

class ComposedScheduler final : public Scheduler {
 public:
  ComposedScheduler(std::string name, std::unique_ptr<QueueOrder> order, std::unique_ptr<Placement> placement,
                    ComposedOptions opt, std::unique_ptr<Allocation> allocation = nullptr);
  bool allocates() const override { return allocation_ != nullptr; }
  bool matrix_speed() const override { return allocation_ && allocation_->matrix_speed(); }
  std::string name() const override { return name_; }
  bool in_python() const override {
    return order_->in_python() || placement_->in_python() || (allocation_ && allocation_->in_python());
  }
  Decisions schedule(const SchedContext& ctx) override;
  void learn(const JobState& finished) override {
    const JobState* one[] = {&finished};
    order_->observe(one);
  }

 private:
  // A pass's jobs in pass order: next(budget) gives the next one asking for at most `budget` GPUs, or null.
  template <class Source>
  void schedule_nonpreemptive(const SchedContext& ctx, Decisions& d, Source&& next);
  void schedule_preemptive(const SchedContext& ctx, Decisions& d);
  void schedule_preemptive_indexed(const SchedContext& ctx, Decisions& d);
  void refresh_indexes(const SchedContext& ctx);
  void choose_indexed(const SchedContext& ctx, std::vector<const JobState*>& victims,
                      std::vector<const JobState*>& starters);
  void preempt_and_start(const SchedContext& ctx, Decisions& d, const std::vector<const JobState*>& victims,
                         const std::vector<const JobState*>& starters);
  void sync_waiting(const SchedContext& ctx);
  // EASY with a placement that keeps shapes: holds, in `free`, the free GPUs of the servers the blocked head `j`
  // waits for (those whose running jobs' expected ends free its shape first) and returns when they do (-1: none).
  double hold_head_shape(const SchedContext& ctx, const Backfill& bf, const Decisions& d, const JobState& j,
                         FreeMap& free, std::vector<GpuRef>& held);
  std::string name_;
  std::unique_ptr<QueueOrder> order_;
  std::unique_ptr<Placement> placement_;
  ComposedOptions opt_;
  std::unique_ptr<Allocation> allocation_;  // CPUs and DRAM (null: GPUs only)
  bool bound_ = false;
  std::vector<PassKey> sorted_;            // scratch: the full sort
  std::vector<const JobState*> started_;                   // scratch
  // Where the order allows (docs/design.md, "Scale"): the waiting jobs, kept across passes (arrivals added,
  // started jobs removed, preempted ones added back at the next pass, when their key is settled) ...
  WaitingIndex waiting_;
  std::vector<const JobState*> arrivals_;  // arrived, not yet in the index
  std::vector<const JobState*> requeue_;  // preempted by the last pass
  // ... and, when preemptive, the running jobs.
  RunningIndex running_;
  std::vector<const JobState*> due_;  // scratch
  // With reservations (easy-/conservative-backfill) under the simulator's promise: the running jobs, kept across
  // passes (a pass then reads the running jobs, not every active one).
  std::vector<const JobState*> bf_running_;
};

}  // namespace rm
