// Policies by name: every plugin and preset, and the parser of --policy strings
// ("preset" or "order+placement+flag", each part "name[:key=value;key=value]").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "policy/plugin.h"

namespace rm {

struct PolicyInfo {
  std::string point;  // extension point: order, placement, flag, preset
  std::string name;
  std::string help;
};
const std::vector<PolicyInfo>& policy_catalogue();

// Throws InputError naming the unknown part.
std::unique_ptr<Scheduler> make_scheduler(const std::string& spec, std::uint64_t seed);

}  // namespace rm
