#include "live/status.h"

#include "live/table_backend.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <vector>

#include "core/error.h"
#include "metrics/metrics.h"

namespace rm::live {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json read(const std::string& dir) {
  const fs::path d(dir);
  if (!fs::is_directory(d)) throw InputError(dir, 0, "--state", "no such directory");
  for (const char* name : {"state.json", "state.prev.json"}) {
    const fs::path p = d / name;
    if (!fs::exists(p)) continue;
    try {
      std::ifstream f(p);
      json js = json::parse(f);
      if (js.is_object() && js.contains("jobs") && js.at("jobs").is_array() && js.contains("partition")) return js;
    } catch (const std::exception&) {
    }
  }
  throw InputError(dir, 0, "--state",
                   "not a ringmaster serve state folder (no readable state.json with a partition and jobs)");
}

// A job's manager id in state.json (slurm_id in a state file written before issue 42).
long manager_id(const json& j) { return j.contains("manager_id") ? j.value("manager_id", 0L) : j.value("slurm_id", 0L); }

std::string quantiles(const json& js, const char* key, double k, const char* unit) {
  std::vector<double> v;
  for (const auto& x : js.value(key, json::array())) v.push_back(x.get<double>() * k);
  if (v.empty()) return "none yet";
  return fmt::format("p50 {:.3g} {}, p99 {:.3g} {} over the last {}", quantile(v, 0.5), unit, quantile(v, 0.99), unit,
                     v.size());
}

}  // namespace

void print_status(const std::string& state_dir, double now_s, std::ostream& out) {
  const json js = read(state_dir);
  const json st = js.value("status", json::object());
  const double origin = js.value("origin_s", 0.0);
  const double last = st.value("last_step_s", 0.0);
  const long pid = st.value("pid", 0L);
  const bool alive = pid > 0 && fs::exists("/proc/" + std::to_string(pid));
  out << fmt::format("serve state {}: partition {} ({}), {} GPUs on {} nodes, policy {}\n", state_dir,
                     js.value("partition", ""), st.value("backend", "slurm"), st.value("gpus", 0),
                     st.value("nodes", json::array()).size(), js.value("policy", ""));
  if (last > 0) {
    const std::time_t t = static_cast<std::time_t>(last);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    out << fmt::format("last step: {} ({:.1f} s ago), step {}; daemon pid {} ({})\n", stamp, now_s - last,
                       js.value("steps", 0L), pid, alive ? "running" : "not running");
  } else {
    out << "last step: none yet\n";
  }
  out << "step time: " << quantiles(js, "step_ms", 1, "ms") << "\n";
  out << "decision latency: " << quantiles(js, "decision_us", 1, "us") << "\n";
  const std::string paused = st.value("paused", "");
  out << "partition: " << (paused.empty() ? "as at start" : "PAUSED, nothing released: " + paused) << "\n";
  if (st.contains("gpus_busy")) {
    const int gpus = st.value("gpus", 0), busy = st.value("gpus_busy", 0);
    out << fmt::format("GPUs: {} busy, {} free (of {}; busy: held by any job or on an unusable node)\n", busy,
                       gpus - busy, gpus);
  }
  if (st.contains("node_states") && st.at("node_states").is_object()) {
    std::map<std::string, int> by = {{"up", 0}, {"down", 0}, {"drain", 0}};
    std::string bad;
    for (const auto& [n, state] : st.at("node_states").items()) {
      const std::string c = node_class(state.get<std::string>());
      ++by[c];
      if (c != "up") bad += (bad.empty() ? "" : ", ") + n + " " + state.get<std::string>();
    }
    out << fmt::format("nodes: {} up, {} down, {} draining or drained{}\n", by["up"], by["down"], by["drain"],
                       bad.empty() ? "" : " (" + bad + ")");
  }
  std::vector<const json*> running, queued, refused;
  json refused_list = json::array();
  int finished = 0, failed = 0;
  for (const auto& j : js.at("jobs")) {
    const std::string s = j.value("status", "");
    if (s == "running" || s == "starting") running.push_back(&j);
    else if (s == "queued") queued.push_back(&j);
    else if (s == "unschedulable") refused.push_back(&j);
    else if (s == "finished") {
      ++finished;
      // The backend said it (state.json's `completed`); a state file from before issue 42: Slurm's word.
      failed += !(j.contains("completed") ? j.at("completed").get<bool>() : j.value("slurm_state", "") == "COMPLETED");
    }
  }
  // Since the journal (issue 45) state.json lists the live jobs; the ended ones are counted in `ended_jobs`.
  std::size_t refused_n = refused.size();
  if (js.contains("ended_jobs")) {
    const json& e = js.at("ended_jobs");
    for (const auto& r : e.value("refused", json::array())) refused_list.push_back(r);
    for (const auto& r : refused_list) refused.push_back(&r);
    refused_n += e.value("refused_count", 0);
    const int ended = e.value("count", 0);
    failed += e.value("not_completed", 0);
    finished += ended;
  }
  out << fmt::format("jobs: {} queued, {} running, {} ended ({} not COMPLETED), {} unschedulable\n", queued.size(),
                     running.size(), finished, failed, refused_n);
  out << "\nrunning:\n";
  if (running.empty()) out << "  (none)\n";
  else out << fmt::format("  {:>10}  {:<16} {:>4}  {:<20} {:>10} {:>10}\n", "slurm_id", "name", "gpus", "nodes", "since_s", "service_s");
  for (const json* j : running) {
    std::string nodes;
    for (const auto& n : j->value("nodes", json::array())) nodes += (nodes.empty() ? "" : ",") + n.get<std::string>();
    const double started = j->value("started_s", -1.0);
    const double service = j->value("run_s", 0.0) + (started > 0 && j->value("status", "") == "running" ? last - started : 0);
    out << fmt::format("  {:>10}  {:<16} {:>4}  {:<20} {:>10.0f} {:>10.0f}{}\n", manager_id(*j),
                       j->value("name", ""), j->value("num_gpus", 0), nodes, started > 0 ? started - origin : -1.0, service,
                       j->value("status", "") == "starting" ? "  (released, not yet running)" : "");
  }
  // The queue in submission order (the order a policy sees it in), each job's place and the reason it waits.
  std::stable_sort(queued.begin(), queued.end(),
                   [](const json* a, const json* b) { return a->value("submit_s", 0.0) < b->value("submit_s", 0.0); });
  out << "\nqueue (submission order):\n";
  if (queued.empty()) out << "  (empty)\n";
  else out << fmt::format("  {:>5}  {:>10}  {:<16} {:>4} {:>9} {:>5}  {}\n", "place", "slurm_id", "name", "gpus", "waited_s", "runs", "why");
  int place = 0;
  for (const json* j : queued)
    out << fmt::format("  {:>5}  {:>10}  {:<16} {:>4} {:>9.0f} {:>5}  {}\n", ++place, manager_id(*j),
                       j->value("name", ""), j->value("num_gpus", 0), last - j->value("submit_s", last),
                       j->value("runs", json::array()).size(), j->value("why", ""));
  if (!refused.empty()) {
    out << "\nunschedulable (left held, AdminComment set):\n";
    for (const json* j : refused)
      out << fmt::format("  {:>10}  {:<16} {:>4}  {}\n", manager_id(*j), j->value("name", ""),
                         j->value("num_gpus", 0), j->value("why", ""));
  }
}

}  // namespace rm::live
