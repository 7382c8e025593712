// `ringmaster simulate`: one run per --policy, each from its RunPlan (built for every policy before the first
// runs), outputs in one folder per policy and a summary table.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>

#include <algorithm>

#include <fstream>
#include <iostream>
#include <set>

#include "cli/common.h"
#include "cli/subcommand.h"
#include "core/error.h"
#include "run/simulation.h"

namespace rm::cli {
namespace {

using Rows = std::vector<std::pair<std::string, Summary>>;

void write_summary_csv(const std::string& path, const Rows& rows) {
  std::ofstream f(path);
  f << "policy,jobs,avg_jct_s,p50_jct_s,p95_jct_s,p99_jct_s,makespan_s,avg_queue_s,gpu_util,preemptions\n";
  for (const auto& [p, s] : rows)
    f << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", p, s.jobs, s.avg_jct_s, s.p50_jct_s, s.p95_jct_s,
                     s.p99_jct_s, s.makespan_s, s.avg_queue_s, s.gpu_util, s.preemptions);
}

// A figure for the terminal: plain decimals at a precision that suits its size (summary.json keeps every digit).
std::string rounded(double v) {
  const double a = std::fabs(v);
  if (a == std::floor(a) && a < 1e15) return fmt::format("{:.0f}", v);
  if (a >= 1000) return fmt::format("{:.0f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

void print_results(const Rows& rows, const std::string& out, bool exact) {
  print_table(rows);
  if (exact) {  // --compat: the figures as the peer prints them, every digit (they are compared with its goldens)
    for (const auto& [p, sum] : rows)
      if (!sum.extra.empty()) {
        std::cout << p << ":";
        for (const auto& [k, v] : sum.extra) std::cout << fmt::format(" {}={}", k, v);
        std::cout << "\n";
      }
    std::cout << "results in " << out << "/\n";
    return;
  }
  // The other figures as a second aligned table, one row per figure and one column per policy, rounded
  // (issue 46: they were key=value dumps with every digit).
  std::vector<std::string> keys;
  for (const auto& [p, sum] : rows)
    for (const auto& [k, v] : sum.extra)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  if (!keys.empty()) {
    std::size_t kw = 6;
    for (const auto& k : keys) kw = std::max(kw, k.size());
    std::vector<std::size_t> cw;
    for (const auto& [p, sum] : rows) cw.push_back(std::max<std::size_t>(10, p.size()));
    std::cout << "\n" << fmt::format("{:<{}}", "figure", kw);
    for (std::size_t c = 0; c < rows.size(); ++c) std::cout << fmt::format("  {:>{}}", rows[c].first, cw[c]);
    std::cout << "\n";
    for (const auto& k : keys) {
      std::cout << fmt::format("{:<{}}", k, kw);
      for (std::size_t c = 0; c < rows.size(); ++c) {
        std::string v = "-";
        for (const auto& [key, x] : rows[c].second.extra)
          if (key == k) v = rounded(x);
        std::cout << fmt::format("  {:>{}}", v, cw[c]);
      }
      std::cout << "\n";
    }
  }
  std::cout << "results in " << out << "/\n";
}

int run_simulate(const SimConfig& cfg, const std::vector<std::string>& given, bool trace_given, const std::string& out,
                 bool quiet) {
  std::vector<RunPlan> plans = plan_runs(cfg, given, trace_given);
  const std::size_t n = plans.size();
  const OutLock lock(out);
  std::vector<std::pair<std::string, Summary>> rows;
  std::set<std::string> models;  // each run's execution model / performance model
  for (auto& plan : plans) {
    const std::string& p = plan.label;
    ProgressBar bar(quiet, n > 1 ? fmt::format("policy {}/{}: {}", &plan - plans.data() + 1, n, p) : std::string());
    plan.run.progress = [&bar](const ProgressInfo& p) { bar.update(p); };
    auto r = simulate(plan);
    bar.finish();
    if (plan.label != plan.policy.text) r->info.policy_label = plan.label;
    const std::string dir = n == 1 ? out : out + "/" + dir_name(p);
    write_outputs(dir, r->record, r->unschedulable, r->summary, r->info);
    for (const auto& u : r->unschedulable) std::cerr << "warning: unschedulable: " << u.reason << "\n";
    int max_server_gpus = 0;
    for (const auto& s : r->cluster.servers) max_server_gpus = std::max(max_server_gpus, s.gpus);
    const PartSpec* place = plan.policy.family == PolicyFamily::Composed ? plan.policy.part(Point::Placement) : nullptr;
    std::string placement = place ? place->name : "consolidated";  // a whole scheduler packs by its own rules
    if (place && place->kv.count("relax")) placement += ":relax=" + place->kv.at("relax");
    if (const std::string w = stretch_warning(r->record, max_server_gpus, placement); !w.empty())
      std::cerr << (n > 1 ? p + ": " : "") << w << "\n";
    if (!quiet && r->info.columns_mapped && &plan == &plans.front()) {  // the trace is read alike for every policy
      std::string cols;
      for (const auto& c : r->info.ignored_columns) cols += (cols.empty() ? "" : ", ") + c;
      std::cerr << "note: --columns: ignored the trace's column(s) " << (cols.empty() ? "(none)" : cols) << "\n";
      for (const auto& [k, v] : r->summary.extra)
        if (k == "models_assigned" || k == "cpu_only_skipped" || k == "gpus_rounded_up")
          std::cerr << "note: --columns: " << k << " = " << v << " (docs/formats.md, \"Any CSV\")\n";
      for (const auto& [k, v] : r->summary.extra)
        if (k == "iterations_off_1pct" && v > 0)
          std::cerr << "warning: --columns: " << v << " job(s)' iterations derived from the duration differ by more than "
                    << "1 % from the file's column '" << r->workload.iteration_column
                    << "' (iterations_max_rel_diff in summary.json): a global batch read as per worker "
                       "(docs/formats.md: batch_size=batch_size/num_gpu), or a performance model, cluster or GPU type "
                       "other than the ones the file's count was measured on (--perf-model, --trace-gpu-type)\n";
    }
    if (!quiet)
      for (const auto& [from, to] : r->models.replaced)
        std::cerr << "note: " << replaced_model_note(from, to, cfg.unknown_model) << "\n";
    if (!quiet && n > 1) std::cerr << fmt::format("{}: {:.2f}s -> {}\n", p, r->info.wall_s, dir);
    rows.emplace_back(p, r->summary);
    models.insert(r->info.exec + " / " + (r->info.perf_model.empty() ? "-" : r->info.perf_model));
  }
  if (n > 1) write_summary_csv(out + "/summary.csv", rows);
  if (!quiet)
    print_results(rows, out, std::any_of(plans.begin(), plans.end(), [](const RunPlan& p) { return p.compat != Compat::None; }));
  if (models.size() > 1) {  // a table across models: its rows' figures come from different laws
    std::string m;
    for (const auto& x : models) m += (m.empty() ? "" : ", ") + x;
    std::cerr << "note: these rows mix execution / performance models (" << m
              << "): their figures come from different models (ringmaster compare shows each row's)\n";
  }
  return 0;
}

class Simulate final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    return app_ = add_simulate_options(app, a_, "simulate", "simulate a trace on a cluster under one or more policies");
  }
  int run() override {
    return run_simulate(a_.cfg, a_.policies, app_->count("--trace") > 0, a_.out, a_.quiet);
  }

 private:
  SimArgs a_;
  CLI::App* app_ = nullptr;
};

}  // namespace

std::unique_ptr<Subcommand> make_simulate() { return std::make_unique<Simulate>(); }

}  // namespace rm::cli
