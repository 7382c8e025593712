// A job of Sia's simulator (siasosp23/artifacts aaf7a0d, sia-simulator/job.py `Job`; docs/sia.md lists the rules
// with S:file:line): Pollux's job made heterogeneous. It runs on one GPU type at a time (the simulator's "cluster"),
// keeps one profile and one fitted throughput model per type (grad statistics shared), chooses its batch by the goodput
// model of the type it runs on, is slowed by its application's calibration factor (S:simulator_config.py SLOWDOWNS),
// pays its application's checkpoint-restore time after every (re)allocation or migration (S:applications.py
// rescale_time) and completes, as Pollux's, to the whole second rounded half to even.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "exec/sia_trainer.h"
#include "workload/job.h"

namespace rm::sia {

struct SJob : SiaTrainer {
  const JobSpec* spec = nullptr;
  double submit = 0;  // seconds (the newtrace workloads give fractions)
  int target_replicas = 0;
  double progress = 0;
  int epoch = 0;

  // Job state (S:job.py:77-112).
  std::optional<long> completion;
  long current = 0, rescale = 0;
  double attained = 0;  // GPU-seconds held (restart delays included)
  int restarts = -1;  // -1: never started (None)

  // For the outputs.
  long first_start = -1;
  int gpus_min = 0, gpus_max = 0;
  std::vector<int> types_used;  // GPU types held, in order of first use

  // Job.step (S:job.py:414-522).
  void advance(long seconds);
  // Job.reallocate (S:job.py:524-552) and Job.migrate (S:job.py:554-579); `now` and the bookkeeping are ours.
  void reallocate(const std::vector<int>& p, long now);
  void migrate(int type, const std::vector<int>& p, long now);

 private:
  void take(const std::vector<int>& p, long now);
  void started(long now);
};

}  // namespace rm::sia
