// Executes a planner's schedule in the engine: jobs start in the plan's order, each at its planned
// time on its planned GPUs (or as soon after as those GPUs are free, to absorb microsecond rounding).
#pragma once
#include <string>
#include <vector>

#include "policy/planner/planner.h"
#include "policy/plugin.h"

namespace rm::plan {

class PlanScheduler : public Scheduler {
 public:
  PlanScheduler(std::string name, const Plan& plan, const ClusterSpec& cluster, double slot_s);
  std::string name() const override { return name_; }
  Decisions schedule(const SchedContext& ctx) override;

 private:
  struct Step {
    JobId job;
    Time start;
    std::vector<GpuRef> gpus;
  };
  std::string name_;
  std::vector<Step> steps_;  // in start order
  std::size_t next_ = 0;
};

}  // namespace rm::plan
