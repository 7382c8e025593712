// The reproduced simulators (--compat tiresias|gavel; their code in src/peers/), as the run plan, `simulate` and
// `list-policies --compat` know them: one entry each, so that none of those includes a peer. The table is defined
// in src/peers/registry.cpp; the peers sit above this layer (they read their inputs with its loaders, run/).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "exec/model_choice.h"
#include "policy/policy_spec.h"

namespace rm {

struct RunPlan;
struct SimResult;

struct PeerEntry {
  Compat compat = Compat::None;
  std::string name;           // --compat NAME
  std::string simulator;      // whose simulator, as summary.json's policy label says it ("Tiresias' simulator")
  std::string policy_syntax;  // list-policies' line: how a policy string is written under this peer
  std::string exec_label;     // summary.json's exec: the peer's own loop
  std::string perf_model;     // summary.json's perf_model: where the peer's job times come from
  // Its policies with what each does (list-policies --compat NAME).
  std::vector<std::pair<std::string, std::string>> (*policies)() = nullptr;
  // The policy string parsed and its parameters checked, or InputError with a did-you-mean.
  PolicySpec (*parse_policy)(const std::string& text) = nullptr;
  // The whole run (its own cluster and trace readers, its loop under the engine); a dry run stops after reading.
  SimResult (*run)(const RunPlan& plan) = nullptr;
};

const std::vector<PeerEntry>& peer_registry();
// The entry of a compat mode (null: the mode runs the registry's policies on our models).
const PeerEntry* find_peer(Compat c);
// By --compat name; null if none.
const PeerEntry* find_peer(const std::string& name);

}  // namespace rm
