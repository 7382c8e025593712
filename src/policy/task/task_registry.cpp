#include "policy/task/task_registry.h"

#include "core/error.h"
#include "policy/params.h"
#include "policy/registry.h"
#include "policy/task/task_placements.h"

namespace rm::task {

TaskPolicy make_task_policy(const PolicySpec& spec, std::uint64_t seed) {
  if (spec.family != PolicyFamily::Task)
    throw InputError("--policy", 0, spec.text, exec_refusal(spec, ExecModel::Task));
  TaskPolicy p;
  for (const auto& part : spec.parts) {
    if (part.point == Point::TaskKey) {
      const Key key = parse_key(part.kv.at("key"), part.name);
      if (part.name == "queue") p.queue = key;
      if (part.name == "comm" || part.name == "keys") p.comm = key;
      if (part.name == "compute" || part.name == "keys") p.compute = key;
      continue;
    }
    PluginParams params(part.name, part.kv, seed);
    if (part.name == "first-fit") p.placement = make_task_first_fit(params);
    else if (part.name == "random") p.placement = make_task_random(params);
    else if (part.name == "lwf") p.placement = make_lwf(params);
    else if (part.name == "srsf-n") p.admission = make_srsf_n(params);
    else if (part.name == "adadual") p.admission = make_adadual(params);
    else throw InvariantError("task part '" + part.name + "' is in the registry but has no builder");
    params.check_all_used();
  }
  p.name = std::string("queue=") + key_name(p.queue) + "+" + p.placement->name() + "+comm=" + key_name(p.comm) +
           "+compute=" + key_name(p.compute) + "+" + p.admission->name();
  return p;
}

TaskPolicy make_task_policy(const std::string& text, std::uint64_t seed) {
  return make_task_policy(parse_task_policy_spec(text), seed);
}

bool is_task_policy(const std::string& text) {
  try {
    return parse_policy_spec(text).family == PolicyFamily::Task;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace rm::task
