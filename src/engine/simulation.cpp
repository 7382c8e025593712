#include "engine/simulation.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "cluster/cluster_config.h"
#include "core/error.h"
#include "core/embedded_data.h"
#include "exec/comm_model.h"
#include "workload/limits.h"
#include "workload/parse_util.h"
#include "policy/a_srpt.h"
#include "policy/registry.h"
#include "policy/params.h"
#include "policy/planner/plan_scheduler.h"
#include "policy/task/task_registry.h"
#include "engine/round_runner.h"

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
                       std::vector<std::string>* errors, ModelMapping* mapping) {
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
  ro.ideal = ideal_times();
  ro.mapping = mapping;
  if (cfg.unknown_model != "error" && cfg.unknown_model != "nearest" && cfg.unknown_model != "by-hash")
    throw InputError("--unknown-model", 0, cfg.unknown_model, "must be error, nearest or by-hash");
  ro.unknown_model = cfg.unknown_model;
  const ModelCatalogue& cat = load_catalogue(cfg.models);
  for (const auto& a : cfg.model_alias) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == a.size())
      throw InputError("--model-alias", 0, a, "expected FROM=TO (e.g. deepspeech2=deepspeech)");
    const std::string to = a.substr(eq + 1);
    if (!cat.find(to)) throw InputError("--model-alias", 0, a, "'" + to + "' is not in the model catalogue (list-models)");
    ro.model_alias[ModelCatalogue::normalise(a.substr(0, eq))] = to;
  }
  resolve_workload(w, cat, cluster, ro, unsched);
  if (!(cfg.arrival_scale > 0)) throw InputError("--arrival-scale", 0, "", "must be > 0");
  if (cfg.max_jobs < 0) throw InputError("--max-jobs", 0, "", "must be >= 0");
  if (cfg.max_jobs > 0 && static_cast<long>(w.jobs.size()) > cfg.max_jobs) w.jobs.resize(cfg.max_jobs);
  if (!(cfg.arrival_scale <= 1e6)) throw InputError("--arrival-scale", 0, "", "must be at most 1e6");
  if (cfg.arrival_scale != 1)
    for (auto& j : w.jobs) {
      const double s = to_seconds(j.submit) * cfg.arrival_scale;
      if (s > limits::kMaxSubmitS)
        throw InputError(j.file, j.line, "submit", fmt::format("{:g} s after --arrival-scale {:g} is out of range "
                                                               "(at most {:g} s)", s, cfg.arrival_scale, limits::kMaxSubmitS));
      j.submit = static_cast<Time>(std::llround(static_cast<double>(j.submit) * cfg.arrival_scale));
    }
  return w;
}

ClusterSpec load_config_cluster(const SimConfig& cfg) {
  if (cfg.cluster != "yu2022") return load_cluster(cfg.cluster);
  GenOptions g = cfg.gen;
  g.seed = cfg.seed;
  return parse_cluster_yaml(generate_yu2022_cluster(g), "cluster:yu2022");
}

