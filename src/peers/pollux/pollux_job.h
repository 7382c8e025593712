// A job of Pollux's simulator (adaptdl osdi21-artifact c793c70, simulator/simulator.py `Job`; the rules of
// shared/goldens/peers/pollux/README.md section 4): its progress in epochs by the true goodput of its placement
// (exec/pollux_app.h), the 30-s restart after a re-allocation, whole-second completion rounded as Python's round,
// and its batch: fixed (the baselines, ncf) or, for a Pollux job, re-chosen by the goodput model fitted to its own
// profile (exec/goodput.h). The loop that advances jobs and asks a policy is pollux_sim.cpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "exec/pollux_trainer.h"
#include "workload/job.h"

namespace rm::pollux_peer {

using pollux::py_ceil;
// Python's round(float): to the nearest integer, ties to even (the default rounding mode).
inline long py_round(double x) { return static_cast<long>(std::nearbyint(x)); }

struct PJob : pollux::Trainer {
  const JobSpec* spec = nullptr;
  long submit = 0;
  int target_replicas = 0;
  std::optional<long> completion;
  long current = 0, rescale = 0, first_start = -1;
  int gpus_min = 0, gpus_max = 0;  // the fewest and most GPUs it held
  std::vector<int> placement;  // GPUs per node, in allocation order
  int epoch = 0, restarts = -1;
  double progress = 0, attained = 0;

  int gpus() const { return gpus_of(placement); }
  void update_local_bsz() { Trainer::update_local_bsz(placement); }

  // Job.step (P:simulator.py:100-157).
  void advance(long seconds, double interference) {
    if (placement.empty()) {
      current += seconds;
      return;
    }
    const long delay = std::min(rescale, seconds);
    current += delay;
    attained += static_cast<double>(delay * gpus());
    rescale -= delay;
    seconds -= delay;
    while (seconds > 0 && !completion) {
      if (epoch >= app->max_epochs()) throw InvariantError("pollux: job " + spec->name + " ran past its last epoch");
      const int r = gpus();
      const double goodput = step_at(placement, epoch, true).goodput * (1.0 - interference);
      const double next = app->progress(epoch + 1);
      if (progress + goodput * static_cast<double>(seconds) < next) {
        progress += goodput * static_cast<double>(seconds);
        current += seconds;
        attained += static_cast<double>(seconds * r);
        seconds = 0;
      } else {
        ++epoch;
        const long delta = py_round((next - progress) / goodput);
        if (delta > seconds) throw InvariantError("pollux: an epoch of " + spec->name + " overran its round");
        if (epoch > app->completion_epoch()) completion = current + delta;
        progress = next;
        current += delta;
        attained += static_cast<double>(delta * r);
        seconds -= delta;
      }
      update_local_bsz();
    }
    current += seconds;
  }

  // Job.reallocate (P:simulator.py:159-170).
  void reallocate(const std::vector<int>& p, long now) {
    if (!p.empty()) {
      placement = p;
      update_local_bsz();
      rescale = 30;
      restarts = restarts < 0 ? 0 : restarts + 1;
      if (first_start < 0) first_start = now;
      const int r = gpus();
      gpus_min = gpus_min == 0 ? r : std::min(gpus_min, r);
      gpus_max = std::max(gpus_max, r);
    } else {
      placement.clear();
      atomic = 0;
    }
  }
};


}  // namespace rm::pollux_peer
