// --compat pollux: the simulator of Pollux (OSDI'21; petuum/adaptdl branch osdi21-artifact @c793c70, simulator/),
// whose semantics shared/goldens/peers/pollux/README.md lists with file:line: rounds of --round seconds (60) in which
// every job advances by its true goodput at its placement (exec/pollux_app.h: step times measured or interpolated,
// gradient statistics, epochs), a 30-s restart after every re-allocation, whole-second completion times rounded as
// Python's round (half to even), then the policy decides at the round's end for the jobs submitted by then. Its
// deterministic baselines are here: Tiresias as Pollux's simulator runs it (two queues, 16 GPU-hours, the node with
// the most free GPUs first) and Optimus+Oracle (one GPU each, then the largest marginal gain with the true step
// time). Time is whole seconds, as in the peer. It runs under the engine as a deciding model
// (exec/execution_model.h), as the Tiresias and Gavel peers do.
#pragma once
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "run/run_plan.h"
#include "run/sim_result.h"

namespace rm {

// The policy text under --compat pollux: tiresias or optimus (Pollux's simulator's names).
PolicySpec parse_pollux_policy(const std::string& text);
// The policies under --compat pollux with what each does (list-policies --compat pollux).
std::vector<std::pair<std::string, std::string>> pollux_policies();

// Runs the plan (--compat pollux): the cluster pollux:N:G (N nodes of G GPUs, 1 <= G <= 4), the workload CSV of the
// artifact (name, time, application, num_replicas, batch_size), the applications' traces under
// --data-dir/pollux/traces; records with exact whole-second times (RunRecord::exact_s).
SimResult run_pollux(const RunPlan& plan);

// The replay check of issue 43 (goal 5a): the allocations a run of the authors' simulator chose, read from its log
// (JSON lines; shared/goldens/peers/pollux/README.md section 3), fed round by round into the job model with Pollux's
// jobs (each re-choosing its batch by the goodput model fitted to its own profile; ncf at 32,768), and each round's
// state as the log records it: after the jobs advanced to t and the re-allocation decided at t.
struct PolluxRoundJob {
  std::string name;
  int epoch = 0;
  double progress = 0;
  int restarts = -1;  // -1: never started (the log's null)
  int batch_size = 0, accum_steps = 0;
  long completion = -1;  // -1: not complete
  int profiled = 0;      // distinct (nodes, GPUs, atomic batch) points in its profile
  bool fitted = false;   // its throughput model has been fitted (perf below)
  std::array<double, 7> perf{};  // alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r, gamma
};
struct PolluxRound {
  long t = 0;
  std::vector<PolluxRoundJob> jobs;  // submitted by t, in workload order
};
std::vector<PolluxRound> replay_pollux_log(const RunPlan& plan, const std::string& log_path);

}  // namespace rm
