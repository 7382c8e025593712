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

// A composed policy "order[+placement][+allocation][+flags]" (or a preset), parsed by the one registry.
struct PolicyParts {
  std::unique_ptr<QueueOrder> order;
  std::unique_ptr<Placement> placement;  // first-fit unless given
  std::string allocation;                // "" (none given), fair, greedy, tune, opt
  int preempt = -1, backfill = -1;       // -1: the order's default
  bool full_sort = false;                // no indexes: key and sort every active job at every pass
};
PolicyParts parse_policy(const std::string& spec, std::uint64_t seed);
// a-srpt, a-srpt-p, sjf-bco-online: whole schedulers that take parameters, not parts.
bool is_scheduler_policy(const std::string& name);

// One queue order "name[:key=value;...]" (throws InputError if it is not one).
std::unique_ptr<QueueOrder> make_order(const std::string& token, std::uint64_t seed);

// Which execution model runs which policy: one row per policy family, named by a policy string that
// `simulate --exec <model>` accepts exactly where the cell is empty; otherwise the cell says why not.
// Columns: rate, graph, task, round. `ringmaster list-policies` prints it; a test runs every cell.
struct ExecSupport {
  std::string policy, family;
  std::string why_not[4];  // "" = runs
};
inline constexpr const char* kExecModels[4] = {"rate", "graph", "task", "round"};
const std::vector<ExecSupport>& exec_support();

// Throws InputError naming the unknown part.
std::unique_ptr<Scheduler> make_scheduler(const std::string& spec, std::uint64_t seed);

}  // namespace rm
