#include "metrics/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace rm {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, q);
}

double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q * (v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

Summary summarize(const RunRecord& e, std::size_t unschedulable) {
  Summary s;
  std::vector<double> jct;
  double queue = 0;
  Time first_submit = kNever, last_finish = 0;
  for (const auto& j : e.jobs) {
    jct.push_back(to_seconds(j.finish - j.spec->submit));
    queue += to_seconds(j.finish - j.spec->submit - j.run_us);
    first_submit = std::min(first_submit, j.spec->submit);
    last_finish = std::max(last_finish, j.finish);
  }
  s.jobs = static_cast<std::int64_t>(jct.size());
  s.unschedulable = static_cast<std::int64_t>(unschedulable);
  if (!jct.empty()) {
    double sum = 0;
    for (double x : jct) sum += x;
    s.avg_jct_s = sum / jct.size();
    std::sort(jct.begin(), jct.end());
    s.p50_jct_s = quantile_sorted(jct, 0.50);
    s.p95_jct_s = quantile_sorted(jct, 0.95);
    s.p99_jct_s = quantile_sorted(jct, 0.99);
    s.max_jct_s = jct.back();
    s.avg_queue_s = queue / jct.size();
    s.makespan_s = to_seconds(last_finish - first_submit);
    const double capacity = static_cast<double>(e.total_gpus) * to_seconds(last_finish - first_submit);
    s.gpu_util = capacity > 0 ? static_cast<double>(e.busy_gpu_us) / 1e6 / capacity : 0;
  }
  s.preemptions = e.preemptions;
  s.events = e.events;
  s.extra = e.extra;
  s.timing = e.timing;
  if (!e.decision_us.empty()) {
    std::vector<double> d(e.decision_us.begin(), e.decision_us.end());
    std::vector<double> sorted = d;
    std::sort(sorted.begin(), sorted.end());
    s.timing.insert(s.timing.begin(), {{"decisions", static_cast<double>(d.size())},
                                       {"decision_p50_us", quantile_sorted(sorted, 0.5)},
                                       {"decision_p99_us", quantile_sorted(sorted, 0.99)},
                                       {"decision_max_us", sorted.back()}});
    sorted = {};
    // How a pass's cost grows with the queue: the p99 of the passes with at least 1k, 10k, 100k jobs waiting.
    std::vector<std::pair<std::string, double>> by_queue;
    if (e.decision_waiting.size() == d.size())
      for (const auto& [at_least, key] : {std::pair{1000, "decision_p99_us_1k_waiting"},
                                          {10000, "decision_p99_us_10k_waiting"},
                                          {100000, "decision_p99_us_100k_waiting"}}) {
        std::vector<double> some;
        for (std::size_t i = 0; i < d.size(); ++i)
          if (e.decision_waiting[i] >= at_least) some.push_back(d[i]);
        if (!some.empty()) by_queue.emplace_back(key, quantile(some, 0.99));
      }
    s.timing.insert(s.timing.begin() + 4, by_queue.begin(), by_queue.end());
  }
  return s;
}

namespace {

std::string secs(Time t) { return t == kNever ? "" : fmt::format("{:.6f}", to_seconds(t)); }

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw InputError(path, 0, "", "cannot write");
  return f;
}

}  // namespace

void write_outputs(const std::string& dir, const RunRecord& e, const std::vector<Unschedulable>& unsched,
                   const Summary& s, const RunInfo& info) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(dir, 0, "--out", "cannot create directory: " + ec.message());
  {
    auto f = open_out(dir + "/jobs.csv");
    f << "job_id,submit_s,num_gpus,model,iterations,first_start_s,finish_s,jct_s,queue_s,run_s,preemptions,status\n";
    std::string buf;
    for (const auto& j : e.jobs) {
      const auto& sp = *j.spec;
      buf.clear();
      fmt::format_to(std::back_inserter(buf), "{},{},{},{},{:.6g},{},{},{},{},{},{},finished\n", sp.name,
                     secs(sp.submit), sp.num_gpus, sp.model, sp.iterations, secs(j.first_start), secs(j.finish),
                     secs(j.finish - sp.submit), secs(j.finish - sp.submit - j.run_us), secs(j.run_us),
                     j.preemptions);
      f << buf;
    }
    for (const auto& u : unsched)
      f << fmt::format("{},{},{},{},{:.6g},,,,,,0,unschedulable\n", u.job.name, secs(u.job.submit), u.job.num_gpus,
                       u.job.model, u.job.iterations);
  }
  if (!e.stretches.empty()) {  // small runs: every stretch a job held GPUs, one row per GPU (plot's Gantt chart)
    auto f = open_out(dir + "/gpus.csv");
    f << "job_id,start_s,end_s,server,gpu\n";
    for (const auto& s : e.stretches)
      for (const auto& [srv, g] : s.gpus)
        f << fmt::format("{},{},{},{},{}\n", e.jobs.at(s.job).spec->name, secs(s.start), secs(s.end), srv, g);
  } else {
    std::filesystem::remove(dir + "/gpus.csv", ec);  // an earlier run's: the folder holds one run's files
  }
  {
    auto f = open_out(dir + "/timeseries.csv");
    f << "time_s,queued,running,busy_gpus,gpu_util\n";
    const double total = e.total_gpus;
    std::string buf;
    for (const auto& r : e.series) {
      buf.clear();
      fmt::format_to(std::back_inserter(buf), "{},{},{},{},{:.6f}\n", secs(r.t), r.queued, r.running, r.busy_gpus,
                     r.busy_gpus / total);
      f << buf;
    }
  }
  nlohmann::ordered_json j;
  j["policy"] = info.policy;
  j["scheduler"] = info.scheduler;
  j["cluster"] = info.cluster;
  j["trace"] = info.trace;
  j["exec"] = info.exec;
  j["seed"] = info.seed;
  j["jobs"] = s.jobs;
  j["unschedulable"] = s.unschedulable;
  j["avg_jct_s"] = s.avg_jct_s;
  j["p50_jct_s"] = s.p50_jct_s;
  j["p95_jct_s"] = s.p95_jct_s;
  j["p99_jct_s"] = s.p99_jct_s;
  j["max_jct_s"] = s.max_jct_s;
  j["makespan_s"] = s.makespan_s;
  j["avg_queue_s"] = s.avg_queue_s;
  j["gpu_util"] = s.gpu_util;
  j["preemptions"] = s.preemptions;
  j["events"] = s.events;
  for (const auto& [k, v] : s.extra) j[k] = v;
  j["wall_s"] = info.wall_s;  // wall_s and timing are the only fields that differ between identical runs
  if (!s.timing.empty()) {
    nlohmann::ordered_json t;
    for (const auto& [k, v] : s.timing) t[k] = v;
    j["timing"] = t;
  }
  auto f = open_out(dir + "/summary.json");
  f << j.dump(2) << "\n";
}

}  // namespace rm
