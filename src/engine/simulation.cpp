#include "engine/simulation.h"

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "core/embedded_data.h"
#include "policy/registry.h"

namespace rm {

const ModelCatalogue& load_catalogue(const std::string& path) {
  if (path.empty()) return ModelCatalogue::builtin();
  static std::map<std::string, ModelCatalogue> cache;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "", "cannot open model catalogue");
  std::stringstream ss;
  ss << in.rdbuf();
  return cache.emplace(path, ModelCatalogue::parse(ss.str(), path)).first->second;
}

Workload load_workload(const SimConfig& cfg, const ClusterSpec& cluster, std::vector<Unschedulable>* unsched,
                       std::vector<std::string>* errors) {
  Workload w;
  if (cfg.trace.rfind("builtin:", 0) == 0) {
    const std::string name = cfg.trace.substr(8);
    const std::string path = "traces/" + name + ".csv";
    const std::string_view text = embedded::get(path);
    if (text.empty()) throw InputError(cfg.trace, 0, "--trace", "no bundled trace named '" + name + "'");
    w = read_trace_text(std::string(text), "data/" + path, cfg.format);
  } else {
    w = read_trace(cfg.trace, cfg.format, errors);
  }
  w.errors = errors;
  ResolveOptions ro;
  ro.seed = cfg.seed;
  ro.skip_unschedulable = cfg.skip_unschedulable;
  resolve_workload(w, load_catalogue(cfg.models), cluster, ro, unsched);
  return w;
}

std::unique_ptr<SimResult> simulate(const SimConfig& cfg) {
  auto r = std::make_unique<SimResult>();
  const auto t0 = std::chrono::steady_clock::now();
  r->cluster = load_cluster(cfg.cluster);
  r->scheduler = make_scheduler(cfg.policy, cfg.seed);
  if (cfg.exec != "rate")
    throw InputError("--exec", 0, cfg.exec, "unknown execution model '" + cfg.exec + "' (available: rate)");
  if (!(cfg.preempt_overhead_s >= 0)) throw InputError("--preempt-overhead", 0, "", "must be >= 0");
  r->workload = load_workload(cfg, r->cluster, &r->unschedulable);
  EngineOptions eo;
  eo.preempt_overhead = from_seconds(cfg.preempt_overhead_s);
  eo.progress = cfg.progress;
  r->engine = std::make_unique<Engine>(r->cluster, r->workload.jobs, *r->scheduler, make_rate_model(r->cluster), eo);
  r->engine->run();
  r->summary = summarize(*r->engine, r->unschedulable.size());
  r->info = {cfg.policy, r->scheduler->name(), r->cluster.name, cfg.trace, cfg.exec, cfg.seed,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  return r;
}

}  // namespace rm
