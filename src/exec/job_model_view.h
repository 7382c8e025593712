// What a job model lets a policy read of a job's own view of itself: Pollux's jobs keep a profile of their observed
// steps and fit a throughput model to it (exec/pollux_trainer.h); a goodput-aware policy (the engine's pollux)
// weighs allocations by that fitted model, as Pollux's scheduler does, instead of the simulator's oracle. The
// engine hands it to the scheduler as SchedContext::job_model where its execution model keeps one
// (models/rate/pollux_job_model.h); null otherwise.
#pragma once
#include <optional>

#include "exec/goodput.h"
#include "sched/job_state.h"

namespace rm::sia {
struct SiaTrainer;  // exec/sia_trainer.h
}

namespace rm {

class JobModelView {
 public:
  virtual ~JobModelView() = default;
  // The job's speedup function from its fitted throughput model and current gradient statistics (Pollux's
  // speedup.py); none before its first fit (Pollux then counts its speedup as GPUs over the fair share).
  virtual std::optional<pollux::SpeedupFunction> speedup(const JobState& job) const = 0;
  // The most GPUs the job would use now (Pollux: twice the most it has profiled, capped by its batch).
  virtual int max_gpus(const JobState& job) const = 0;
  // Sia's jobs (--job-model sia): the job's per-type profiles and fitted models, its batch limits per type, which the
  // engine's sia weighs configurations by (policy/sia_goodput.h); null under other job models.
  virtual const sia::SiaTrainer* sia_trainer(const JobState& /*job*/) const { return nullptr; }
};

}  // namespace rm
