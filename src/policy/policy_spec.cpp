#include "policy/policy_spec.h"

#include "core/error.h"
#include "core/suggest.h"
#include "policy/external.h"
#include "policy/params.h"
#include "policy/registry.h"
#include "policy/task/task_plugin.h"
#include "workload/parse_util.h"

namespace rm {

const PartSpec* PolicySpec::part(Point p) const {
  for (const auto& x : parts)
    if (x.point == p) return &x;
  return nullptr;
}

bool PolicySpec::has(Point p, const std::string& name) const {
  for (const auto& x : parts)
    if (x.point == p && x.name == name) return true;
  return false;
}

namespace {

[[noreturn]] void unknown(const std::string& name, const std::string& what) {
  throw InputError("--policy", 0, name,
                   "unknown " + what + " '" + name + "'" + did_you_mean(name, policy_names()) +
                       " (see `ringmaster list-policies`)");
}

// A part that takes no parameters (an allocation, a flag): any key is an error naming it.
void no_parameters(const PolicyPart& p) {
  PluginParams(p.name, p.kv, 0).check_all_used();
}

// The task model's parts over Ada-SRSF's defaults, or over the base the first token names.
void parse_task(PolicySpec& s, std::vector<std::string> tokens) {
  if (tokens.empty()) throw InputError("--policy", 0, s.text, "empty policy");
  std::vector<std::string> parts = split_simple(task_base_expansion("ada-srsf"), '+');  // defaults
  if (const std::string base = task_base_expansion(tokens.front()); !base.empty()) {
    parts = split_simple(base, '+');
    s.presets.push_back(tokens.front());
    tokens.erase(tokens.begin());
  }
  parts.insert(parts.end(), tokens.begin(), tokens.end());
  for (const auto& raw : parts) {
    const std::string token = trim(raw);
    if (token.empty()) throw InputError("--policy", 0, s.text, "empty part in policy '" + s.text + "'");
    const auto eq = token.find('=');
    if (eq != std::string::npos && token.find(':') == std::string::npos) {
      const std::string k = token.substr(0, eq), val = token.substr(eq + 1);
      if (!is_name_at(Point::TaskKey, k))
        throw InputError("--policy", 0, k, "unknown key setting '" + k + "' (queue, comm, compute, keys)");
      task::parse_key(val, k);  // a known key name, or an error naming the setting
      s.parts.push_back({Point::TaskKey, k, {{"key", val}}});
      continue;
    }
    PolicyPart part = parse_policy_part(token);
    if (const std::string a = task_placement_alias(part.name); !a.empty()) {
      PolicyPart aliased = parse_policy_part(a);
      for (auto& kv : part.kv) aliased.kv[kv.first] = kv.second;
      part = aliased;
    }
    if (is_name_at(Point::TaskPlacement, part.name)) s.parts.push_back({Point::TaskPlacement, part.name, part.kv});
    else if (is_name_at(Point::TaskAdmission, part.name)) s.parts.push_back({Point::TaskAdmission, part.name, part.kv});
    else unknown(part.name, "task-model plugin");
  }
}

// A whole scheduler with parameters, and at most a CPU/memory allocation after it.
void parse_scheduler(PolicySpec& s, const std::vector<std::string>& tokens) {
  PolicyPart first = parse_policy_part(tokens.front());
  PolicyPart alloc;
  bool allocation = false;
  if (tokens.size() == 2) {
    alloc = parse_policy_part(tokens[1]);
    alloc.name = resolve_alias(alloc.name);
    allocation = alloc.name == "py" ? python_policies().point(alloc.kv) == Point::Allocation
                                    : is_name_at(Point::Allocation, alloc.name);
  }
  if (tokens.size() > 2 || (tokens.size() == 2 && !allocation))
    throw InputError("--policy", 0, s.text,
                     first.name + " takes parameters and at most a CPU/memory allocation (+fair|greedy|tune|opt), not other parts");
  s.parts.push_back({Point::Scheduler, first.name, first.kv});
  if (tokens.size() == 2) {
    if (alloc.name != "py") no_parameters(alloc);
    s.parts.push_back({Point::Allocation, alloc.name, alloc.kv});
  }
}

// order[+placement][+allocation][+flags], presets expanded in place; kDefaultPlacement unless one is given.
void parse_composed(PolicySpec& s, const std::vector<std::string>& tokens) {
  std::vector<std::string> expanded;
  for (const auto& token : tokens) {
    const char* e = preset_expansion(token);
    if (!e) {
      expanded.push_back(token);
      continue;
    }
    s.presets.push_back(token);
    for (const auto& t : split_simple(e, '+')) expanded.push_back(t);
  }
  for (const auto& token : expanded) {
    PolicyPart part = parse_policy_part(token);
    part.name = resolve_alias(part.name);
    if (part.name.empty()) throw InputError("--policy", 0, s.text, "empty part in policy '" + s.text + "'");
    if (part.name == "py") {  // a Python class: its methods say where it plugs in
      const Point point = python_policies().point(part.kv);
      if (point == Point::Scheduler)
        throw InputError("--policy", 0, "py",
                         "the Python class " + part.kv["class"] + " is a whole scheduler (schedule): give it first, "
                         "with at most a CPU/memory allocation after it");
      if (s.part(point)) throw InputError("--policy", 0, "py", "a second part at the same extension point in '" + s.text + "'");
      s.parts.push_back({point, part.name, part.kv});
      continue;
    }
    if (is_name_at(Point::Scheduler, part.name))
      throw InputError("--policy", 0, part.name, part.name + " is a whole scheduler: give it alone, with parameters");
    if (is_name_at(Point::Planner, part.name))
      throw InputError("--policy", 0, part.name, part.name + " is a planner: give it alone, with parameters");
    Point point;
    if (is_name_at(Point::Order, part.name)) point = Point::Order;
    else if (is_name_at(Point::Placement, part.name)) point = Point::Placement;
    else if (is_name_at(Point::Allocation, part.name)) point = Point::Allocation;
    else if (is_name_at(Point::Flag, part.name)) point = Point::Flag;
    else unknown(part.name, "policy or plugin");
    static const char* const kSecond[] = {"a second queue order", "a second placement", "a second CPU/memory allocation"};
    if (point != Point::Flag && s.part(point))
      throw InputError("--policy", 0, part.name, std::string(kSecond[static_cast<int>(point)]) + " in '" + s.text + "'");
    if (point == Point::Allocation || point == Point::Flag) no_parameters(part);
    s.parts.push_back({point, part.name, part.kv});
  }
  if (!s.part(Point::Order)) throw InputError("--policy", 0, s.text, "no queue order in '" + s.text + "' (e.g. fifo, srsf)");
  if (!s.part(Point::Placement)) s.parts.push_back({Point::Placement, kDefaultPlacement, {}, true});
}

}  // namespace

PolicySpec parse_policy_spec(const std::string& text) {
  PolicySpec s;
  s.text = text;
  const std::vector<std::string> tokens = split_simple(text, '+');
  if (tokens.empty() || trim(text).empty()) throw InputError("--policy", 0, text, "empty policy");
  const PolicyPart first = parse_policy_part(tokens.front());
  if (tokens.size() == 1 && is_name_at(Point::Planner, first.name)) {
    s.family = PolicyFamily::Planner;
    s.parts.push_back({Point::Planner, first.name, first.kv});
  } else if (!task_base_expansion(tokens.front()).empty() || is_task_part(tokens.front())) {
    s.family = PolicyFamily::Task;
    parse_task(s, tokens);
  } else if (first.name == "py" ? python_policies().point(first.kv) == Point::Scheduler
                                : is_name_at(Point::Scheduler, first.name)) {
    s.family = PolicyFamily::Scheduler;
    parse_scheduler(s, tokens);
  } else {
    s.family = PolicyFamily::Composed;
    parse_composed(s, tokens);
  }
  return s;
}

PolicySpec parse_task_policy_spec(const std::string& text) {
  PolicySpec s;
  s.text = text;
  s.family = PolicyFamily::Task;
  parse_task(s, split_simple(text, '+'));
  return s;
}

}  // namespace rm