namespace {

// Runs of up to this many jobs also write gpus.csv (every stretch a job held GPUs: plot's Gantt chart).
constexpr std::size_t kStretchJobs = 300;

// Planner policies ("sjf-bco[:kappa=K;lambda=L;horizon=T;u=U;lbsgf=prefix|global;model=abstract|physical]",
// "ls", "ff", "rand"):
// plan the whole (offline) job set, then let the engine execute the plan under the same model.
void run_planner(const SimConfig& cfg, SimResult& r) {
  const PolicyPart part = parse_policy_part(cfg.policy);
  PluginParams pp(part.name, part.kv, cfg.seed);
  plan::PlanOptions opt;
  opt.seed = cfg.seed;
  opt.horizon = pp.get_double("horizon", 1200);
  opt.u = pp.get_double("u", 1);
  const double lambda = pp.get_double("lambda", 1);
  opt.kappa = pp.get_int("kappa", 0, 0, 1'000'000);
  const std::string model = pp.get_string("model", "abstract");
  if (model != "abstract" && model != "physical")
    throw InputError("--policy", 0, part.name + ":model", "must be abstract or physical");
  const std::string lb = pp.get_string("lbsgf", "prefix");
  if (lb != "prefix" && lb != "global") throw InputError("--policy", 0, part.name + ":lbsgf", "must be prefix or global");
  opt.lbsgf_global = lb == "global";
  pp.check_all_used();
  if (!(opt.horizon >= 1) || !(opt.u > 0) || !(lambda >= 1) || opt.kappa < 0)
    throw InputError("--policy", 0, cfg.policy, "needs horizon >= 1, u > 0, lambda >= 1, kappa >= 0");
  const bool physical = model == "physical";
  plan::Instance in;
  for (const auto& s : r.cluster.servers) in.server_gpus.push_back(s.gpus);
  for (const auto& j : r.workload.jobs) {
    if (j.submit != 0)
      throw InputError(j.file, j.line, "submit", "the offline planners need every job at time 0 (" + part.name + ")");
    // tau0: contention- and overhead-free (spec B.9 S1); physical: the ideal placement's iteration time.
    const double tau0 = (physical ? ideal_iteration_time_s(j, r.cluster) : j.compute_s) / cfg.yu.slot_s;
    in.jobs.push_back({static_cast<int>(j.id), j.num_gpus, j.iterations, tau0, j.iterations * tau0, lambda});
  }
  if (physical) {
    std::vector<const JobSpec*> specs;
    for (const auto& j : r.workload.jobs) specs.push_back(&j);
    in.law = plan::physical_law(std::move(specs), r.cluster, cfg.yu.slot_s);
  }
  const auto t0 = std::chrono::steady_clock::now();
  yu::ModelParams mp = cfg.yu;
  mp.floor_slots = cfg.compat == "yu2022";
  if (mp.floor_slots && physical) throw InputError("--compat", 0, "yu2022", "the slot semantics need model=abstract");
  r.plan = plan::make_plan(part.name, in, mp, opt);
  const double plan_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.plan.ok)
    throw InputError("--policy", 0, cfg.policy,
                     "no schedule fits within the horizon of " + std::to_string(opt.horizon) + " slots (raise horizon=)");
  r.scheduler = std::make_unique<plan::PlanScheduler>(cfg.policy, r.plan, r.cluster, cfg.yu.slot_s);
  EngineOptions eo;
  eo.progress = cfg.progress;
  r.engine = std::make_unique<Engine>(r.cluster, r.workload.jobs, *r.scheduler,
                                      make_rate_model(r.cluster, physical ? nullptr : &mp), eo);
  r.engine->run();
  r.record = record_of(*r.engine);
  // The engine must reproduce the plan (same model, same starts): a mismatch is a bug.
  double makespan = 0, sum = 0;
  for (const auto& j : r.record.jobs) {
    const double f = to_seconds(j.finish) / cfg.yu.slot_s;
    makespan = std::max(makespan, f);
    sum += f;
    if (std::abs(f - r.plan.jobs[j.spec->id].finish) > 1e-6 * (1 + f))
      throw InvariantError("job " + j.spec->name + " finished at slot " + std::to_string(f) + ", planned " +
                           std::to_string(r.plan.jobs[j.spec->id].finish));
  }
  r.record.extra = {{"makespan_slots", makespan},
                    {"avg_jct_slots", r.record.jobs.empty() ? 0 : sum / static_cast<double>(r.record.jobs.size())},
                    {"slot_s", cfg.yu.slot_s},
                    {"gpus", static_cast<double>(r.cluster.total_gpus())},
                    {"theta", static_cast<double>(r.plan.theta)},
                    {"kappa", static_cast<double>(r.plan.kappa)},
                    {"passes", static_cast<double>(r.plan.passes)},
                    {"plan_s", plan_s}};
}

}  // namespace

