// `ringmaster list-policies | list-clusters | list-models`: what the registries hold.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "cli/subcommand.h"
#include "cluster/cluster_config.h"
#include "core/error.h"
#include "core/suggest.h"
#include "run/peer_registry.h"
#include "run/simulation.h"
#include "policy/registry.h"
#include "run/loaders.h"

namespace rm::cli {
namespace {

// The execution-model matrix: "yes" or "no(k)" per cell, the reasons numbered below it.
void print_exec_matrix() {
  std::cout << "\nWhich execution model runs which policy (--exec; a test runs every cell):\n";
  std::cout << fmt::format("{:<20} {:<11}", "policy", "family");
  for (const char* m : kExecModels) std::cout << fmt::format(" {:<6}", m);
  std::cout << "\n";
  std::vector<std::string> reasons;
  for (const auto& row : exec_support()) {
    std::cout << fmt::format("{:<20} {:<11}", row.policy, row.family);
    for (const auto& why : row.why_not) {
      std::string cell = "yes";
      if (!why.empty()) {
        auto it = std::find(reasons.begin(), reasons.end(), why);
        if (it == reasons.end()) it = reasons.insert(reasons.end(), why);
        cell = "no(" + std::to_string(it - reasons.begin() + 1) + ")";
      }
      std::cout << fmt::format(" {:<6}", cell);
    }
    std::cout << "\n";
  }
  for (std::size_t i = 0; i < reasons.size(); ++i) std::cout << fmt::format("  ({}) {}\n", i + 1, reasons[i]);
}

class ListPolicies final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override {
    auto* c = app.add_subcommand("list-policies", "every plugin and preset, one line each");
    c->add_option("--compat", compat_, "a reproduced simulator's own policies: tiresias or gavel (their --policy names)");
    return c;
  }
  int run() override {
    if (!compat_.empty()) return list_peer();
    for (const auto& p : policy_catalogue()) std::cout << fmt::format("{:<12} {:<18} {}\n", p.point, p.name, p.help);
    print_exec_matrix();
    return 0;
  }

 private:
  // The peers' policies (--compat tiresias|gavel): their own names, parsed by their own simulators' rules.
  int list_peer() const {
    const PeerEntry* peer = find_peer(compat_);
    if (!peer) {
      std::vector<std::string> peers;
      std::string all;
      for (const auto& p : peer_registry()) peers.push_back(p.name), all += (all.empty() ? "" : " or ") + p.name;
      throw InputError("--compat", 0, compat_,
                       "list-policies --compat lists a reproduced simulator's own policies: " + all +
                           did_you_mean(compat_, peers) +
                           " (wang2020, yu2022 and synergy run the registry's policies: list-policies)");
    }
    std::cout << "--compat " << compat_ << " --policy NAME"
              << (peer->policy_syntax != "NAME" ? " (" + peer->policy_syntax + ")" : std::string()) << ":\n";
    for (const auto& [name, help] : peer->policies()) std::cout << fmt::format("  {:<28} {}\n", name, help);
    return 0;
  }
  std::string compat_;
};

class ListClusters final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override { return app.add_subcommand("list-clusters", "built-in cluster presets"); }
  int run() override {
    for (const auto& p : cluster_presets()) {
      const auto c = parse_cluster_yaml(p.yaml, p.name);
      std::cout << fmt::format("{:<12} {:>4} servers {:>5} GPUs  {:>4} Gbps  a={}\n", p.name, c.servers.size(),
                               c.total_gpus(), c.servers[0].nic_gbps, c.network.contention_a);
    }
    return 0;
  }
};

class ListModels final : public Subcommand {
 public:
  CLI::App* add(CLI::App& app) override { return app.add_subcommand("list-models", "the model catalogue"); }
  int run() override {
    for (const auto& m : load_catalogue("").rows())
      std::cout << fmt::format("{:<22} batch {:>5} compute {:>8.3f} ms grad {:>7.1f} MB mem {:>6.0f} MB  [{}]\n", m.name,
                               m.batch, m.compute_ms, m.grad_mb, m.gpu_mem_mb, m.source);
    return 0;
  }
};

}  // namespace

std::unique_ptr<Subcommand> make_list_policies() { return std::make_unique<ListPolicies>(); }
std::unique_ptr<Subcommand> make_list_clusters() { return std::make_unique<ListClusters>(); }
std::unique_ptr<Subcommand> make_list_models() { return std::make_unique<ListModels>(); }

}  // namespace rm::cli
