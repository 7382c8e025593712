// One `ringmaster` subcommand: its options (added to the CLI before parsing) and what it does once chosen.
// main.cpp keeps the list; each subcommand is one cmd_<name>.cpp.
#pragma once
#include <memory>
#include <vector>

namespace CLI {
class App;
class Option;
}

namespace rm::cli {

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  // Adds the subcommand and its options to `app`; returns it (main asks it whether it was chosen).
  virtual CLI::App* add(CLI::App& app) = 0;
  // Runs it after a successful parse; returns the exit status. May throw InputError, live::BackendError, ...
  virtual int run() = 0;
};

// A --seed option: refuses a negative value before CLI11 converts it (-1 wrapped to 2^64 - 1).
CLI::Option* seed_check(CLI::Option* o);

std::unique_ptr<Subcommand> make_simulate();
std::unique_ptr<Subcommand> make_validate();
std::unique_ptr<Subcommand> make_generate();
std::unique_ptr<Subcommand> make_list_policies();
std::unique_ptr<Subcommand> make_list_clusters();
std::unique_ptr<Subcommand> make_list_models();
std::unique_ptr<Subcommand> make_serve();
std::unique_ptr<Subcommand> make_status();
std::unique_ptr<Subcommand> make_replay();
std::unique_ptr<Subcommand> make_payload();
std::unique_ptr<Subcommand> make_compare();
std::unique_ptr<Subcommand> make_plot();
std::unique_ptr<Subcommand> make_sweep();
std::unique_ptr<Subcommand> make_calibrate();

}  // namespace rm::cli
