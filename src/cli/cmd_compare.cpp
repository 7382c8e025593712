// `ringmaster compare`: two runs' jobs.csv side by side.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/subcommand.h"
#include "metrics/compare.h"

namespace rm::cli {
namespace {

class Compare final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* cmp = app.add_subcommand("compare", "two runs' jobs.csv side by side: per-job and average JCT, start order");
    cmp->add_option("a", a_, "first run's output directory (e.g. simulate)")->required();
    cmp->add_option("b", b_, "second run's output directory (e.g. replay)")->required();
    return cmp;
  }
  int run() override {
    std::cout << compare_runs(a_, b_);
    return 0;
  }

 private:
  std::string a_, b_;
};

}  // namespace

std::unique_ptr<Subcommand> make_compare() { return std::make_unique<Compare>(); }

}  // namespace rm::cli
