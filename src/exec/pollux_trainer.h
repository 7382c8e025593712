// The training side of a job in Pollux's world (adaptdl osdi21-artifact c793c70, simulator/simulator.py `Job`;
// shared/goldens/peers/pollux/README.md section 4): its batch (fixed, or re-chosen by the goodput model fitted to
// its own observed steps), its profile and fitted throughput model, its gradient statistics, and the true goodput
// of its configuration on a placement. One copy for both users: --compat pollux's jobs (peers/pollux/pollux_job.h,
// round by round) and the engine's Pollux job model (models/rate/pollux_job_model.h, in continuous time).
#pragma once
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "exec/goodput.h"
#include "exec/pollux_app.h"

namespace rm::pollux {

// Python's math.ceil(x) for the simulator's batch arithmetic.
inline int py_ceil(double x) { return static_cast<int>(std::ceil(x)); }

// The most GPUs a job of `app` can use at all: its largest batch over its least local batch, at most 64 (ncf: 1).
inline int replica_cap(const PolluxApp& app) {
  return app.name() == "ncf" ? 1 : std::min(64, app.max_batch_size() / app.min_local_bsz());
}

struct Trainer {
  const PolluxApp* app = nullptr;
  int target_batch = 0;  // a fixed global batch (the baselines' TunedJobs, ncf under Pollux); 0: adaptive
  int atomic = 0, accum = 0;
  // A Pollux job (no fixed batch) re-chooses its batch by the goodput model fitted to its profile.
  bool adaptive = false;
  bool profiles = false;  // keeps a profile and fits the throughput model
  std::vector<StepSample> profile;  // one per (nodes, GPUs, atomic batch) seen, in the order seen
  std::optional<PerfParams> perf;
  GradParams grad;

  static int gpus_of(const std::vector<int>& placement) {
    int n = 0;
    for (int x : placement) n += x;
    return n;
  }
  int batch(int replicas) const { return replicas * atomic * (accum + 1); }

  // A job as the simulator makes it for the Pollux policy (P:simulator.py:189-192): it chooses its batch, but
  // ncf's is fixed at 32,768; every job keeps a profile and fits its throughput model.
  void make_pollux_job();
  // Job.update_local_bsz (P:simulator.py:64-83) on `placement` (GPUs per node): a fixed target batch split over
  // the GPUs, or for a Pollux job the best configuration of the goodput model once fitted (before: the smallest
  // batch the GPUs allow).
  void update_local_bsz(const std::vector<int>& placement);
  // Job.update_params (P:simulator.py:85-98): the true gradient statistics; a new (nodes, GPUs, atomic batch)
  // point joins the profile and the throughput model is fitted again over all of them.
  void update_params(int nodes, int replicas, double step, double sync, double sqr, double var);

  // One step of the current configuration on `placement` during `epoch` (P:simulator.py:113-133): the measured
  // step and sync times, the gradient statistics, and the goodput in progress units per second (statistical
  // gain over the step time with accumulation). With `observe` (a job that profiles), the step joins the profile.
  struct Step {
    double step = 0, sync = 0, gain = 0, goodput = 0;
  };
  Step step_at(const std::vector<int>& placement, int epoch, bool observe);

  // The policy's view (P:simulator.py:321-336): the speedup function of the fitted model (none before a fit), and
  // the most GPUs it would use now (twice the most it has profiled, at most 64 and its largest batch over its least
  // local batch; ncf 1).
  std::optional<SpeedupFunction> speedup() const;
  int max_replicas() const;
};

}  // namespace rm::pollux
