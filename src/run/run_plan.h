// The typed run plan: a SimConfig (the options as given) parsed and validated once, in one place.
// Everything downstream (simulate, the round model, the planners' driver, the peers, sweep, validate) reads the
// plan's typed fields; the texts it parsed (policy, exec, compat, speed model, measured window, split) are not kept, so
// nothing re-splits the policy string or branches on the execution model's name.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "run/sim_config.h"
#include "exec/model_choice.h"
#include "policy/planner/planner.h"
#include "policy/policy_spec.h"

namespace rm {

// A planner's parameters (sjf-bco[:kappa=K;lambda=L;horizon=T;u=U;lbsgf=prefix|global;model=abstract|physical]).
struct PlannerParams {
  plan::PlanOptions opt;
  double lambda = 1;
  bool physical = false;  // model=physical: the rate model's law instead of Yu et al.'s abstract one
};

struct RunPlan {
  std::string label;                  // the policy's display name: --policy LABEL=SPEC, else the spec (cli/common.h)
  InputSpec inputs;                   // what the run reads (run/loaders.h)
  RunOptions run;                     // how it goes; checked (check_numbers, check_perf_model)
  PolicySpec policy;
  ExecModel exec = ExecModel::Rate;   // resolved from --exec (auto: by the policy and the workload's name)
  bool exec_auto = true;              // --exec auto: jobs with tensor/pipeline parallelism still pick graph
  Compat compat = Compat::None;
  bool matrix_speed = false;          // --speed-model matrix
  bool trace_law = false;             // --perf-model trace: a job runs its ideal time whatever its placement
  std::array<int, 3> split{20, 70, 10};                            // --split (synergy-* workloads)
  std::optional<std::pair<std::int64_t, std::int64_t>> measure_ids;  // --measure-ids FIRST:LAST
  PlannerParams planner;              // the Planner family's parameters

  bool synergy_workload() const;
  // "rate", "task+compat=wang2020", ...: what summary.json's `exec` says.
  std::string exec_label(ExecModel ran) const;
  // What turns a placement into run time in a run of `ran` (summary.json's `perf_model`): "analytic" (the
  // rate or graph law), "trace", "yu2022" (Yu et al.'s abstract law), "task-dag", "synergy-profiles".
  std::string perf_model_label(ExecModel ran) const;
  // What a preemption costs in a run of `ran` (summary.json's `preempt_cost_model`).
  std::string preempt_cost_label(ExecModel ran) const;
};

// Parses and validates every option of `cfg` that needs no input file: the policy (grammar, names,
// parameters: each plugin is built once and dropped), --exec, --compat and which combinations run, and the
// numeric options. Throws InputError naming the option (or --policy's part). Reading the cluster, the trace
// and the catalogue (file:line:field errors) happens in simulate().
RunPlan make_run_plan(const SimConfig& cfg);

// --split IMAGE,LANGUAGE,SPEECH (percentages of the synergy-* workloads).
std::array<int, 3> parse_split(const std::string& s);

}  // namespace rm
