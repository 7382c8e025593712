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
#include "exec/goodput.h"
#include "exec/pollux_app.h"
#include "workload/job.h"

namespace rm::pollux_peer {

// Python's math.ceil(x) for the simulator's batch arithmetic.
inline int py_ceil(double x) { return static_cast<int>(std::ceil(x)); }
// Python's round(float): to the nearest integer, ties to even (the default rounding mode).
inline long py_round(double x) { return static_cast<long>(std::nearbyint(x)); }

struct PJob {
  const JobSpec* spec = nullptr;
  const PolluxApp* app = nullptr;
  long submit = 0;
  int target_replicas = 0, target_batch = 0;
  std::optional<long> completion;
  long current = 0, rescale = 0, first_start = -1;
  int gpus_min = 0, gpus_max = 0;  // the fewest and most GPUs it held
  std::vector<int> placement;  // GPUs per node, in allocation order
  int atomic = 0, accum = 0, epoch = 0, restarts = -1;
  double progress = 0, attained = 0;
  // A Pollux job (no fixed batch: target_batch 0) re-chooses its batch by the goodput model fitted to its profile.
  bool adaptive = false;
  bool profiles = false;  // keeps a profile and fits the throughput model (every job under Pollux; none of the baselines, whose decisions never read it)
  std::vector<pollux::StepSample> profile;  // one per (nodes, GPUs, atomic batch) seen, in the order seen
  std::optional<pollux::PerfParams> perf;
  pollux::GradParams grad;

  int gpus() const {
    int n = 0;
    for (int x : placement) n += x;
    return n;
  }

  // Job.update_local_bsz (P:simulator.py:64-83): a fixed target batch split over the GPUs, or for a Pollux job
  // the best configuration of the goodput model once fitted (before: the smallest batch the GPUs allow).
  void update_local_bsz() {
    const int r = gpus();
    if (adaptive && perf) {
      const pollux::GoodputFunction fn(*perf, grad, app->init_batch_size());
      const pollux::BatchChoice c =
          fn.optimize(static_cast<int>(placement.size()), r, app->max_batch_size(), app->min_local_bsz(), app->max_local_bsz(), true);
      atomic = c.atomic_bsz;
      accum = c.accum_steps;
    } else {
      const int b = adaptive ? std::max(app->init_batch_size(), app->min_local_bsz() * r) : target_batch;
      const int local = py_ceil(static_cast<double>(b) / r - 1e-8);
      accum = py_ceil(static_cast<double>(local) / app->max_local_bsz() - 1e-8) - 1;
      if (r == 1 && b > app->init_batch_size()) accum = std::max(1, accum);
      atomic = py_ceil(static_cast<double>(local) / (accum + 1) - 1e-8);
    }
    const int count = r * (accum + 1);
    atomic = std::min(atomic, static_cast<int>(static_cast<double>(app->max_batch_size()) / count));
  }

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
      const int batch = r * atomic * (accum + 1);
      const double scale = static_cast<double>(batch) / app->init_batch_size();
      const auto [step, sync] = app->throughput(placement, atomic);
      const double accum_time = step - sync;
      const auto [sqr, var] = app->grad_stats(batch, epoch);
      const double gain = (var + sqr) / (var / scale + sqr);
      if (profiles) update_params(static_cast<int>(placement.size()), r, step, sync, sqr, var);
      const double total = step + accum_time * accum;
      const double goodput = gain / total * (1.0 - interference);
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

  // A job as the simulator makes it for the Pollux policy (P:simulator.py:189-192): it chooses its batch, but ncf's
  // is fixed at 32,768; every job keeps a profile and fits its throughput model.
  void make_pollux_job() {
    adaptive = app->name() != "ncf";
    target_batch = adaptive ? 0 : 32768;
    profiles = true;
  }

  // Job.update_params (P:simulator.py:85-98): the true gradient statistics; a new (nodes, GPUs, atomic batch) point
  // joins the profile and the throughput model is fitted again over all of them.
  void update_params(int nodes, int r, double step, double sync, double sqr, double var) {
    grad = {sqr, var};
    for (const auto& p : profile)
      if (p.nodes == nodes && p.replicas == r && p.atomic_bsz == atomic) return;
    profile.push_back({nodes, r, atomic, step - sync, step});
    perf = pollux::fit_perf_params(profile);
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