static void add_model_mapping(SimResult& r) {
  if (r.models.aliased > 0) r.summary.extra.push_back({"models_aliased", static_cast<double>(r.models.aliased)});
  if (r.models.unknown > 0) r.summary.extra.push_back({"models_replaced", static_cast<double>(r.models.unknown)});
}

std::string resolve_exec(const SimConfig& cfg) {
  const std::string first = parse_policy_part(split_simple(cfg.policy, '+').front()).name;
  if (cfg.exec == "auto") {
    if (cfg.compat == "synergy" || is_synergy_workload(cfg.workload)) return "round";
    if (is_a_srpt(first)) return "graph";
    // The synergy-* presets and an order with Synergy-OPT (as the authors ran it: one ILP per round) run on the
    // round model; a whole scheduler with +opt runs on the job-level engine.
    for (const auto& token : split_simple(cfg.policy, '+')) {
      const std::string n = parse_policy_part(token).name;
      if ((n == "opt" && !is_scheduler_policy(first)) || n.rfind("synergy-", 0) == 0) return "round";
    }
    return !plan::is_planner(first) && task::is_task_policy(cfg.policy) ? "task" : "rate";
  }
  if (cfg.exec != "rate" && cfg.exec != "task" && cfg.exec != "graph" && cfg.exec != "round")
    throw InputError("--exec", 0, cfg.exec,
                     "unknown execution model '" + cfg.exec + "' (available: rate, task, graph, round, auto)");
  return cfg.exec;
}

