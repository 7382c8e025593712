#include "live/serve.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "live/backends.h"
#include "live/live_scheduler.h"
#include "live/metrics_http.h"
#include "live/state_lock.h"

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

LevelLog make_level_log(const std::string& who, const std::string& level, const std::string& file) {
  static const std::vector<std::string> kLevels = {"error", "warn", "info", "debug"};
  const auto at = std::find(kLevels.begin(), kLevels.end(), level);
  if (at == kLevels.end()) throw InputError("--log-level", 0, level, "expected error, warn, info or debug");
  const int lv = static_cast<int>(at - kLevels.begin());
  std::shared_ptr<std::ofstream> out;
  if (!file.empty()) {
    out = std::make_shared<std::ofstream>(file, std::ios::app);
    if (!*out) throw InputError("--log-file", 0, file, "cannot open it for appending");
  }
  const auto mu = std::make_shared<std::mutex>();
  const auto line = [who, out, mu](const char* tag, const std::string& s) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const long ms = static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    const std::string text = fmt::format("{}.{:03d}Z {:<5} {}: {}\n", stamp, ms, tag, who, s);
    std::lock_guard<std::mutex> g(*mu);
    std::ostream& o = out ? *out : std::cerr;
    o << text << std::flush;
  };
  LevelLog l;
  l.error = [line](const std::string& s) { line("ERROR", s); };
  l.reopen = [out, mu, file, line] {
    if (!out) return;
    {
      std::lock_guard<std::mutex> g(*mu);
      out->close();
      out->clear();
      out->open(file, std::ios::app);
    }
    if (*out) line("INFO", "SIGHUP: log file " + file + " opened again");
    else std::cerr << "serve: SIGHUP: cannot open " << file << " again; log lines are lost until it can\n";
  };
  l.warn = [line, lv](const std::string& s) { if (lv >= 1) line("WARN", s); };
  l.info = [line, lv](const std::string& s) { if (lv >= 2) line("INFO", s); };
  if (lv >= 3) l.debug = [line](const std::string& s) { line("DEBUG", s); };
  return l;
}

int run_serve(const ServeArgs& a) {
  ServeOptions o = a.backend;
  o.lease = true;  // one daemon per partition, seen in the manager (Slurm: a held lease job)
  const LevelLog lg = make_level_log("serve", a.log_level, a.log_file);
  // One daemon per state folder (a second one exits 2 naming the first); held until this process exits.
  std::unique_ptr<StateLock> lock;
  if (!o.state_dir.empty())
    lock = std::make_unique<StateLock>(o.state_dir, "partition " + o.partition + ", backend " + a.backend_kind);
  o.log = lg.info;
  o.warn = lg.warn;
  o.debug = lg.debug;
  std::unique_ptr<MetricsServer> metrics;
  if (!a.metrics.empty()) metrics = std::make_unique<MetricsServer>(a.metrics);
  const auto backend = make_backend(a.backend_kind, o);
  if (a.release_all) {  // uninstall (docs/slurm.md, runbook 8): after this daemon's lock and lease, so none runs
    backend->connect(wall_now());
    backend->release_all();
    return 0;
  }
  LiveScheduler s(*backend, o.policy, o.seed, o.log);
  s.connect(wall_now());  // refuses to start when the manager is unreachable or the partition does not exist
  if (metrics) {
    metrics->publish(backend->metrics_text(true));
    o.log("metrics at http://" + a.metrics.substr(0, a.metrics.rfind(':')) + ":" + std::to_string(metrics->port()) +
          "/metrics");
  }
  LoopOptions lo;
  lo.interval_s = a.interval_s;
  lo.once = a.once;
  lo.exit_when_done = a.exit_when_done;
  lo.max_idle_s = a.max_idle_s;
  lo.out = a.out;
  lo.warn = lg.warn;
  lo.error = lg.error;
  lo.reopen_log = lg.reopen;
  if (metrics) lo.after_step = [&](bool up) { metrics->publish(backend->metrics_text(up)); };
  return run_live(s, lo, o.log);
}

}  // namespace rm::live
