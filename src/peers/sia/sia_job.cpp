// peers/sia/sia_job.h: Sia's Job (S:job.py), line by line where it decides a number.
#include "peers/sia/sia_job.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/error.h"

namespace rm::sia {
namespace {
int py_ceil(double x) { return static_cast<int>(std::ceil(x)); }
// Application.rescale_time (S:applications.py:56-69): the checkpoint-restore seconds after a (re)allocation.
long rescale_time(const std::string& app) {
  if (app == "cifar10") return 50;
  if (app == "deepspeech2") return 25;
  if (app == "bert") return 120;
  if (app == "yolov3") return 80;
  if (app == "imagenet") return 250;
  if (app == "ncf") return 15;
  return 30;
}
long py_round(double x) { return static_cast<long>(std::nearbyint(x)); }
}  // namespace

int SJob::max_profiled_replicas(int type) const {
  int m = 0;
  for (const auto& s : profiles.at(slot(type))) m = std::max(m, s.replicas);
  return m;
}

std::optional<pollux::GoodputFunction> SJob::goodput_fn(int type) const {
  const auto& p = perf.at(slot(type));
  if (!grad || !p) return std::nullopt;
  return pollux::GoodputFunction(*p, *grad, apps.at(static_cast<std::size_t>(type))->init_batch_size());
}

std::optional<pollux::SpeedupFunction> SJob::unaware_speedup() const {
  const auto& p = perf.at(0);
  if (!grad || !p) return std::nullopt;
  return pollux::SpeedupFunction(pollux::GoodputFunction(*p, *grad, aws->init_batch_size()),
                                 target_batch > 0 ? target_batch : aws->max_batch_size(), aws->min_local_bsz(),
                                 aws->max_local_bsz(), true);
}

void SJob::update_local_bsz() {
  if (cluster < 0) throw InvariantError("sia: " + spec->name + ": batch chosen before a GPU type");
  const PolluxApp& a = app();
  const int nodes = static_cast<int>(placement.size()), r = gpus();
  const int max_local = a.max_local_bsz_at(placement);
  // The trace's batch unless the job tunes it; before its first step (no model yet) the least batch its GPUs take.
  int batch = tune_bsz ? 0 : target_batch;
  const auto fn = goodput_fn(cluster);
  if (batch == 0 && !fn) batch = std::max(a.init_batch_size(), a.min_local_bsz() * r);
  if (batch == 0) {
    const auto c = fn->optimize(nodes, r, a.max_batch_size(), a.min_local_bsz(), max_local, true);
    atomic = c.atomic_bsz;
    accum = c.accum_steps;
  } else {
    const int local = py_ceil(static_cast<double>(batch) / r - 1e-8);
    accum = py_ceil(static_cast<double>(local) / max_local - 1e-8) - 1;
    if (r == 1 && batch > a.init_batch_size()) accum = std::max(1, accum);
    atomic = py_ceil(static_cast<double>(local) / (accum + 1) - 1e-8);
  }
  // The memory correction: no more than the largest local batch measured at this many GPUs (S:job.py:376-382).
  if (const int m = a.max_measured_local(r); m > 0) atomic = std::min(atomic, m);
  const int count = r * (accum + 1);
  atomic = std::min(atomic, static_cast<int>(static_cast<double>(a.max_batch_size()) / count));
}

void SJob::update_params(int nodes, int r, int local_bsz, double step, double sync, double sqr, double var) {
  grad = pollux::GradParams{sqr, var};
  auto& prof = profiles.at(slot(cluster));
  for (const auto& p : prof)
    if (p.nodes == nodes && p.replicas == r && p.atomic_bsz == local_bsz) return;
  prof.push_back({nodes, r, local_bsz, step - sync, step});
  perf.at(slot(cluster)) = pollux::fit_perf_params(prof, 1e-5);
}

void SJob::advance(long seconds) {
  if (completion) return;
  if (placement.empty()) {
    current += seconds;
    return;
  }
  const int g = gpus();
  const long delay = std::min(rescale, seconds);  // checkpoint-restore: GPUs held, no progress
  current += delay;
  attained += static_cast<double>(delay * g);
  wasted_gpu_s += static_cast<double>(delay * g);
  rescale -= delay;
  seconds -= delay;
  if (seconds > 0) used_gpu_s += static_cast<double>(seconds * g);
  while (seconds > 0 && !completion) {
    const PolluxApp& a = app();
    if (epoch >= a.max_epochs()) throw InvariantError("sia: job " + spec->name + " ran past its last epoch");
    const int nodes = static_cast<int>(placement.size()), r = g;
    const int local = atomic * (accum + 1);
    const int batch = r * local;
    const double scale = static_cast<double>(batch) / a.init_batch_size();
    const auto [sqr, var] = a.grad_stats(batch, epoch);
    const double gain = (var + sqr) / (var / scale + sqr);
    double step = 0, sync = 0;
    std::tie(step, sync) = a.throughput(placement, atomic);
    const double accum_time = step - sync;
    update_params(nodes, r, atomic, step, sync, sqr, var);
    const double total = step + accum_time * accum;
    const double goodput = gain / total * (1.0 - 0.0) * calibration;
    const double next = a.progress(epoch + 1);
    if (progress + goodput * static_cast<double>(seconds) < next) {
      progress += goodput * static_cast<double>(seconds);
      current += seconds;
      attained += static_cast<double>(seconds * g);
      seconds = 0;
    } else {
      ++epoch;
      const long delta = py_round((next - progress) / goodput);
      if (delta > seconds) throw InvariantError("sia: an epoch of " + spec->name + " overran its round");
      if (epoch > a.completion_epoch()) completion = current + delta;
      progress = next;
      current += delta;
      attained += static_cast<double>(delta * g);
      seconds -= delta;
    }
    update_local_bsz();
  }
  current += seconds;
}

void SJob::started(long now) {
  restarts = restarts < 0 ? 0 : restarts + 1;
  if (first_start < 0) first_start = now;
  const int r = gpus();
  gpus_min = gpus_min == 0 ? r : std::min(gpus_min, r);
  gpus_max = std::max(gpus_max, r);
  if (std::find(types_used.begin(), types_used.end(), cluster) == types_used.end()) types_used.push_back(cluster);
}

void SJob::reallocate(const std::vector<int>& p, long now) {
  if (!p.empty()) {
    if (placement != p) {
      placement = p;
      update_local_bsz();
      rescale = rescale_time(app_name);
      started(now);
    }
  } else {
    placement.clear();
    atomic = 0;
  }
}

void SJob::migrate(int type, const std::vector<int>& p, long now) {
  cluster = type;
  if (!p.empty()) {
    placement = p;
    update_local_bsz();
    rescale = rescale_time(app_name);
    started(now);
  } else {
    placement.clear();
    atomic = 0;
  }
}

}  // namespace rm::sia