std::unique_ptr<SimResult> simulate(const SimConfig& cfg) {
  auto r = std::make_unique<SimResult>();
  const auto t0 = std::chrono::steady_clock::now();
  const bool planner = plan::is_planner(parse_policy_part(cfg.policy).name);
  r->cluster = load_config_cluster(cfg);
  r->exec = resolve_exec(cfg);
  if (!cfg.compat.empty() && cfg.compat != "wang2020" && cfg.compat != "yu2022" && cfg.compat != "synergy")
    throw InputError("--compat", 0, cfg.compat,
                     "unknown compatibility mode '" + cfg.compat + "' (available: wang2020, yu2022, synergy)");
  if ((cfg.compat == "synergy" || is_synergy_workload(cfg.workload)) && r->exec != "round")
    throw InputError("--exec", 0, r->exec, "Synergy workloads and --compat synergy need --exec round");
  if (!(cfg.start_delay_s >= 0)) throw InputError("--start-delay", 0, "", "must be >= 0");
  if (cfg.start_delay_s > 0 && (r->exec == "round" || r->exec == "task" || planner))
    throw InputError("--start-delay", 0, "", "the start delay is modelled by the job-level engine (--exec rate or graph), "
                     "not by the " + (planner ? std::string("planners") : r->exec + " model"));
  if (r->exec == "round") {
    run_round_model(cfg, *r);  // fills record and summary
    if (cfg.dry_run) return r;
    add_model_mapping(*r);
    const std::string trace = cfg.workload.empty() ? cfg.trace : "workload:" + cfg.workload;
    r->info = {cfg.policy, cfg.policy + " (round model)", r->cluster.name, trace,
               r->exec + (cfg.compat.empty() ? "" : "+compat=" + cfg.compat), cfg.seed,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
    return r;
  }
  if (cfg.compat == "yu2022" && !planner)
    throw InputError("--compat", 0, cfg.compat, "--compat yu2022 is for the planners (sjf-bco, ls, ff, rand)");
  if (cfg.compat == "wang2020" && r->exec != "task")
    throw InputError("--compat", 0, cfg.compat, "--compat wang2020 needs --exec task");
  if (r->exec == "graph" && (planner || task::is_task_policy(cfg.policy)))
    throw InputError("--exec", 0, "graph", "the job-graph law runs job-level policies, not '" + cfg.policy + "'");
  if (!(cfg.preempt_overhead_s >= 0)) throw InputError("--preempt-overhead", 0, "", "must be >= 0");
  std::string scheduler_name;
  if (r->exec == "task") {
    if (planner) throw InputError("--policy", 0, cfg.policy, "the planners run on the rate model (--exec rate)");
    if (!task::is_task_policy(cfg.policy))
      throw InputError("--policy", 0, cfg.policy,
                       "the task model runs its own policies (ada-srsf, srsf1, srsf2, ... in `ringmaster list-policies`); "
                       "job-level policies run with --exec rate, graph or round");
    r->task_policy = std::make_unique<task::TaskPolicy>(task::make_task_policy(cfg.policy, cfg.seed));
    scheduler_name = r->task_policy->name;
  } else if (planner) {
    scheduler_name = cfg.policy + " (planned, yu2022 model)";
  } else {
    if (task::is_task_policy(cfg.policy))
      throw InputError("--policy", 0, cfg.policy, "policy '" + cfg.policy + "' is for the task model (--exec task)");
    r->scheduler = make_scheduler(cfg.policy, cfg.seed);
    scheduler_name = r->scheduler->name();
  }
  r->workload = load_workload(cfg, r->cluster, &r->unschedulable, cfg.errors, &r->models);
  if (cfg.errors && !cfg.errors->empty()) return r;
  // Tensor / pipeline parallelism needs the job-graph law.
  for (const auto& j : r->workload.jobs)
    if (is_mixed_parallel(j) && r->exec != "graph") {
      if (cfg.exec != "auto" || r->exec == "task" || planner)
        throw InputError(j.file, j.line, j.tp > 1 ? "tp" : "pp",
                         "job " + j.name + " uses tensor/pipeline parallelism: run it with --exec graph");
      r->exec = "graph";
    }
  if (r->exec == "task") {
    TaskOptions to;
    to.compat = cfg.compat == "wang2020";
    to.progress = cfg.progress;
    to.fast_forward = cfg.fast_forward;
    r->task = std::make_unique<TaskEngine>(r->cluster, r->workload.jobs, *r->task_policy, to);
    if (cfg.dry_run) return r;
    r->task->run();
    r->record = r->task->record();
    const auto& ff = r->task->fast_forward_stats();
    if (to.fast_forward && !to.compat)
      r->record.timing.insert(r->record.timing.end(),
                              {{"fast_forward_jumps", static_cast<double>(ff.jumps)},
                               {"fast_forward_iterations", static_cast<double>(ff.iterations)},
                               {"fast_forward_skipped_s", ff.skipped_ms / 1000.0}});
  } else if (planner) {
    if (cfg.dry_run) return r;
    run_planner(cfg, *r);
  } else {
    EngineOptions eo;
    eo.preempt_overhead = from_seconds(cfg.preempt_overhead_s);
    eo.start_delay = from_seconds(cfg.start_delay_s);
    eo.record_stretches = r->workload.jobs.size() <= kStretchJobs;
    eo.progress = cfg.progress;
    if (r->scheduler->allocates()) {
      r->cpu_profiles = std::make_unique<synergy::ProfileSet>(
          synergy::ProfileSet::load(cpu_ratio_of(r->cluster, cfg.cpu_ratio), cfg.profiles));
      eo.cpu_profiles = r->cpu_profiles.get();
      eo.seed = cfg.seed;
      eo.matrix_speed = matrix_speed_of(cfg) || r->scheduler->matrix_speed();
    }
    r->engine = std::make_unique<Engine>(r->cluster, r->workload.jobs, *r->scheduler,
                                         r->exec == "graph" ? make_graph_model(r->cluster) : make_rate_model(r->cluster),
                                         eo);
    if (cfg.dry_run) return r;
    r->engine->run();
    r->record = record_of(*r->engine);
  }
  r->summary = summarize(r->record, r->unschedulable.size());
  add_model_mapping(*r);
  const std::string exec = r->exec + (cfg.compat.empty() ? "" : "+compat=" + cfg.compat);
  const std::string trace = cfg.workload.empty() ? cfg.trace : "workload:" + cfg.workload;
  r->info = {cfg.policy, scheduler_name, r->cluster.name, trace, exec, cfg.seed,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  return r;
}

}  // namespace rm
