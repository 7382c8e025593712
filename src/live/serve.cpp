#include "live/serve.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cmath>
#include <iostream>
#include <thread>

#include "core/error.h"
#include "metrics/metrics.h"

namespace rm::live {

namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop = true; }
}  // namespace

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

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
  if (a.backend_kind != "slurm")
    throw InputError("--backend", 0, a.backend_kind, "unknown backend (available: slurm)");
  ServeOptions o = a.backend;
  o.log = stderr_log("serve");
  SlurmCtl ctl;
  SlurmBackend b(ctl, o);
  b.connect(wall_now());  // refuses to start when Slurm is unreachable or the partition does not exist
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  bool down = false;
  const double started = wall_now();
  while (!g_stop) {
    const double now = wall_now();
    int left = 0;
    const auto s0 = std::chrono::steady_clock::now();
    try {
      left = b.step(now);
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
      if (took > std::max(2.0, 5 * a.interval_s))  // Slurm's clients retry a restarting slurmctld themselves
        o.log(fmt::format("slow step: {:.1f} s waiting for Slurm to answer", took));
      if (down) o.log("slurmctld answers again");
      down = false;
    } catch (const SlurmError& e) {
      if (!down) o.log(std::string("Slurm unreachable, retrying every interval: ") + e.what());
      down = true;
      left = 1;
    }
    if (a.once) break;
    if (a.exit_when_done && !down) {
      if (!b.jobs().empty() && left == 0) break;
      if (b.jobs().empty() && a.max_idle_s > 0 && now - started > a.max_idle_s) break;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(a.interval_s);
    while (!g_stop && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long>(50, static_cast<long>(a.interval_s * 1000) + 1)));
  }
  const std::string out = a.out.empty() ? o.state_dir : a.out;
  b.write_outputs(out);
  std::vector<double> d(b.decision_us().begin(), b.decision_us().end());
  o.log(fmt::format("stopped: {} jobs adopted, {} decisions, latency p50 {:.0f} us, p99 {:.0f} us; outputs in {}",
                    b.jobs().size(), d.size(), d.empty() ? 0.0 : quantile(d, 0.5), d.empty() ? 0.0 : quantile(d, 0.99),
                    out));
  return 0;
}

}  // namespace rm::live
