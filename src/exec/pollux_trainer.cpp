// exec/pollux_trainer.h: the batch rules of Pollux's simulator job (P:simulator.py:64-98, 113-133).
#include "exec/pollux_trainer.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace rm::pollux {

void Trainer::make_pollux_job() {
  adaptive = app->name() != "ncf";
  target_batch = adaptive ? 0 : 32768;
  profiles = true;
}

void Trainer::update_local_bsz(const std::vector<int>& placement) {
  const int r = gpus_of(placement);
  if (adaptive && perf) {
    const GoodputFunction fn(*perf, grad, app->init_batch_size());
    const BatchChoice c = fn.optimize(static_cast<int>(placement.size()), r, app->max_batch_size(), app->min_local_bsz(),
                                      app->max_local_bsz(), true);
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

void Trainer::update_params(int nodes, int r, double step, double sync, double sqr, double var) {
  grad = {sqr, var};
  for (const auto& p : profile)
    if (p.nodes == nodes && p.replicas == r && p.atomic_bsz == atomic) return;
  profile.push_back({nodes, r, atomic, step - sync, step});
  perf = fit_perf_params(profile);
}

Trainer::Step Trainer::step_at(const std::vector<int>& placement, int epoch, bool observe) {
  const int r = gpus_of(placement);
  const int b = batch(r);
  const double scale = static_cast<double>(b) / app->init_batch_size();
  Step s;
  std::tie(s.step, s.sync) = app->throughput(placement, atomic);
  const double accum_time = s.step - s.sync;
  const auto [sqr, var] = app->grad_stats(b, epoch);
  s.gain = (var + sqr) / (var / scale + sqr);
  if (observe && profiles) update_params(static_cast<int>(placement.size()), r, s.step, s.sync, sqr, var);
  const double total = s.step + accum_time * accum;
  s.goodput = s.gain / total;
  return s;
}

std::optional<SpeedupFunction> Trainer::speedup() const {
  if (!perf) return std::nullopt;
  return SpeedupFunction(GoodputFunction(*perf, grad, app->init_batch_size()), app->max_batch_size(),
                         app->min_local_bsz(), app->max_local_bsz(), true);
}

int Trainer::max_replicas() const {
  int profiled = 0;
  for (const auto& x : profile) profiled = std::max(profiled, x.replicas);
  return std::min(std::max(2 * profiled, 1), replica_cap(*app));
}

}  // namespace rm::pollux
