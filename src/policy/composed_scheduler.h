// The standard job scheduler: a queue order and a placement, preemptive or not, with or without
// backfilling (docs/policies.md), and optionally a CPU/DRAM allocation (fair, greedy, tune).
#pragma once
#include <memory>

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
  void schedule_nonpreemptive(const SchedContext& ctx, Decisions& d);
  void schedule_preemptive(const SchedContext& ctx, Decisions& d);
  std::string name_;
  std::unique_ptr<QueueOrder> order_;
  std::unique_ptr<Placement> placement_;
  ComposedOptions opt_;
  std::unique_ptr<Allocation> allocation_;  // CPUs and DRAM (null: GPUs only)
  bool bound_ = false;
  std::vector<std::pair<double, const JobState*>> sorted_;  // scratch
  std::vector<const JobState*> started_;                   // scratch
};

}  // namespace rm
