// The reproduced simulators' entries (run/peer_registry.h). Adding a peer: its folder under src/peers/, an entry
// here, a Compat value (exec/model_choice.h), its goldens' test (docs/design.md, "Add a reproduced simulator").
#include "run/peer_registry.h"

#include "peers/gavel/gavel_sim.h"
#include "peers/pollux/pollux_sim.h"
#include "peers/sia/sia_sim.h"
#include "peers/tiresias/tiresias_sim.h"

namespace rm {

const std::vector<PeerEntry>& peer_registry() {
  static const std::vector<PeerEntry> v = {
      {Compat::Tiresias, "tiresias", "Tiresias' simulator", "SCHEDULE[:limits=L0,L1,L2;starvation=N;cdf=FILE]+yarn|count",
       "tiresias+compat=tiresias", "trace", tiresias_policies, parse_tiresias_policy, run_tiresias},
      {Compat::Gavel, "gavel", "Gavel's simulator", "NAME", "gavel-rounds+compat=gavel", "gavel-throughputs",
       gavel_policies, parse_gavel_policy, run_gavel},
      {Compat::Pollux, "pollux", "Pollux's simulator", "NAME", "pollux-rounds+compat=pollux", "pollux-traces",
       pollux_policies, parse_pollux_policy, run_pollux},
      {Compat::Sia, "sia", "Sia's simulator", "sia[:p=P;lambda_n=L;lambda_a=A]", "sia-rounds+compat=sia", "sia-traces",
       sia_policies, parse_sia_policy, run_sia},
  };
  return v;
}

const PeerEntry* find_peer(Compat c) {
  for (const auto& p : peer_registry())
    if (p.compat == c) return &p;
  return nullptr;
}

const PeerEntry* find_peer(const std::string& name) {
  for (const auto& p : peer_registry())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace rm
