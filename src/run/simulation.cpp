// simulate(): routes a RunPlan to its execution model (the job-level engine under the rate or graph law, the
// task engine, the round model, or the planners' driver) and summarises the run.
#include "run/simulation.h"

#include <chrono>
#include <cmath>

#include "core/error.h"
#include "run/planner_run.h"
#include "run/peer_registry.h"
#include "run/round_runner.h"
#include "run/task_run.h"
#include "exec/comm_model.h"
#include "models/graph/graph_model.h"
#include "models/rate/pollux_job_model.h"
#include "models/rate/sia_job_model.h"
#include "models/rate/rate_model.h"
#include "exec/perf_model.h"
#include "exec/preempt_cost.h"
#include "policy/gavel.h"
#include "policy/registry.h"
#include "policy/task/task_registry.h"
#include "run/loaders.h"

namespace rm {
namespace {

// Runs of up to this many jobs also write gpus.csv (every stretch a job held GPUs: plot's Gantt chart).
constexpr std::size_t kStretchJobs = 300;
constexpr int kStretchGpus = 64;

void add_model_mapping(SimResult& r) {
  if (r.models.aliased > 0) r.summary.extra.push_back({"models_aliased", static_cast<double>(r.models.aliased)});
  if (r.models.unknown > 0) r.summary.extra.push_back({"models_replaced", static_cast<double>(r.models.unknown)});
}

// A CSV read through --columns: what the reading left out or filled in (summary.json; the CLI says it once).
void add_trace_reading(SimResult& r) {
  r.info.model_mapping.assign(r.models.replaced.begin(), r.models.replaced.end());  // --unknown-model's table
  const Workload& w = r.workload;
  if (!w.mapped) return;
  r.info.columns_mapped = true;
  r.info.ignored_columns = w.ignored_columns;
  for (const auto& [k, v] : {std::pair{"models_assigned", w.models_assigned}, {"cpu_only_skipped", w.cpu_only_skipped},
                             {"gpus_rounded_up", w.gpus_rounded_up}})
    if (v > 0) r.summary.extra.push_back({k, static_cast<double>(v)});
  if (w.iterations_checked > 0)
    r.summary.extra.insert(r.summary.extra.end(), {{"iterations_checked", static_cast<double>(w.iterations_checked)},
                                                   {"iterations_off_1pct", static_cast<double>(w.iterations_off)},
                                                   {"iterations_max_rel_diff", w.iterations_max_rel_diff}});
}

std::string trace_label(const InputSpec& cfg) { return cfg.workload.empty() ? cfg.trace : "workload:" + cfg.workload; }

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Tensor / pipeline parallelism needs the job-graph law: --exec auto picks it, an explicit model is an error.
void pick_graph_for_mixed_parallel(const RunPlan& plan, SimResult& r) {
  for (const auto& j : r.workload.jobs)
    if (is_mixed_parallel(j) && r.exec != ExecModel::Graph) {
      if (!plan.exec_auto || r.exec == ExecModel::Task || plan.policy.family == PolicyFamily::Planner)
        throw InputError(j.file, j.line, j.tp > 1 ? "tp" : "pp",
                         "job " + j.name + " uses tensor/pipeline parallelism: run it with --exec graph");
      r.exec = ExecModel::Graph;
    }
}

// A job's GPUs are all of one GPU type: the job-level orders place them so (policy/placement/placements.h
// place_on_one_type); the schedulers and models that place by their own rules assume one type.
void refuse_mixed_types(const RunPlan& plan, const SimResult& r) {
  const GpuTypes types = gpu_types_of(r.cluster);
  if (types.count() <= 1) return;
  const bool typed_scheduler =  // Gavel's and Sia's policies place each job on one type of their own choosing
      plan.policy.family == PolicyFamily::Scheduler &&
      (is_gavel_scheduler(plan.policy.parts.front().name) || plan.policy.parts.front().name == "sia");
  if (r.exec == ExecModel::Task || r.exec == ExecModel::Round ||
      (plan.policy.family != PolicyFamily::Composed && !typed_scheduler))
    throw InputError("--cluster", 0, r.cluster.name,
                     "has " + std::to_string(types.count()) + " GPU types; " + plan.policy.text +
                         " (" + exec_name(r.exec) + " model) places jobs by its own rules, on one type only: use a "
                         "job-level order with --exec rate or graph (list-policies) on a cluster of several types");
}

std::unique_ptr<SimResult> run_task(const RunPlan& plan, std::unique_ptr<SimResult> r) {
  TaskOptions to;
  to.compat = plan.compat == Compat::Wang2020;
  to.progress = plan.run.progress;
  to.fast_forward = plan.run.fast_forward;
  r->task = std::make_unique<TaskModel>(r->cluster, r->workload.jobs, *r->task_policy, to);
  if (plan.run.dry_run) return r;
  const auto t0 = std::chrono::steady_clock::now();
  r->task = run_task_model(r->cluster, r->workload.jobs, std::move(r->task));
  r->engine_s = seconds_since(t0);
  r->record = r->task->record();
  const auto& ff = r->task->fast_forward_stats();
  if (to.fast_forward && !to.compat)
    r->record.timing.insert(r->record.timing.end(), {{"fast_forward_jumps", static_cast<double>(ff.jumps)},
                                                   {"fast_forward_iterations", static_cast<double>(ff.iterations)},
                                                   {"fast_forward_skipped_s", ff.skipped_ms / 1000.0}});
  return r;
}

// The job-level engine under the rate or the graph law.
std::unique_ptr<SimResult> run_job_level(const RunPlan& plan, std::unique_ptr<SimResult> r) {
  EngineOptions eo;
  const PreemptCost cost{plan.run.preempt_overhead_s};
  eo.preempt_cost = [cost](const JobSpec& j) { return cost.cost_s(j); };
  eo.start_delay = from_seconds(plan.run.start_delay_s);
  // gpus.csv: every stretch of a small run; of a large one, the stretches on the first servers, up to kStretchGpus
  // GPUs (whole servers, at least one), said in summary.json (gantt_servers of cluster_servers).
  eo.record_stretches = true;
  if (r->workload.jobs.size() > kStretchJobs) {
    int gpus = 0, servers = 0;
    while (servers < static_cast<int>(r->cluster.servers.size()) &&
           (servers == 0 || gpus + r->cluster.servers[servers].gpus <= kStretchGpus))
      gpus += r->cluster.servers[servers++].gpus;
    eo.stretch_servers = servers;
  }
  eo.progress = plan.run.progress;
  eo.perf = r->perf.get();
  eo.trace_type = r->trace_type;
  if (r->scheduler->allocates()) {
    r->cpu_profiles = std::make_unique<synergy::ProfileSet>(
        synergy::ProfileSet::load(cpu_ratio_of(r->cluster, plan.run.cpu_ratio), plan.run.profiles));
    eo.cpu_profiles = r->cpu_profiles.get();
    eo.seed = plan.inputs.seed;
    eo.matrix_speed = plan.matrix_speed || r->scheduler->matrix_speed();
  }
  std::unique_ptr<RateModel> model;
  if (plan.run.job_model != "fixed") {  // Pollux's or Sia's jobs (run_plan.cpp checked --exec rate, measured:*)
    if (r->workload.format != "pollux")
      throw InputError("--job-model", 0, plan.run.job_model,
                       "Pollux's and Sia's jobs are the jobs of a Pollux/Sia workload: read the trace with --format pollux");
  }
  if (plan.run.job_model == "sia") {
    SiaJobModelOptions so;
    so.traces_dir = plan.inputs.data_dir + "/sia/traces";
    const GpuTypes types = gpu_types_of(r->cluster);
    for (const auto& name : types.names) {
      const KnownGpuType* k = find_gpu_type(name);
      if (!k || k->sia.empty())
        throw InputError("--job-model", 0, "sia", "Sia's jobs need GPU types Sia measured (t4, a100, rtx2080ti, v100, "
                                                  "quadro-rtx6000), not '" + name + "'");
      so.type_names.push_back(k->sia);
    }
    so.type_of_server = types.of_server;
    widen_for_sia_jobs(r->workload.jobs, so);
    model = make_sia_job_model(so);
  } else if (plan.run.job_model != "fixed") {
    const bool adaptive = plan.run.job_model == "pollux";
    if (adaptive) widen_for_pollux_jobs(r->workload.jobs, plan.inputs.data_dir + "/pollux/traces");
    model = make_pollux_job_model({plan.inputs.data_dir + "/pollux/traces", adaptive});
  } else {
    model = r->exec == ExecModel::Graph ? make_graph_model(r->cluster, plan.trace_law, r->perf.get())
                                        : make_rate_model(r->cluster, nullptr, plan.trace_law, r->perf.get());
  }
  r->engine = std::make_unique<Engine>(r->cluster, r->workload.jobs, *r->scheduler, std::move(model), eo);
  if (plan.run.dry_run) return r;
  const auto t0 = std::chrono::steady_clock::now();
  r->engine->run();
  r->engine_s = seconds_since(t0);
  r->record = record_of(*r->engine);
  if (eo.stretch_servers >= 0) {
    r->record.extra.push_back({"gantt_servers", static_cast<double>(eo.stretch_servers)});
    r->record.extra.push_back({"cluster_servers", static_cast<double>(r->cluster.servers.size())});
  }
  return r;
}

std::unique_ptr<SimResult> simulate_rounds(const RunPlan& plan, std::unique_ptr<SimResult> r,
                                           std::chrono::steady_clock::time_point t0) {
  // A measured model's placement slowdown on top of Synergy's profiles (run_plan.cpp: check_perf_model).
  if (is_measured_perf_model(plan.run.perf_model))
    r->perf = make_perf_model(plan.run.perf_model, plan.inputs.data_dir, r->cluster);
  const auto t1 = std::chrono::steady_clock::now();
  r = run_round_model(plan, std::move(r));  // the record and the summary
  r->engine_s = seconds_since(t1);  // the rounds with their job source (a generated workload's arrivals)
  if (plan.run.dry_run) return r;
  if (r->perf) r->perf->report(r->summary.extra);
  add_model_mapping(*r);
  r->info = {.policy = plan.policy.text, .scheduler = plan.policy.text + " (round model)", .cluster = r->cluster.name,
             .trace = trace_label(plan.inputs), .exec = plan.exec_label(r->exec), .seed = plan.inputs.seed,
             .wall_s = seconds_since(t0)};
  r->info.perf_model = plan.perf_model_label(r->exec);
  r->info.engine_s = r->engine_s;
  r->info.preempt_cost_model = plan.preempt_cost_label(r->exec);
  add_trace_reading(*r);
  return r;
}

}  // namespace

std::unique_ptr<SimResult> simulate(const RunPlan& plan) {
  const auto t0 = std::chrono::steady_clock::now();
  if (const PeerEntry* peer = find_peer(plan.compat)) {  // a peer's own loop (run/peer_registry.h)
    auto r = std::make_unique<SimResult>(peer->run(plan));
    r->engine_s = seconds_since(t0);  // the peer's whole run: its own readers and loop
    r->exec = plan.exec;
    if (plan.run.dry_run) return r;
    r->summary = summarize(r->record, r->unschedulable.size());
    r->info = {.policy = plan.policy.text, .scheduler = plan.policy.text + " (" + peer->simulator + ")",
               .cluster = r->cluster.name, .trace = trace_label(plan.inputs), .exec = plan.exec_label(r->exec),
               .seed = plan.inputs.seed, .wall_s = seconds_since(t0)};
    r->info.perf_model = plan.perf_model_label(r->exec);
    r->info.engine_s = r->engine_s;
    r->info.preempt_cost_model = plan.preempt_cost_label(r->exec);
    return r;
  }
  auto r = std::make_unique<SimResult>();
  r->exec = plan.exec;
  r->cluster = load_config_cluster(plan.inputs);
  if (r->exec == ExecModel::Round) {
    refuse_mixed_types(plan, *r);
    return simulate_rounds(plan, std::move(r), t0);
  }
  std::string scheduler_name;
  switch (plan.policy.family) {
    case PolicyFamily::Task:
      r->task_policy = std::make_unique<task::TaskPolicy>(task::make_task_policy(plan.policy, plan.inputs.seed));
      scheduler_name = r->task_policy->name;
      break;
    case PolicyFamily::Planner: scheduler_name = plan.policy.text + " (planned, yu2022 model)"; break;
    case PolicyFamily::Peer: break;  // simulate_peer below
    case PolicyFamily::Scheduler:
    case PolicyFamily::Composed:
      r->scheduler = make_scheduler(plan.policy, plan.inputs.seed);
      scheduler_name = r->scheduler->name();
      break;
  }
  refuse_mixed_types(plan, *r);
  // The performance model: the job-level engine's (--perf-model); the task model and the planners keep their
  // own laws, and turn durations into iterations with the analytic one.
  const bool job_level = r->exec != ExecModel::Task && plan.policy.family != PolicyFamily::Planner;
  r->perf = make_perf_model(job_level ? plan.run.perf_model : "analytic", plan.inputs.data_dir, r->cluster);
  r->trace_type = trace_type_of(plan.inputs, r->cluster);
  const IdealTimes ideal = r->perf->ideal_times(r->trace_type);
  r->workload = load_workload(plan.inputs, r->cluster, &r->unschedulable, plan.inputs.errors, &r->models, &ideal);
  if (plan.inputs.errors && !plan.inputs.errors->empty()) return r;
  check_perf_coverage(*r->perf, r->workload.jobs, r->cluster);
  r->perf->start_run();
  pick_graph_for_mixed_parallel(plan, *r);
  if (r->exec == ExecModel::Task) r = run_task(plan, std::move(r));
  else if (plan.policy.family == PolicyFamily::Planner) {
    if (plan.run.dry_run) {  // validate = simulate: the same checks and the same plan
      plan_workload(plan, *r);
      return r;
    }
    const auto t1 = std::chrono::steady_clock::now();
    r = run_planner(plan, std::move(r));
    r->engine_s = seconds_since(t1);  // planning and executing the plan
  } else r = run_job_level(plan, std::move(r));
  if (plan.run.dry_run) return r;
  r->summary = summarize(r->record, r->unschedulable.size());
  if (!std::isnan(r->workload.offered_load)) r->summary.extra.push_back({"offered_load", r->workload.offered_load});
  if (r->perf) r->perf->report(r->summary.extra);
  add_model_mapping(*r);
  r->info = {.policy = plan.policy.text, .scheduler = scheduler_name, .cluster = r->cluster.name,
             .trace = trace_label(plan.inputs), .exec = plan.exec_label(r->exec), .seed = plan.inputs.seed,
             .wall_s = seconds_since(t0)};
  r->info.perf_model = plan.perf_model_label(r->exec);
  r->info.engine_s = r->engine_s;
  r->info.preempt_cost_model = plan.preempt_cost_label(r->exec);
  add_trace_reading(*r);
  return r;
}

std::unique_ptr<SimResult> simulate(const SimConfig& cfg) { return simulate(make_run_plan(cfg)); }

}  // namespace rm
