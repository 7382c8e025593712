// The `ringmaster` command: the subcommands (one cmd_<name>.cpp each), the parse, and the exit codes
// (README: 0 ok, 2 bad input or usage, 3 internal error, 4 Slurm refused a command).
#include <CLI/CLI.hpp>

#include "rm_version.h"

#include <iostream>

#include "cli/common.h"
#include "cli/subcommand.h"
#include "core/error.h"
#include "live/backend.h"

namespace {

using namespace rm;

int run_chosen(const std::vector<std::pair<CLI::App*, std::unique_ptr<cli::Subcommand>>>& subs) {
  try {
    for (const auto& [app, sub] : subs)
      if (*app) return sub->run();
  } catch (const InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const live::BackendError& e) {  // the cluster manager (Slurm) refused or did not answer
    std::cerr << "error: " << e.what() << "\n";
    return 4;
  } catch (const InvariantError& e) {
    std::cerr << "internal error (invariant broken, please report): " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ringmaster: scheduler and trace-driven simulator for distributed DL training jobs"};
  app.set_version_flag("--version", std::string("ringmaster ") + RM_VERSION, "print the version (git describe of the build)");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, std::unique_ptr<cli::Subcommand>>> subs;
  for (auto make : {cli::make_simulate, cli::make_generate, cli::make_list_policies, cli::make_list_clusters,
                    cli::make_list_models, cli::make_validate, cli::make_serve, cli::make_status, cli::make_replay, cli::make_payload,
                    cli::make_compare, cli::make_plot, cli::make_sweep, cli::make_calibrate}) {
    auto sub = make();
    CLI::App* a = sub->add(app);
    subs.emplace_back(a, std::move(sub));
  }
  // Usage errors exit 2, with a "did you mean" for a mistyped subcommand or flag.
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << cli::usage_hint(app, argc, argv) << "\nRun with --help for more information.\n";
    return 2;
  }
  return run_chosen(subs);
}
