// `ringmaster compare DIR...`: one table across any number of runs and sweeps (metrics/compare.h), written as CSV
// and Markdown; with exactly two single runs, also their jobs.csv side by side.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/subcommand.h"
#include "core/error.h"
#include "metrics/compare.h"

namespace rm::cli {
namespace {

class Compare final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* cmp = app.add_subcommand("compare", "one table across runs, multi-policy folders and sweeps (execution "
                                              "model, perf model, policy, JCTs, fairness), as text, CSV and Markdown; "
                                              "two single runs: also their jobs side by side");
    cmp->add_option("dirs", dirs_, "run folders (simulate, replay, serve), multi-policy simulate folders, sweeps")
        ->required();
    cmp->add_option("--out", out_, "write the table to OUT.csv and OUT.md (and OUT.paired.csv with --baseline)")
        ->capture_default_str();
    cmp->add_flag("--ci", opt_.ci, "pool the runs that differ only in their seed: each figure's mean ± the half-width "
                                   "of its 95 % confidence interval (Student's t)");
    cmp->add_option("--baseline", opt_.baseline,
                    "paired comparison against this policy (its label): per-seed ratios to its run with the same "
                    "parameters and seed, their mean and 95 % CI");
    cmp->add_option("--metrics", opt_.metrics, "summary.json numbers the --baseline ratios are of (default "
                                                "avg_jct_s,p50_jct_s,p99_jct_s)")
        ->delimiter(',');
    return cmp;
  }
  int run() override {
    if (!opt_.metrics.empty() && opt_.baseline.empty())
      throw InputError("--metrics", 0, "", "--metrics chooses the ratios of --baseline: name a baseline policy");
    const CompareTable t = compare_table(dirs_, opt_);
    std::cout << t.text;
    for (const auto& n : t.notes) std::cout << "note: " << n << "\n";
    if (!t.mixed.empty())
      std::cout << "note: these rows mix " << t.mixed << ": their figures come from different models\n";
    if (!t.paired_text.empty()) std::cout << "\n" << t.paired_caption << ":\n" << t.paired_text;
    std::vector<std::pair<std::string, const std::string*>> files = {{".csv", &t.csv}, {".md", &t.markdown}};
    if (!opt_.baseline.empty()) files.push_back({".paired.csv", &t.paired_csv});
    for (const auto& [ext, text] : files) {
      const std::string path = out_ + ext;
      std::ofstream f(path);
      if (!f) throw InputError(path, 0, "--out", "cannot write");
      f << *text;
    }
    std::cout << "table: " << out_ << ".csv, " << out_ << ".md" << (opt_.baseline.empty() ? "" : ", " + out_ + ".paired.csv")
              << "\n";
    // Two single runs (a simulation and a live replay of one trace, say): the jobs side by side, as before.
    const auto single = [](const std::string& d) {
      return std::filesystem::exists(std::filesystem::path(d) / "jobs.csv") &&
             !std::filesystem::exists(std::filesystem::path(d) / "grid.json");
    };
    if (dirs_.size() == 2 && single(dirs_[0]) && single(dirs_[1])) std::cout << "\n" << compare_runs(dirs_[0], dirs_[1]);
    return 0;
  }

 private:
  std::vector<std::string> dirs_;
  std::string out_ = "compare";
  CompareOptions opt_;
};

}  // namespace

std::unique_ptr<Subcommand> make_compare() { return std::make_unique<Compare>(); }

}  // namespace rm::cli
