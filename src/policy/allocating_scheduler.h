// A whole scheduler (a-srpt, a-srpt-p, sjf-bco-online) with a CPU/DRAM allocation plugin after it: the inner
// scheduler decides who starts where (and whom to preempt); this one gives each start its CPUs and DRAM from
// what the kept jobs leave, in the inner scheduler's order, shrinking peers for TUNE. A start that gets none
// stays queued (the engine is the truth; the inner scheduler sees it queued at its next pass).
#pragma once
#include <memory>

#include "policy/plugin.h"

namespace rm {

class AllocatingScheduler final : public Scheduler {
 public:
  AllocatingScheduler(std::unique_ptr<Scheduler> inner, std::unique_ptr<Allocation> allocation)
      : inner_(std::move(inner)), allocation_(std::move(allocation)) {}
  std::string name() const override { return inner_->name() + "+" + allocation_->name(); }
  Decisions schedule(const SchedContext& ctx) override;
  bool allocates() const override { return true; }
  bool matrix_speed() const override { return allocation_->matrix_speed(); }
  bool in_python() const override { return inner_->in_python() || allocation_->in_python(); }
  void report(std::vector<std::pair<std::string, double>>& stable,
              std::vector<std::pair<std::string, double>>& timing) const override {
    inner_->report(stable, timing);
  }

 private:
  std::unique_ptr<Scheduler> inner_;
  std::unique_ptr<Allocation> allocation_;
};

}  // namespace rm
