// The one registry of policies: every plugin, preset, scheduler, planner and task-model part by name, at its
// extension point, with its help line (list-policies, did-you-mean), and the builders that turn a parsed
// PolicySpec (policy/policy_spec.h) into plugin objects. Which execution model runs which policy is one rule
// here too (exec_refusal): `simulate` refuses with it and list-policies prints its matrix.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/model_choice.h"
#include "policy/plugin.h"
#include "policy/policy_spec.h"

namespace rm {

struct PolicyInfo {
  std::string point;  // order, placement, flag, allocation, preset, scheduler, task-*, planner
  std::string name;
  std::string help;
};
// Every entry, in the order list-policies prints them.
const std::vector<PolicyInfo>& policy_catalogue();
// The names a did-you-mean may suggest (the catalogue's, less the pattern rows).
const std::vector<std::string>& policy_names();

// Lookups the grammar uses.
bool is_name_at(Point p, const std::string& name);           // a registered name at that point
std::string resolve_alias(const std::string& name);           // dlas -> 2d-las, ff -> first-fit, ...
const char* preset_expansion(const std::string& name);        // a composed preset's parts, or nullptr
// A task-model base: a preset (ada-srsf) or the authors' "<queue>-<placement>-<key>-<thres>-<adaDual>",
// expanded to task parts; "" if `token` is neither.
std::string task_base_expansion(const std::string& token);
// "lwf4" -> "lwf:kappa=4", "bp"/"ff"/"firstfit" -> "first-fit"; "" if not a task placement alias.
std::string task_placement_alias(const std::string& name);
// True if `token` is a task-model part (lwf, srsf-n, adadual, queue=..., lwfK, bp): a policy starting with one
// is a task-model policy on top of Ada-SRSF's defaults.
bool is_task_part(const std::string& token);

// Builders. Parameters are checked here (unknown keys, types, ranges): InputError naming plugin:key.
std::unique_ptr<QueueOrder> make_order(const PartSpec& part, std::uint64_t seed);
std::unique_ptr<Placement> make_placement(const PartSpec& part, std::uint64_t seed);
std::unique_ptr<Allocation> make_allocation(const PartSpec& part, std::uint64_t seed);
// Composed and Scheduler families (the job-level engines and `serve`).
std::unique_ptr<Scheduler> make_scheduler(const PolicySpec& spec, std::uint64_t seed);
// parse_policy_spec, then make_scheduler (tests, benchmarks).
std::unique_ptr<Scheduler> make_scheduler(const std::string& text, std::uint64_t seed);
// One queue order "name[:key=value;...]" (throws InputError if it is not one).
std::unique_ptr<QueueOrder> make_order(const std::string& token, std::uint64_t seed);

// Why `exec` cannot run `spec`, or "" if it can: the one rule behind simulate's refusal and the matrix.
std::string exec_refusal(const PolicySpec& spec, ExecModel exec);

// Which execution model runs which policy: one row per policy family, named by a policy string that
// `simulate --exec <model>` accepts exactly where the cell is empty; otherwise the cell says why not
// (exec_refusal of the row's policy). Columns: rate, graph, task, round. A test runs every cell.
struct ExecSupport {
  std::string policy, family;
  std::string why_not[4];  // "" = runs
};
inline constexpr const char* kExecModels[4] = {"rate", "graph", "task", "round"};
const std::vector<ExecSupport>& exec_support();

}  // namespace rm
