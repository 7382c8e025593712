// The one grammar of --policy strings, parsed once into a typed PolicySpec.
//
//   policy := part ('+' part)*        part := name [':' key=value (';' key=value)*]
//
// A policy is one of four families, told by its first part:
//   Planner   one planner part alone (sjf-bco, ls, ff, rand), with parameters;
//   Task      a task-model preset or authors' string (ada-srsf, ssf-lwf2-srsf-1-true) or a task part (lwf,
//             srsf-n, adadual, queue=...), then task parts: the task model's placement, admission and keys;
//   Scheduler a whole scheduler (a-srpt, a-srpt-p, sjf-bco-online) with parameters, optionally +allocation;
//   Composed  order[+placement][+allocation][+flags] in any order, presets expanded (tiresias, synergy-tune);
//             consolidated unless a placement is named (kDefaultPlacement).
// Presets and aliases are expanded here; every name is checked against the one registry (policy/registry.h)
// with a did-you-mean; parameters stay text until the plugin is built, which checks their types and names.
// Nothing after this re-splits a policy string.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace rm {

// The placement of a composed policy that names none: what a production scheduler does (fewest servers).
inline constexpr const char* kDefaultPlacement = "consolidated";

// Peer: a peer simulator's own policy under its --compat mode (peers/tiresias/tiresias_sim.h), parsed there.
enum class PolicyFamily { Composed, Scheduler, Planner, Task, Peer };

// The extension point a part plugs into.
enum class Point { Order, Placement, Allocation, Flag, Scheduler, Planner, TaskKey, TaskPlacement, TaskAdmission };

struct PartSpec {
  Point point = Point::Order;
  std::string name;                         // canonical: aliases resolved
  std::map<std::string, std::string> kv;    // parameters as written (TaskKey: {"key", value})
  bool defaulted = false;                   // filled in because the text named none (composed: the placement)
};

struct PolicySpec {
  std::string text;                         // as given: what folders, tables and summary.json show
  PolicyFamily family = PolicyFamily::Composed;
  std::vector<PartSpec> parts;              // presets expanded, defaults filled in (composed: the placement)
  std::vector<std::string> presets;         // the presets the text named

  // The first part at `p`, or nullptr.
  const PartSpec* part(Point p) const;
  bool has(Point p, const std::string& name) const;
};

// Throws InputError("--policy", ...) naming the bad part.
PolicySpec parse_policy_spec(const std::string& text);
// The text as task-model parts over Ada-SRSF's defaults, whatever its first part ("first-fit" = Ada-SRSF with
// first-fit placement): for callers that already know they build a task-model policy.
PolicySpec parse_task_policy_spec(const std::string& text);

}  // namespace rm
