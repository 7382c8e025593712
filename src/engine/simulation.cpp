#include "engine/simulation.h"

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "core/embedded_data.h"
#include "policy/registry.h"
#include "policy/task/task_registry.h"

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
  if (!cfg.workload.empty()) {
    GenOptions g = cfg.gen;
    g.seed = cfg.seed;
    const GeneratedTrace gt = generate_workload(cfg.workload, g);
    w = read_trace_text(gt.text, "workload:" + cfg.workload, gt.format);
  } else if (cfg.trace.rfind("builtin:", 0) == 0) {
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

std::string resolve_exec(const SimConfig& cfg) {
  if (cfg.exec == "auto") return task::is_task_policy(cfg.policy) ? "task" : "rate";
  if (cfg.exec != "rate" && cfg.exec != "task")
    throw InputError("--exec", 0, cfg.exec, "unknown execution model '" + cfg.exec + "' (available: rate, task, auto)");
  return cfg.exec;
}

std::unique_ptr<SimResult> simulate(const SimConfig& cfg) {
  auto r = std::make_unique<SimResult>();
  const auto t0 = std::chrono::steady_clock::now();
  r->cluster = load_cluster(cfg.cluster);
  r->exec = resolve_exec(cfg);
  if (!cfg.compat.empty() && cfg.compat != "wang2020")
    throw InputError("--compat", 0, cfg.compat, "unknown compatibility mode '" + cfg.compat + "' (available: wang2020)");
  if (cfg.compat == "wang2020" && r->exec != "task")
    throw InputError("--compat", 0, cfg.compat, "--compat wang2020 needs --exec task");
  if (!(cfg.preempt_overhead_s >= 0)) throw InputError("--preempt-overhead", 0, "", "must be >= 0");
  std::string scheduler_name;
  if (r->exec == "task") {
    r->task_policy = std::make_unique<task::TaskPolicy>(task::make_task_policy(cfg.policy, cfg.seed));
    scheduler_name = r->task_policy->name;
  } else {
    if (task::is_task_policy(cfg.policy))
      throw InputError("--policy", 0, cfg.policy, "policy '" + cfg.policy + "' is for the task model (--exec task)");
    r->scheduler = make_scheduler(cfg.policy, cfg.seed);
    scheduler_name = r->scheduler->name();
  }
  r->workload = load_workload(cfg, r->cluster, &r->unschedulable);
  if (r->exec == "task") {
    TaskOptions to;
    to.compat = cfg.compat == "wang2020";
    to.progress = cfg.progress;
    r->task = std::make_unique<TaskEngine>(r->cluster, r->workload.jobs, *r->task_policy, to);
    r->task->run();
    r->record = r->task->record();
  } else {
    EngineOptions eo;
    eo.preempt_overhead = from_seconds(cfg.preempt_overhead_s);
    eo.progress = cfg.progress;
    r->engine =
        std::make_unique<Engine>(r->cluster, r->workload.jobs, *r->scheduler, make_rate_model(r->cluster), eo);
    r->engine->run();
    r->record = record_of(*r->engine);
  }
  r->summary = summarize(r->record, r->unschedulable.size());
  const std::string exec = r->exec + (cfg.compat.empty() ? "" : "+compat=" + cfg.compat);
  const std::string trace = cfg.workload.empty() ? cfg.trace : "workload:" + cfg.workload;
  r->info = {cfg.policy, scheduler_name, r->cluster.name, trace, exec, cfg.seed,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  return r;
}

}  // namespace rm
