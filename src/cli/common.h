// What the subcommands share: simulate's options (also validate's and sweep's), the progress bar, the output
// folder lock, the summary table, and the "did you mean" after a usage error.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "cli/sweep.h"
#include "core/progress.h"
#include "run/run_plan.h"
#include "run/sim_config.h"
#include "metrics/metrics.h"

namespace CLI {
class App;
}

namespace rm::cli {

// The options of `simulate` as given.
struct SimArgs {
  SimConfig cfg;
  std::vector<std::string> policies;
  std::string out = "results";
  bool quiet = false;
};

// `simulate` and its options (also how `sweep` learns which options exist and which are flags).
// `validate` takes the same options (through this function, so the two cannot drift apart).
CLI::App* add_simulate_options(CLI::App& app, SimArgs& a, const std::string& name, const std::string& help);
// simulate's long options as `sweep` learns them (names, and which take a value): for the CLI and the Python module.
std::vector<sweep::SimOption> sweep_simulate_options();

// The policies run when none is given.
const std::vector<std::string>& default_policies();

// simulate's plans, one per policy (the defaults when none is given), every one made before any runs so that a bad
// option or policy is refused first. `trace_given`: --trace was on the command line (refused with --workload).
std::vector<RunPlan> plan_runs(SimConfig cfg, const std::vector<std::string>& policies, bool trace_given);
// The note for a trace model the catalogue lacks, simulated as another by --unknown-model.
std::string replaced_model_note(const std::string& from, const std::string& to, const std::string& rule);

// A progress bar on stderr, only when stderr is a terminal, not --quiet, and the run has lasted over a second:
// jobs finished, simulated time against the makespan it points to, events per second, wall time.
class ProgressBar {
 public:
  // `label` leads the line (simulate: "policy 2/4: tiresias").
  explicit ProgressBar(bool quiet, std::string label = "");
  void update(const ProgressInfo& p);
  void finish();

 private:
  bool tty_, shown_ = false;
  std::string label_;
  std::chrono::steady_clock::time_point t0_, last_{};
};

// A policy as a folder name.
std::string dir_name(const std::string& policy);
// "LABEL=SPEC": a policy's display name and its spec (LABEL: letters, digits, '_', '-', '.'; the text before the
// first '=' has no ':', so "gittins:cdf=online" is a spec); without one the label is the spec, each Python part
// shown by its class name (no file path). Folder names, summary.json `policy_label`, legends and compare use it.
std::pair<std::string, std::string> policy_label(const std::string& policy);
void print_table(const std::vector<std::pair<std::string, Summary>>& rows);

// After a parse error: "did you mean" for the first unknown subcommand or flag.
std::string usage_hint(CLI::App& app, int argc, char** argv);

// An exclusive lock on the output folder for the whole run (flock on the folder itself: nothing left behind), so
// two runs into one --out cannot interleave their files: the second is refused.
class OutLock {
 public:
  explicit OutLock(const std::string& dir);
  ~OutLock();
  OutLock(const OutLock&) = delete;
  OutLock& operator=(const OutLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace rm::cli
