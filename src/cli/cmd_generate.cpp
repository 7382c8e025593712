// `ringmaster generate`: a generated workload written as a trace file.
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "cli/subcommand.h"
#include "core/error.h"
#include "run/round_runner.h"
#include "run/sim_config.h"
#include "workload/generators.h"

namespace rm::cli {
namespace {

class Generate final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* gen = app.add_subcommand("generate", "write a generated workload as a trace file");
    gen->add_option("--workload", cfg_.workload,
                    "generator: wang2020, yu2022, yu2022-physical, luo2025, synergy-philly, synergy-synthetic (the "
                    "last two as a Synergy replay CSV)")
        ->required();
    gen->add_option("--split", cfg_.split, "synergy-*: image,language,speech %")->capture_default_str();
    seed_check(gen->add_option("--seed", cfg_.seed, "seed")->capture_default_str());
    gen->add_option("--scale", cfg_.gen.scale, "generator scale")->capture_default_str();
    gen->add_option("--jobs", cfg_.gen.jobs, "job count")->capture_default_str()->check(CLI::Range(1, 10'000'000));
    gen->add_option("--load", cfg_.gen.load, "luo2025: offered load")->capture_default_str();
    gen->add_option("--gpus", cfg_.gen.gpus, "luo2025: GPUs the load is for")->capture_default_str();
    gen->add_option("--templates", cfg_.gen.templates, "luo2025: templates")->capture_default_str();
    gen->add_option("--out", out_, "output file (default: standard output)");
    return gen;
  }
  int run() override {
    GenOptions g = cfg_.gen;
    g.seed = cfg_.seed;
    const std::string text = is_synergy_workload(cfg_.workload) ? synergy_workload_csv(cfg_, cfg_.gen.jobs)
                                                                : generate_workload(cfg_.workload, g).text;
    if (out_.empty()) {
      std::cout << text;
    } else {
      std::ofstream f(out_, std::ios::binary);
      if (!(f << text)) throw InputError(out_, 0, "--out", "cannot write");
    }
    return 0;
  }

 private:
  SimConfig cfg_;
  std::string out_;
};

}  // namespace

std::unique_ptr<Subcommand> make_generate() { return std::make_unique<Generate>(); }

}  // namespace rm::cli
