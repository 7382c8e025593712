// Gittins index orders (Gittins 1979; Tiresias, Gu et al. NSDI'19 section 3.2): with S a job's total service
// (GPU-seconds) drawn from a known distribution and a its attained service, the index for a quantum D is
//   G(a, D) = P(S - a <= D | S > a) / E[min(S - a, D) | S > a],
// the chance to finish within the next D GPU-seconds per GPU-second spent; the highest index goes first.
//   gittins     the continuous index: sup over D (reached at a sample point), on the exact attained service.
//   2d-gittins  Tiresias' discretised one: attained service counted in whole quanta D (delta=, default 3250
//               GPU-seconds, the peer's), G(floor(a / D) D, D); the key changes only at quantum boundaries.
// The distribution: cdf=FILE, samples of total service in a `duration` column (Tiresias' yarn-gput1000.csv, by
// default under --data-dir: run/run_plan.cpp fills it in), or cdf=online: the total service of the last
// `window` jobs that finished (default 1,000); until one has, every index is 0 and jobs go in arrival order.
// A job past every sample has index 0 (nothing known about it: last). Preemptive by default. Tiresias'
// simulator's own table, with its bugs, is --compat tiresias's (peers/tiresias/tiresias_sim.cpp).
#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>

#include "core/error.h"
#include "policy/order/orders.h"
#include "sched/job_state.h"
#include "workload/service_samples.h"

namespace rm {
namespace {

class Distribution {
 public:
  void set(std::vector<double> d) {
    d_ = std::move(d);
    std::sort(d_.begin(), d_.end());
    prefix_.assign(d_.size() + 1, 0.0);
    for (std::size_t i = 0; i < d_.size(); ++i) prefix_[i + 1] = prefix_[i] + d_[i];
  }
  // G(a, delta); delta <= 0: the sup over every quantum.
  double index(double a, double delta) const {
    const std::size_t n = d_.size();
    const std::size_t lo = static_cast<std::size_t>(std::upper_bound(d_.begin(), d_.end(), a) - d_.begin());
    if (lo == n) return 0.0;
    const double m = static_cast<double>(n - lo);
    // c samples end within (a, a + D]: c / (sum of their (d - a) + D x the rest), both over m.
    const auto ratio = [&](std::size_t hi, double d) {
      const double c = static_cast<double>(hi - lo);
      const double spent = (prefix_[hi] - prefix_[lo]) - c * a + d * (m - c);
      return spent > 0 ? c / spent : 0.0;
    };
    if (delta > 0)
      return ratio(static_cast<std::size_t>(std::upper_bound(d_.begin(), d_.end(), a + delta) - d_.begin()), delta);
    double best = 0;
    for (std::size_t k = lo; k < n;) {  // D = each distinct sample's d - a: the ratio jumps there, falls between
      std::size_t hi = k + 1;
      while (hi < n && d_[hi] == d_[k]) ++hi;
      best = std::max(best, ratio(hi, d_[k] - a));
      k = hi;
    }
    return best;
  }
  std::size_t size() const { return d_.size(); }

 private:
  std::vector<double> d_, prefix_;
};

class Gittins final : public QueueOrder {
 public:
  Gittins(bool discrete, double delta, bool online, std::size_t window, std::vector<double> samples)
      : discrete_(discrete), delta_(delta), online_(online), window_(window) {
    dist_.set(std::move(samples));
  }
  std::string name() const override { return discrete_ ? "2d-gittins" : "gittins"; }
  double key(const JobState& j, Time now) const override {
    const double a = j.attained_gpu_s(now);
    if (!discrete_) return -dist_.index(a, 0);
    return -dist_.index(std::floor(a / delta_) * delta_, delta_);
  }
  bool has_next_change() const override { return discrete_; }
  Time next_change(const JobState& j, Time now) const override {
    if (!discrete_) return kNever;
    return first_time_attained(j, now, (std::floor(j.attained_gpu_s(now) / delta_) + 1) * delta_);
  }
  RunningKey running_key() const override { return discrete_ ? RunningKey::Steps : RunningKey::Moves; }
  // A waiting job's attained service does not move; a learnt distribution does.
  bool key_fixed_while_waiting() const override { return !online_; }
  bool default_preemptive() const override { return true; }
  void observe(std::span<const JobState* const> finished) override {
    if (!online_ || finished.empty()) return;
    for (const JobState* j : finished) {
      seen_.push_back(j->attained_gpu_s(j->finish));
      if (seen_.size() > window_) seen_.pop_front();
    }
    std::vector<double> d;
    for (double x : seen_)
      if (x > 0) d.push_back(x);
    dist_.set(std::move(d));
  }

 private:
  bool discrete_;
  double delta_;
  bool online_;
  std::size_t window_;
  Distribution dist_;
  std::deque<double> seen_;
};

std::unique_ptr<QueueOrder> make(PluginParams& p, bool discrete) {
  const std::string name = discrete ? "2d-gittins" : "gittins";
  const std::string cdf = p.get_string("cdf", "");
  const double delta = discrete ? p.get_double("delta", 3250, 1, 1e12) : 0;
  const int window = p.get_int("window", 1000, 1, 10'000'000);
  if (discrete && (!(delta > 0) || delta > 1e12))
    throw InputError("--policy", 0, name + ":delta", "the quantum must be in (0, 1e12] GPU-seconds");
  if (cdf.empty())
    throw InputError("--policy", 0, name + ":cdf",
                     "needs cdf=FILE (a `duration` column of total GPU-seconds, e.g. Tiresias' yarn-gput1000.csv) or "
                     "cdf=online");
  const bool online = cdf == "online";
  return std::make_unique<Gittins>(discrete, delta, online, static_cast<std::size_t>(window),
                                   online ? std::vector<double>{} : read_service_samples(cdf, false));
}

}  // namespace

std::unique_ptr<QueueOrder> make_gittins(PluginParams& p) { return make(p, false); }
std::unique_ptr<QueueOrder> make_gittins2d(PluginParams& p) { return make(p, true); }

}  // namespace rm
