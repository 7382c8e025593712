// Elastic whole schedulers on the job-level engine (issue 43; docs/elastic.md): they give running elastic jobs
// other GPU counts through Decisions::reallocate. Rigid jobs take part at the count they ask for.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/order_stats.h"
#include "policy/params.h"
#include "policy/plugin.h"

namespace rm {

// Whether `name` (a scheduler's name()) is one of these (serve refuses them).
inline bool is_elastic_scheduler(const std::string& name) { return name == "optimus" || name == "pollux" || name == "sia"; }

// Optimus+Oracle (policy/optimus.cpp): round= seconds (60).
std::unique_ptr<Scheduler> make_optimus(PluginParams& p);
// Pollux's policy with the run's performance model as its oracle (policy/pollux.cpp): round= seconds (60).
std::unique_ptr<Scheduler> make_pollux(PluginParams& p);
// Sia's policy over the cluster's GPU types with the run's performance model as its oracle (policy/sia.cpp):
// round= seconds (60), p= (-0.5), lambda_n= (1.1).
std::unique_ptr<Scheduler> make_sia(PluginParams& p);

// Requested iterations per second of `spec` on `gpus` GPUs spread evenly over `servers` (the first ones get the
// remainder), from the run's performance model (SchedContext::span_iteration_s); 0 where a server would get none or
// the model has no time. What the elastic policies weigh a width and a spread by.
inline double spread_rate(const SchedContext& ctx, const JobSpec& spec, const std::vector<int>& servers, int gpus) {
  const int n = static_cast<int>(servers.size());
  if (n == 0 || gpus < n) return 0;
  std::vector<int> on;
  for (int k = 0; k < n; ++k) on.push_back(gpus / n + (k < gpus % n ? 1 : 0));
  const double it = (*ctx.span_iteration_s)(spec_at_width(spec, gpus), servers, on);
  return it > 0 ? work_per_iteration(spec, gpus) / it : 0;
}

// Decisions at round boundaries (multiples of the round, as Pollux's simulator): due() says whether this pass
// starts a round, and asks the engine to call again at the next boundary; with no job in the system the clock
// stops, and the next arrival starts a round at once.
// What an elastic policy reports of its rounds (Scheduler::report): `<name>_rounds` beside the outputs, the
// p50/p99 of its per-round decision times (ms) beside the timings.
inline void report_rounds(const std::string& name, const std::vector<double>& round_ms,
                          std::vector<std::pair<std::string, double>>& stable,
                          std::vector<std::pair<std::string, double>>& timing) {
  stable.emplace_back(name + "_rounds", static_cast<double>(round_ms.size()));
  if (round_ms.empty()) return;
  const auto [p50, p99] = p50_p99(round_ms);
  timing.emplace_back(name + "_round_ms_p50", p50);
  timing.emplace_back(name + "_round_ms_p99", p99);
}

class RoundClock {
 public:
  explicit RoundClock(Time round) : round_(round) {}
  Time round() const { return round_; }
  bool due(Time now, bool idle, Decisions& d) {
    const Time boundary = now / round_ * round_;
    if (idle) {
      last_ = kNever;
      return false;
    }
    d.wake_at = boundary + round_;
    if (last_ != kNever && boundary <= last_) return false;
    last_ = boundary;
    return true;
  }

 private:
  Time round_;
  Time last_ = kNever;
};

}  // namespace rm
