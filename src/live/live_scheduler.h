// The generic side of the live path: the policy (built once from the one registry) over any Backend
// (live/backend.h). A step is observe -> decide -> apply -> persist; the daemon loop (run_live) steps it every
// interval, retries while the backend is unreachable, stops on SIGTERM/SIGINT and writes the outputs.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "live/backend.h"
#include "policy/plugin.h"

namespace rm::live {

class LiveScheduler {
 public:
  // Builds the policy (InputError for an unknown one, or one that allocates CPUs/memory: live books GPUs only).
  LiveScheduler(Backend& backend, const std::string& policy, std::uint64_t seed,
                std::function<void(const std::string&)> log);
  // Connects the backend; teaches a learning policy the jobs a previous run saw finish.
  void connect(double now_s);
  // One step at now_s; returns the adopted jobs not finished. Throws BackendError.
  int step(double now_s);
  // `scope`: as Backend::write_outputs (replay's own jobs; the others are reported as foreign).
  void write_outputs(const std::string& dir, const OutputScope* scope = nullptr) const {
    backend_.write_outputs(dir, scheduler_->name(), scope);
  }
  // Whether the last step's state was written (StateWriteError otherwise: steps decide nothing until it is).
  bool durable() const { return durable_; }
  Backend& backend() { return backend_; }
  const Backend& backend() const { return backend_; }

 private:
  Backend& backend_;
  std::unique_ptr<Scheduler> scheduler_;
  std::function<void(const std::string&)> log_;
  bool durable_ = true;
};

struct LoopOptions {
  double interval_s = 1;
  bool once = false;            // one step, then exit (cron-style use, tests)
  bool exit_when_done = false;  // exit once at least one job was adopted and every adopted job has ended
  double max_idle_s = 0;        // with exit_when_done: also exit after this long with no job at all (0 = never)
  std::string out;              // outputs at exit; default: the backend's state directory
  std::function<void(bool manager_up)> after_step;  // after each step (serve --metrics publishes its figures)
  std::function<void(const std::string&)> warn;      // for the manager unreachable; null = the log
  std::function<void(const std::string&)> error;     // the state cannot be written; null = warn
  std::function<void()> reopen_log;                  // SIGHUP: the log file opened again (logrotate)
};

// The daemon loop: steps `s` every interval until stopped, logging (once) while the backend is unreachable;
// writes the outputs at exit. `clock` is wall time unless a test scripts it; `stop`, if given, is polled too.
int run_live(LiveScheduler& s, const LoopOptions& o, const std::function<void(const std::string&)>& log,
             const Clock& clock = wall_now, const std::function<bool()>& stop = {});

}  // namespace rm::live
