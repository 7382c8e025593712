// The `ringmaster` command: the subcommands (one cmd_<name>.cpp each), the parse, and the exit codes
// (README: 0 ok, 2 bad input or usage, 3 internal error, 4 Slurm refused a command).
#include <CLI/CLI.hpp>

#include "rm_version.h"

#include <iostream>
#include <string_view>

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

// The subcommands by name. Only the one named by argv[1] is built when it names one (CLI11 builds every option of
// every subcommand it is given: about 3M instructions, most of a small run's start-up), none for --version; --help,
// an unknown name and the "did you mean" hints get them all.
struct Entry {
  const char* name;
  std::unique_ptr<cli::Subcommand> (*make)();
};
constexpr Entry kSubcommands[] = {
    {"simulate", cli::make_simulate},     {"generate", cli::make_generate},   {"list-policies", cli::make_list_policies},
    {"list-clusters", cli::make_list_clusters}, {"list-models", cli::make_list_models}, {"validate", cli::make_validate},
    {"serve", cli::make_serve},           {"status", cli::make_status},       {"replay", cli::make_replay},
    {"payload", cli::make_payload},       {"compare", cli::make_compare},     {"plot", cli::make_plot},
    {"sweep", cli::make_sweep},           {"calibrate", cli::make_calibrate}};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ringmaster: scheduler and trace-driven simulator for distributed DL training jobs"};
  app.set_version_flag("--version", std::string("ringmaster ") + RM_VERSION, "print the version (git describe of the build)");
  app.require_subcommand(1);
  const std::string_view first = argc >= 2 ? argv[1] : "";
  bool named = first == "--version";  // needs none
  for (const Entry& e : kSubcommands) named = named || first == e.name;
  std::vector<std::pair<CLI::App*, std::unique_ptr<cli::Subcommand>>> subs;
  for (const Entry& e : kSubcommands) {
    if (named && first != e.name) continue;
    auto sub = e.make();
    CLI::App* a = sub->add(app);
    if (a->get_name() != e.name) throw InvariantError("main: subcommand " + a->get_name() + " listed as " + e.name);
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
