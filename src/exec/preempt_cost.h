// What a preemption costs the job that resumes (docs/perf-model.md, "Preemption cost"): seconds without progress,
// GPUs held, after a preempted job starts again. The default is a checkpoint-restore model that grows with the
// job's model; --preempt-overhead S fixes it at S seconds for every job.
#pragma once
#include <string>

#include "workload/job.h"

namespace rm {

struct PreemptCost {
  // Checkpoint-restore: kRestartS (process relaunch, CUDA/NCCL set-up, input pipeline warm-up) + the checkpoint
  // written at the preemption and read at the restart, kStateFactor x the parameters' bytes (fp32 weights and
  // Adam's two moments; the catalogue's grad_mb is the parameters' bytes), at kStorageMBps. Calibrated on Pollux's
  // 30-s re-allocation delay: the mean over Pollux's six applications is 29.8 s (PreemptCost.CalibratedOnPolluxsThirtySecondRestart).
  static constexpr double kRestartS = 25;
  static constexpr double kStateFactor = 3;
  static constexpr double kStorageMBps = 200;

  double fixed_s = -1;  // >= 0: --preempt-overhead, the same for every job

  double cost_s(const JobSpec& j) const {
    return fixed_s >= 0 ? fixed_s : kRestartS + 2 * kStateFactor * j.grad_mb / kStorageMBps;
  }
  // summary.json's preempt_cost_model.
  std::string label() const;
};

}  // namespace rm
