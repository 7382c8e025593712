// `ringmaster serve --backend NAME`: the backend by name (live/backends.h) under the generic daemon loop
// (live/live_scheduler.h, docs/slurm.md). Steps every interval; survives the cluster manager being unreachable
// (logs and retries); on SIGTERM/SIGINT it finishes the step, writes the outputs and exits 0.
#pragma once
#include <functional>
#include <string>

#include "live/backend.h"

namespace rm::live {

struct ServeArgs {
  ServeOptions backend;
  std::string backend_kind = "slurm";
  double interval_s = 1;
  bool once = false;           // one step, then exit (cron-style use, tests)
  bool exit_when_done = false; // exit once at least one job was adopted and every adopted job has ended
  double max_idle_s = 0;       // with exit_when_done: also exit after this long with no job at all (0 = never)
  std::string out;             // outputs (jobs.csv, summary.json) at exit; default: the state directory
  std::string log_file;        // append the log there instead of stderr
  std::string log_level = "info";  // error | warn | info | debug
  std::string metrics;         // HOST:PORT for Prometheus' text format (GET /metrics); "" = none
  bool release_all = false;    // uninstall: clear ringmaster's pins and marks, release every held job, exit
};

// The daemon's log: "2026-11-25T13:40:00.123Z INFO  serve: line" to `file` (appended; stderr when empty), lines
// below `level` (error < warn < info < debug) left out. InputError naming --log-level / --log-file otherwise.
struct LevelLog {
  std::function<void(const std::string&)> warn, info, debug;  // debug null below debug
  std::function<void(const std::string&)> error;              // always written
  // Closes and opens the file again (SIGHUP, after logrotate moved it); a no-op on stderr.
  std::function<void()> reopen;
};
LevelLog make_level_log(const std::string& who, const std::string& level, const std::string& file);

// A log for the daemon's events: "[who  elapsed s] line" on stderr, elapsed since this call.
std::function<void(const std::string&)> stderr_log(const std::string& who);

// "1", "1s", "500ms", "2m" -> seconds; InputError naming `field` otherwise.
double parse_interval(const std::string& s, const std::string& field);

int run_serve(const ServeArgs& a);

}  // namespace rm::live
