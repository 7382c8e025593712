// peers/sia/sia_job.h: Sia's Job (S:job.py), line by line where it decides a number.
#include "peers/sia/sia_job.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace rm::sia {
namespace {
long py_round(double x) { return static_cast<long>(std::nearbyint(x)); }
}  // namespace

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
  rescale -= delay;
  seconds -= delay;
  while (seconds > 0 && !completion) {
    const PolluxApp& a = app();
    if (epoch >= a.max_epochs()) throw InvariantError("sia: job " + spec->name + " ran past its last epoch");
    const double goodput = step_goodput(epoch);
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
  if (p.empty() || placement != p) take(p, now);  // the same GPUs per node: no restart (S:job.py:527)
}

void SJob::migrate(int type, const std::vector<int>& p, long now) {
  cluster = type;
  take(p, now);  // another type: always a restart
}

// The new GPUs with the batch for them and the restart it costs; none: suspended.
void SJob::take(const std::vector<int>& p, long now) {
  if (p.empty()) {
    placement.clear();
    atomic = 0;
    return;
  }
  placement = p;
  update_local_bsz();
  rescale = rescale_time(app_name);
  started(now);
}

}  // namespace rm::sia
