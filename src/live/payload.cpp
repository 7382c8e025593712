#include "live/payload.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.h"

namespace rm::live {

namespace {
std::atomic<bool> g_term{false};
extern "C" void on_term(int) { g_term = true; }

double read_number(const std::string& path) {  // 0 if absent or unreadable
  std::ifstream f(path);
  double d = 0;
  if (f >> d && d >= 0) return d;
  return 0;
}

// The daemon's clock (serve.h wall_now), so that launch and exit times can be set against its steps.
double epoch_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void append_time(const std::string& path, const char* what) {  // one line per event: "<what> <epoch seconds>"
  if (path.empty()) return;
  std::ofstream f(path, std::ios::app);
  f.precision(17);
  f << what << " " << epoch_now() << "\n";
}

void write_done(const std::string& path, double done) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f.precision(17);
    f << done << "\n";
  }
  std::filesystem::rename(tmp, path);
}
}  // namespace

int run_payload(const PayloadArgs& a) {
  if (!(a.work_s >= 0)) throw InputError("--work", 0, "", "must be >= 0 seconds");
  std::signal(SIGTERM, on_term);
  append_time(a.times_file, "launch");
  double done = read_number(a.checkpoint);
  double slow = read_number(a.speed_file);  // the placement's slowdown at this launch (replay writes it)
  if (!(slow >= 1e-6)) slow = 1;
  const char* restarts = std::getenv("SLURM_RESTART_COUNT");
  const bool resumed = done > 0 || (restarts && std::atoi(restarts) > 0);
  std::printf("payload: work %.3f s, done %.3f s, slowdown %.4f, %s\n", a.work_s, done, slow, resumed ? "resuming" : "starting");
  std::fflush(stdout);
  using clock = std::chrono::steady_clock;
  if (resumed && a.overhead_s > 0) {  // restoring the checkpoint: no progress
    const auto until = clock::now() + std::chrono::duration<double>(a.overhead_s);
    while (!g_term && clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto last = clock::now(), saved = last;
  while (!g_term && done < a.work_s) {
    const double left = a.work_s - done;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(0.05, left * slow)));
    const auto now = clock::now();
    done = std::min(a.work_s, done + std::chrono::duration<double>(now - last).count() / slow);
    last = now;
    if (now - saved > std::chrono::milliseconds(250)) {  // progress saved; the current rate read again
      write_done(a.checkpoint, done);
      saved = now;
      const double s = read_number(a.speed_file);
      if (s >= 1e-6) slow = s;
    }
  }
  write_done(a.checkpoint, done);
  append_time(a.times_file, done >= a.work_s ? "done" : "stopped");
  std::printf("payload: %s at %.3f s of %.3f s\n", done >= a.work_s ? "done" : "stopped", done, a.work_s);
  return done >= a.work_s ? 0 : 143;
}

}  // namespace rm::live
