#include "run/run_plan.h"

#include <algorithm>

#include "core/error.h"
#include "core/suggest.h"
#include "exec/perf_model.h"
#include "exec/preempt_cost.h"
#include "run/peer_registry.h"
#include "run/round_runner.h"
#include "policy/a_srpt.h"
#include "policy/params.h"
#include "policy/gavel.h"
#include "policy/registry.h"
#include "policy/task/task_registry.h"
#include "workload/parse_util.h"

namespace rm {

bool RunPlan::synergy_workload() const { return is_synergy_workload(inputs.workload); }

std::string RunPlan::perf_model_label(ExecModel ran) const {
  if (const PeerEntry* peer = find_peer(compat)) return peer->perf_model;
  if (ran == ExecModel::Task) return "task-dag";
  if (ran == ExecModel::Round)
    return is_measured_perf_model(run.perf_model) ? "synergy-profiles+" + run.perf_model : "synergy-profiles";
  if (policy.family == PolicyFamily::Planner) return planner.physical ? "analytic" : "yu2022";
  return run.perf_model;
}

std::string RunPlan::preempt_cost_label(ExecModel ran) const {
  if (const PeerEntry* peer = find_peer(compat)) return "the peer's own (--compat " + peer->name + ")";
  if (ran == ExecModel::Round) return "none: the round model re-allocates at round boundaries (Synergy's simulator)";
  if (ran == ExecModel::Task) return "none: the task model does not preempt";
  if (policy.family == PolicyFamily::Planner) return "none: the planners do not preempt";
  return PreemptCost{run.preempt_overhead_s}.label();
}

std::string RunPlan::exec_label(ExecModel ran) const {
  if (const PeerEntry* peer = find_peer(compat)) return peer->exec_label;
  return std::string(exec_name(ran)) + (run.job_model == "fixed" ? "" : "+" + run.job_model + "-jobs") +
         (compat == Compat::None ? "" : std::string("+compat=") + compat_name(compat));
}

std::array<int, 3> parse_split(const std::string& s) {
  const auto f = split_simple(s, ',');
  if (f.size() != 3) throw InputError("--split", 0, s, "expected IMAGE,LANGUAGE,SPEECH percentages");
  return {static_cast<int>(parse_int(f[0], "--split", 0, "image")),
          static_cast<int>(parse_int(f[1], "--split", 0, "language")),
          static_cast<int>(parse_int(f[2], "--split", 0, "speech"))};
}

namespace {

Compat parse_compat(const std::string& s) {
  if (s.empty()) return Compat::None;
  if (s == "wang2020") return Compat::Wang2020;
  if (s == "yu2022") return Compat::Yu2022;
  if (s == "synergy") return Compat::Synergy;
  if (const PeerEntry* peer = find_peer(s)) return peer->compat;
  throw InputError("--compat", 0, s,
                   "unknown compatibility mode '" + s + "' (available: wang2020, yu2022, synergy, tiresias, gavel, pollux, sia)");
}

// --exec auto: the round model for Synergy workloads, --compat synergy, the synergy-* presets and an order with
// Synergy-OPT (as the authors ran it: one ILP per round; a whole scheduler with +opt runs on the job-level engine);
// the graph law for A-SRPT; the task model for its own policies; the rate model otherwise.
ExecModel auto_exec(const RunPlan& p) {
  const PolicySpec& s = p.policy;
  if (p.compat == Compat::Synergy || p.synergy_workload()) return ExecModel::Round;
  if (s.family == PolicyFamily::Scheduler && is_a_srpt(s.parts.front().name)) return ExecModel::Graph;
  if (s.family == PolicyFamily::Composed) {
    if (s.has(Point::Allocation, "opt")) return ExecModel::Round;
    for (const auto& preset : s.presets)
      if (preset.rfind("synergy-", 0) == 0) return ExecModel::Round;
  }
  return s.family == PolicyFamily::Task ? ExecModel::Task : ExecModel::Rate;
}

ExecModel parse_exec(const RunPlan& p, const std::string& s) {
  if (s == "auto") return auto_exec(p);
  for (ExecModel m : kExecModelList)
    if (s == exec_name(m)) return m;
  throw InputError("--exec", 0, s, "unknown execution model '" + s + "' (available: rate, task, graph, round, auto)");
}

std::pair<std::int64_t, std::int64_t> parse_window(const std::string& s) {
  const auto f = split_simple(s, ':');
  if (f.size() != 2) throw InputError("--measure-ids", 0, s, "expected FIRST:LAST (inclusive job ids)");
  const auto lo = parse_int(f[0], "--measure-ids", 0, "first"), hi = parse_int(f[1], "--measure-ids", 0, "last");
  if (lo < 0 || hi < lo) throw InputError("--measure-ids", 0, s, "needs 0 <= FIRST <= LAST");
  return {lo, hi};
}

PlannerParams planner_params(const PolicySpec& spec, std::uint64_t seed) {
  const PartSpec& part = spec.parts.front();
  PluginParams pp(part.name, part.kv, seed);
  PlannerParams out;
  plan::PlanOptions& opt = out.opt;
  opt.seed = seed;
  opt.horizon = pp.get_double("horizon", 1200, 1, 1e7);
  opt.u = pp.get_double("u", 1, 1, 1e6);
  out.lambda = pp.get_double("lambda", 1, 1, 1e6);
  opt.kappa = pp.get_int("kappa", 0, 0, 1'000'000);
  const std::string model = pp.get_string("model", "abstract");
  if (model != "abstract" && model != "physical")
    throw InputError("--policy", 0, part.name + ":model", "must be abstract or physical");
  const std::string lb = pp.get_string("lbsgf", "prefix");
  if (lb != "prefix" && lb != "global") throw InputError("--policy", 0, part.name + ":lbsgf", "must be prefix or global");
  opt.lbsgf_global = lb == "global";
  pp.check_all_used();
  if (!(opt.horizon >= 1) || !(opt.u > 0) || !(out.lambda >= 1) || opt.kappa < 0)
    throw InputError("--policy", 0, spec.text, "needs horizon >= 1, u > 0, lambda >= 1, kappa >= 0");
  out.physical = model == "physical";
  return out;
}

// Which --compat runs with which execution model and policy, and the start delay's models.
void check_combination(const RunPlan& p) {
  const RunOptions& c = p.run;
  const bool planner = p.policy.family == PolicyFamily::Planner;
  if ((p.compat == Compat::Synergy || p.synergy_workload()) && p.exec != ExecModel::Round)
    throw InputError("--exec", 0, exec_name(p.exec), "Synergy workloads and --compat synergy need --exec round");
  if (!(c.start_delay_s >= 0)) throw InputError("--start-delay", 0, "", "must be >= 0");
  if (c.start_delay_s > 0 && (p.exec == ExecModel::Round || p.exec == ExecModel::Task || planner))
    throw InputError("--start-delay", 0, "", "the start delay is modelled by the job-level engine (--exec rate or graph), "
                     "not by the " + (planner ? std::string("planners") : std::string(exec_name(p.exec)) + " model"));
  // Options a model does not model are refused by name, not ignored (issue 41).
  if (c.preempt_overhead_s >= 0 && (p.exec == ExecModel::Round || p.exec == ExecModel::Task || planner))
    throw InputError("--preempt-overhead", 0, "", p.preempt_cost_label(p.exec) + ": --preempt-overhead does not apply");
  if (p.synergy_workload() && p.inputs.arrival_scale != 1)
    throw InputError("--arrival-scale", 0, "", "the synergy-* workloads make their arrivals at --load jobs an hour: "
                                               "set --load instead");
  if (c.job_model != "fixed" && c.job_model != "pollux" && c.job_model != "pollux-tuned" && c.job_model != "sia")
    throw InputError("--job-model", 0, c.job_model, "unknown job model (available: fixed, pollux, pollux-tuned, sia)");
  if (c.job_model != "fixed") {
    const std::string whose = c.job_model == "sia" ? "Sia's" : "Pollux's";
    if (p.exec != ExecModel::Rate)
      throw InputError("--job-model", 0, c.job_model, whose + " jobs run under --exec rate, not " + std::string(exec_name(p.exec)));
    if (planner)
      throw InputError("--job-model", 0, c.job_model, "the planners (" + p.policy.text + ") keep their own law");
    const std::string tables = c.job_model == "sia" ? "measured:sia" : "measured:pollux";
    if (c.perf_model != tables)
      throw InputError("--job-model", 0, c.job_model,
                       whose + " jobs run at the step times of " + whose + " tables: give --perf-model " + tables +
                           " (what the policies read too)");
  }
  if (c.interference != 0 && p.compat != Compat::Pollux)
    throw InputError("--interference", 0, "", "only --compat pollux models interference between distributed jobs");
  if (p.compat == Compat::Yu2022 && !planner)
    throw InputError("--compat", 0, compat_name(p.compat),
                     "--compat yu2022 is for the planners (sjf-bco, ls, ff, rand)");
  if (p.compat == Compat::Wang2020 && p.exec != ExecModel::Task)
    throw InputError("--compat", 0, compat_name(p.compat), "--compat wang2020 needs --exec task");
  if (const std::string why = exec_refusal(p.policy, p.exec); !why.empty())
    throw InputError("--policy", 0, p.policy.text, "cannot run with --exec " + std::string(exec_name(p.exec)) + ": " + why);
  if (p.compat == Compat::Yu2022 && p.planner.physical)
    throw InputError("--compat", 0, "yu2022", "the slot semantics need model=abstract");
}

void check_numbers(const SimConfig& c) {
  if (!(c.preempt_overhead_s >= 0) && c.preempt_overhead_s != -1)
    throw InputError("--preempt-overhead", 0, "", "must be >= 0");
  if (!(c.arrival_scale > 0)) throw InputError("--arrival-scale", 0, "", "must be > 0");
  if (!(c.arrival_scale <= 1e6)) throw InputError("--arrival-scale", 0, "", "must be at most 1e6");
  if (c.max_jobs < 0) throw InputError("--max-jobs", 0, "", "must be >= 0");
  if (c.speed_model != "binary" && c.speed_model != "matrix")
    throw InputError("--speed-model", 0, c.speed_model, "must be binary or matrix");
}

// --perf-model: analytic, or trace or measured:* where a job-level law runs (the task model keeps its DAG law, a
// planner its own law, which the replay must follow); the round model keeps its profiles and takes a measured
// model's placement slowdown on top (not trace: at its share it already runs the trace's durations; not under
// --compat synergy, the authors' model).
void check_perf_model(const RunPlan& p) {
  const std::string& m = p.run.perf_model;
  if (p.policy.family == PolicyFamily::Scheduler && is_gavel_scheduler(p.policy.parts.front().name) &&
      p.policy.parts.front().name.ends_with("-perf") && !is_measured_perf_model(m))
    throw InputError("--perf-model", 0, m,
                     p.policy.parts.front().name + " solves Gavel's program over each job's throughput on each GPU "
                     "type, which must be measured: use --perf-model measured:gavel (or measured:pollux, measured:sia, "
                     "measured:elasticflow)");
  if (m == "analytic") return;
  const auto& names = perf_model_names();
  if (std::find(names.begin(), names.end(), m) == names.end())
    throw InputError("--perf-model", 0, m,
                     "must be analytic, trace, measured:pollux, measured:sia, measured:gavel or measured:elasticflow" +
                         did_you_mean(m, names));
  if (p.policy.family == PolicyFamily::Planner)
    throw InputError("--perf-model", 0, m, "a planner replays its plan under its own law: use analytic");
  if (p.exec == ExecModel::Task)
    throw InputError("--perf-model", 0, m, "needs --exec rate, graph or round (--exec task keeps its own law: the task DAG)");
  if (p.exec == ExecModel::Round && !is_measured_perf_model(m))
    throw InputError("--perf-model", 0, m,
                     "--exec round runs Synergy's profiles, at its share each job's trace duration: analytic or "
                     "measured:* (its placement slowdown on top)");
  if (p.exec == ExecModel::Round && p.compat == Compat::Synergy)
    throw InputError("--perf-model", 0, m, "--compat synergy runs the authors' model: use analytic");
}

// Builds the policy's plugins once (and drops them): their parameters are checked here, before any input is read.
void check_policy_parameters(const RunPlan& p) {
  switch (p.policy.family) {
    case PolicyFamily::Task: task::make_task_policy(p.policy, p.inputs.seed); break;
    case PolicyFamily::Peer: break;  // parse_tiresias_policy checked it
    case PolicyFamily::Planner: break;  // planner_params checked them
    case PolicyFamily::Scheduler:
    case PolicyFamily::Composed:
      if (p.exec == ExecModel::Round) round_policy(p.policy, p.inputs.seed);
      else make_scheduler(p.policy, p.inputs.seed);
      break;
  }
}

}  // namespace

RunPlan make_run_plan(const SimConfig& cfg) {
  RunPlan p;
  p.inputs = cfg;
  p.run = cfg;
  p.compat = parse_compat(cfg.compat);
  if (const PeerEntry* entry = find_peer(p.compat)) {  // a peer's own loop and policy names (run/peer_registry.h)
    const bool tiresias = p.compat == Compat::Tiresias;
    const std::string peer = "--compat " + entry->name;
    p.policy = entry->parse_policy(cfg.policy);
    if (cfg.exec != "auto") throw InputError("--exec", 0, cfg.exec, peer + " runs the peer's own loop");
    if (cfg.job_model != "fixed")
      throw InputError("--job-model", 0, cfg.job_model, peer + " runs the peer's own jobs");
    if (cfg.perf_model != "analytic")
      throw InputError("--perf-model", 0, cfg.perf_model,
                       peer + (tiresias ? " runs each job its trace duration" : " runs each job at its table's throughput"));
    if (cfg.preempt_overhead_s >= 0)  // issue 41: refused by name, not ignored
      throw InputError("--preempt-overhead", 0, "", peer + " keeps the peer's own preemption semantics");
    if (cfg.load > 0 && !tiresias)
      throw InputError("--load", 0, "", peer + " reads Gavel's trace as it is: scale it with --arrival-scale");
    check_numbers(cfg);
    return p;
  }
  p.policy = parse_policy_spec(cfg.policy);
  // A default that depends on the run's options: the Gittins orders' service distribution, under --data-dir.
  for (auto& part : p.policy.parts)
    if ((part.name == "gittins" || part.name == "2d-gittins") && !part.kv.count("cdf"))
      part.kv["cdf"] = cfg.data_dir + "/tiresias/yarn-gput1000.csv";
  p.exec_auto = cfg.exec == "auto";
  p.exec = parse_exec(p, cfg.exec);
  if (p.policy.family == PolicyFamily::Planner) p.planner = planner_params(p.policy, cfg.seed);
  check_combination(p);
  check_numbers(cfg);
  check_perf_model(p);
  p.trace_law = cfg.perf_model == "trace";
  p.matrix_speed = cfg.speed_model == "matrix";
  p.split = parse_split(cfg.split);
  if (!cfg.measure_ids.empty()) p.measure_ids = parse_window(cfg.measure_ids);
  check_policy_parameters(p);
  return p;
}

}  // namespace rm
