// `ringmaster sweep`: its arguments pass through to cli/sweep.cpp, which learns simulate's options (names, and
// which are flags) from the same add_simulate_options that `simulate` uses.
#include <CLI/CLI.hpp>

#include <filesystem>

#include "cli/common.h"
#include "cli/subcommand.h"
#include "cli/sweep.h"

namespace rm::cli {
namespace {

class Sweep final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    app_ = app.add_subcommand("sweep", "a grid of simulate runs (policies x loads x seeds x any option), K at a time, "
                                       "resumable, or as a Slurm job array; `ringmaster sweep --help`");
    app_->prefix_command();
    app_->set_help_flag();
    app_->allow_extras();
    return app_;
  }
  int run() override {
    return sweep::run(app_->remaining(), sweep_simulate_options(),
                      std::filesystem::read_symlink("/proc/self/exe").string());
  }

 private:
  CLI::App* app_ = nullptr;
};

}  // namespace

std::unique_ptr<Subcommand> make_sweep() { return std::make_unique<Sweep>(); }

}  // namespace rm::cli
