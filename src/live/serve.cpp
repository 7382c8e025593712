#include "live/serve.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <iostream>

#include "core/error.h"
#include "live/backends.h"
#include "live/live_scheduler.h"

namespace rm::live {

std::function<void(const std::string&)> stderr_log(const std::string& who) {
  const auto t0 = std::chrono::steady_clock::now();
  return [t0, who](const std::string& line) {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << fmt::format("[{} {:9.3f}s] {}\n", who, el, line) << std::flush;
  };
}

double parse_interval(const std::string& s, const std::string& field) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (...) {
    throw InputError(field, 0, s, "expected a duration such as 1s, 500ms or 2m");
  }
  const std::string unit = s.substr(used);
  const double k = unit.empty() || unit == "s" ? 1 : unit == "ms" ? 1e-3 : unit == "m" ? 60 : -1;
  if (k < 0 || !std::isfinite(v) || v <= 0) throw InputError(field, 0, s, "expected a positive duration such as 1s, 500ms or 2m");
  return v * k;
}

int run_serve(const ServeArgs& a) {
  ServeOptions o = a.backend;
  o.log = stderr_log("serve");
  const auto backend = make_backend(a.backend_kind, o);
  LiveScheduler s(*backend, o.policy, o.seed, o.log);
  s.connect(wall_now());  // refuses to start when the manager is unreachable or the partition does not exist
  LoopOptions lo;
  lo.interval_s = a.interval_s;
  lo.once = a.once;
  lo.exit_when_done = a.exit_when_done;
  lo.max_idle_s = a.max_idle_s;
  lo.out = a.out;
  return run_live(s, lo, o.log);
}

}  // namespace rm::live
