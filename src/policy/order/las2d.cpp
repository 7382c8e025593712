// 2D-LAS (Tiresias, discretised): a job's queue is the number of thresholds its attained service
// (GPU-seconds) has passed; lower queues first, FIFO within a queue. Preemptive. The scheduler is
// woken when a running job crosses its next threshold. Parameter: thresholds=<GPU-s>,<GPU-s>,...
#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "policy/order/orders.h"

namespace rm {
namespace {
class Las2d final : public QueueOrder {
 public:
  explicit Las2d(std::vector<double> t) : thresholds_(std::move(t)) {}
  std::string name() const override { return "2d-las"; }
  double key(const JobState& j, Time now) const override {
    const double a = j.attained_gpu_s(now);
    return static_cast<double>(std::upper_bound(thresholds_.begin(), thresholds_.end(), a) - thresholds_.begin());
  }
  bool has_next_change() const override { return true; }
  // The first microsecond at which the job's queue goes up, running from now on if it is not running yet:
  // exact (the key is read at the guess and its neighbours), so the answer does not depend on `now` while the
  // job runs, and a scheduler may keep it from pass to pass.
  Time next_change(const JobState& j, Time now) const override {
    const double a = j.attained_gpu_s(now);
    auto it = std::upper_bound(thresholds_.begin(), thresholds_.end(), a);
    return it == thresholds_.end() ? kNever : first_time_attained(j, now, *it);
  }
  RunningKey running_key() const override { return RunningKey::Steps; }
  bool key_fixed_while_waiting() const override { return true; }
  bool default_preemptive() const override { return true; }

 private:
  std::vector<double> thresholds_;
};
}  // namespace

// Exact (the attained service is read at the guess and its neighbours), so the answer does not depend on `now`
// while the job runs, and a scheduler may keep it from pass to pass.
Time first_time_attained(const JobState& j, Time now, double threshold) {
  if (j.spec->elastic() && j.held_max > 0) {  // at its width now (or asked for), from the GPU-seconds it has
    const Time g = j.width(), since = j.running() ? j.last_start : now;
    auto reached = [&](Time t) { return to_seconds(j.gpu_us + (t - since) * g) >= threshold; };
    Time t = std::max(now + 1, since + from_seconds_ceil((threshold - to_seconds(j.gpu_us)) / static_cast<double>(g)));
    while (t - 1 > now && reached(t - 1)) --t;
    while (!reached(t)) ++t;
    return t;
  }
  const int g = j.spec->num_gpus;
  const Time since = j.running() ? j.last_start : now;  // attained at t: run_us + (t - since), times g
  const Time origin = since - j.run_us;
  auto reached = [&](Time t) { return to_seconds(t - origin) * g >= threshold; };
  Time t = std::max(now + 1, origin + from_seconds_ceil(threshold / g));
  while (t - 1 > now && reached(t - 1)) --t;
  while (!reached(t)) ++t;
  return t;
}

std::unique_ptr<QueueOrder> make_las2d(PluginParams& p) {
  auto t = p.get_list("thresholds", {3600.0, 36000.0}, 1e-6, 1e12);
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!(t[i] > 0) || (i > 0 && t[i] <= t[i - 1]))
      throw InputError("--policy", 0, "2d-las:thresholds", "must be positive and increasing");
    // The clock counts microseconds in 64 bits: a threshold past ~2.9e5 years would overflow it (and a run waiting
    // for it would never end); 1e12 GPU-seconds (31,700 GPU-years) is far beyond any trace.
    if (t[i] > 1e12) throw InputError("--policy", 0, "2d-las:thresholds", "must be at most 1e12 GPU-seconds");
  }
  return std::make_unique<Las2d>(std::move(t));
}
}  // namespace rm
