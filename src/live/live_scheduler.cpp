#include "live/live_scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <thread>

#include "core/error.h"
#include "metrics/metrics.h"
#include "policy/elastic_policies.h"
#include "policy/gavel.h"
#include "policy/registry.h"

namespace rm::live {

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

LiveScheduler::LiveScheduler(Backend& backend, const std::string& policy, std::uint64_t seed,
                             std::function<void(const std::string&)> log)
    : backend_(backend), scheduler_(make_scheduler(policy, seed)), log_(std::move(log)) {
  if (scheduler_->allocates())
    throw InputError("--policy", 0, policy, "live scheduling books GPUs only: drop the CPU/memory allocation part");
  if (is_gavel_scheduler(scheduler_->name()) && scheduler_->name().ends_with("-perf"))
    throw InputError("--policy", 0, policy,
                     "reads measured per-GPU-type throughputs, which serve has not: use its agnostic form (" +
                         scheduler_->name().substr(0, scheduler_->name().size() - 5) + ")");
  if (is_elastic_scheduler(scheduler_->name()))
    throw InputError("--policy", 0, policy,
                     "resizes running jobs, and a cluster manager's jobs are rigid (a Slurm job cannot change its GPUs "
                     "while it runs): simulate only (docs/elastic.md)");
}

void LiveScheduler::connect(double now_s) {
  backend_.connect(now_s);
  // A policy that learns from finished jobs (a-srpt's predictor) is taught the ones a previous run saw finish.
  std::vector<const JobState*> done;
  for (std::size_t i = 0; i < backend_.views().size(); ++i)
    if (backend_.jobs()[i].status == "finished") done.push_back(&backend_.views()[i]);
  std::stable_sort(done.begin(), done.end(), [](const JobState* a, const JobState* b) { return a->finish < b->finish; });
  for (const JobState* st : done) scheduler_->learn(*st);
  if (log_)
    log_("connected: " + backend_.describe() + ", " + std::to_string(backend_.cluster().total_gpus()) + " GPUs, policy " +
         scheduler_->name() + ", " + std::to_string(backend_.jobs().size()) + " jobs from the state file");
}

int LiveScheduler::step(double now_s) {
  const Observation obs = backend_.observe(now_s);
  if (obs.queued > 0 && durable_) {  // no decision while the state cannot be written
    const auto t0 = std::chrono::steady_clock::now();
    const SchedContext ctx{obs.now, *obs.cluster, ActiveJobs(obs.active)};
    const Decisions d = scheduler_->schedule(ctx);
    // A cluster manager's jobs are rigid (a Slurm job cannot change its GPUs while it runs): no policy may resize
    // one (the Python layer refuses it as the user's error; a built-in policy doing so is a bug). docs/elastic.md.
    if (!d.reallocate.empty())
      throw InvariantError("policy " + scheduler_->name() + " resized a running job: live jobs are rigid");
    const float us = static_cast<float>(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    backend_.apply(d, now_s, us);
  }
  try {
    backend_.persist(now_s);
  } catch (const StateWriteError&) {
    durable_ = false;
    throw;
  }
  durable_ = true;
  return static_cast<int>(obs.active.size());
}

namespace {
std::atomic<bool> g_stop{false}, g_hup{false};
extern "C" void on_signal(int) { g_stop = true; }
extern "C" void on_hup(int) { g_hup = true; }
}  // namespace

int run_live(LiveScheduler& s, const LoopOptions& o, const std::function<void(const std::string&)>& log,
             const Clock& clock, const std::function<bool()>& stop) {
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  std::signal(SIGHUP, on_hup);  // logrotate: the log file opened again, the daemon runs on
  const auto stopped = [&] { return g_stop.load() || (stop && stop()); };
  const Backend& b = s.backend();
  bool down = false;
  const double started = clock();
  while (!stopped()) {
    if (g_hup.exchange(false) && o.reopen_log) o.reopen_log();
    const double now = clock();
    int left = 0;
    const bool was_durable = s.durable();
    const auto s0 = std::chrono::steady_clock::now();
    try {
      left = s.step(now);
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
      if (took > std::max(2.0, 5 * o.interval_s))  // Slurm's clients retry a restarting slurmctld themselves
        log(fmt::format("slow step: {:.1f} s waiting for {} to answer", took, b.manager()));
      if (down) log(b.manager() + " answers again");
      down = false;
      if (!was_durable) log("the state is written again: scheduling resumes");
    } catch (const BackendError& e) {
      if (!down) (o.warn ? o.warn : log)(b.manager() + " unreachable, retrying every interval: " + e.what());
      down = true;
      left = 1;
    } catch (const StateWriteError& e) {
      // A full or read-only disk: nothing is decided until the state can be written again (the jobs already
      // released keep running under Slurm); retried every step, said once.
      if (was_durable)
        (o.error ? o.error : o.warn ? o.warn : log)(std::string(e.what()) +
                                                    "; no decisions until it can be written, retrying every interval");
      left = 1;
    }
    if (o.after_step) o.after_step(!down);
    if (o.once) break;
    if (o.exit_when_done && !down) {
      if (!b.jobs().empty() && left == 0) break;
      if (b.jobs().empty() && o.max_idle_s > 0 && now - started > o.max_idle_s) break;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.interval_s);
    while (!stopped() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long>(50, static_cast<long>(o.interval_s * 1000) + 1)));
  }
  const std::string out = o.out.empty() ? b.state_dir() : o.out;
  s.write_outputs(out);
  std::vector<double> d(b.decision_us().begin(), b.decision_us().end());
  log(fmt::format("stopped: {} jobs adopted, {} decisions, latency p50 {:.0f} us, p99 {:.0f} us; outputs in {}",
                  b.jobs().size(), d.size(), d.empty() ? 0.0 : quantile(d, 0.5), d.empty() ? 0.0 : quantile(d, 0.99), out));
  return 0;
}

}  // namespace rm::live
