// `ringmaster validate`: every check `simulate` with the same options makes, without running.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <regex>

#include "cli/common.h"
#include "cli/subcommand.h"
#include "core/error.h"
#include "run/simulation.h"

namespace rm::cli {
namespace {

// `validate`: every check `simulate` with the same options makes (the same code: simulate's dry run), without
// running. Bad rows are all listed (file:line:field), then the first problem of each policy's run.
int run_validate(SimConfig cfg, std::vector<std::string> policies, bool quiet) {
  if (policies.empty()) policies = default_policies();
  std::vector<std::string> errors;
  const auto add = [&](const std::string& e) {
    if (std::find(errors.begin(), errors.end(), e) == errors.end()) errors.push_back(e);
  };
  std::size_t jobs = 0;
  int max_gpus = 0;
  double last_submit = 0;
  for (std::size_t i = 0; i < policies.size(); ++i)  // as simulate refuses it (cli/common.cpp plan_runs)
    if (std::find(policies.begin(), policies.begin() + static_cast<long>(i), policies[i]) != policies.begin() + static_cast<long>(i))
      add(InputError("--policy", 0, policies[i], "given twice: each policy runs once (for repeats, sweep --seed)").what());
  for (const auto& p : policies) {
    SimConfig c = cfg;
    c.policy = p;
    c.dry_run = true;
    std::vector<std::string> errs;
    c.errors = &errs;
    try {
      const auto r = simulate(c);
      if (r->workload.jobs.size() > jobs) {
        jobs = r->workload.jobs.size();
        for (const auto& j : r->workload.jobs) max_gpus = std::max(max_gpus, j.num_gpus);
        last_submit = to_seconds(r->workload.jobs.back().submit);
      }
    } catch (const InputError& e) {
      errs.push_back(e.what());
    }
    for (const auto& e : errs) add(e);
  }
  const std::string what = cfg.workload.empty() ? cfg.trace : "workload " + cfg.workload;
  // A problem repeated on many rows (the same file, field and message at other lines) is printed once, with its count
  // and its first lines.
  struct Group {
    std::string first;
    std::vector<std::string> lines;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> by_key;
  static const std::regex row(R"(^(.*?):(\d+):(.*)$)");
  for (const auto& e : errors) {
    std::smatch m;
    const bool at_row = std::regex_match(e, m, row);
    const std::string key = at_row ? m[1].str() + "\n" + m[3].str() : e;
    auto [it, fresh] = by_key.emplace(key, groups.size());
    if (fresh) groups.push_back({e, {}});
    if (at_row) groups[it->second].lines.push_back(m[2].str());
  }
  for (const auto& g : groups) {
    std::cerr << "error: " << g.first;
    if (g.lines.size() > 1) {
      std::string ls;
      for (std::size_t i = 0; i < g.lines.size() && i < 5; ++i) ls += (i ? ", " : "") + g.lines[i];
      std::cerr << " (the same on " << g.lines.size() << " rows: lines " << ls << (g.lines.size() > 5 ? ", ..." : "")
                << ")";
    }
    std::cerr << "\n";
  }
  if (!errors.empty()) {
    std::cerr << errors.size() << " problem(s) in " << what << " (cluster " << cfg.cluster << ")\n";
    return 2;
  }
  if (!quiet) {
    std::string ps;
    for (const auto& p : policies) ps += (ps.empty() ? "" : ", ") + p;
    if (jobs > 0)
      std::cout << fmt::format("{}: {} jobs OK ({} GPUs max, last submit {:.0f} s) on cluster {} for {}\n", what, jobs,
                               max_gpus, last_submit, cfg.cluster, ps);
    else
      std::cout << fmt::format("{}: OK on cluster {} for {}\n", what, cfg.cluster, ps);
  }
  return 0;
}

class Validate final : public Subcommand {
 public:
  Validate() { a_.out.clear(); }
  CLI::App* add(CLI::App& app) override {
    app_ = add_simulate_options(app, a_, "validate",
                                "every check `simulate` with the same options makes, without running: bad rows by "
                                "file:line:field, jobs that do not fit --cluster, unknown policies");
    app_->add_option("file", file_, "trace file (same as --trace)");
    return app_;
  }
  int run() override {
    SimConfig cfg = a_.cfg;
    if (!file_.empty()) {
      if (app_->count("--trace")) throw InputError("validate", 0, "", "give the trace once: as FILE or as --trace");
      cfg.trace = file_;
    }
    if (!cfg.workload.empty() && (app_->count("--trace") || !file_.empty()))
      throw InputError("--workload", 0, cfg.workload, "give either a trace or --workload, not both");
    return run_validate(cfg, a_.policies, a_.quiet);
  }

 private:
  SimArgs a_;
  std::string file_;
  CLI::App* app_ = nullptr;
};

}  // namespace

std::unique_ptr<Subcommand> make_validate() { return std::make_unique<Validate>(); }

}  // namespace rm::cli
