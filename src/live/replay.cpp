#include "live/replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/error.h"
#include "exec/comm_model.h"
#include "live/backends.h"
#include "live/live_scheduler.h"
#include "run/loaders.h"

namespace rm::live {

namespace fs = std::filesystem;

namespace {
struct Stat {
  std::vector<double> v;
  double mean() const { return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }
  double pct(double q) const {  // nearest rank
    if (v.empty()) return 0;
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    return s[std::min(s.size() - 1, static_cast<std::size_t>(std::ceil(q * s.size())) - (q > 0 ? 1 : 0))];
  }
  nlohmann::json to_json() const {
    return {{"count", v.size()}, {"mean", mean()}, {"p50", pct(0.5)}, {"p95", pct(0.95)}, {"max", pct(1)}};
  }
};

// The payload's "launch|done|stopped <epoch s>" lines.
std::vector<std::pair<std::string, double>> read_times(const fs::path& p) {
  std::vector<std::pair<std::string, double>> out;
  std::ifstream f(p);
  std::string what;
  double t;
  while (f >> what >> t) out.push_back({what, t});
  return out;
}

// What a start costs on this cluster beyond the simulator's instant one (docs/slurm.md): the daemon noticing
// the event that frees GPUs or brings a job (a submission, a payload's exit), and Slurm taking a released job
// to its payload's launch. Written to latency.json; their sum is the simulator's --start-delay.
nlohmann::json measure_latency(const Backend& b, const fs::path& out,
                               const std::map<std::int64_t, std::pair<std::string, double>>& submitted) {
  Stat dispatch, arrival, finish;
  for (const LiveJob& l : b.jobs()) {
    const auto it = submitted.find(l.manager_id);
    if (it == submitted.end()) continue;
    if (l.adopted_s >= 0) arrival.v.push_back(l.adopted_s - it->second.second);
    const auto times = read_times(out / "work" / it->second.first / "times");
    for (const LiveRun& r : l.runs) {
      if (r.decided_s < 0) continue;
      for (const auto& [what, t] : times)
        if (what == "launch" && t >= r.decided_s - 1e-3) {
          dispatch.v.push_back(t - r.decided_s);
          break;
        }
    }
    if (b.completed(l) && !l.runs.empty() && l.runs.back().noticed_s >= 0)
      for (auto t = times.rbegin(); t != times.rend(); ++t)
        if (t->first == "done") {
          finish.v.push_back(l.runs.back().noticed_s - t->second);
          break;
        }
  }
  Stat notice;
  notice.v = arrival.v;
  notice.v.insert(notice.v.end(), finish.v.begin(), finish.v.end());
  return {{"dispatch_s", dispatch.to_json()},
          {"arrival_notice_s", arrival.to_json()},
          {"finish_notice_s", finish.to_json()},
          {"start_delay_s", dispatch.mean() + notice.mean()}};
}

std::string quoted(const std::string& s) {  // for sbatch --wrap (sh)
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}
// The payload re-reads its slowdown as it works: written atomically.
void write_slowdown(const fs::path& dir, double slowdown) {
  fs::create_directories(dir);
  std::ofstream f(dir / "slowdown.tmp", std::ios::trunc);
  f.precision(17);
  f << slowdown << "\n";
  f.close();
  fs::rename(dir / "slowdown.tmp", dir / "slowdown");
}

// One trace job as replay submits it: its name, model and hints, GPUs, submit time and work (both scaled).
struct Sub {
  std::string name, model, hints;  // hints: the trace's user and recurrence key, for a-srpt's predictor
  int gpus;
  double at_s, work_s;
};

// The scaled trace and the cluster as ringmaster saw it (trace_scaled.csv, cluster.yaml), for `simulate` to compare.
std::vector<Sub> write_scaled_inputs(const Workload& w, const ClusterSpec& cluster, double time_scale, const fs::path& out) {
  std::vector<Sub> subs;
  std::ofstream t(out / "trace_scaled.csv");
  t << "job_id,submit_s,num_gpus,model,duration_s,user,recurrence_key\n";
  t.precision(12);
  for (const auto& j : w.jobs) {
    const double work = j.iterations * ideal_iteration_time_s(j, cluster) / time_scale;
    // The user and recurrence key travel in the hints and the scaled trace alike (left out where a ',' or ';'
    // would break either).
    const auto plain = [](const std::string& v) { return v.find_first_of(",;\"") == std::string::npos ? v : std::string(); };
    const std::string user = plain(j.user), key = plain(j.recurrence_key);
    std::string hints;
    if (!user.empty()) hints += ";user=" + user;
    if (!key.empty()) hints += ";key=" + key;
    subs.push_back({j.name, j.model, hints, j.num_gpus, to_seconds(j.submit) / time_scale, work});
    t << j.name << "," << subs.back().at_s << "," << j.num_gpus << "," << j.model << "," << work << "," << user << ","
      << key << "\n";
  }
  std::ofstream c(out / "cluster.yaml");
  c << "# the Slurm partition as ringmaster saw it (replay), for `simulate --cluster`\nname: slurm-replay\n"
    << "network: {contention_a: " << cluster.network.contention_a << "}\nservers:\n";
  for (const auto& s : cluster.servers)
    c << "  - {count: 1, gpus: " << s.gpus << ", gpu_mem_gb: " << s.gpu_mem_gb << ", cpus: " << s.cpus
      << ", dram_gb: " << s.dram_gb << ", nic_gbps: " << s.nic_gbps << "}\n";
  return subs;
}

}  // namespace

int run_replay(const ReplayArgs& a) {
  if (!(a.time_scale > 0)) throw InputError("--time-scale", 0, "", "must be > 0");
  if (a.serve.out.empty()) throw InputError("--out", 0, "", "name an output directory");
  ServeOptions o = a.serve.backend;
  o.log = stderr_log("replay");
  const fs::path out = fs::absolute(a.serve.out);
  o.on_rate = [out](const JobSpec& j, double slowdown) { write_slowdown(out / "work" / j.name, slowdown); };
  const auto backend = make_backend(a.serve.backend_kind, o);
  const Backend& b = *backend;
  LiveScheduler sched(*backend, o.policy, o.seed, o.log);
  sched.connect(wall_now());
  OutputScope scope;  // the replay's own jobs (issue 48)
  SimConfig trace = a.trace;
  trace.skip_unschedulable = true;  // refused and counted, as `serve` refuses a job no node can take
  Workload w = load_workload(trace, b.cluster(), &scope.not_submitted, nullptr);
  // A job that cannot run on the partition is not submitted; it ends the replay's account of it at once
  // (jobs.csv `unschedulable`), as a refused submitted one does.
  for (const auto& u : scope.not_submitted)
    o.log("job " + u.job.name + " cannot run on " + b.describe() + ": " + u.reason + "; not submitted (unschedulable)");
  fs::create_directories(out / "work");
  const std::string bin = a.binary.empty() ? fs::read_symlink("/proc/self/exe").string() : a.binary;
  const std::vector<Sub> subs = write_scaled_inputs(w, b.cluster(), a.time_scale, out);
  o.log(fmt::format("replaying {} jobs at time scale {} (last submission at {:.1f} s)", subs.size(), a.time_scale,
                    subs.empty() ? 0.0 : subs.back().at_s));
  const double start = wall_now();
  std::size_t next = 0;
  std::map<std::int64_t, std::pair<std::string, double>> submitted;  // the manager's id -> trace id, when submitted
  const auto own = [&submitted](const LiveJob& l) { return submitted.count(l.manager_id) > 0; };
  scope.own = own;
  while (true) {
    const double now = wall_now();
    for (; next < subs.size() && subs[next].at_s <= now - start; ++next) {
      const Sub& s = subs[next];
      const fs::path dir = out / "work" / s.name;
      fs::create_directories(dir);
      const std::string cmd = quoted(bin) + " payload --work " + fmt::format("{:.6f}", s.work_s) +
                              " --checkpoint checkpoint --overhead " + fmt::format("{:.6f}", a.overhead_s);
      try {
        const double at = wall_now();
        const std::int64_t id = backend->submit(
            {s.name, fmt::format("rm:name={};model={};duration={:.6f}{}", s.name, s.model, s.work_s, s.hints),
             dir.string(), (dir / "slurm.out").string(), cmd, s.gpus});
        submitted[id] = {s.name, at};
      } catch (const BackendError& e) {
        o.log("submission of " + s.name + " failed, retrying: " + e.what());
        break;
      }
    }
    try {
      sched.step(now);
    } catch (const BackendError& e) {
      o.log(b.manager() + " unreachable, retrying: " + e.what());
    }
    // The replay ends with its own jobs (issue 48): every one submitted, adopted and ended (finished, failed,
    // cancelled, or refused as unschedulable). Jobs of others in the partition compete for the GPUs, as under
    // `serve`, but never hold the replay open.
    std::size_t ended = 0;
    for (const LiveJob& l : b.jobs()) ended += own(l) && l.ended();
    if (next == subs.size() && ended == submitted.size()) break;
    if (now - start > a.timeout_s) {
      sched.write_outputs(out.string(), &scope);
      o.log("timed out; partial outputs in " + out.string());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(a.serve.interval_s));
  }
  sched.write_outputs(out.string(), &scope);
  std::size_t foreign = 0;
  for (const LiveJob& l : b.jobs()) foreign += !own(l);
  if (foreign > 0)
    o.log(fmt::format("{} job(s) of others in the partition were scheduled alongside: summary.json foreign_jobs, "
                      "not in jobs.csv", foreign));
  const nlohmann::json lat = measure_latency(b, out, submitted);
  std::ofstream(out / "latency.json") << lat.dump(1) << "\n";
  const auto ms = [&](const char* k) { return 1000 * lat.at(k).at("mean").get<double>(); };
  o.log(fmt::format("per start: dispatch (release to payload launch) {:.0f} ms mean, noticing an arrival {:.0f} ms, "
                    "a finish {:.0f} ms; the simulator's start delay for this cluster: {:.3f} s (latency.json)",
                    ms("dispatch_s"), ms("arrival_notice_s"), ms("finish_notice_s"),
                    lat.at("start_delay_s").get<double>()));
  // The policy as a shell word: a Python part's `;` (py:file=...;class=...) would end the command.
  std::string policy = o.policy;
  if (policy.find_first_of(" ;&|<>()$`\\\"'*?") != std::string::npos) {
    std::string q = "'";
    for (char c : policy) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    policy = q + "'";
  }
  std::string sim_opts;
  // The payloads resume after --overhead seconds: the simulator charges the same (not its checkpoint model).
  sim_opts += fmt::format(" --preempt-overhead {}", a.overhead_s);
  o.log(fmt::format("done: {} jobs in {:.1f} s; outputs in {}; compare with:\n  ringmaster simulate --cluster {} "
                    "--trace {} --policy {}{} --out SIMDIR && ringmaster compare SIMDIR {}\n"
                    "  (add --start-delay {:.3f} to model the measured dispatch latency)",
                    subs.size(), wall_now() - start, out.string(), (out / "cluster.yaml").string(),
                    (out / "trace_scaled.csv").string(), policy, sim_opts, out.string(),
                    lat.at("start_delay_s").get<double>()));
  return 0;
}

}  // namespace rm::live
