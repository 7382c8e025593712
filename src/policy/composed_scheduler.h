// The standard job scheduler: a queue order and a placement, preemptive or not, with or without
// backfilling (docs/policies.md), and optionally a CPU/DRAM allocation (fair, greedy, tune).
#pragma once
#include <memory>
#include <set>

#include "policy/plugin.h"

namespace rm {

struct ComposedOptions {
  bool preemptive = false;
  bool backfill = false;  // continue past a job that cannot be placed / does not fit
};

class ComposedScheduler final : public Scheduler {
 public:
  ComposedScheduler(std::string name, std::unique_ptr<QueueOrder> order, std::unique_ptr<Placement> placement,
                    ComposedOptions opt, std::unique_ptr<Allocation> allocation = nullptr);
  bool allocates() const override { return allocation_ != nullptr; }
  bool matrix_speed() const override { return allocation_ && allocation_->matrix_speed(); }
  std::string name() const override { return name_; }
  Decisions schedule(const SchedContext& ctx) override;

 private:
  template <class List>
  void schedule_nonpreemptive(const SchedContext& ctx, Decisions& d, const List& waiting);
  void sync_index(const SchedContext& ctx);
  void schedule_preemptive(const SchedContext& ctx, Decisions& d);
  std::string name_;
  std::unique_ptr<QueueOrder> order_;
  std::unique_ptr<Placement> placement_;
  ComposedOptions opt_;
  std::unique_ptr<Allocation> allocation_;  // CPUs and DRAM (null: GPUs only)
  bool bound_ = false;
  std::vector<std::pair<double, const JobState*>> sorted_;  // scratch
  std::vector<const JobState*> started_;                   // scratch
  // Non-preemptive, with a key fixed while jobs wait (fifo, sjf, shortest): the waiting jobs in pass order,
  // kept across passes (arrivals added, started jobs removed), so a pass does not key and sort them all.
  struct Waiting {
    double key;
    Time submit;
    JobId id;
    const JobState* job;
    bool operator<(const Waiting& o) const {
      if (key != o.key) return key < o.key;
      if (submit != o.submit) return submit < o.submit;
      return id < o.id;
    }
  };
  std::set<Waiting> index_;
  JobId next_id_ = 0;  // jobs with a smaller id have been added to the index
};

}  // namespace rm
