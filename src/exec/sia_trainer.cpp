// exec/sia_trainer.h: the batch rules and the profile of Sia's Job (S:job.py), line by line where they decide a number.
#include "exec/sia_trainer.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/error.h"

namespace rm::sia {
namespace {
int py_ceil(double x) { return static_cast<int>(std::ceil(x)); }
}  // namespace

double slowdown(const std::string& app) {
  if (app == "cifar10") return 1.8;
  if (app == "ncf") return 1.5;
  return 1.2;  // imagenet, yolov3, bert, deepspeech2 (and gpt_pmp 1.0, not modelled)
}

long rescale_time(const std::string& app) {
  if (app == "cifar10") return 50;
  if (app == "deepspeech2") return 25;
  if (app == "bert") return 120;
  if (app == "yolov3") return 80;
  if (app == "imagenet") return 250;
  if (app == "ncf") return 15;
  return 30;
}

int max_physical_nodes(const std::string& sia_type) {
  if (sia_type == "aws") return 16;
  if (sia_type == "azure") return 5;
  if (sia_type == "dgx" || sia_type == "dgx-ext") return 2;
  if (sia_type == "quad") return 1;
  if (sia_type == "rtx") return 3;
  return 1;
}

void SiaTrainer::init(std::vector<const PolluxApp*> by_type) {
  apps = std::move(by_type);
  profiles.assign(merged ? 1 : apps.size(), {});
  perf.assign(merged ? 1 : apps.size(), std::nullopt);
  calibration = 1.0 / slowdown(app_name);
}

int SiaTrainer::max_profiled_replicas(int type) const {
  int m = 0;
  for (const auto& s : profiles.at(slot(type))) m = std::max(m, s.replicas);
  return m;
}

std::optional<pollux::GoodputFunction> SiaTrainer::goodput_fn(int type) const {
  const auto& p = perf.at(slot(type));
  if (!grad || !p) return std::nullopt;
  return pollux::GoodputFunction(*p, *grad, apps.at(static_cast<std::size_t>(type))->init_batch_size());
}

std::optional<pollux::SpeedupFunction> SiaTrainer::unaware_speedup() const {
  const auto& p = perf.at(0);
  if (!grad || !p) return std::nullopt;
  return pollux::SpeedupFunction(pollux::GoodputFunction(*p, *grad, aws->init_batch_size()),
                                 target_batch > 0 ? target_batch : aws->max_batch_size(), aws->min_local_bsz(),
                                 aws->max_local_bsz(), true);
}

void SiaTrainer::update_local_bsz() {
  if (cluster < 0) throw InvariantError("sia: " + name + ": batch chosen before a GPU type");
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

void SiaTrainer::update_params(int nodes, int r, int local_bsz, double step, double sync, double sqr, double var) {
  grad = pollux::GradParams{sqr, var};
  auto& prof = profiles.at(slot(cluster));
  for (const auto& p : prof)
    if (p.nodes == nodes && p.replicas == r && p.atomic_bsz == local_bsz) return;
  prof.push_back({nodes, r, local_bsz, step - sync, step});
  perf.at(slot(cluster)) = pollux::fit_perf_params(prof, 1e-5);
}

double SiaTrainer::step_goodput(int epoch) {
  const PolluxApp& a = app();
  const int nodes = static_cast<int>(placement.size()), r = gpus();
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
  return gain / total * (1.0 - 0.0) * calibration;
}

}  // namespace rm::sia
