// A reproduced simulator's policies by name (peers/<name>/): the table each peer keeps (its names, what each does),
// the lookup with a did-you-mean, the list `list-policies --compat NAME` prints and the one-part PolicySpec of a
// peer whose policy is a bare name (Gavel's, Pollux's).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/suggest.h"
#include "policy/policy_spec.h"

namespace rm {

template <class Pol>
struct NamedPolicy {
  std::string name;
  Pol pol;
  std::string help;
};

// The policy called `name`, or InputError: "unknown <whose> policy 'x' under --compat <compat> (did you mean ...)".
template <class Pol>
Pol named_policy(const std::vector<NamedPolicy<Pol>>& table, const std::string& name, const std::string& whose,
                 const std::string& compat) {
  std::vector<std::string> names;
  std::string all;
  for (const auto& p : table) {
    if (p.name == name) return p.pol;
    names.push_back(p.name);
    all += (all.empty() ? "" : ", ") + p.name;
  }
  throw InputError("--policy", 0, name,
                   "unknown " + whose + " policy '" + name + "' under --compat " + compat + did_you_mean(name, names) +
                       " (" + all + "; ringmaster list-policies --compat " + compat + ")");
}

template <class Pol>
std::vector<std::pair<std::string, std::string>> policy_list(const std::vector<NamedPolicy<Pol>>& table) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : table) out.emplace_back(p.name, p.help);
  return out;
}

// A peer policy that is one name: one scheduler part.
inline PolicySpec named_policy_spec(const std::string& text) {
  PolicySpec s;
  s.text = text;
  s.family = PolicyFamily::Peer;
  s.parts.push_back({Point::Scheduler, text, {}});
  return s;
}

}  // namespace rm
